import type { Config } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { ChangeStore, QueuedChange } from './event-store.ts';
import type { ListingCache } from './cache.ts';
import { ExpiredCursorError, type ListingSource } from './source.ts';
import type { ListingSync } from './sync.ts';
import type { Clock } from '../runtime/clock.ts';
import { asWork } from '../runtime/work-class.ts';
import type { WebhookInboxQueue } from './inbox.ts';

/** A failed application is tried again after this, doubling, at most MAX_ATTEMPTS times (the stream and sweeps catch up after). */
const RETRY_BASE_MS = 5_000;
const MAX_ATTEMPTS = 5;
/** Reads from the stream start this far before the last read: the CRM's clock and ours differ. */
const STREAM_OVERLAP_MS = 60_000;
/** Due notices are looked for this often (retries; notices queued while the cache was empty). */
const POLL_MS = 2_000;
/**
 * The shared webhook inbox is looked at when a relay says a notice arrived (NOTIFY), at start, and
 * this often besides, in case a notice was missed (one query per agency, so not every POLL_MS).
 */
const INBOX_POLL_MS = 30_000;
/** A subscription to the inbox's wake-ups that failed (the database away at start) is tried again this often. */
const INBOX_LISTEN_RETRY_MS = 5_000;
/** Notices taken from the shared inbox per query. */
const INBOX_BATCH = 100;

export interface ChangeWorkerCounts {
  streamReads: number;
  streamEvents: number;
  applied: number;
  /** Webhook notices left to the stream because the day's cap on webhook-triggered requests was reached. */
  overDailyCap: number;
  failures: number;
}

export interface ChangeWorkerOptions {
  store: ChangeStore;
  sync: ListingSync;
  cache: ListingCache;
  source: Pick<ListingSource, 'changes' | 'requestsSpent'>;
  log: Logger;
  config: Pick<Config, 'listings'>;
  now?: Clock;
  /**
   * With DATABASE_URL: the agency's webhooks as any relay stored them (webhook-inbox.ts). While
   * started (on the agency's sync holder), the worker takes them into `store`'s queue.
   */
  inbox?: WebhookInboxQueue;
  /**
   * Awaited after notices were taken into the local queue and before the inbox forgets them: the
   * sync holder's queue reaches the shared database first, so a holder dying in between loses none.
   * A failure leaves them in the inbox, taken again later (their digests make that harmless).
   */
  beforeInboxTaken?: () => Promise<void>;
}

/**
 * Applies the CRM's change notices (webhooks, stored by webhook.ts) and reads the CRM's event
 * stream every SYNC_INTERVAL_MINUTES to catch the webhooks that never came (the CRM does not
 * retry them). Nothing runs before the cache's first sync: that sync reads everything anyway.
 */
export class CrmChangeWorker {
  readonly name = 'crm-changes';
  readonly counts: ChangeWorkerCounts = { streamReads: 0, streamEvents: 0, applied: 0, overDailyCap: 0, failures: 0 };
  private readonly now: Clock;
  private readonly log: Logger;
  private stopped = true;
  private streamTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private drainAgain = false;
  private abort = new AbortController();
  /** The shared inbox may hold notices: look at the next drain. */
  private inboxDue = false;
  private inboxTimer: NodeJS.Timeout | undefined;
  private inboxListenRetry: NodeJS.Timeout | undefined;
  private unlistenInbox: (() => void) | undefined;
  /** Set while the shared inbox cannot be read, so the failure is logged once, not every POLL_MS. */
  private inboxFailing = false;

  constructor(private readonly options: ChangeWorkerOptions) {
    this.now = options.now ?? Date.now;
    this.log = options.log.child({ component: 'crm-changes' });
  }

  get intervalMs(): number {
    return this.options.config.listings.syncIntervalMinutes * 60_000;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.abort.signal.aborted) this.abort = new AbortController();
    this.pollTimer = setInterval(() => this.kick(), POLL_MS);
    this.pollTimer.unref();
    this.scheduleStream(this.intervalMs);
    if (this.options.inbox) this.startInbox(this.options.inbox);
  }

  /** Listens for notices stored by any relay, looks at once (they may have waited for a holder), and every INBOX_POLL_MS. */
  private startInbox(inbox: WebhookInboxQueue): void {
    this.inboxTimer = setInterval(() => this.inboxArrived(), INBOX_POLL_MS);
    this.inboxTimer.unref();
    this.listenToInbox(inbox, false);
    this.inboxArrived();
  }

  /** Subscribes to the inbox's wake-ups; while the database is away, tries again every INBOX_LISTEN_RETRY_MS (the safety poll meanwhile). */
  private listenToInbox(inbox: WebhookInboxQueue, retrying: boolean): void {
    if (this.stopped) return;
    inbox
      .onArrival(() => this.inboxArrived())
      .then(
        (unlisten) => {
          if (this.stopped) return unlisten();
          this.unlistenInbox = unlisten;
          if (!retrying) return;
          this.log.info('listening for webhooks stored by any relay again');
          // Notices stored while nobody listened were not announced.
          this.inboxArrived();
        },
        (error: unknown) => {
          if (!retrying)
            this.log.warn(
              { error: describe(error) },
              `cannot listen for webhooks stored by other relays; trying again every ${INBOX_LISTEN_RETRY_MS / 1000} s, looking every ${INBOX_POLL_MS / 1000} s meanwhile`,
            );
          this.inboxListenRetry = setTimeout(() => this.listenToInbox(inbox, true), INBOX_LISTEN_RETRY_MS);
          this.inboxListenRetry.unref();
        },
      );
  }

  /** A notice was stored in the shared inbox (by this relay or another): take it now. */
  inboxArrived(): void {
    this.inboxDue = true;
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pollTimer);
    clearInterval(this.inboxTimer);
    clearTimeout(this.inboxListenRetry);
    this.unlistenInbox?.();
    this.unlistenInbox = undefined;
    clearTimeout(this.streamTimer);
    this.abort.abort();
    await this.draining?.catch(() => undefined);
  }

  private scheduleStream(delayMs: number): void {
    if (this.stopped) return;
    this.streamTimer = setTimeout(() => {
      void this.readStream()
        .catch((error: unknown) => this.log.warn({ error: describe(error) }, 'event stream read failed; trying again next interval'))
        .finally(() => this.scheduleStream(this.intervalMs));
    }, delayMs);
    this.streamTimer.unref();
  }

  private get loaded(): boolean {
    return this.options.cache.readState().lastSuccessAt !== null;
  }

  /** Applies what is due now, in the background (coalesced). */
  kick(): void {
    if (this.stopped) return;
    // Kicked by an arriving notice: its refresh goes before catch-up and sweeps at the CRM's gate.
    void asWork('webhook', () => this.drain()).catch((error: unknown) => this.log.warn({ error: describe(error) }, 'applying change notices failed'));
  }

  /** Applies every due notice; resolves when the queue holds nothing due. Runs one at a time. */
  drain(): Promise<void> {
    if (this.draining) {
      this.drainAgain = true;
      return this.draining;
    }
    const run = async () => {
      do {
        this.drainAgain = false;
        if (this.inboxDue && this.options.inbox) await this.takeFromInbox(this.options.inbox);
        if (!this.loaded) return;
        for (;;) {
          // Stopped after a start (shutting down, or another relay took the agency's sync): what
          // failed stays due for the next run; looping on it here would spin without ever yielding
          // to the event loop. (Never started: a caller drives the worker by hand.)
          if (this.abort.signal.aborted) return;
          const due = this.options.store.due(this.now());
          if (due.length === 0) break;
          await this.apply(due);
        }
      } while (this.drainAgain);
    };
    // Cleared in a later tick: a run that finds nothing finishes before this assignment.
    this.draining = run().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  /**
   * Moves the shared inbox's waiting notices into the local queue (the digest table there makes a
   * notice taken twice harmless), has them published (beforeInboxTaken), then marks them taken.
   * A failure leaves them waiting and looks again at the next POLL_MS.
   */
  private async takeFromInbox(inbox: WebhookInboxQueue): Promise<void> {
    this.inboxDue = false;
    try {
      for (;;) {
        if (this.stopped) return;
        const waiting = await inbox.take(INBOX_BATCH);
        if (waiting.length === 0) break;
        for (const { digest, expiresAt, notice, receivedAt } of waiting) {
          if (notice) this.options.store.acceptWebhook(digest, expiresAt, notice, receivedAt);
          else this.log.warn({ digest: digest.slice(0, 12) }, 'a stored webhook is not a change notice; dropped');
        }
        await this.options.beforeInboxTaken?.();
        await inbox.markTaken(waiting.map((entry) => entry.id));
        if (waiting.length < INBOX_BATCH) break;
      }
      if (this.inboxFailing) this.log.info('shared webhook inbox readable again');
      this.inboxFailing = false;
    } catch (error) {
      this.inboxDue = true;
      if (!this.inboxFailing) this.log.warn({ error: describe(error) }, `cannot take webhooks from the shared inbox; trying again every ${POLL_MS / 1000} s`);
      this.inboxFailing = true;
    }
  }

  /**
   * Reads the event stream once (following `urls.next`), queues what it names that was not
   * already applied, and applies it. The cursor is kept in SQLite; without one (first read, or
   * after it expired) the read starts at the last read, or at the last full sweep.
   */
  readStream(): Promise<{ events: number; queued: number; requests: number }> {
    return asWork('catch-up', () => this.readStreamNow());
  }

  private async readStreamNow(): Promise<{ events: number; queued: number; requests: number }> {
    if (!this.loaded) return { events: 0, queued: 0, requests: 0 };
    const { store, source, cache, sync } = this.options;
    const feed = source.changes;
    const now = this.now();
    let position = store.streamPosition();
    let requests = 0;
    let read;
    if (position.cursor !== undefined) {
      try {
        read = await feed.read({ cursor: position.cursor }, { signal: this.abort.signal, now });
      } catch (error) {
        // A cursor the source no longer knows (expired after 30 days): start again from a time.
        if (!(error instanceof ExpiredCursorError)) throw error;
        requests++;
        this.log.warn({ error: describe(error) }, 'event stream cursor refused; reading from the last read time instead');
        store.forgetCursor();
        position = { ...position, cursor: undefined };
      }
    }
    if (!read) {
      const from = position.lastReadAt ?? cache.readState().lastFullSweepAt ?? now;
      if (now - from > feed.retentionMs - STREAM_OVERLAP_MS) {
        // Events that old are gone: only a full sweep can say what changed since.
        this.log.warn({ lastReadAt: position.lastReadAt }, 'event stream not read for 30 days; running a full sweep instead');
        store.acceptStream([], { cursor: undefined, readAt: now });
        await sync.run('full');
        return { events: 0, queued: 0, requests };
      }
      read = await feed.read({ since: new Date(from - STREAM_OVERLAP_MS) }, { signal: this.abort.signal, now });
    }
    requests += read.pages;
    this.counts.streamReads += read.pages;
    this.counts.streamEvents += read.notices.length;
    const queued = store.acceptStream(read.notices, { cursor: read.cursor, readAt: now });
    store.pruneApplied(now - feed.retentionMs);
    if (read.notices.length) this.log.info({ events: read.notices.length, queued, requests: read.pages }, 'event stream read');
    await this.drain();
    return { events: read.notices.length, queued, requests };
  }

  private async apply(due: QueuedChange[]): Promise<void> {
    const { store, sync, source } = this.options;
    const staff = due.filter((change) => change.kind === 'staff');
    const byListing = new Map<number, QueuedChange[]>();
    for (const change of due) if (change.kind === 'listing') byListing.set(change.id, [...(byListing.get(change.id) ?? []), change]);

    await this.attempt(staff, () => sync.refreshStaff());

    // Pushed records first: usually no CRM request at all.
    const needLists: QueuedChange[] = [];
    for (const [id, changes] of byListing) {
      const latestWithRecords = changes.filter((change) => change.records.length > 0).at(-1);
      if (!latestWithRecords || changes.some((change) => change.seq > latestWithRecords.seq)) {
        needLists.push(...changes);
        continue;
      }
      let outcome: string | undefined;
      await this.attempt(changes, async () => {
        outcome = await sync.applyPushedRecords(id, latestWithRecords.records);
        if (outcome === 'needs-lists') throw new NeedsLists();
      });
      if (outcome === 'needs-lists') needLists.push(...changes);
    }
    if (needLists.length === 0) return;

    // The rest: the lists say what changed and what is on the website. Webhook-triggered requests are capped per day.
    const day = new Date(this.now()).toISOString().slice(0, 10);
    let batch = needLists;
    if (store.webhookRequests(day) >= this.options.config.listings.webhookDailyRefreshes) {
      const fromWebhooks = needLists.filter((change) => change.origin === 'webhook');
      if (fromWebhooks.length) {
        this.counts.overDailyCap += fromWebhooks.length;
        this.log.warn(
          { notices: fromWebhooks.length, cap: this.options.config.listings.webhookDailyRefreshes },
          'daily cap on webhook-triggered CRM requests reached (WEBHOOK_DAILY_REFRESHES); left to the event stream',
        );
        store.drop(fromWebhooks);
      }
      batch = needLists.filter((change) => change.origin !== 'webhook');
      if (batch.length === 0) return;
    }
    const before = source.requestsSpent();
    const ids = [...new Set(batch.map((change) => change.id))];
    await this.attempt(batch, () => sync.refreshFromLists(ids, Math.min(...batch.map((change) => change.changedAt))));
    if (batch.some((change) => change.origin === 'webhook')) store.addWebhookRequests(day, source.requestsSpent() - before);
  }

  /** Runs one application; on success the notices leave the queue, on failure they wait and retry. */
  private async attempt(changes: QueuedChange[], work: () => Promise<unknown>): Promise<void> {
    if (changes.length === 0) return;
    const { store } = this.options;
    try {
      await work();
      store.done(changes);
      this.counts.applied += changes.length;
    } catch (error) {
      if (error instanceof NeedsLists) return;
      this.counts.failures++;
      const attempts = Math.max(...changes.map((change) => change.attempts)) + 1;
      if (attempts >= MAX_ATTEMPTS || this.stopped) {
        if (!this.stopped) store.drop(changes);
        this.log.warn({ error: describe(error), notices: changes.length }, 'change notices could not be applied; the next sweep will catch up');
        return;
      }
      store.retryLater(changes, this.now() + RETRY_BASE_MS * 2 ** (attempts - 1));
      this.log.warn({ error: describe(error), notices: changes.length, attempts }, 'applying change notices failed; will retry');
    }
  }
}

class NeedsLists extends Error {}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Prometheus lines for the CRM's push: webhooks by outcome, event-stream reads, notices applied and queued. */
export function renderPushMetrics(
  webhooks: { accepted: number; duplicates: number; ignored: number; unavailable: number; otherAccount: number; refused: number },
  worker: ChangeWorkerCounts,
  queued: number,
): string {
  const lines: string[] = [];
  const metric = (name: string, type: 'counter' | 'gauge', help: string, samples: Array<[string, number]>) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) lines.push(`${name}${labels} ${value}`);
  };
  metric(
    'estate_crm_webhooks_total',
    'counter',
    'CRM webhooks by outcome: accepted (stored), duplicate (replayed digest), ignored (event not used), unavailable (503: the shared database did not answer), other_account (another agency on the API key), refused (4xx).',
    [
      ['{outcome="accepted"}', webhooks.accepted],
      ['{outcome="duplicate"}', webhooks.duplicates],
      ['{outcome="ignored"}', webhooks.ignored],
      ['{outcome="unavailable"}', webhooks.unavailable],
      ['{outcome="other_account"}', webhooks.otherAccount],
      ['{outcome="refused"}', webhooks.refused],
    ],
  );
  metric('estate_crm_event_stream_reads_total', 'counter', 'Requests to the CRM event stream.', [['', worker.streamReads]]);
  metric('estate_crm_event_stream_events_total', 'counter', 'Events read from the CRM event stream.', [['', worker.streamEvents]]);
  metric('estate_crm_changes_applied_total', 'counter', 'Change notices (webhook or stream) applied to the listing cache.', [['', worker.applied]]);
  metric('estate_crm_changes_over_daily_cap_total', 'counter', 'Webhook notices left to the event stream by WEBHOOK_DAILY_REFRESHES.', [
    ['', worker.overDailyCap],
  ]);
  metric('estate_crm_changes_queued', 'gauge', 'Change notices stored and not yet applied.', [['', queued]]);
  return `${lines.join('\n')}\n`;
}
