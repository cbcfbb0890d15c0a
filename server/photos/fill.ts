import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { PhotoDownloadError } from './download.ts';
import { PhotoFolderGuard } from './folder-guard.ts';
import { hostOf, type PhotoHostAllowList } from './hosts.ts';
import { recordedImage, recordedImages, sourceUrlsOf, type RecordedImage } from './mirror.ts';
import { downloadInImageProcess, type KeptPhoto } from './image-process.ts';
import { VARIANT_FILE_NAME, variantPath, type VariantFormat } from './variant-files.ts';

export interface PhotoFillOptions {
  store: Store;
  log: Logger;
  /** PHOTO_HOSTS, as the mirror has it. */
  allowList: PhotoHostAllowList;
  /** PHOTO_MAX_BYTES. */
  maxBytes: number;
  /** Where the files go; default DATA_DIR/photos (agencies on one relay share it). */
  photoDir?: string;
  /** The guard of the photo folder, shared with every mirror and fill writing to it. */
  guard?: PhotoFolderGuard;
  /** Whether another agency's store on this relay still refers to this image (prune keeps its files). */
  inUseElsewhere?: (hash: string) => boolean;
  /** Images filled at once (download, check, encode); 1 to 4, default 3. */
  concurrency?: number;
  downloadTimeoutMs?: number;
  /** How long fillOne waits for a file before the route answers 404; default 4 s. */
  waitMs?: number;
  now?: Clock;
}

export interface FillCounts {
  /** Images on record with a variant file absent from the folder when the pass looked. */
  missing: number;
  /** Of those, made now: every recorded width, both formats, byte for byte what the leader made. */
  filled: number;
  /** Of those, not made: no source, the host refused or is not allowed, or it now serves other bytes. */
  failed: number;
  /** Of those, not tried: an earlier try failed and its back-off has not run out. */
  deferred: number;
}

type Outcome = 'filled' | 'present' | 'failed' | 'unknown' | 'stopped';

interface Job {
  promise: Promise<Outcome>;
  resolve: (outcome: Outcome) => void;
  started: boolean;
}

const FORMATS: readonly VariantFormat[] = ['webp', 'jpeg'];
/** Back-off after a failed fill: 30 s, doubling, at most an hour (a replica apply every few seconds must not hammer the file host). */
const FIRST_RETRY_MS = 30_000;
const LAST_RETRY_MS = 3_600_000;
/** A temp file this old is a crashed write's leftover (a live write takes seconds). */
const STALE_TEMP_MS = 3_600_000;

/**
 * Fills a relay's photo folder from the CRM's file host by content hash, for a relay that does not
 * run the agency's mirror (a sync follower: its photo_files and photos rows come from the leader
 * through the replica). Files are named by the hash of the downloaded bytes and made by the
 * mirror's own download and variants code, so every relay ends with the same files, byte for byte,
 * at the same URLs. It only reads the photo tables: a follower never writes replicated tables.
 */
export class PhotoFill {
  readonly photoDir: string;
  /** Running totals since start (logs, status). */
  readonly totals = { filled: 0, failed: 0, pruned: 0 };
  private readonly log: Logger;
  private readonly guard: PhotoFolderGuard;
  private readonly now: Clock;
  private readonly concurrency: number;
  private readonly stopping = new AbortController();
  /** Images seen with every file in place: not looked at again until prune or a route finds one gone. */
  private readonly complete = new Set<string>();
  private readonly failures = new Map<string, { count: number; retryAt: number }>();
  private readonly jobs = new Map<string, Job>();
  private readonly queue: string[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private active = 0;

  constructor(private readonly options: PhotoFillOptions) {
    this.photoDir = options.photoDir ?? join(options.store.dataDir, 'photos');
    this.log = options.log.child({ component: 'photo-fill' });
    this.guard = options.guard ?? new PhotoFolderGuard();
    this.now = options.now ?? systemClock;
    this.concurrency = Math.min(4, Math.max(1, Math.floor(options.concurrency ?? 3)));
  }

  /**
   * Fills every image on record whose files are not all in the folder. Idempotent: a second pass
   * finds nothing to do. Images whose last try failed wait out their back-off unless `retryFailed`.
   */
  async fillMissing(options: { retryFailed?: boolean } = {}): Promise<FillCounts> {
    const counts: FillCounts = { missing: 0, filled: 0, failed: 0, deferred: 0 };
    if (this.stopping.signal.aborted) return counts;
    const images = recordedImages(this.options.store);
    const recorded = new Set(images.map((image) => image.hash));
    for (const hash of this.complete) if (!recorded.has(hash)) this.complete.delete(hash);
    for (const hash of this.failures.keys()) if (!recorded.has(hash)) this.failures.delete(hash);

    const fills: Array<Promise<void>> = [];
    for (const image of images) {
      if (this.complete.has(image.hash) || image.widths.length === 0) continue;
      if (this.hasAllFiles(image)) {
        this.complete.add(image.hash);
        continue;
      }
      counts.missing++;
      if (!options.retryFailed && this.deferred(image.hash)) {
        counts.deferred++;
        continue;
      }
      fills.push(
        this.schedule(image.hash, false).then((outcome) => {
          if (outcome === 'filled' || outcome === 'present') counts.filled++;
          else if (outcome === 'failed' || outcome === 'unknown') counts.failed++;
        }),
      );
    }
    await Promise.all(fills);
    // Said when something was tried: images waiting out a back-off would repeat it at every replica update.
    if (counts.filled + counts.failed > 0) {
      this.log.info(
        counts,
        `photo fill: ${counts.filled} of ${counts.missing} missing image(s) fetched from the file host, ${counts.failed} failed, ${counts.deferred} waiting to retry`,
      );
    }
    return counts;
  }

  /**
   * For the /photos/ route: fills one image on record now (ahead of any backlog; shared with a
   * fill of it under way) and says whether its files are there within `waitMs`. An unknown hash,
   * or one in back-off, answers false at once and costs no download.
   */
  async fillOne(hash: string, waitMs = this.options.waitMs ?? 4_000): Promise<boolean> {
    if (this.stopping.signal.aborted) return false;
    // recordedImage answers undefined for anything that is not a content hash.
    const image = recordedImage(this.options.store, hash);
    if (!image || image.widths.length === 0) return false;
    // Someone may have deleted a file the set still counts as present.
    this.complete.delete(hash);
    if (this.hasAllFiles(image)) {
      this.complete.add(hash);
      return true;
    }
    if (this.deferred(hash)) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => resolve('stopped'), waitMs);
      timer.unref();
    });
    try {
      const outcome = await Promise.race([this.schedule(hash, true), late]);
      return outcome === 'filled' || outcome === 'present';
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether this agency's store records image `hash` (the relay's route asks each agency's fill). */
  knows(hash: string): boolean {
    return recordedImage(this.options.store, hash) !== undefined;
  }

  /**
   * Deletes the variant files of images no longer on record, in this store or (shared folder) any
   * other agency's, and crashed writes' temp files. One pass of the folder's guard: an image a
   * mirror or fill has claimed to write right now keeps its files. Call after a replica apply, not
   * before the first: an empty store would let every file go.
   */
  prune(): Promise<{ images: number; files: number }> {
    return this.guard.clean(() => this.pruneNow());
  }

  private async pruneNow(): Promise<{ images: number; files: number }> {
    const recorded = new Set(recordedImages(this.options.store).map((image) => image.hash));
    const inUseElsewhere = this.options.inUseElsewhere ?? (() => false);
    const keep = new Map<string, boolean>();
    const keeps = (hash: string): boolean => {
      let kept = keep.get(hash);
      if (kept === undefined) {
        kept = recorded.has(hash) || this.guard.isClaimed(hash) || this.jobs.has(hash) || inUseElsewhere(hash);
        keep.set(hash, kept);
      }
      return kept;
    };
    let files = 0;
    const images = new Set<string>();
    const folders = await readdir(this.photoDir).catch(() => [] as string[]);
    for (const folder of folders) {
      if (!/^[0-9a-f]{2}$/.test(folder)) continue;
      const names = await readdir(join(this.photoDir, folder)).catch(() => [] as string[]);
      for (const name of names) {
        const path = join(this.photoDir, folder, name);
        const variant = VARIANT_FILE_NAME.exec(name);
        if (variant) {
          const hash = variant[1]!;
          if (!hash.startsWith(folder) || keeps(hash)) continue;
          await rm(path, { force: true });
          files++;
          images.add(hash);
          this.complete.delete(hash);
        } else if (name.endsWith('.tmp')) {
          const info = await stat(path).catch(() => undefined);
          if (info && Date.now() - info.mtimeMs > STALE_TEMP_MS) {
            await rm(path, { force: true });
            files++;
          }
        }
      }
    }
    this.totals.pruned += images.size;
    if (files > 0) this.log.info({ images: images.size, files }, `photo fill: removed ${files} file(s) of ${images.size} image(s) no longer on record`);
    return { images: images.size, files };
  }

  /** Stops: queued fills are dropped, downloads under way aborted; resolves once work under way has ended. Final. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const hash of this.queue.splice(0)) {
      this.jobs.get(hash)?.resolve('stopped');
      this.jobs.delete(hash);
    }
    await Promise.allSettled([...this.running]);
  }

  private hasAllFiles(image: RecordedImage): boolean {
    return image.widths.every((width) => FORMATS.every((format) => existsSync(variantPath(this.photoDir, image.hash, width, format))));
  }

  private deferred(hash: string): boolean {
    const failure = this.failures.get(hash);
    return failure !== undefined && failure.retryAt > this.now();
  }

  /** One job per image at a time; `urgent` (a visitor is waiting) goes to the front of the queue. */
  private schedule(hash: string, urgent: boolean): Promise<Outcome> {
    let job = this.jobs.get(hash);
    if (!job) {
      let resolve!: (outcome: Outcome) => void;
      const promise = new Promise<Outcome>((done) => (resolve = done));
      job = { promise, resolve, started: false };
      this.jobs.set(hash, job);
      if (urgent) this.queue.unshift(hash);
      else this.queue.push(hash);
    } else if (urgent && !job.started) {
      this.queue.splice(this.queue.indexOf(hash), 1);
      this.queue.unshift(hash);
    }
    this.pump();
    return job.promise;
  }

  private pump(): void {
    while (this.active < this.concurrency && this.queue.length > 0) {
      const hash = this.queue.shift()!;
      const job = this.jobs.get(hash)!;
      job.started = true;
      this.active++;
      const run = this.fillNow(hash)
        .catch((error: unknown) => {
          this.log.error({ hash, err: error instanceof Error ? error.message : String(error) }, 'photo fill: unexpected error');
          return 'failed' as const;
        })
        .then((outcome) => {
          this.active--;
          this.jobs.delete(hash);
          this.running.delete(run);
          job.resolve(outcome);
          this.pump();
        });
      this.running.add(run);
    }
  }

  private async fillNow(hash: string): Promise<Outcome> {
    if (this.stopping.signal.aborted) return 'stopped';
    const image = recordedImage(this.options.store, hash);
    if (!image || image.widths.length === 0) return 'unknown';
    // Claimed while the files are written: a clean-up pass of the shared folder keeps them.
    const release = await this.guard.claim(hash);
    try {
      if (this.hasAllFiles(image)) {
        this.complete.add(hash);
        return 'present';
      }
      const urls = sourceUrlsOf(this.options.store, hash);
      if (urls.length === 0) return this.failed(hash, 'no_source', undefined);
      let last: { reason: string; url: string } | undefined;
      for (const url of urls) {
        let photo: KeptPhoto;
        try {
          photo = await downloadInImageProcess(url, {
            hosts: this.options.allowList.hosts,
            maxBytes: this.options.maxBytes,
            timeoutMs: this.options.downloadTimeoutMs,
            signal: this.stopping.signal,
          });
        } catch (error) {
          if (this.stopping.signal.aborted) return 'stopped';
          last = { reason: error instanceof PhotoDownloadError ? error.reason : 'internal', url };
          continue;
        }
        // The host may now serve other bytes at this URL (the photo changed): those are not this image.
        if (photo.hash !== hash) {
          photo.drop();
          last = { reason: 'hash_mismatch', url };
          continue;
        }
        try {
          await photo.makeVariants(this.photoDir, image.widths);
        } catch (error) {
          last = { reason: error instanceof PhotoDownloadError ? error.reason : 'internal', url };
          continue;
        }
        if (!this.hasAllFiles(image)) {
          // Recorded widths the bytes cannot give (a replicated row that does not match its image).
          last = { reason: 'widths_mismatch', url };
          continue;
        }
        this.failures.delete(hash);
        this.complete.add(hash);
        this.totals.filled++;
        return 'filled';
      }
      return this.failed(hash, last!.reason, last!.url);
    } finally {
      release();
    }
  }

  private failed(hash: string, reason: string, url: string | undefined): Outcome {
    this.totals.failed++;
    const count = (this.failures.get(hash)?.count ?? 0) + 1;
    this.failures.set(hash, { count, retryAt: this.now() + Math.min(LAST_RETRY_MS, FIRST_RETRY_MS * 2 ** (count - 1)) });
    // The host only: a URL's path or query may carry a signed token. Said once per image, not at every retry.
    const level = count > 1 ? 'debug' : reason === 'host_not_allowed' ? 'warn' : 'info';
    this.log[level](
      { hash, reason, host: hostOf(url), attempts: count },
      reason === 'host_not_allowed'
        ? 'photo fill: file host not in PHOTO_HOSTS (give every relay the same PHOTO_HOSTS)'
        : `photo fill: image not fetched (${reason}); tried again later`,
    );
    return 'failed';
  }
}

/**
 * The /photos/ route's fill on a relay of many agencies: the first agency whose store records the
 * image fills it. Pass to photosRouter as `fill`.
 */
export function fillFromAgencies(fills: () => Iterable<PhotoFill>): (hash: string) => Promise<boolean> {
  return async (hash) => {
    for (const fill of fills()) if (fill.knows(hash)) return fill.fillOne(hash);
    return false;
  };
}
