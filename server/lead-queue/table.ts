import { hostname } from 'node:os';
import { sql, type Generated, type RawBuilder } from 'kysely';
import type { Clock } from '../runtime/clock.ts';
import { DEFAULT_LEAD_QUARANTINE_DAYS } from '../runtime/config.ts';
import { databaseClock, type DatabaseClock } from '../store/shared-database.ts';
import { checkpoint, type Store } from '../store/store.ts';
import { queriesOf, type StoreKind } from '../store/tables.ts';

/**
 * A signal a lead may be spam, kept with its row (spam_reason). A guess never discards a lead:
 * - too_fast (weak: sent sooner than ENQUIRY_MIN_FILL_MS after the form was shown; autofill does
 *   that): the lead is queued and delivered as usual, marked for the agent to judge (flagged);
 * - honeypot (strong: a field people never see was filled in): the lead is kept whole in the
 *   quarantine, sent nowhere, until the operator releases it or LEAD_QUARANTINE_DAYS is over;
 * - repeat_registration: an open-home registration this person already made (see enquiries'
 *   NewEnquiry.onceKey), answered like the first but not sent again; no personal data is kept.
 */
export type SpamReason = 'honeypot' | 'too_fast' | 'repeat_registration';

/** What a signal does to a lead (see SpamReason). */
export type SpamAction = 'flag' | 'quarantine' | 'answer-only';
export const SPAM_ACTION: Record<SpamReason, SpamAction> = { too_fast: 'flag', honeypot: 'quarantine', repeat_registration: 'answer-only' };

/**
 * The row a lead with this signal is stored as: a flagged one is queued like any other (its
 * payload kept for delivery), a quarantined one is a spam row that keeps its payload (which is
 * what tells it from the others: see `quarantined`), a repeat is a spam row with nothing kept.
 */
export function spamRow(reason: SpamReason | undefined): { status: 'queued' | 'spam'; keepsPayload: boolean } {
  const action = reason === undefined ? undefined : SPAM_ACTION[reason];
  if (action === undefined || action === 'flag') return { status: 'queued', keepsPayload: true };
  return { status: 'spam', keepsPayload: action === 'quarantine' };
}

/** Whether a row is in the quarantine: a spam row that still holds its payload (spamRow). */
export function quarantined(entry: { status: string; payload: unknown }): boolean {
  return entry.status === 'spam' && entry.payload !== null;
}

/** Default of LEAD_QUARANTINE_DAYS (runtime/config.ts) in ms: how long a quarantined lead is kept for the operator. */
export const DEFAULT_QUARANTINE_MS = DEFAULT_LEAD_QUARANTINE_DAYS * 24 * 60 * 60_000;

/** How long a claim lasts unless renewed (ms): longer than any one CRM write (timeouts included). */
export const DEFAULT_CLAIM_LEASE_MS = 2 * 60_000;

export interface LeadQueueOptions {
  /**
   * Who claims rows through this queue. Rows another owner holds are never changed through this
   * one. Default: this host and DATA_DIR. Relays sharing a PostgreSQL queue pass their registry
   * id (the random id in DATA_DIR/relay-id, store/relay-identity.ts: two containers may share a
   * host name and a path), the same across restarts, so a relay restarted after a crash
   * (systemd, a kill -9) takes its own claims back at once instead of waiting out their lease.
   */
  owner?: string;
  /**
   * PostgreSQL only: where the queue's statements read "now" (claims, their lapse, due times).
   * Default the database's clock, so relays whose clocks disagree agree on every shared time;
   * tests that move time by hand pass their clock (clockAsDatabaseClock).
   */
  clock?: DatabaseClock;
}

/** What a queue tells the shared mechanics about its own table. */
export interface LeadQueueShape<Entry, Status extends string, Row> {
  /** The queue's table: its module owns it (and its migrations); only the name comes from there. */
  table: string;
  /** The queue's column that marks a CRM write which may have happened: set before the write leaves, cleared once its outcome is known. */
  mark: string;
  /** Every status, in the order the counts list them. */
  statuses: readonly Status[];
  /** Columns besides the payload that hold personal data, erased with it. */
  personal?: readonly string[];
  fromRow(row: Row): Entry;
}

/**
 * The columns every lead queue's table has, as the query builder sees them. `queue` stands for the
 * queue's own table (LeadQueueShape.table): the statements below name the real one.
 */
interface QueueColumns {
  seq: Generated<number>;
  original_id: string;
  fingerprint: string;
  status: string;
  accepted_at: number;
  payload: string | null;
  attempts: Generated<number>;
  next_attempt_at: number;
  window_start: number;
  last_error: string | null;
  dead_at: number | null;
  erased_at: number | null;
  /** The relay (worker) working the row now; NULL when nobody is. */
  claimed_by: string | null;
  /** When that claim lapses (ms): after it, any relay may take the row over. */
  claim_until: number | null;
}
type QueueTables = { queue: QueueColumns };

export const changed = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) => Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n);

/**
 * A durable lead queue (the enquiry outbox, the saved searches), in the store's SQLite file or,
 * with DATABASE_URL, in PostgreSQL (the same queries, through Kysely). Every write is one
 * statement committed before the method resolves: on SQLite (synchronous=FULL) and PostgreSQL
 * alike it survives a kill -9 or a power cut, and the 202 is sent only after `accept` resolves.
 * Each queue extends it with its table, its words and its own steps.
 *
 * Several relays may share one PostgreSQL queue: a worker claims due rows (`claimDue`, FOR UPDATE
 * SKIP LOCKED there, one atomic UPDATE on SQLite) for a lease, and the writes that move a row on
 * are fenced by the claim, so a row is in one relay's hands at a time.
 *
 * Times: on SQLite (one relay) every time is the relay's clock, the `now` its callers pass. On
 * PostgreSQL the rows' times are the database's clock, since relays' clocks need not agree: the
 * statements that claim, renew, take over, start a write, accept and requeue read it themselves
 * (the `now` passed is ignored there), and the times the worker computes (retries, erasure) are on
 * it through `clockOffset`, read at each pass.
 */
export class LeadQueueTable<Entry extends { seq: number }, Status extends string, Row> {
  readonly owner: string;
  private readonly clock: DatabaseClock;

  constructor(
    readonly store: Store,
    private readonly shape: LeadQueueShape<Entry, Status, Row>,
    options: LeadQueueOptions = {},
  ) {
    this.owner = options.owner ?? `${hostname()}:${store.dataDir}`;
    this.clock = options.clock ?? databaseClock;
  }

  /** Which database the queue is in. */
  get kind(): StoreKind {
    return queriesOf(this.store).kind;
  }

  /** The queue's table under the shared columns' name (see QueueColumns). */
  private get queue() {
    return this.shape.table as 'queue';
  }

  private get queueDb() {
    return queriesOf(this.store).db.withTables<QueueTables>();
  }

  private entry(row: unknown): Entry {
    return this.shape.fromRow(row as Row);
  }

  /** `columns` set to `value`: the queue's own columns (its mark, its personal data), which the shared ones do not name. */
  private own(columns: readonly string[], value: unknown): Record<never, never> {
    return Object.fromEntries(columns.map((column) => [column, value]));
  }

  /**
   * Now in a statement: the database's clock on PostgreSQL (the same for every relay on it),
   * `now` (the relay's clock) on SQLite.
   */
  protected nowIn(now: number): RawBuilder<number> {
    return this.kind === 'postgres' ? sql<number>`${sql.raw(this.clock.sql())}` : sql<number>`${now}`;
  }

  /** Rows this owner may move on: unclaimed ones (an operator's, a test's) or its own claims. */
  protected mine(): RawBuilder<boolean> {
    return sql<boolean>`(claimed_by IS NULL OR claimed_by = ${this.owner})`;
  }

  /**
   * How far the queue's clock is ahead of `local` (ms, negative: behind): on PostgreSQL the
   * database's, read now (half the round trip counted either side); 0 on SQLite, where the relay's
   * own clock is the queue's. The worker adds it to its clock for every time it writes.
   */
  async clockOffset(local: Clock): Promise<number> {
    if (this.kind !== 'postgres') return 0;
    const before = local();
    const { rows } = await sql<{ now: number }>`SELECT ${sql.raw(this.clock.sql())} AS now`.execute(this.queueDb);
    const after = local();
    return Number(rows[0]!.now) - Math.round((before + after) / 2);
  }

  async get(originalId: string): Promise<Entry | undefined> {
    const row = await this.queueDb.selectFrom(this.queue).selectAll().where('original_id', '=', originalId).executeTakeFirst();
    return row ? this.entry(row) : undefined;
  }

  /** Status and fingerprint only: what the per-request checks need, without reading the payload. */
  async state(originalId: string): Promise<{ status: Status; fingerprint: string } | undefined> {
    const row = await this.queueDb.selectFrom(this.queue).select(['status', 'fingerprint']).where('original_id', '=', originalId).executeTakeFirst();
    return row as { status: Status; fingerprint: string } | undefined;
  }

  /** Queued entries whose next attempt is due, oldest acceptance first (a look only: nothing is claimed). */
  async due(now: number, limit: number): Promise<Entry[]> {
    const rows = await this.queueDb
      .selectFrom(this.queue)
      .selectAll()
      .where('status', '=', 'queued')
      .where('next_attempt_at', '<=', this.nowIn(now))
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => this.entry(row));
  }

  /**
   * Claims up to `limit` due rows for this owner until `now + leaseMs`, oldest first: rows nobody
   * holds, whose claim has lapsed (a relay that died), or that this owner holds already. "Now" is
   * the database's clock on PostgreSQL, in the statement itself: a claim another relay took never
   * looks lapsed here because this relay's clock is ahead. On PostgreSQL the candidate rows are
   * locked with FOR UPDATE SKIP LOCKED, so relays claiming at the same moment take different rows
   * instead of queueing on each other's; on SQLite the one UPDATE runs under the database's write
   * lock. `inFlight`: this owner's rows already being worked, left out.
   */
  async claimDue(now: number, limit: number, leaseMs = DEFAULT_CLAIM_LEASE_MS, inFlight: string[] = []): Promise<Entry[]> {
    const postgres = this.kind === 'postgres';
    const current = this.nowIn(now);
    const rows = await this.queueDb
      .updateTable(this.queue)
      .set({ claimed_by: this.owner, claim_until: sql<number>`${current} + ${leaseMs}` })
      .where('seq', 'in', (eb) =>
        eb
          .selectFrom(this.queue)
          .select('seq')
          .where('status', '=', 'queued')
          .where('next_attempt_at', '<=', current)
          .where((inner) => inner.or([inner('claim_until', 'is', null), inner('claim_until', '<=', current), inner('claimed_by', '=', this.owner)]))
          .$if(inFlight.length > 0, (query) => query.where('original_id', 'not in', inFlight))
          .orderBy('seq')
          .limit(limit)
          .$if(postgres, (query) => query.forUpdate().skipLocked()),
      )
      .returningAll()
      .execute();
    return rows.map((row) => this.entry(row)).sort((a, b) => a.seq - b.seq);
  }

  /** Gives up this owner's claims on rows it took but will not work now: other relays may take them at once. */
  async releaseClaims(originalIds: string[]): Promise<void> {
    if (originalIds.length === 0) return;
    await this.queueDb
      .updateTable(this.queue)
      .set({ claimed_by: null, claim_until: null })
      .where('original_id', 'in', originalIds)
      .where('claimed_by', '=', this.owner)
      .execute();
  }

  /** Extends this owner's claims on `originalIds` (rows still in work) to `now + leaseMs` (the database's now on PostgreSQL). */
  async renewClaims(originalIds: string[], now: number, leaseMs = DEFAULT_CLAIM_LEASE_MS): Promise<void> {
    if (originalIds.length === 0) return;
    await this.queueDb
      .updateTable(this.queue)
      .set({ claim_until: sql<number>`${this.nowIn(now)} + ${leaseMs}` })
      .where('original_id', 'in', originalIds)
      .where('claimed_by', '=', this.owner)
      .where('status', '=', 'queued')
      .execute();
  }

  /** When the earliest queued entry not yet due at `now` (the database's now on PostgreSQL) falls due (ms, the queue's clock), or undefined when none. */
  async nextDueAfter(now: number): Promise<number | undefined> {
    const row = await this.queueDb
      .selectFrom(this.queue)
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'queued')
      .where('next_attempt_at', '>', this.nowIn(now))
      .executeTakeFirst();
    return row?.at == null ? undefined : Number(row.at);
  }

  /**
   * Committed before a CRM write leaves: after a crash, the row says "this may be in the CRM".
   * With `leaseMs`, also renews this owner's claim for the request's time (from the database's now
   * on PostgreSQL, as the mark). Returns false when the row is no longer queued, or another relay
   * holds it (this owner's claim lapsed and was taken over): then nothing may be sent.
   */
  async startWrite(originalId: string, now: number, leaseMs?: number): Promise<boolean> {
    const current = this.nowIn(now);
    const result = await this.queueDb
      .updateTable(this.queue)
      .set((eb) => ({
        ...this.own([this.shape.mark], current),
        attempts: eb('attempts', '+', 1),
        ...(leaseMs === undefined ? {} : { claim_until: sql<number>`${current} + ${leaseMs}` }),
      }))
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** The write (or a look-up) proved the CRM does not hold it. */
  async clearWrite(originalId: string): Promise<void> {
    await this.queueDb
      .updateTable(this.queue)
      .set(this.own([this.shape.mark], null))
      .where('original_id', '=', originalId)
      .where(this.mine())
      .execute();
  }

  /**
   * Schedules another attempt and releases the claim. `outcomeUnknown` keeps the "may be in the
   * CRM" mark; `markAt` moves it (the queue's clock): since when nothing more of the write can land
   * (lead-queue/worker-loop.ts markAfterFailure).
   */
  async retryLater(originalId: string, nextAttemptAt: number, error: string, outcomeUnknown: boolean, markAt?: number): Promise<void> {
    const mark = !outcomeUnknown ? this.own([this.shape.mark], null) : markAt === undefined ? {} : this.own([this.shape.mark], Math.round(markAt));
    await this.queueDb
      .updateTable(this.queue)
      .set({
        next_attempt_at: Math.round(nextAttemptAt),
        last_error: error,
        ...mark,
        claimed_by: null,
        claim_until: null,
      })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .execute();
  }

  async markDead(originalId: string, at: number, error: string): Promise<boolean> {
    const result = await this.queueDb
      .updateTable(this.queue)
      .set({ status: 'dead', dead_at: at, last_error: error, ...this.own([this.shape.mark], null), claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** An operator's replay of a dead one: queued again (where it stopped) with a fresh retry window (from the database's now on PostgreSQL). */
  async requeue(originalId: string, now: number): Promise<boolean> {
    const current = this.nowIn(now);
    const result = await this.queueDb
      .updateTable(this.queue)
      .set({ status: 'queued', dead_at: null, attempts: 0, next_attempt_at: current, window_start: current, claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'dead')
      .where('payload', 'is not', null)
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /**
   * Drops the personal data of dead ones that died at or before `deadBefore`: a lead nobody
   * replayed in that time is not kept for ever. The row stays (status, fingerprint), so the widget's
   * status check and a repeat of the same submission still get their answers. Returns how many.
   */
  async eraseDead(deadBefore: number, now: number): Promise<number> {
    return this.erasePayloads('dead', 'dead_at', deadBefore, now);
  }

  /** Drops the personal data of `status` rows whose `since` column is at or before `before`; the rows stay. Returns how many. */
  protected async erasePayloads(status: Status | 'dead' | 'spam', since: string, before: number, now: number): Promise<number> {
    const result = await this.queueDb
      .updateTable(this.queue)
      .set({ payload: null, ...this.own(this.shape.personal ?? [], null), erased_at: now })
      .where('status', '=', status)
      .where('payload', 'is not', null)
      .where(sql.ref<number>(since), '<=', before)
      .executeTakeFirst();
    return this.removedFromDisk(changed(result));
  }

  /**
   * Quarantined leads (spam rows still holding their payload: a honeypot filled in), newest first,
   * at most `limit`: what the operator may release.
   */
  async quarantined(limit = 100): Promise<Entry[]> {
    const rows = await this.queueDb
      .selectFrom(this.queue)
      .selectAll()
      .where('status', '=', 'spam')
      .where('payload', 'is not', null)
      .orderBy('seq', 'desc')
      .limit(Math.max(1, Math.min(limit, 10_000)))
      .execute();
    return rows.map((row) => this.entry(row));
  }

  /**
   * The operator's release of a quarantined lead: queued for delivery from now (a fresh retry
   * window), as any accepted lead, its signal kept so the CRM's copy is marked. One conditional
   * UPDATE: of two releases at once (two operators, two relays' CLIs) exactly one moves the row, so
   * it is queued once, and from there the queue's exactly-once delivery holds. False when it is not
   * in the quarantine (never was, released already, or erased after LEAD_QUARANTINE_DAYS); 'repeat'
   * when a queue with keys finds it repeats a lead it holds (recorded as that one, not sent).
   */
  async release(originalId: string, now: number): Promise<boolean | 'repeat'> {
    return this.releaseWith(originalId, now, {});
  }

  /**
   * What a released row becomes besides queued (columns set in the release's own UPDATE, so no
   * worker sees it in between): none here; a queue whose leads may still wait for something (the
   * saved searches: their owner's confirmation) says so. `current`: now in a statement.
   */
  protected async releasedAs(_originalId: string, _current: RawBuilder<number>): Promise<Record<string, unknown>> {
    return {};
  }

  /**
   * The release's one conditional UPDATE, also setting `keys` (the digest columns a lead accepted
   * outside the quarantine would have had: KeyedLeadQueueTable.releaseWithIntent). A key another
   * row took in the meantime fails it on the unique index: the lead stays in the quarantine.
   */
  protected async releaseWith(originalId: string, now: number, keys: Record<string, string | null>): Promise<boolean> {
    const current = this.nowIn(now);
    const becomes = await this.releasedAs(originalId, current);
    const result = await this.queueDb
      .updateTable(this.queue)
      .set({ ...keys, status: 'queued', attempts: 0, next_attempt_at: current, window_start: current, claimed_by: null, claim_until: null, ...becomes })
      .where('original_id', '=', originalId)
      .where('status', '=', 'spam')
      .where('payload', 'is not', null)
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /**
   * Erases quarantined leads accepted at or before `acceptedBefore` (LEAD_QUARANTINE_DAYS ago): the
   * row stays a spam row without personal data, so the operator still sees that it came and went.
   */
  async eraseQuarantined(acceptedBefore: number, now: number): Promise<number> {
    return this.erasePayloads('spam', 'accepted_at', acceptedBefore, now);
  }

  /** Deletes one dead entry, whenever it died. */
  async purge(originalId: string): Promise<boolean> {
    const result = await this.queueDb.deleteFrom(this.queue).where('original_id', '=', originalId).where('status', '=', 'dead').executeTakeFirst();
    return this.removedFromDisk(changed(result)) === 1;
  }

  /** Deletes every dead entry that died at or before `deadBefore` (one, when `originalId` is given). */
  async purgeDead(deadBefore: number, originalId?: string): Promise<number> {
    const result = await this.queueDb
      .deleteFrom(this.queue)
      .where('status', '=', 'dead')
      .where('dead_at', '<=', deadBefore)
      .$if(originalId !== undefined, (query) => query.where('original_id', '=', originalId!))
      .executeTakeFirst();
    return this.removedFromDisk(changed(result));
  }

  /**
   * After personal data was erased or deleted: secure_delete (store.ts) has zeroed it in the
   * database pages, but the WAL still holds the pages as they were written. A TRUNCATE checkpoint
   * copies the new pages home and empties the WAL, so the data is gone from disk, not only from SQL.
   * (PostgreSQL keeps old row versions until VACUUM reuses their space: see docs/scale-out.md.)
   */
  private removedFromDisk(rows: number): number {
    if (rows > 0 && this.kind === 'sqlite') checkpoint(this.store);
    return rows;
  }

  /** Rows by status; spam rows still holding their payload are counted apart, as quarantined (not under spam). */
  async counts(): Promise<Record<Status | 'quarantined', number>> {
    const counts = Object.fromEntries([...this.shape.statuses, 'quarantined'].map((status) => [status, 0])) as Record<Status | 'quarantined', number>;
    const rows = await this.queueDb
      .selectFrom(this.queue)
      .select((eb) => [
        'status',
        eb.fn.countAll<number>().as('count'),
        sql<number>`COUNT(CASE WHEN status = 'spam' AND payload IS NOT NULL THEN 1 END)`.as('held'),
      ])
      .groupBy('status')
      .execute();
    for (const { status, count, held } of rows) {
      counts[status as Status] = Number(count) - Number(held);
      counts.quarantined += Number(held);
    }
    return counts;
  }

  /** Entries accepted for the CRM (spam left out) at or after `at` (ms): the daily budget's count. */
  async forwardableAcceptedSince(at: number): Promise<number> {
    const row = await this.queueDb
      .selectFrom(this.queue)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('accepted_at', '>=', at)
      .where('status', '!=', 'spam')
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** Acceptance time of the oldest queued entry (ms), for the "oldest queued age" metric. */
  async oldestQueuedAt(): Promise<number | undefined> {
    const row = await this.queueDb
      .selectFrom(this.queue)
      .select((eb) => eb.fn.min('accepted_at').as('at'))
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return row?.at ?? undefined;
  }

  /** Newest first: `status` ones (default all), at most `limit` (1 to 10,000; default 100). */
  async list(options: { status?: Status | 'all'; limit?: number } = {}): Promise<Entry[]> {
    const status = options.status ?? 'all';
    const limit = Math.max(1, Math.min(options.limit ?? 100, 10_000));
    const rows = await this.queueDb
      .selectFrom(this.queue)
      .selectAll()
      .$if(status !== 'all', (query) => query.where('status', '=', status))
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => this.entry(row));
  }
}
