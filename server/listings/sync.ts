import type { Config } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import pLimit from 'p-limit';
import type { MirrorCounts, PhotoMirror, PhotoOwnerKind } from '../photos/mirror.ts';
import type { ListingType } from '../../contract/relay-api.ts';
import type { ListingCache, OpenHomeRow } from './cache.ts';
import type { ListedRecord, ListingSource, MappedAgent, PushedRecord, SourceList } from './source.ts';
import type { Clock } from '../runtime/clock.ts';
import { asWork } from '../runtime/work-class.ts';
import type { FillTurns } from './fill-turns.ts';

export type SyncKind = 'incremental' | 'full';

export interface SyncReport {
  kind: SyncKind;
  /** True when every list, page and step succeeded. */
  complete: boolean;
  pages: number;
  /** Records read from the source's lists. */
  listings: number;
  /** Listings written (new or changed). */
  changed: number;
  removed: number;
  photos: MirrorCounts;
  /** Source (CRM) requests this run spent (from the shared budget counter). */
  crmRequests: number;
  seconds: number;
  error?: string;
}

export type ListingSyncConfig = Pick<Config, 'listings'>;

export interface ListingSyncOptions {
  source: ListingSource;
  cache: ListingCache;
  mirror: PhotoMirror;
  log: Logger;
  config: ListingSyncConfig;
  now?: Clock;
  /** Listings processed (photos mirrored) at once. Default 4. */
  listingConcurrency?: number;
  /** Records per page of a list. Default: the source's. */
  pageSize?: number;
  /** Called after each successful full sweep (the budget is planned again with the real list sizes). */
  afterSweep?: () => void;
  /** Wait before trying a failed first fill again, doubling each time up to LIST_POLL_MINUTES. Default 30 s. */
  firstFillRetryMs?: number;
  /**
   * Relays sharing a database: whether this relay holds the agency's sync now. A run asked of a
   * relay that does not (the operator CLI's signal, say) is refused: its writes would be another's
   * to make. Default: always.
   */
  holdsSync?: () => boolean;
  /** Many agencies on one relay: a first fill writes its listings in one of a few turns, the smallest agency first (fill-turns.ts). */
  fillTurns?: FillTurns;
}

/** A run refused because another relay holds the agency's sync (relays on one database). */
export const NOT_SYNC_HOLDER = "another relay holds this agency's sync; it runs there";

/** Owners of photos to mirror (a first fill's, once the agency serves). */
type PhotoOwners = Array<{ kind: PhotoOwnerKind; ownerId: number }>;

/** The report of a run that did nothing (refused, or failed before any step). */
function notRun(kind: SyncKind, error: string): SyncReport {
  return { ...emptyReport(kind), error };
}

/** modifiedSince reaches this far before the previous run's start: clocks differ, and a record saved mid-run must not slip through. */
const MODIFIED_SINCE_OVERLAP_MS = 5 * 60_000;
/** Open homes are read at most this often (and on every full sweep): enough for a weekend's schedule, cheap on the budget. */
export const OPEN_HOMES_EVERY_MS = 60 * 60_000;
/** How far ahead open homes are read. */
const OPEN_HOMES_AHEAD_MS = 28 * 86_400_000;
/** Listings written between two invalidations of the API's rendered responses during a long run. */
const PUBLISH_EVERY = 10;
/** A first fill's photo owners mirrored in one job of the sync's queue (mirrorLater). */
const PHOTOS_LATER_CHUNK = 10;

/**
 * Keeps the listing cache in step with the CRM: incremental runs (modifiedSince) every
 * LIST_POLL_MINUTES, a full sweep every FULL_SWEEP_HOURS (the only time listings that left a
 * list are removed), and refreshes of the listings the CRM's push names (events.ts). Runs never overlap. A run that
 * fails changes nothing it did not finish, and never removes anything.
 */
export class ListingSync {
  readonly name = 'listing-sync';
  readonly specs: readonly SourceList[];
  private readonly now: Clock;
  private readonly log: Logger;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private abort = new AbortController();
  private openHomesAt: number | undefined;
  /** Failed runs since start while the cache has never been filled. */
  private failedFills = 0;
  /** Whether the cache has been filled once (read from the store at the first ask; true for good once a run succeeds). */
  private filled: boolean | undefined;
  /** A first fill has just served with its photos recorded for later: run() mirrors them. */
  private photosPending = false;
  /** Settled once a first fill's photos are mirrored (or failed for now): photosMirrored(). */
  private photoPhase: { done: Promise<void>; settle: () => void } | undefined;
  /** The agency's size as its first fill learned it: the first list page's total, else what the cache held. */
  private sizeEstimate: number | undefined;

  constructor(private readonly options: ListingSyncOptions) {
    this.specs = options.source.lists;
    this.now = options.now ?? Date.now;
    this.log = options.log.child({ component: 'listing-sync' });
  }

  // Worker -------------------------------------------------------------------------------------

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    // Started again after a stop (a relay that took the agency's sync back): a signal not yet aborted.
    if (this.abort.signal.aborted) this.abort = new AbortController();
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.queue.catch(() => undefined);
    // Stopped before the photos: whoever waits for them is not left waiting.
    this.photoPhase?.settle();
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.run(this.dueKind()).then((report) => {
        this.schedule(this.nextRunDelayMs());
        return report;
      });
    }, delayMs);
    this.timer.unref();
  }

  /**
   * The next poll after LIST_POLL_MINUTES, except while the cache has never been filled: until then
   * the agency's listing API answers "filling", so a failed first fill is tried again soon (30 s,
   * doubling) rather than an hour later.
   */
  private nextRunDelayMs(): number {
    const pollMs = this.options.config.listings.listPollMinutes * 60_000;
    let filled: boolean;
    try {
      filled = this.options.cache.readState().lastSuccessAt !== null;
    } catch {
      filled = false; // The store could not be read: a run soon will say more than an hour's wait.
    }
    if (filled) {
      this.failedFills = 0;
      return pollMs;
    }
    const retryMs = (this.options.firstFillRetryMs ?? 30_000) * 2 ** Math.min(this.failedFills++, 16);
    return Math.min(pollMs, retryMs);
  }

  /**
   * The agency's place in the key's first-fill order while its cache has never been filled (the CRM
   * gate fills agencies one after another, the smallest first: crm/limiter.ts), undefined once it
   * has. The size is the first list page's total (the first request of a fill, so every agency's is
   * known after one request each), or what a fill that failed halfway left in the cache; 0 while
   * unknown, which puts that first request ahead of the fills. It does not grow as later lists are
   * read: an agency whose estimate rose with each page would be overtaken page by page, which is
   * interleaving again.
   */
  /**
   * Resolves once the photos of a first fill that served before them are mirrored, or have failed
   * for now (the next run tries again); at once when none are pending. For what must see the
   * listings with their photos: a demo's first visitor, tests of galleries and page images.
   */
  photosMirrored(): Promise<void> {
    return this.photoPhase?.done ?? Promise.resolve();
  }

  fillOrder(): number | undefined {
    if (this.filled === undefined) {
      const filled = this.options.cache.readState().lastSuccessAt !== null;
      this.filled = filled;
      const cached = [...this.options.cache.countsBySource().values()].reduce((sum, count) => sum + count, 0);
      if (!filled && cached > 0) this.sizeEstimate = cached;
    }
    return this.filled ? undefined : (this.sizeEstimate ?? 0);
  }

  /** Resolves once the cache holds a successful sync (at once after a restart with a filled cache). */
  async whenLoaded(): Promise<void> {
    while (this.options.cache.readState().lastSuccessAt === null) {
      if (this.abort.signal.aborted) throw new Error('The listing sync was stopped before it first succeeded.');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A full sweep when none ever completed or the last is FULL_SWEEP_HOURS old; else incremental. */
  dueKind(): SyncKind {
    const state = this.options.cache.readState();
    if (state.lastFullSweepAt === null || state.modifiedSince === null) return 'full';
    return this.now() - state.lastFullSweepAt >= this.options.config.listings.fullSweepHours * 3_600_000 ? 'full' : 'incremental';
  }

  // Runs ---------------------------------------------------------------------------------------

  /** Runs one sync after any run in progress. Never throws: failures are in the report. */
  run(kind: SyncKind): Promise<SyncReport> {
    if (this.options.holdsSync && !this.options.holdsSync()) return Promise.resolve(notRun(kind, NOT_SYNC_HOLDER));
    // Polls and sweeps: the last in line at the CRM's gate.
    const next = this.queue.then(() => asWork('sweep', () => this.runNow(kind))).catch((error: unknown) => this.unexpectedFailure(kind, error));
    this.queue = next.catch(() => undefined);
    return next.then(async (report) => {
      // A first fill's photos, once the agency serves.
      if (this.photosPending && !this.abort.signal.aborted) {
        this.photosPending = false;
        try {
          await this.mirrorLater(report);
        } finally {
          this.photoPhase?.settle();
        }
      }
      return report;
    });
  }

  /**
   * Last line of defence for a run (the store failing outside the steps that report their own
   * errors): logged, reported, and the schedule carries on; a rejection here would end the process.
   */
  private unexpectedFailure(kind: SyncKind, error: unknown): SyncReport {
    this.log.error({ err: error, kind }, 'listing sync failed unexpectedly; will retry at the next run');
    return notRun(kind, this.describeError(error));
  }

  private async runNow(kind: SyncKind): Promise<SyncReport> {
    const { cache, source, mirror } = this.options;
    const started = this.now();
    const startedClock = performance.now();
    const requestsBefore = source.requestsSpent();
    const photosBefore = { ...mirror.totals };
    const state = cache.readState();
    const sweep = kind === 'full' ? state.sweep + 1 : null;
    const signal = this.abort.signal;
    const report = emptyReport(kind);
    const modifiedSince = kind === 'incremental' && state.modifiedSince !== null ? new Date(state.modifiedSince - MODIFIED_SINCE_OVERLAP_MS) : undefined;
    this.log.info({ kind, modifiedSince, cacheAgeSeconds: ageSeconds(state.lastSuccessAt, started) }, `listing sync started (${kind})`);

    try {
      // Another process holds the store's write lock (or the disk is full): every write would stop
      // the event loop for busy_timeout and fail. Skip this run; the next one tries again.
      if (cache.writes.heldUntil() !== undefined) throw new Error('the store is not taking writes just now (locked by another process, or the disk is full)');
      if (sweep !== null) cache.writeState({ sweep });
      // 1. Read every list first (a few quick requests), so pages are read close together in time.
      const markers = cache.modifiedMarkers();
      const toWrite: Array<{ item: ListedRecord; spec: SourceList }> = [];
      const unchangedSeen: number[] = [];
      const completeSources = new Set<string>();
      for (const spec of this.specs) {
        // Every list asks for published=true: what it returns is what belongs on the website.
        const { items, complete } = await this.readList(spec, modifiedSince, started, report, signal);
        for (const item of items) {
          report.listings++;
          // One listing per sale or lease life: a property for sale and for lease, or sold twice, is several.
          const id = item.id;
          const marker = markers.get(id);
          if (marker && marker.modified === item.modified && marker.source === spec.source) unchangedSeen.push(id);
          else toWrite.push({ item, spec });
        }
        if (complete) completeSources.add(spec.source);
      }

      // 2. New and changed listings: photos first, then the record, so a listing appears with its photos;
      //    except in a first fill, where the agency serves nothing yet: the records first, the photos
      //    recorded to come once it serves (run()), as nothing waits on them but the gallery.
      const photosLater = this.fillOrder() !== undefined;
      const limit = pLimit(this.options.listingConcurrency ?? 4);
      let sincePublish = 0;
      // Settled, not Promise.all: a failure or a stop must not end the sync while other listings'
      // photos are still being written (a relay closing would then remove or reuse DATA_DIR under them).
      const written = await Promise.allSettled(
        toWrite.map(({ item }) =>
          limit(async () => {
            signal.throwIfAborted();
            await this.writeListing(item, sweep, signal, photosLater);
            report.changed++;
            if (++sincePublish >= PUBLISH_EVERY) {
              sincePublish = 0;
              cache.changed();
            }
          }),
        ),
      );
      const failed = written.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      if (sweep !== null) cache.markSeen(unchangedSeen, sweep);

      // 3. Listings that left a list (sold, withdrawn, taken off the web) are removed only after a
      //    complete sweep of that list: an incremental read does not show what left.
      const removals = new Set<number>();
      if (sweep !== null) {
        for (const spec of this.specs) {
          if (completeSources.has(spec.source)) for (const id of cache.unseen(spec.source, sweep)) removals.add(id);
        }
      }
      this.removeListings([...removals]);
      report.removed = removals.size;

      // 4. Staff on full sweeps (or when none are known yet); open homes on every run.
      if (kind === 'full' || cache.counts().agents === 0) await this.syncAgents(report, signal, photosLater);
      if (kind === 'full' || this.openHomesAt === undefined || started - this.openHomesAt >= OPEN_HOMES_EVERY_MS) {
        await this.syncOpenHomes(report, signal);
        this.openHomesAt = started;
      }
      if (!photosLater)
        for (const kind of ['listing', 'agent'] as const) for (const id of mirror.ownersToFinish(kind)) await this.retryPhotos(kind, id, signal);

      if (kind === 'full') await mirror.collectGarbage();
      report.complete = kind === 'incremental' || this.specs.every((spec) => completeSources.has(spec.source));
      cache.writeState({
        lastSuccessAt: started,
        modifiedSince: started,
        // Even an incomplete sweep counts: sweeping again at once would spend the budget on a list that keeps moving.
        ...(kind === 'full' ? { lastFullSweepAt: started } : {}),
        lastError: null,
        lastErrorAt: null,
      });
      this.filled = true;
      if (kind === 'full') this.options.afterSweep?.();
      // The agency serves: its listing API lists its listings (published now). Its photos follow (run()).
      if (photosLater) {
        cache.changed();
        this.photosPending = true;
        let settle = () => {};
        const done = new Promise<void>((resolve) => (settle = resolve));
        this.photoPhase = { done, settle };
      }
    } catch (error) {
      report.error = this.describeError(error);
      // The store refusing writes (a lock held elsewhere, a full disk): recording that would be
      // refused too. The run's report and the log say it; the schedule carries on.
      if (cache.writes.failed(error) || cache.writes.heldUntil() !== undefined) {
        this.log.error({ err: error }, 'listing sync could not write to the store; will retry at the next run');
      } else {
        try {
          cache.writeState({ lastError: report.error, lastErrorAt: started });
        } catch (stateError) {
          cache.writes.failed(stateError);
          this.log.error({ err: stateError }, 'could not record the failed sync in the store');
        }
      }
    } finally {
      cache.changed();
      report.crmRequests = source.requestsSpent() - requestsBefore;
      for (const key of Object.keys(report.photos) as Array<keyof MirrorCounts>) report.photos[key] = mirror.totals[key] - photosBefore[key];
      report.seconds = Math.round(performance.now() - startedClock) / 1000;
    }

    const after = cache.readState();
    const counts = cache.counts();
    const summary = {
      kind,
      complete: report.complete,
      pages: report.pages,
      listings: report.listings,
      changed: report.changed,
      removed: report.removed,
      photos: report.photos,
      crmRequests: report.crmRequests,
      seconds: report.seconds,
      cached: counts,
      cacheAgeSeconds: ageSeconds(after.lastSuccessAt, this.now()),
    };
    if (report.error) {
      this.log.warn({ ...summary, error: report.error }, `listing sync failed; still serving the cache (${summary.cacheAgeSeconds ?? 'no'} s old)`);
    } else {
      this.log.info(
        summary,
        `listing sync done (${kind}): ${report.changed} changed, ${report.removed} removed, ${report.photos.downloaded} photos downloaded`,
      );
    }
    return report;
  }

  /** Reads every page of one list. `complete` is false when the list changed size while being read (a record may have been skipped). */
  private async readList(
    spec: SourceList,
    modifiedSince: Date | undefined,
    now: number,
    report: SyncReport,
    signal: AbortSignal,
  ): Promise<{ items: ListedRecord[]; complete: boolean }> {
    const items: ListedRecord[] = [];
    let firstTotal: number | undefined;
    let lastTotal = 0;
    const windowStart = spec.windowStart?.(now);
    const since = windowStart === undefined ? modifiedSince : new Date(Math.max(windowStart, modifiedSince?.getTime() ?? Number.NEGATIVE_INFINITY));
    const pages = this.options.source.readList(spec, { changedSince: since, signal, pageSize: this.options.pageSize });
    let page = 0;
    for await (const list of pages) {
      page++;
      report.pages++;
      items.push(...list.items);
      firstTotal ??= list.total;
      lastTotal = list.total;
      if (this.filled === false) this.sizeEstimate ??= list.total;
      this.log.debug({ list: spec.source, page, totalPages: list.totalPages, items: list.items.length }, 'listing page read');
    }
    // Records that failed the schema are not "gone": a list with any is not complete, so nothing is removed for it.
    const complete = firstTotal === lastTotal && items.length >= lastTotal;
    if (!complete) this.log.warn({ list: spec.source, read: items.length, total: lastTotal }, 'list changed while being read; no removals from it this sweep');
    this.log.info({ list: spec.source, listings: items.length, modifiedSince }, 'list read');
    return { items, complete };
  }

  /** Writes one listing: its photos first, or with `photosLater` (a first fill) recorded to be mirrored once the agency serves. */
  private async writeListing(item: Pick<ListedRecord, 'load'>, sweep: number | null, signal: AbortSignal, photosLater = false): Promise<void> {
    const mapped = await item.load(signal);
    if (photosLater) this.options.mirror.recordLater('listing', mapped.facts.id, mapped.photos);
    else await this.options.mirror.syncOwner('listing', mapped.facts.id, mapped.photos, signal);
    this.options.cache.upsertListing(mapped, sweep, this.now());
  }

  /**
   * Mirrors the photos a first fill recorded for later, in a turn of the relay's first fills
   * (fill-turns.ts: a few agencies' downloads and resizing at once), PHOTOS_LATER_CHUNK owners at a
   * time, each chunk a job of the sync's queue: a change the CRM pushes meanwhile waits for one
   * chunk, not for every photo of the fill. Each owner's photos are the ones on record when its
   * chunk runs (a pushed change may have replaced them). Every photo still to mirror goes, those
   * an earlier failed attempt at the fill recorded too. A failure here fails nothing: the agency
   * serves, and its next run mirrors what is still pending.
   */
  private async mirrorLater(report: SyncReport): Promise<void> {
    const { mirror, cache } = this.options;
    const signal = this.abort.signal;
    const before = { ...mirror.totals };
    let release: (() => void) | undefined;
    try {
      const photosLater: PhotoOwners = (['listing', 'agent'] as const).flatMap((kind) => mirror.ownersToFinish(kind).map((ownerId) => ({ kind, ownerId })));
      if (photosLater.length === 0) return;
      release = await this.options.fillTurns?.take(() => this.sizeEstimate ?? 0, signal);
      for (let start = 0; start < photosLater.length; start += PHOTOS_LATER_CHUNK) {
        const chunk = photosLater.slice(start, start + PHOTOS_LATER_CHUNK);
        const job = this.queue.then(() => this.mirrorChunk(chunk, signal));
        this.queue = job.catch(() => undefined);
        await job;
        cache.changed();
      }
    } catch (error) {
      this.log[signal.aborted ? 'info' : 'warn']({ err: error }, 'first fill: photos not all mirrored; the next run mirrors the rest');
    } finally {
      release?.();
      cache.changed();
      for (const key of Object.keys(report.photos) as Array<keyof MirrorCounts>) report.photos[key] += mirror.totals[key] - before[key];
    }
  }

  private async mirrorChunk(chunk: PhotoOwners, signal: AbortSignal): Promise<void> {
    const { mirror } = this.options;
    const limit = pLimit(this.options.listingConcurrency ?? 4);
    const settled = await Promise.allSettled(
      chunk.map(({ kind, ownerId }) =>
        limit(async () => {
          signal.throwIfAborted();
          await mirror.syncOwner(kind, ownerId, mirror.sourcesOf(kind, ownerId), signal);
        }),
      ),
    );
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Photos pending, or whose download failed for a passing reason: mirrored from the recorded sources (no CRM call). */
  private async retryPhotos(kind: PhotoOwnerKind, ownerId: number, signal: AbortSignal): Promise<void> {
    const rows = this.options.mirror.sourcesOf(kind, ownerId);
    await this.options.mirror.syncOwner(kind, ownerId, rows, signal);
  }

  private removeListings(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.options.cache.removeListings(ids);
    this.options.mirror.removeOwners('listing', ids);
    this.log.info({ removed: ids.length }, 'listings left the CRM lists and were removed');
  }

  private async syncAgents(report: SyncReport, signal: AbortSignal, photosLater = false): Promise<void> {
    const { source, cache, mirror } = this.options;
    const agents: MappedAgent[] = [];
    for await (const list of source.staff(signal)) {
      report.pages++;
      agents.push(...list.items);
    }
    cache.upsertAgents(agents, this.now());
    const gone = cache.removeAgentsExcept(agents.map((agent) => agent.id));
    const hidden = agents.filter((agent) => !agent.showOnWeb).map((agent) => agent.id);
    // Portraits only of staff shown on the web; others are never downloaded (or are forgotten).
    mirror.removeOwners('agent', [...gone, ...hidden]);
    for (const agent of agents) {
      if (!agent.showOnWeb) continue;
      const portrait = agent.photo ? [agent.photo] : [];
      if (photosLater) mirror.recordLater('agent', agent.id, portrait);
      else await mirror.syncOwner('agent', agent.id, portrait, signal);
    }
  }

  private async syncOpenHomes(report: SyncReport, signal: AbortSignal): Promise<void> {
    const rows: OpenHomeRow[] = [];
    // From yesterday (UTC): today's local open homes in Australia may start on the previous UTC day.
    const from = new Date(this.now() - 86_400_000);
    for await (const list of this.options.source.openHomes({ from, to: new Date(this.now() + OPEN_HOMES_AHEAD_MS) }, signal)) {
      report.pages++;
      rows.push(...list.items);
    }
    this.options.cache.replaceOpenHomes(rows);
  }

  // Changes pushed by the CRM (webhooks, event stream) -------------------------------------------
  //
  // A notice names a CRM property; the cache holds one listing per sale or lease life of it (a
  // property for sale and for lease at once is two listings, one sold before and listed again is
  // two too). Every refresh below acts on each listing of the property, and removes only the life
  // that left its list.

  /**
   * Applies records a change notice carried (one per life: sale and lease; the source reads them), with no CRM
   * request when they suffice: a status that puts a record in none of the synced lists removes that
   * life's listing; a record that stays in the list its life is cached from is written as pushed
   * (photos as pushed inline, each with its own published flag; otherwise one photo-list request).
   * Anything else ('needs-lists': a new listing or life, one moving lists, a record whose type or
   * class is unclear, a cached life of the property without its record pushed) needs the published
   * list's own word: refreshFromLists.
   */
  applyPushedRecords(propertyId: number, records: readonly PushedRecord[]): Promise<'refreshed' | 'removed' | 'needs-lists'> {
    const next = this.queue.then(async () => {
      const signal = this.abort.signal;
      const placements = this.placementsOf(propertyId);
      const typesPushed = new Set<ListingType>();
      const written: number[] = [];
      const removed: number[] = [];
      let needsLists = false;
      try {
        for (const record of records) {
          // A record is one listing: the sale or the lease of its property.
          const pushed = this.options.source.pushedListing(record);
          if (!pushed) return 'needs-lists' as const;
          const { id, type } = pushed;
          const cachedHere = placements.find((placed) => placed.id === id);
          const group =
            pushed.group ?? this.specs.find((spec) => spec.source === (cachedHere ?? placements.find((placed) => placed.type === type))?.source)?.group;
          const anySpec = this.specs.find((spec) => spec.type === type && spec.group === group);
          if (!anySpec) return 'needs-lists' as const;
          typesPushed.add(type);
          const target = pushed.status && this.specs.find((spec) => spec.group === anySpec.group && spec.type === type && spec.status === pushed.status);
          if (!target) {
            // This life left the website (withdrawn, or sold without a showcase): only its listing goes.
            if (cachedHere) {
              this.removeListings([id]);
              removed.push(id);
            }
            continue;
          }
          if (cachedHere?.source !== target.source) {
            needsLists = true;
            continue;
          }
          await this.writeListing({ load: (loadSignal) => pushed.load(target, loadSignal) }, null, signal);
          written.push(id);
        }
      } finally {
        if (written.length || removed.length) this.options.cache.changed();
      }
      if (records.length) this.log.info({ propertyId, written, removed }, 'listings updated from pushed records');
      // A new life, one moving lists, or a cached life without its record pushed: the lists refresh it.
      if (needsLists || placements.some((placed) => !typesPushed.has(placed.type))) return 'needs-lists' as const;
      return written.length ? 'refreshed' : 'removed';
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /**
   * Brings the named properties' listings up to date from the CRM's lists: one modifiedSince read
   * (usually one page) of each list their listings may be in (every list of their cached classes,
   * sale and lease, as a property may be both; every list when one is not cached). The lists ask
   * for published=true, so they also say what is on the website. A cached listing missing from its
   * lists whose life changed inside the window left the website and is removed (that life only).
   * Other changes those pages carry are written too.
   */
  refreshFromLists(propertyIds: readonly number[], changedSince: number): Promise<{ refreshed: number; removed: number }> {
    const next = this.queue.then(async () => {
      const { cache } = this.options;
      const signal = this.abort.signal;
      const placements = propertyIds.map((propertyId) => this.placementsOf(propertyId));
      const groupOf = (source: string) => this.specs.find((spec) => spec.source === source)?.group;
      const groups = new Set(placements.flat().map((placed) => groupOf(placed.source)));
      const specs = placements.every((list) => list.length > 0) ? this.specs.filter((spec) => groups.has(spec.group)) : this.specs;
      const report = emptyReport('incremental');
      const since = new Date(changedSince - MODIFIED_SINCE_OVERLAP_MS);
      const markers = cache.modifiedMarkers();
      // Listing ids (one per life) the lists returned: on the website now.
      const seen = new Set<number>();
      let refreshed = 0;
      for (const spec of specs) {
        const { items } = await this.readList(spec, since, this.now(), report, signal);
        for (const item of items) {
          const id = item.id;
          seen.add(id);
          const marker = markers.get(id);
          if (marker && marker.modified === item.modified && marker.source === spec.source) continue;
          await this.writeListing(item, null, signal);
          refreshed++;
        }
      }
      // A named listing missing from its lists either changed in a way that took it off the website
      // (its life's record then says so, or is gone) or changed nothing the lists date (kept).
      const removals = new Set<number>();
      for (const [index, propertyId] of propertyIds.entries()) {
        const byType = new Map<ListingType, Array<{ id: number; spec: SourceList }>>();
        for (const placed of placements[index]!) {
          const spec = specs.find((candidate) => candidate.source === placed.source);
          if (!spec || seen.has(placed.id)) continue;
          byType.set(placed.type, [...(byType.get(placed.type) ?? []), { id: placed.id, spec }]);
        }
        for (const missing of byType.values()) {
          const current = await this.options.source.currentListing(missing[0]!.spec, propertyId, signal);
          for (const { id } of missing) {
            // Gone from the CRM: every life of that type goes. Otherwise only the current life, if it
            // changed inside the window; an earlier one (sold before) leaves with its own list's sweep.
            if (current === 'gone' || (current.id === id && current.changedSince(since))) removals.add(id);
          }
        }
      }
      this.removeListings([...removals]);
      cache.changed();
      this.log.info(
        { properties: propertyIds.length, lists: specs.length, refreshed, removed: removals.size },
        'listings refreshed from the CRM lists after change notices',
      );
      return { refreshed, removed: removals.size };
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Every cached listing of a CRM property: one per sale or lease life, and where each came from. */
  private placementsOf(propertyId: number): Array<{ id: number; source: string; type: ListingType }> {
    return this.options.cache.placementsOfProperty(propertyId);
  }

  /** Reads the staff again (a user changed): every page of them, and the portraits that changed. */
  refreshStaff(): Promise<void> {
    const next = this.queue.then(async () => {
      const report = { pages: 0 } as SyncReport;
      await this.syncAgents(report, this.abort.signal);
      this.options.cache.changed();
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  private describeError(error: unknown): string {
    const described = this.options.source.describeError(error);
    if (described !== undefined) return described;
    if (error instanceof Error && error.name === 'AbortError') return 'stopped';
    return error instanceof Error ? error.message : String(error);
  }
}

function ageSeconds(since: number | null, now: number): number | null {
  return since === null ? null : Math.max(0, Math.round((now - since) / 1000));
}

/** A sync's report before it has done anything. */
function emptyReport(kind: SyncKind): SyncReport {
  return {
    kind,
    complete: false,
    pages: 0,
    listings: 0,
    changed: 0,
    removed: 0,
    photos: { downloaded: 0, reused: 0, unchanged: 0, failed: 0, removed: 0 },
    crmRequests: 0,
    seconds: 0,
  };
}
