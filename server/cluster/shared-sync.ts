import type { Logger } from '../runtime/log.ts';
import type { StoreReplica } from './replica.ts';
import type { SharedDatabase } from '../store/shared-database.ts';
import type { SyncLease } from './sync-lease.ts';
import type { Worker } from '../runtime/worker.ts';

/** NOTIFY channel of a published replica (payload: the agency's schema). */
export const REPLICA_CHANNEL = 'replica_changed';
/** NOTIFY channel of a sync asked of a relay that does not hold it (payload: `<schema> <kind>`). */
export const SYNC_REQUEST_CHANNEL = 'sync_requested';
/** How often the holder publishes what its sync wrote (when anything did). */
const PUBLISH_EVERY_MS = 250;
/** A follower that heard nothing looks for published rows this often anyway (a notice can be lost). */
const FOLLOW_POLL_MS = 30_000;

/** How a relay of many agencies shares their syncs with the other relays (see AgencySet). */
export interface SyncBalance {
  mayTakeMore(): boolean;
  holdsTooMany(): boolean;
}

export interface SharedSyncOptions {
  /** The agency's name in logs (undefined: the one agency of the relay). */
  agency: string | undefined;
  /** The agency's PostgreSQL schema: the payload of its replica notices. */
  schema: string;
  lease: SyncLease;
  replica: StoreReplica;
  database: Pick<SharedDatabase, 'listen' | 'notify'>;
  /** What only the lease holder runs: the sync, the change worker, the account look-up, the access check. */
  leaderWorkers: Worker[];
  /** Whether the agency's sync may be handed over now (its cache is filled: a first fill is not cut short). */
  canHandOver?(): boolean;
  /** Tables changed here by another relay's sync (copied from PostgreSQL): what is kept in memory is read again. */
  onCopied(tables: ReadonlySet<string>): void;
  /** This relay took or gave up the agency's sync. */
  onRoleChange?(leading: boolean): void;
  /** Runs a sync here (the holder, asked by the operator on any relay). */
  runSync?(kind: 'full' | 'incremental'): void;
  /**
   * Many agencies on several relays: whether this relay may take another agency's sync (it holds
   * fewer than its share), and whether it should give this one up (it holds more: another relay
   * joined). Default: take every free lease, never give one up.
   */
  balance?: SyncBalance;
  log: Logger;
  /**
   * REPLICA_MAX_LAG_SECONDS: a follower that heard nothing looks at least four times within it (and
   * at least every 30 s), so a healthy copy never reads as behind. Default 120.
   */
  maxLagSeconds?: number;
  /** Renewal (and, for a follower, take-over attempt) interval. Default a third of the lease. */
  renewMs?: number;
}

/**
 * Relays on one database (DATABASE_URL) share an agency's sync: the one holding its lease
 * (sync-lease.ts) runs the sync workers and publishes what they write (replica.ts);
 * every other relay copies that into its own store and serves it. A holder that dies stops
 * renewing, and within the lease's length another relay takes over, from the last rows published.
 * A relay that stops lets go of the lease at once. All steps run one at a time.
 */
export class SharedSync implements Worker {
  readonly name = 'shared-sync';
  private leading = false;
  private stopped = true;
  private queue: Promise<unknown> = Promise.resolve();
  private tickTimer: NodeJS.Timeout | undefined;
  private publishTimer: NodeJS.Timeout | undefined;
  /** The LISTENs of this running worker, ended at stop. */
  private unlisteners: Array<() => void> = [];
  private lastFollowAt = 0;
  private readonly log: Logger;
  /** Times this relay took the agency's sync (for /metrics and tests). */
  takeovers = 0;

  constructor(private readonly options: SharedSyncOptions) {
    this.log = options.log.child({ component: 'shared-sync' });
  }

  /**
   * Whether this relay may run the agency's sync now: it holds the lease, or its workers were never
   * started (tests driving a relay by hand; a relay run by `npm start` always starts them).
   */
  get holdsSync(): boolean {
    return this.leading || this.neverStarted;
  }

  /** Whether this relay holds the agency's sync lease. */
  get leads(): boolean {
    return this.leading;
  }

  /**
   * How far this relay's copy is behind what the holder published, in seconds (replica.ts
   * lagSeconds): 0 on the holder, and on a relay whose workers were never started (driven by hand).
   */
  get replicaLagSeconds(): number {
    return this.neverStarted || this.leading ? 0 : this.options.replica.lagSeconds();
  }

  /** Rows copied from PostgreSQL and set aside (not applied) since this relay started, by table. */
  get rowsSetAside(): ReadonlyMap<string, number> {
    return this.options.replica.setAside;
  }

  /**
   * For /readyz: whether this relay's copy is at most `maxLagSeconds` behind (always, on the
   * holder), or PostgreSQL has not answered it lately: then no relay can copy or sync, and each
   * serves what it holds rather than all of them leaving the load balancer at once.
   */
  copyWithin(maxLagSeconds: number): boolean {
    if (this.replicaLagSeconds <= maxLagSeconds) return true;
    return Date.now() - this.databaseAnsweredAt > 3 * this.renewMs;
  }

  /** When PostgreSQL last answered this worker's lease query (ms, this relay's clock). */
  private databaseAnsweredAt = -Infinity;

  private neverStarted = true;

  private get renewMs(): number {
    return this.options.renewMs ?? Math.max(200, Math.floor(this.options.lease.leaseMs / 3));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.neverStarted = false;
    void this.step(async () => {
      try {
        const rows = await this.options.replica.rebuild();
        this.options.onCopied(new Set(['*']));
        this.log.info({ rows }, 'listing cache copied from PostgreSQL');
      } catch (error) {
        this.log.warn({ error: describe(error) }, 'could not copy the listing cache from PostgreSQL; serving what this relay holds until it can');
      }
    });
    this.listen(
      REPLICA_CHANNEL,
      (schema) => schema === this.options.schema && this.follow(),
      'could not listen for replica notices; polling instead',
      () => this.follow(),
    );
    this.listen(
      SYNC_REQUEST_CHANNEL,
      (payload) => {
        const [schema, kind] = payload.split(' ');
        if (schema === this.options.schema && this.leading && (kind === 'full' || kind === 'incremental')) this.options.runSync?.(kind);
      },
      'could not listen for sync requests from other relays',
    );
    this.tick();
  }

  /** LISTENs on `channel` while this worker runs (a stop before the LISTEN is in place ends it at once). */
  private listen(channel: string, handler: (payload: string) => void, failure: string, onReconnect?: () => void): void {
    void this.options.database
      .listen(channel, handler, onReconnect)
      .then((unlisten) => {
        if (this.stopped) unlisten();
        else this.unlisteners.push(unlisten);
      })
      .catch((error: unknown) => this.log.warn({ error: describe(error) }, failure));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.tickTimer);
    for (const unlisten of this.unlisteners.splice(0)) unlisten();
    await this.step(async () => {
      if (!this.leading) return;
      await this.letGo();
      this.log.info({}, 'agency sync released');
    });
  }

  /**
   * A sync the operator asked of this relay (`npm run relay -- sync`): run here when this relay
   * holds the agency's sync, else passed to the relay that does (its outcome reaches this relay's
   * copy, where the CLI waits for it).
   */
  async requestSync(kind: 'full' | 'incremental'): Promise<void> {
    if (this.leading) return this.options.runSync?.(kind);
    await this.options.database.notify(SYNC_REQUEST_CHANNEL, `${this.options.schema} ${kind}`);
  }

  /**
   * Publishes what the holder's sync wrote, now (a webhook's notices before the shared inbox
   * forgets them); rejects when it could not (the caller keeps what it would have let go). Not in
   * the step queue: a step stopping the change worker waits for the worker, which may be here.
   */
  async publishNow(): Promise<void> {
    // Never started (a relay driven by hand, as in tests): nothing is captured, nothing to publish.
    if (this.neverStarted) return;
    if (!this.leading) throw new Error("this relay no longer holds the agency's sync");
    if ((await this.publish()) === false) throw new Error("this relay no longer holds the agency's sync");
  }

  private publishing: Promise<unknown> = Promise.resolve();

  /** One publish at a time; false when the lease is no longer this relay's (it then steps down). */
  private publish(): Promise<number | false> {
    const next = this.publishing.then(async () => {
      const published = await this.options.replica.publish(this.options.lease);
      if (published === false) {
        void this.step(() => this.stepDown('lease taken by another relay'));
        return false;
      }
      if (published > 0) await this.options.database.notify(REPLICA_CHANNEL, this.options.schema);
      return published;
    });
    this.publishing = next.catch(() => undefined);
    return next;
  }

  private step(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work).catch((error: unknown) => this.log.warn({ error: describe(error) }, 'shared sync step failed; trying again'));
    this.queue = next;
    return next;
  }

  private tick(): void {
    if (this.stopped) return;
    void this.step(() => (this.leading ? this.renew() : this.tryToLead())).finally(() => {
      if (this.stopped) return;
      this.tickTimer = setTimeout(() => this.tick(), this.renewMs);
      this.tickTimer.unref();
    });
  }

  private async renew(): Promise<void> {
    // Another relay joined: give this agency up, if its cache is filled (a first fill is not cut short).
    if (this.options.balance?.holdsTooMany() && this.options.canHandOver?.()) return this.handOver();
    let held = false;
    try {
      held = await this.options.lease.acquireOrRenew();
      this.databaseAnsweredAt = Date.now();
    } catch (error) {
      this.log.warn({ error: describe(error) }, 'could not renew the agency sync lease');
    }
    if (!held) await this.stepDown('lease lost');
  }

  private async tryToLead(): Promise<void> {
    const { lease, replica } = this.options;
    if (this.options.balance && !this.options.balance.mayTakeMore()) {
      // This relay holds its share of the agencies' syncs: this one is left to a relay holding
      // fewer, unless none has taken it for three tries (the shares count every relay alive, and
      // one may not serve this agency): no agency goes without a sync.
      const free = await lease
        .isFree()
        .then((answer) => {
          this.databaseAnsweredAt = Date.now();
          return answer;
        })
        .catch(() => false);
      this.passedOver = free ? this.passedOver + 1 : 0;
      if (this.passedOver < 3) {
        return this.pollCopy();
      }
    }
    this.passedOver = 0;
    let held = false;
    try {
      held = await lease.acquireOrRenew();
      this.databaseAnsweredAt = Date.now();
    } catch (error) {
      this.log.debug({ error: describe(error) }, 'could not reach PostgreSQL for the agency sync lease');
      return;
    }
    if (!held) return this.pollCopy();

    try {
      // From the last rows the previous holder published, then every write of ours is recorded.
      await this.copy(true);
      replica.startCapture();
    } catch (error) {
      this.log.warn({ error: describe(error) }, 'took the agency sync lease but could not catch up; letting it go');
      await lease.release().catch(() => lease.forget());
      return;
    }
    this.leading = true;
    this.takeovers++;
    for (const worker of this.options.leaderWorkers) worker.start();
    this.publishTimer = setInterval(() => {
      if (this.leading && replica.hasPending())
        void this.publish().catch((error: unknown) => this.log.warn({ error: describe(error) }, "could not publish the agency sync's changes; trying again"));
    }, PUBLISH_EVERY_MS);
    this.publishTimer.unref();
    this.options.onRoleChange?.(true);
    this.log.info({ epoch: lease.epoch }, 'this relay holds the agency sync');
  }

  /** Stops leading: the sync's workers stop, and nothing more is published on a timer. */
  private async stopLeading(): Promise<void> {
    this.leading = false;
    clearInterval(this.publishTimer);
    await Promise.all(this.options.leaderWorkers.map((worker) => worker.stop()));
  }

  /** Gives the sync up in good order (stopping, or handing over): the last writes published, the lease free at once for another relay. */
  private async letGo(): Promise<void> {
    await this.stopLeading();
    await this.publish().catch(() => false);
    await this.options.lease.release().catch(() => this.options.lease.forget());
    this.options.replica.stopCapture();
    this.options.onRoleChange?.(false);
  }

  /** Gives the agency's sync to a relay holding fewer. */
  private async handOver(): Promise<void> {
    await this.letGo();
    this.handedOver++;
    this.log.info({}, 'agency sync handed over to a relay holding fewer (another relay joined)');
  }

  /** Times this relay gave an agency's sync up to balance the relays (for tests and logs). */
  handedOver = 0;

  private async stepDown(reason: string): Promise<void> {
    if (!this.leading) return;
    this.log.warn({ reason }, 'this relay no longer holds the agency sync; following the relay that does');
    await this.stopLeading();
    this.options.replica.stopCapture();
    this.options.lease.forget();
    this.options.onRoleChange?.(false);
    // Writes never published would be this relay's alone: copy everything again.
    try {
      await this.options.replica.rebuild();
      this.options.onCopied(new Set(['*']));
    } catch (error) {
      this.log.warn({ error: describe(error) }, 'could not copy the listing cache from PostgreSQL after stepping down');
    }
  }

  /** A follower copies rows published since it last looked (serialised with the other steps). */
  private follow(): void {
    // A burst of notices (a sync publishing every 250 ms) is one copy, not one each.
    if (this.stopped || this.leading || this.followQueued) return;
    this.followQueued = true;
    void this.step(() => {
      this.followQueued = false;
      return this.copy();
    });
  }

  private followQueued = false;
  /** Tries in a row that this relay, at its share, found the lease free and left it. */
  private passedOver = 0;

  /** A follower's net under lost notices, and its proof of being current: a copy if none was made for a while. */
  private async pollCopy(): Promise<void> {
    const every = Math.min(FOLLOW_POLL_MS, ((this.options.maxLagSeconds ?? 120) * 1000) / 4);
    if (Date.now() - this.lastFollowAt >= every) await this.copy();
  }

  private async copy(always = false): Promise<void> {
    if (this.leading && !always) return;
    this.lastFollowAt = Date.now();
    const changed = await this.options.replica.catchUp();
    this.databaseAnsweredAt = Date.now();
    if (changed.size > 0) this.options.onCopied(changed);
  }
}

/**
 * Prometheus lines for relays on one database: agencies whose sync this relay holds, times it took
 * one over, how far behind its copies are (the agency furthest behind) and the copied rows it set
 * aside, by table.
 */
export function renderSharedSyncMetrics(syncs: ReadonlyArray<Pick<SharedSync, 'leads' | 'takeovers' | 'replicaLagSeconds' | 'rowsSetAside'>>): string {
  if (syncs.length === 0) return '';
  const held = syncs.filter((sync) => sync.leads).length;
  const takeovers = syncs.reduce((total, sync) => total + sync.takeovers, 0);
  const lag = Math.max(...syncs.map((sync) => sync.replicaLagSeconds));
  const setAside = new Map<string, number>();
  for (const sync of syncs) for (const [table, count] of sync.rowsSetAside) setAside.set(table, (setAside.get(table) ?? 0) + count);
  return (
    '# HELP estate_agency_syncs_held Agencies whose sync this relay holds (DATABASE_URL: one relay syncs each agency, the others copy it).\n' +
    '# TYPE estate_agency_syncs_held gauge\n' +
    `estate_agency_syncs_held ${held}\n` +
    "# HELP estate_agency_sync_takeovers_total Times this relay took an agency's sync (at start, or after its holder stopped or died).\n" +
    '# TYPE estate_agency_sync_takeovers_total counter\n' +
    `estate_agency_sync_takeovers_total ${takeovers}\n` +
    "# HELP estate_replica_lag_seconds Seconds since this relay's copy of an agency last held everything its sync holder published (the agency furthest behind; 0 where this relay holds the sync; +Inf before a first copy).\n" +
    '# TYPE estate_replica_lag_seconds gauge\n' +
    `estate_replica_lag_seconds ${Number.isFinite(lag) ? Math.round(lag * 10) / 10 : '+Inf'}\n` +
    '# HELP estate_replica_rows_set_aside_total Rows copied from PostgreSQL and set aside, not applied (another schema version, a value that does not fit its column, public JSON past the allow-list, a missing parent), by table.\n' +
    '# TYPE estate_replica_rows_set_aside_total counter\n' +
    [...setAside]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([table, count]) => `estate_replica_rows_set_aside_total{table="${table}"} ${count}\n`)
      .join('')
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
