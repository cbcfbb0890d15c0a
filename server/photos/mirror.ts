import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import { PhotoDownloadError } from './download.ts';
import { PhotoFolderGuard } from './folder-guard.ts';
import { hostOf, type PhotoHostAllowList } from './hosts.ts';
import pLimit, { type LimitFunction } from 'p-limit';
import { writeRebuildable } from './rebuildable.ts';
import { downloadInImageProcess } from './image-process.ts';
import { variantPath } from './variant-files.ts';
import type { Clock } from '../runtime/clock.ts';

/** The photo index's tables, parents first: copied from the agency's sync holder to the other relays on one database (each fetches the files itself). */
export const PHOTO_INDEX_TABLES = ['photo_files', 'photos'] as const;

export type PhotoOwnerKind = 'listing' | 'agent';
export type PhotoKind = 'photograph' | 'floorplan' | 'portrait';

/** A photo as the CRM describes it, reduced to what the mirror needs. */
export interface SourcePhoto {
  /** The CRM photo id (0 for an agent portrait, which has none). */
  photoId: number;
  kind: PhotoKind;
  position: number;
  caption: string | null;
  url: string;
  /** The CRM's change marker; null when it has none (portraits: the URL is the marker then). */
  modified: string | null;
}

/** A mirrored photo ready to be described publicly. */
export interface MirroredPhoto {
  ownerId: number;
  photoId: number;
  kind: PhotoKind;
  position: number;
  caption: string | null;
  hash: string;
  width: number;
  height: number;
  widths: number[];
}

export interface MirrorCounts {
  downloaded: number;
  /** Downloaded, but the same bytes were already mirrored (no new variants). */
  reused: number;
  unchanged: number;
  failed: number;
  removed: number;
}

export interface PhotoMirrorOptions {
  store: Store;
  log: Logger;
  allowList: PhotoHostAllowList;
  /** PHOTO_WIDTHS. */
  widths: readonly number[];
  /** PHOTO_MAX_BYTES. */
  maxBytes: number;
  /** Parallel image encodings; default: the number of cores. */
  cpuConcurrency?: number;
  /** Parallel downloads; default 6. */
  downloadConcurrency?: number;
  downloadTimeoutMs?: number;
  now?: Clock;
  /** Where the files go; default DATA_DIR/photos. Agencies on one relay share one folder (content-addressed). */
  photoDir?: string;
  /** Whether another agency's store still refers to this image: its files are then kept when this one forgets it. */
  inUseElsewhere?: (hash: string) => boolean;
  /** The guard of the photo folder, shared by every mirror writing to it (default: this mirror's own). */
  guard?: PhotoFolderGuard;
}

/** Failures worth another try on a later sync even though the photo did not change. */
const RETRYABLE_REASONS = new Set(['http_error', 'network', 'timeout']);
const MAX_ATTEMPTS = 5;

interface MadeFile {
  hash: string;
  width: number;
  height: number;
  widths: number[];
}

interface FetchResult {
  row: {
    ownerKind: PhotoOwnerKind;
    ownerId: number;
    photoId: number;
    kind: PhotoKind;
    position: number;
    caption: string | null;
    url: string;
    modified: string | null;
    hash: string | null;
    error: string | null;
    attempts: number;
  };
  /** Variants made (or shared) for this download: their photo_files row is written with the photo. */
  file?: MadeFile;
  reused: boolean;
  /** Lets go of the image's claim on the folder, once its row is written. */
  release?: () => void;
}

interface PhotoRow {
  photo_id: number;
  kind: PhotoKind;
  position: number;
  caption: string | null;
  source_url: string;
  source_modified: string | null;
  hash: string | null;
  error: string | null;
  attempts: number;
}

/**
 * Keeps a local copy of every published listing photo, floorplan and agent portrait, stored once
 * per content hash with WebP and JPEG variants. A photo is downloaded again only when the CRM's
 * `modified` (or its URL) changes; files no row refers to any more are deleted by collectGarbage.
 */
export class PhotoMirror {
  readonly photoDir: string;
  /** Running totals since start (logs, benchmarks). */
  readonly totals: MirrorCounts = { downloaded: 0, reused: 0, unchanged: 0, failed: 0, removed: 0 };
  private readonly cpuLimit: LimitFunction;
  private readonly downloadLimit: LimitFunction;
  private readonly now: Clock;
  private readonly log: Logger;
  private readonly inFlight = new Map<string, Promise<MadeFile>>();
  private readonly guard: PhotoFolderGuard;

  constructor(private readonly options: PhotoMirrorOptions) {
    this.photoDir = options.photoDir ?? join(options.store.dataDir, 'photos');
    this.guard = options.guard ?? new PhotoFolderGuard();
    this.cpuLimit = pLimit(options.cpuConcurrency ?? availableParallelism());
    this.downloadLimit = pLimit(options.downloadConcurrency ?? 6);
    this.now = options.now ?? Date.now;
    this.log = options.log.child({ component: 'photos' });
  }

  private get db() {
    return tablesOf(this.options.store);
  }

  /**
   * Brings one owner's photos in line with `photos` (its published photos, in order): new and
   * changed ones are downloaded, gone ones forgotten, all rows written in one transaction. A failed
   * download keeps the previous file, if any, so a listing never loses a photo because the file
   * host had a bad minute.
   */
  async syncOwner(kind: PhotoOwnerKind, ownerId: number, photos: readonly SourcePhoto[], signal?: AbortSignal): Promise<MirrorCounts> {
    const counts: MirrorCounts = { downloaded: 0, reused: 0, unchanged: 0, failed: 0, removed: 0 };
    const existing = new Map(
      (
        this.db
          .prepare(
            'SELECT photo_id, kind, position, caption, source_url, source_modified, hash, error, attempts FROM photos WHERE owner_kind = ? AND owner_id = ?',
          )
          .all(kind, ownerId) as PhotoRow[]
      ).map((row) => [row.photo_id, row]),
    );
    const wanted = new Set(photos.map((photo) => photo.photoId));
    const gone = [...existing.keys()].filter((photoId) => !wanted.has(photoId));
    const metaChanges: SourcePhoto[] = [];
    const fetches: Array<Promise<FetchResult>> = [];
    for (const photo of photos) {
      const row = existing.get(photo.photoId);
      if (row && !this.needsFetch(row, photo)) {
        if (row.kind !== photo.kind || row.position !== photo.position || row.caption !== photo.caption) metaChanges.push(photo);
        counts.unchanged++;
        continue;
      }
      fetches.push(this.fetchOne(kind, ownerId, photo, row, signal));
    }
    const settled = await Promise.allSettled(fetches);
    const fetched = settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const releaseAll = () => fetched.forEach((result) => result.release?.());
    const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) {
      releaseAll();
      throw failure.reason;
    }

    // The images' claims on the shared folder are let go only once their rows are written: no clean-up deletes them in between.
    try {
      this.writeOwner(kind, ownerId, gone, metaChanges, fetched);
    } finally {
      releaseAll();
    }

    counts.removed += gone.length;
    for (const result of fetched) {
      if (result.row.error === null) {
        counts.downloaded++;
        if (result.reused) counts.reused++;
      } else {
        counts.failed++;
      }
    }
    for (const key of Object.keys(counts) as Array<keyof MirrorCounts>) this.totals[key] += counts[key];
    return counts;
  }

  private writeOwner(kind: PhotoOwnerKind, ownerId: number, gone: number[], metaChanges: SourcePhoto[], fetched: FetchResult[]): void {
    writeRebuildable(this.db, () => {
      const remove = this.db.prepare('DELETE FROM photos WHERE owner_kind = ? AND owner_id = ? AND photo_id = ?');
      for (const photoId of gone) remove.run(kind, ownerId, photoId);
      const updateMeta = this.db.prepare(
        'UPDATE photos SET kind = ?, position = ?, caption = ?, updated_at = ? WHERE owner_kind = ? AND owner_id = ? AND photo_id = ?',
      );
      for (const photo of metaChanges) updateMeta.run(photo.kind, photo.position, photo.caption, this.now(), kind, ownerId, photo.photoId);
      const insertFile = this.db.prepare('INSERT OR IGNORE INTO photo_files (hash, width, height, widths, created_at) VALUES (?, ?, ?, ?, ?)');
      const upsert = this.db.prepare(
        `INSERT INTO photos (owner_kind, owner_id, photo_id, kind, position, caption, source_url, source_modified, hash, error, attempts, updated_at)
         VALUES (@ownerKind, @ownerId, @photoId, @kind, @position, @caption, @url, @modified, @hash, @error, @attempts, @now)
         ON CONFLICT (owner_kind, owner_id, photo_id) DO UPDATE SET
           kind = excluded.kind, position = excluded.position, caption = excluded.caption, source_url = excluded.source_url,
           source_modified = excluded.source_modified, hash = excluded.hash, error = excluded.error,
           attempts = excluded.attempts, updated_at = excluded.updated_at`,
      );
      for (const result of fetched) {
        if (result.file) insertFile.run(result.file.hash, result.file.width, result.file.height, JSON.stringify(result.file.widths), this.now());
        upsert.run({ ...result.row, now: this.now() });
      }
    });
  }

  /**
   * Records photos to be downloaded later (recordLater): a row of each without a file (hash and
   * error null, "pending"), which the public listing leaves out until syncOwner has mirrored it.
   * Photos already on record are left as they are: syncOwner compares them with the CRM's.
   */
  recordLater(kind: PhotoOwnerKind, ownerId: number, photos: readonly SourcePhoto[]): void {
    if (photos.length === 0) return;
    const insert = this.db.prepare(
      `INSERT INTO photos (owner_kind, owner_id, photo_id, kind, position, caption, source_url, source_modified, hash, error, attempts, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, ?)
       ON CONFLICT (owner_kind, owner_id, photo_id) DO NOTHING`,
    );
    writeRebuildable(this.db, () => {
      for (const photo of photos) insert.run(kind, ownerId, photo.photoId, photo.kind, photo.position, photo.caption, photo.url, photo.modified, this.now());
    });
  }

  /** A photo is fetched when pending, when the CRM changed it (modified or URL), or when its last download failed for a passing reason. */
  private needsFetch(row: PhotoRow, photo: SourcePhoto): boolean {
    if (row.hash === null && row.error === null) return true;
    if (row.source_url !== photo.url || row.source_modified !== photo.modified) return true;
    // (The row may still show the previous file: the new one is what is retried.)
    return row.error !== null && RETRYABLE_REASONS.has(row.error) && row.attempts < MAX_ATTEMPTS;
  }

  private async fetchOne(
    kind: PhotoOwnerKind,
    ownerId: number,
    photo: SourcePhoto,
    previous: PhotoRow | undefined,
    signal?: AbortSignal,
  ): Promise<FetchResult> {
    const row = {
      ownerKind: kind,
      ownerId,
      photoId: photo.photoId,
      kind: photo.kind,
      position: photo.position,
      caption: photo.caption,
      url: photo.url,
      modified: photo.modified,
    };
    try {
      const file = await this.mirrorFile(photo.url, signal);
      return { row: { ...row, hash: file.hash, error: null, attempts: 0 }, file: file.made, reused: file.reused, release: file.release };
    } catch (error) {
      if (signal?.aborted) throw error;
      const reason = error instanceof PhotoDownloadError ? (error.permanent && error.reason === 'http_error' ? 'gone' : error.reason) : 'internal';
      const sameSource = previous !== undefined && previous.source_url === photo.url && previous.source_modified === photo.modified;
      const level = reason === 'host_not_allowed' ? 'warn' : 'info';
      this.log[level](
        { owner: kind, ownerId, photoId: photo.photoId, reason, host: hostOf(photo.url) },
        reason === 'host_not_allowed'
          ? 'photo host not in PHOTO_HOSTS: photo refused (add the host to PHOTO_HOSTS if it is the CRM file host)'
          : `photo not mirrored: ${(error as Error).message}`,
      );
      // The previous file (if any) stays on show until a download succeeds.
      return { row: { ...row, hash: previous?.hash ?? null, error: reason, attempts: sameSource ? previous.attempts + 1 : 1 }, reused: false };
    }
  }

  /**
   * Downloads a file and makes its variants unless the same bytes are already mirrored (or being
   * mirrored for another photo right now: the work is shared).
   */
  private async mirrorFile(url: string, signal?: AbortSignal): Promise<{ hash: string; made?: MadeFile; reused: boolean; release: () => void }> {
    // The bytes stay in the image process: the relay learns their hash and asks for variants only when they are new.
    const photo = await this.downloadLimit(() =>
      downloadInImageProcess(url, { hosts: this.options.allowList.hosts, maxBytes: this.options.maxBytes, timeoutMs: this.options.downloadTimeoutMs, signal }),
    );
    const { hash } = photo;
    let release: (() => void) | undefined;
    try {
      // Claimed before the files are looked at or written, held until the caller has written the row.
      release = await this.guard.claim(hash);
      if (this.db.prepare('SELECT 1 FROM photo_files WHERE hash = ?').get(hash)) return { hash, reused: true, release };
      let making = this.inFlight.get(hash);
      const reused = making !== undefined;
      if (!making) {
        making = this.cpuLimit(() => photo.makeVariants(this.photoDir, this.options.widths)).then((made) => ({ hash, ...made }));
        this.inFlight.set(hash, making);
        void making.finally(() => this.inFlight.delete(hash)).catch(() => undefined);
      }
      return { hash, made: await making, reused, release };
    } catch (error) {
      release?.();
      throw error;
    } finally {
      photo.drop();
    }
  }

  /** Forgets every photo of these owners (listings that left); files go at the next collectGarbage. */
  removeOwners(kind: PhotoOwnerKind, ownerIds: readonly number[]): number {
    const remove = this.db.prepare('DELETE FROM photos WHERE owner_kind = ? AND owner_id = ?');
    let removed = 0;
    writeRebuildable(this.db, () => {
      for (const id of ownerIds) removed += remove.run(kind, id).changes;
    });
    this.totals.removed += removed;
    return removed;
  }

  /** Owners with a photo still to mirror: recorded for later (recordLater) and not downloaded yet, or whose last download failed for a reason that may pass. */
  ownersToFinish(kind: PhotoOwnerKind): number[] {
    return this.db
      .prepare(
        `SELECT DISTINCT owner_id FROM photos WHERE owner_kind = ?
         AND ((hash IS NULL AND error IS NULL) OR (error IN (${[...RETRYABLE_REASONS].map(() => '?').join(', ')}) AND attempts < ?))`,
      )
      .pluck()
      .all(kind, ...RETRYABLE_REASONS, MAX_ATTEMPTS) as number[];
  }

  /** The photos of one owner as last described by the CRM (to retry failed downloads without asking the CRM again). */
  sourcesOf(kind: PhotoOwnerKind, ownerId: number): SourcePhoto[] {
    return this.db
      .prepare(
        `SELECT photo_id AS photoId, kind, position, caption, source_url AS url, source_modified AS modified
         FROM photos WHERE owner_kind = ? AND owner_id = ? ORDER BY position, photo_id`,
      )
      .all(kind, ownerId) as SourcePhoto[];
  }

  /**
   * Deletes the files of images no photo refers to any more. Call when no sync of this mirror is
   * running. In a shared folder it is one pass of the folder's guard: files another mirror holds, or
   * has claimed to record right now, are kept.
   */
  collectGarbage(): Promise<number> {
    return this.guard.clean(() => this.collectGarbageNow());
  }

  private async collectGarbageNow(): Promise<number> {
    const orphans = this.db.prepare('SELECT hash, widths FROM photo_files WHERE hash NOT IN (SELECT hash FROM photos WHERE hash IS NOT NULL)').all() as Array<{
      hash: string;
      widths: string;
    }>;
    if (orphans.length === 0) return 0;
    const remove = this.db.prepare('DELETE FROM photo_files WHERE hash = ?');
    writeRebuildable(this.db, () => orphans.forEach((orphan) => remove.run(orphan.hash)));
    // A shared folder: an image this agency no longer shows may still be another's, or about to be.
    const inUseElsewhere = this.options.inUseElsewhere ?? (() => false);
    await Promise.all(
      orphans
        .filter((orphan) => !this.guard.isClaimed(orphan.hash) && !inUseElsewhere(orphan.hash))
        .flatMap((orphan) =>
          (JSON.parse(orphan.widths) as number[]).flatMap((width) =>
            (['webp', 'jpeg'] as const).map((format) => rm(variantPath(this.photoDir, orphan.hash, width, format), { force: true })),
          ),
        ),
    );
    return orphans.length;
  }

  /**
   * Each listing's first published photograph (as `photosOf` orders them), by listing id: one row a
   * listing, for answers that show a thumbnail and nothing else (the map's pins of thousands). One
   * look-up a listing on the primary key (owner_kind, owner_id, …) for its first downloaded
   * photograph, rather than ranking every photo of every listing asked for.
   */
  firstPhotographsOf(ownerIds: readonly number[]): Map<number, Pick<MirroredPhoto, 'hash' | 'widths'>> {
    const result = new Map<number, Pick<MirroredPhoto, 'hash' | 'widths'>>();
    if (ownerIds.length === 0) return result;
    const rows = this.db
      .prepare(
        `SELECT owners.value AS ownerId, f.hash, f.widths FROM json_each(?) owners
         JOIN photo_files f ON f.hash = (
           SELECT p.hash FROM photos p JOIN photo_files downloaded ON downloaded.hash = p.hash
           WHERE p.owner_kind = 'listing' AND p.owner_id = owners.value AND p.kind = 'photograph'
           ORDER BY p.position, p.photo_id LIMIT 1)`,
      )
      .all(JSON.stringify(ownerIds)) as Array<{ ownerId: number; hash: string; widths: string }>;
    for (const row of rows) result.set(row.ownerId, { hash: row.hash, widths: JSON.parse(row.widths) as number[] });
    return result;
  }

  /** The mirrored photos of these owners, in order, grouped by owner. Photos never downloaded are left out. */
  photosOf(kind: PhotoOwnerKind, ownerIds: readonly number[]): Map<number, MirroredPhoto[]> {
    const result = new Map<number, MirroredPhoto[]>();
    if (ownerIds.length === 0) return result;
    const rows = this.db
      .prepare(
        `SELECT p.owner_id AS ownerId, p.photo_id AS photoId, p.kind, p.position, p.caption, p.hash, f.width, f.height, f.widths
         FROM photos p JOIN photo_files f ON f.hash = p.hash
         WHERE p.owner_kind = ? AND p.owner_id IN (SELECT value FROM json_each(?))
         ORDER BY p.owner_id, p.position, p.photo_id`,
      )
      .all(kind, JSON.stringify(ownerIds)) as Array<Omit<MirroredPhoto, 'widths'> & { widths: string }>;
    for (const row of rows) {
      const list = result.get(row.ownerId) ?? [];
      list.push({ ...row, widths: JSON.parse(row.widths) as number[] });
      result.set(row.ownerId, list);
    }
    return result;
  }
}

/** Whether this store's mirror holds the image `hash` (another agency's mirror asks before deleting its files). */
export function holdsPhoto(store: Store, hash: string): boolean {
  return hasTable(store, 'photo_files') && tablesOf(store).prepare('SELECT 1 FROM photo_files WHERE hash = ?').get(hash) !== undefined;
}

/** An image on record: its content hash and the widths of its variants (each as WebP and JPEG). */
export interface RecordedImage {
  hash: string;
  widths: number[];
}

/** Every image this store's photo_files records (read only: a follower's fill never writes these tables). */
export function recordedImages(store: Store): RecordedImage[] {
  if (!hasTable(store, 'photo_files')) return [];
  return (tablesOf(store).prepare('SELECT hash, widths FROM photo_files ORDER BY hash').all() as Array<{ hash: string; widths: string }>)
    .filter((row) => IMAGE_HASH.test(row.hash))
    .map(parseImage);
}

/** One image on record, or undefined. */
export function recordedImage(store: Store, hash: string): RecordedImage | undefined {
  if (!IMAGE_HASH.test(hash) || !hasTable(store, 'photo_files')) return undefined;
  const row = tablesOf(store).prepare('SELECT hash, widths FROM photo_files WHERE hash = ?').get(hash) as { hash: string; widths: string } | undefined;
  return row && parseImage(row);
}

/** A hash as the mirror names files: a replicated row holding anything else (a path, say) names no file. */
const IMAGE_HASH = /^[0-9a-f]{32}$/;

function parseImage(row: { hash: string; widths: string }): RecordedImage {
  let widths: unknown;
  try {
    widths = JSON.parse(row.widths);
  } catch {
    widths = [];
  }
  // A replicated row is data from elsewhere: only sane widths are taken.
  const sane = Array.isArray(widths) ? widths.filter((width): width is number => Number.isInteger(width) && width > 0 && width <= 16_383) : [];
  return { hash: row.hash, widths: sane };
}

/**
 * The file-host URLs that showed image `hash`: first those whose last download succeeded (a row
 * whose newer file failed still shows the older image under its new URL), then the others.
 */
export function sourceUrlsOf(store: Store, hash: string): string[] {
  return tablesOf(store)
    .prepare('SELECT source_url FROM photos WHERE hash = ? GROUP BY source_url ORDER BY MIN(error IS NOT NULL), source_url')
    .pluck()
    .all(hash) as string[];
}

/** The mirror's figures for `npm run relay -- status`: photo records by state, distinct images stored. */
export function photoStatus(store: Store): { mirrored: number; pending: number; failed: number; images: number } {
  if (!hasTable(store, 'photos')) return { mirrored: 0, pending: 0, failed: 0, images: 0 };
  const db = tablesOf(store);
  const row = db
    .prepare(
      `SELECT SUM(hash IS NOT NULL) AS mirrored, SUM(hash IS NULL AND error IS NULL) AS pending, SUM(hash IS NULL AND error IS NOT NULL) AS failed FROM photos`,
    )
    .get() as { mirrored: number | null; pending: number | null; failed: number | null };
  const images = db.prepare('SELECT COUNT(*) FROM photo_files').pluck().get() as number;
  return { mirrored: row.mirrored ?? 0, pending: row.pending ?? 0, failed: row.failed ?? 0, images };
}

/** Photos mirrored so far (0 before the table exists): sampled by the sync progress display. */
export function countMirroredPhotos(store: Store): number {
  return hasTable(store, 'photos') ? (tablesOf(store).prepare('SELECT COUNT(*) FROM photos WHERE hash IS NOT NULL').pluck().get() as number) : 0;
}

/**
 * Photo files are not in a backup (they are a cache of the CRM's images). After a restore, images
 * whose files are missing from `photoDir` are forgotten; returns how many, and the listings that
 * showed them (to be fetched again).
 */
export function forgetMissingPhotoFiles(
  store: Store,
  photoDir: string,
  options: { hash?: string; largestOnly?: boolean } = {},
): { images: number; listingIds: number[] } {
  const db = tablesOf(store);
  const files = (
    options.hash
      ? db.prepare('SELECT hash, widths FROM photo_files WHERE hash = ?').all(options.hash)
      : db.prepare('SELECT hash, widths FROM photo_files').all()
  ) as Array<{ hash: string; widths: string }>;
  // largestOnly: one look per image (a clean-up deletes all of an image's files together), for a check at every start.
  const checked = (widths: number[]) => (options.largestOnly ? widths.slice(-1) : widths);
  const missing = files
    .filter(({ hash, widths }) => checked(JSON.parse(widths) as number[]).some((width) => !existsSync(variantPath(photoDir, hash, width, 'webp'))))
    .map(({ hash }) => hash);
  const listingIds = new Set<number>();
  const owners = db.prepare('SELECT DISTINCT owner_kind AS kind, owner_id AS id FROM photos WHERE hash = ?');
  const forgetRows = db.prepare('DELETE FROM photos WHERE hash = ?');
  const forgetFile = db.prepare('DELETE FROM photo_files WHERE hash = ?');
  for (const hash of missing) {
    for (const owner of owners.all(hash) as Array<{ kind: string; id: number }>) if (owner.kind === 'listing') listingIds.add(owner.id);
    forgetRows.run(hash);
    forgetFile.run(hash);
  }
  return { images: missing.length, listingIds: [...listingIds] };
}
