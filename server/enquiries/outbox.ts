import { hostname } from 'node:os';
import { sql, type ExpressionBuilder, type Generated, type RawBuilder, type Selectable } from 'kysely';
import type { Clock } from '../runtime/clock.ts';
import { databaseClock, type DatabaseClock } from '../store/shared-database.ts';
import { checkpoint, type Store } from '../store/store.ts';
import { hasTable, queriesOf, tablesOf, type StoreKind } from '../store/tables.ts';
import { leadTarget, type ParsedEnquiry } from './schema.ts';
import type { LeadDestination } from './sink.ts';

export type OutboxStatus = 'queued' | 'delivered' | 'dead' | 'spam';
/**
 * Why a row is answered but not forwarded: a spam trap (honeypot, too_fast), or a repeat of an
 * open-home registration already taken (repeat_registration: see NewEnquiry.onceKey).
 */
export type SpamReason = 'honeypot' | 'too_fast' | 'repeat_registration';

/** One outbox row as the code sees it (the table is enquiry_outbox, migration 010). */
export interface OutboxEntry {
  seq: number;
  originalId: string;
  fingerprint: string;
  status: OutboxStatus;
  spamReason: SpamReason | null;
  acceptedAt: number;
  listingId: number | null;
  agentId: number | null;
  /** Where it goes: the lead sink's own token (sink.ts), stored as it came; null until resolved. */
  target: LeadDestination | null;
  /** The validated enquiry; null for spam and once erased. */
  payload: ParsedEnquiry | null;
  attempts: number;
  nextAttemptAt: number;
  windowStart: number;
  /** Set while a POST may be (or may have been) in the CRM's hands: reconcile before re-posting. */
  sendingSince: number | null;
  lastError: string | null;
  deliveredAt: number | null;
  crmEnquiryId: number | null;
  foundByReconcile: boolean;
  deadAt: number | null;
  erasedAt: number | null;
}

/** The table as the query builder sees it (SQLite migrations 010, 070, 090; PostgreSQL pg-migrations 010). */
interface OutboxTable {
  seq: Generated<number>;
  original_id: string;
  fingerprint: string;
  status: OutboxStatus;
  spam_reason: SpamReason | null;
  accepted_at: number;
  listing_id: number | null;
  agent_id: number | null;
  destination: string | null;
  payload: string | null;
  attempts: Generated<number>;
  next_attempt_at: number;
  window_start: number;
  sending_since: number | null;
  last_error: string | null;
  delivered_at: number | null;
  crm_enquiry_id: number | null;
  found_by_reconcile: Generated<number>;
  dead_at: number | null;
  erased_at: number | null;
  /** A lead sent once per person and occasion (schema.ts onceKey): unique among rows that have one (migration 120). */
  once_key: string | null;
  /** The relay (worker) delivering it now; NULL when nobody is. */
  claimed_by: string | null;
  /** When that claim lapses (ms): after it, any relay may take the row over. */
  claim_until: number | null;
}

type Row = Selectable<OutboxTable>;

function fromRow(row: Row): OutboxEntry {
  return {
    seq: row.seq,
    originalId: row.original_id,
    fingerprint: row.fingerprint,
    status: row.status,
    spamReason: row.spam_reason,
    acceptedAt: row.accepted_at,
    listingId: row.listing_id,
    agentId: row.agent_id,
    // Rows stored since migration 070 hold the CRM adapter's JSON, which is what its tokens are.
    target: row.destination as LeadDestination | null,
    payload: row.payload === null ? null : (JSON.parse(row.payload) as ParsedEnquiry),
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    windowStart: row.window_start,
    sendingSince: row.sending_since,
    lastError: row.last_error,
    deliveredAt: row.delivered_at,
    crmEnquiryId: row.crm_enquiry_id,
    foundByReconcile: row.found_by_reconcile === 1,
    deadAt: row.dead_at,
    erasedAt: row.erased_at,
  };
}

export interface NewEnquiry {
  enquiry: ParsedEnquiry;
  fingerprint: string;
  acceptedAt: number;
  /** Known at acceptance when the listing or agent lookup answered; else resolved before delivery. */
  target?: LeadDestination;
  /** Set for a tripped spam trap: stored (so a repeat gets the same answer) without personal data. */
  spamReason?: SpamReason;
  /**
   * For a lead sent once per person and occasion (an open-home registration): no two rows hold the
   * same key, so a second registration under another originalId is not stored (outcome 'repeat').
   */
  onceKey?: string;
}

export type AcceptOutcome =
  | { outcome: 'created'; entry: OutboxEntry }
  | { outcome: 'duplicate'; entry: OutboxEntry }
  | { outcome: 'conflict'; entry: OutboxEntry }
  /** Another row holds the same onceKey: nothing stored. */
  | { outcome: 'repeat' };

export interface ListOptions {
  status?: OutboxStatus | 'all';
  limit?: number;
}

export interface OutboxOptions {
  /**
   * Who claims rows through this outbox. Rows another owner holds are never changed through this
   * one. Default: this host and DATA_DIR. Relays sharing a PostgreSQL outbox pass their registry
   * id (the random id in DATA_DIR/relay-id, store/relay-identity.ts: two containers may share a
   * host name and a path), the same across restarts, so a relay restarted after a crash
   * (systemd, a kill -9) takes its own claims back at once instead of waiting out their lease.
   */
  owner?: string;
  /**
   * PostgreSQL only: where the outbox's statements read "now" (claims, their lapse, due times).
   * Default the database's clock, so relays whose clocks disagree agree on every shared time;
   * tests that move time by hand pass their clock (clockAsDatabaseClock).
   */
  clock?: DatabaseClock;
}

/** How long a claim lasts unless renewed (ms): longer than any one delivery (CRM timeouts included). */
export const DEFAULT_CLAIM_LEASE_MS = 2 * 60_000;

const changed = (result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }) => Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n);

/**
 * The durable outbox of enquiries, in the store's SQLite file or, with DATABASE_URL, in
 * PostgreSQL (the same queries, through Kysely). Every write is one statement committed before
 * the method resolves: on SQLite (synchronous=FULL) and PostgreSQL alike it survives a kill -9
 * or a power cut, and the 202 is sent only after `accept` resolves.
 *
 * Several relays may share one PostgreSQL outbox: a delivery worker claims due rows
 * (`claimDue`, FOR UPDATE SKIP LOCKED there, one atomic UPDATE on SQLite) for a lease, and the
 * writes that move a row on are fenced by the claim, so a row is in one relay's hands at a time.
 *
 * Times: on SQLite (one relay) every time is the relay's clock, the `now` its callers pass. On
 * PostgreSQL the rows' times are the database's clock, since relays' clocks need not agree: the
 * statements that claim, renew, take over, start sending, accept and requeue read it themselves
 * (the `now` passed is ignored there), and the times the worker computes (retries, erasure) are
 * on it through `clockOffset`, read at each pass.
 */
export class EnquiryOutbox {
  readonly owner: string;
  private readonly clock: DatabaseClock;

  constructor(
    readonly store: Store,
    options: OutboxOptions = {},
  ) {
    this.owner = options.owner ?? `${hostname()}:${store.dataDir}`;
    this.clock = options.clock ?? databaseClock;
  }

  /**
   * Now in a statement: the database's clock on PostgreSQL (the same for every relay on it),
   * `now` (the relay's clock) on SQLite.
   */
  private nowIn(now: number): RawBuilder<number> {
    return this.kind === 'postgres' ? sql<number>`${sql.raw(this.clock.sql())}` : sql<number>`${now}`;
  }

  /**
   * How far the outbox's clock is ahead of `local` (ms, negative: behind): on PostgreSQL the
   * database's, read now (half the round trip counted either side); 0 on SQLite, where the relay's
   * own clock is the outbox's. The delivery worker adds it to its clock for every time it writes.
   */
  async clockOffset(local: Clock): Promise<number> {
    if (this.kind !== 'postgres') return 0;
    const before = local();
    const { rows } = await sql<{ now: number }>`SELECT ${sql.raw(this.clock.sql())} AS now`.execute(this.db);
    const after = local();
    return Number(rows[0]!.now) - Math.round((before + after) / 2);
  }

  /** Which database the outbox is in. */
  get kind(): StoreKind {
    return queriesOf(this.store).kind;
  }

  private get db() {
    return queriesOf(this.store).db.withTables<{ enquiry_outbox: OutboxTable }>();
  }

  /** Rows this owner may move on: unclaimed ones (an operator's, a test's) or its own claims. */
  private mine() {
    return (eb: ExpressionBuilder<{ enquiry_outbox: OutboxTable }, 'enquiry_outbox'>) =>
      eb.or([eb('claimed_by', 'is', null), eb('claimed_by', '=', this.owner)]);
  }

  /**
   * Stores a new enquiry, or finds the one already stored under its originalId. The UNIQUE
   * constraint decides between two submissions racing with the same id (in one process or
   * several): exactly one insert wins, the other reads the winner and compares fingerprints. The
   * same goes for two with the same onceKey (the partial unique index of migration 120): the loser
   * stores nothing and hears 'repeat'.
   */
  async accept(input: NewEnquiry): Promise<AcceptOutcome> {
    const { enquiry, target } = input;
    const spam = input.spamReason !== undefined;
    const inserted = await this.db
      .insertInto('enquiry_outbox')
      .values({
        original_id: enquiry.originalId,
        fingerprint: input.fingerprint,
        status: spam ? 'spam' : 'queued',
        spam_reason: input.spamReason ?? null,
        // PostgreSQL: the database's clock (nowIn), so any relay's worker finds it due at once.
        accepted_at: this.nowIn(input.acceptedAt),
        listing_id: leadTarget(enquiry).listingId ?? null,
        agent_id: leadTarget(enquiry).agentId ?? null,
        destination: target ?? null,
        payload: spam ? null : JSON.stringify(enquiry),
        next_attempt_at: this.nowIn(input.acceptedAt),
        window_start: this.nowIn(input.acceptedAt),
        sending_since: null,
        last_error: null,
        delivered_at: null,
        crm_enquiry_id: null,
        dead_at: null,
        erased_at: null,
        once_key: spam ? null : (input.onceKey ?? null),
        claimed_by: null,
        claim_until: null,
      })
      // Either unique key: the originalId or the once key (no conflict target names both).
      .onConflict((conflict) => conflict.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { outcome: 'created', entry: fromRow(inserted) };
    const entry = await this.get(enquiry.originalId);
    if (!entry && input.onceKey !== undefined && !spam) return { outcome: 'repeat' };
    if (!entry) throw new Error('outbox row vanished right after a conflicting insert');
    return { outcome: entry.fingerprint === input.fingerprint ? 'duplicate' : 'conflict', entry };
  }

  async get(originalId: string): Promise<OutboxEntry | undefined> {
    const row = await this.db.selectFrom('enquiry_outbox').selectAll().where('original_id', '=', originalId).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /** Status and fingerprint only: what the per-request checks need, without reading the payload. */
  async state(originalId: string): Promise<{ status: OutboxStatus; fingerprint: string } | undefined> {
    return this.db.selectFrom('enquiry_outbox').select(['status', 'fingerprint']).where('original_id', '=', originalId).executeTakeFirst();
  }

  /** Queued entries whose next attempt is due, oldest acceptance first (a look only: nothing is claimed). */
  async due(now: number, limit: number): Promise<OutboxEntry[]> {
    const rows = await this.db
      .selectFrom('enquiry_outbox')
      .selectAll()
      .where('status', '=', 'queued')
      .where('next_attempt_at', '<=', this.nowIn(now))
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((row) => fromRow(row));
  }

  /**
   * Claims up to `limit` due rows for this owner until `now + leaseMs`, oldest first: rows nobody
   * holds, whose claim has lapsed (a relay that died), or that this owner holds already. "Now" is
   * the database's clock on PostgreSQL, in the statement itself: a claim another relay took never
   * looks lapsed here because this relay's clock is ahead. On
   * PostgreSQL the candidate rows are locked with FOR UPDATE SKIP LOCKED, so relays claiming at
   * the same moment take different rows instead of queueing on each other's; on SQLite the one
   * UPDATE runs under the database's write lock. `inFlight`: this owner's rows already being
   * delivered, left out.
   */
  async claimDue(now: number, limit: number, leaseMs = DEFAULT_CLAIM_LEASE_MS, inFlight: string[] = []): Promise<OutboxEntry[]> {
    const postgres = this.kind === 'postgres';
    const current = this.nowIn(now);
    const rows = await this.db
      .updateTable('enquiry_outbox')
      .set({ claimed_by: this.owner, claim_until: sql<number>`${current} + ${leaseMs}` })
      .where('seq', 'in', (eb) =>
        eb
          .selectFrom('enquiry_outbox')
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
    return rows.sort((a, b) => a.seq - b.seq).map((row) => fromRow(row));
  }

  /** Gives up this owner's claims on rows it took but will not deliver now: other relays may take them at once. */
  async releaseClaims(originalIds: string[]): Promise<void> {
    if (originalIds.length === 0) return;
    await this.db
      .updateTable('enquiry_outbox')
      .set({ claimed_by: null, claim_until: null })
      .where('original_id', 'in', originalIds)
      .where('claimed_by', '=', this.owner)
      .execute();
  }

  /** Extends this owner's claims on `originalIds` (deliveries still in flight) to `now + leaseMs` (the database's now on PostgreSQL). */
  async renewClaims(originalIds: string[], now: number, leaseMs = DEFAULT_CLAIM_LEASE_MS): Promise<void> {
    if (originalIds.length === 0) return;
    await this.db
      .updateTable('enquiry_outbox')
      .set({ claim_until: sql<number>`${this.nowIn(now)} + ${leaseMs}` })
      .where('original_id', 'in', originalIds)
      .where('claimed_by', '=', this.owner)
      .where('status', '=', 'queued')
      .execute();
  }

  /** When the earliest queued entry not yet due at `now` (the database's now on PostgreSQL) falls due (ms, the outbox's clock), or undefined when none. */
  async nextDueAfter(now: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('enquiry_outbox')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('status', '=', 'queued')
      .where('next_attempt_at', '>', this.nowIn(now))
      .executeTakeFirst();
    return row?.at ?? undefined;
  }

  async resolveTarget(originalId: string, target: LeadDestination): Promise<void> {
    await this.db
      .updateTable('enquiry_outbox')
      .set({ destination: target })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .execute();
  }

  /**
   * Committed before the POST leaves: after a crash, the row says "this may have reached the CRM".
   * With `leaseMs`, also renews this owner's claim for the request's time (from the database's now
   * on PostgreSQL, as `sending_since`). Returns false when the
   * row is no longer queued, or another relay holds it (this owner's claim lapsed and was taken
   * over): then nothing may be sent.
   */
  async startSending(originalId: string, now: number, leaseMs?: number): Promise<boolean> {
    const result = await this.db
      .updateTable('enquiry_outbox')
      .set((eb) => {
        const current = this.nowIn(now);
        return {
          sending_since: current,
          attempts: eb('attempts', '+', 1),
          ...(leaseMs === undefined ? {} : { claim_until: sql<number>`${current} + ${leaseMs}` }),
        };
      })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** The POST (or a reconciliation) proved the CRM does not hold it. */
  async clearSending(originalId: string): Promise<void> {
    await this.db.updateTable('enquiry_outbox').set({ sending_since: null }).where('original_id', '=', originalId).where(this.mine()).execute();
  }

  /** The sink holds it: whoever learnt that says so (a fact, not a claim to fence). Releases the claim. */
  async markDelivered(originalId: string, at: number, crmEnquiryId: number | null, foundByReconcile: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('enquiry_outbox')
      .set({
        status: 'delivered',
        delivered_at: at,
        crm_enquiry_id: crmEnquiryId,
        found_by_reconcile: foundByReconcile ? 1 : 0,
        sending_since: null,
        last_error: null,
        claimed_by: null,
        claim_until: null,
      })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** Schedules another attempt and releases the claim. `outcomeUnknown` keeps the "may have reached the CRM" mark. */
  async retryLater(originalId: string, nextAttemptAt: number, error: string, outcomeUnknown: boolean): Promise<void> {
    await this.db
      .updateTable('enquiry_outbox')
      .set({
        next_attempt_at: Math.round(nextAttemptAt),
        last_error: error,
        ...(outcomeUnknown ? {} : { sending_since: null }),
        claimed_by: null,
        claim_until: null,
      })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .execute();
  }

  async markDead(originalId: string, at: number, error: string): Promise<boolean> {
    const result = await this.db
      .updateTable('enquiry_outbox')
      .set({ status: 'dead', dead_at: at, last_error: error, sending_since: null, claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** An operator's replay of a dead letter: queued again with a fresh retry window (from the database's now on PostgreSQL). */
  async requeue(originalId: string, now: number): Promise<boolean> {
    const current = this.nowIn(now);
    const result = await this.db
      .updateTable('enquiry_outbox')
      .set({ status: 'queued', dead_at: null, attempts: 0, next_attempt_at: current, window_start: current, claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'dead')
      .where('payload', 'is not', null)
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** Drops the personal data of enquiries delivered at or before `deliveredBefore`. Returns how many. */
  async eraseDelivered(deliveredBefore: number, now: number): Promise<number> {
    return this.erasePayloads('delivered', 'delivered_at', deliveredBefore, now);
  }

  /**
   * Drops the personal data of dead letters that died at or before `deadBefore`: a lead nobody
   * replayed in that time is not kept for ever. The row stays (status, fingerprint), so the widget's
   * status check and a repeat of the same submission still get their answers. Returns how many.
   */
  async eraseDead(deadBefore: number, now: number): Promise<number> {
    return this.erasePayloads('dead', 'dead_at', deadBefore, now);
  }

  /** Drops the payloads of `status` rows whose `since` column is at or before `before`; the rows stay. Returns how many. */
  private async erasePayloads(status: 'delivered' | 'dead', since: 'delivered_at' | 'dead_at', before: number, now: number): Promise<number> {
    const result = await this.db
      .updateTable('enquiry_outbox')
      .set({ payload: null, erased_at: now })
      .where('status', '=', status)
      .where('payload', 'is not', null)
      .where(since, '<=', before)
      .executeTakeFirst();
    return this.removedFromDisk(changed(result));
  }

  /** Deletes one dead letter. */
  async purge(originalId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('enquiry_outbox').where('original_id', '=', originalId).where('status', '=', 'dead').executeTakeFirst();
    return this.removedFromDisk(changed(result)) === 1;
  }

  /** Deletes every dead letter that died at or before `deadBefore`. */
  async purgeDead(deadBefore: number): Promise<number> {
    const result = await this.db.deleteFrom('enquiry_outbox').where('status', '=', 'dead').where('dead_at', '<=', deadBefore).executeTakeFirst();
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

  async counts(): Promise<Record<OutboxStatus, number>> {
    const counts: Record<OutboxStatus, number> = { queued: 0, delivered: 0, dead: 0, spam: 0 };
    const rows = await this.db
      .selectFrom('enquiry_outbox')
      .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
      .groupBy('status')
      .execute();
    for (const { status, count } of rows) counts[status] = Number(count);
    return counts;
  }

  /** Enquiries accepted for delivery (spam left out) at or after `at` (ms): the daily budget's count. */
  async forwardableAcceptedSince(at: number): Promise<number> {
    const row = await this.db
      .selectFrom('enquiry_outbox')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('accepted_at', '>=', at)
      .where('status', '!=', 'spam')
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** Acceptance time of the oldest queued enquiry (ms), for the "oldest queued age" metric. */
  async oldestQueuedAt(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('enquiry_outbox')
      .select((eb) => eb.fn.min('accepted_at').as('at'))
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return row?.at ?? undefined;
  }

  async list(options: ListOptions = {}): Promise<OutboxEntry[]> {
    const status = options.status ?? 'all';
    const limit = Math.max(1, Math.min(options.limit ?? 100, 10_000));
    const rows = await this.db
      .selectFrom('enquiry_outbox')
      .selectAll()
      .$if(status !== 'all', (query) => query.where('status', '=', status as OutboxStatus))
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => fromRow(row));
  }
}

/**
 * The outbox's figures for `npm run relay -- status` (zeros in a store older than the outbox).
 * The SQLite store's outbox: with DATABASE_URL the outbox is in PostgreSQL (EnquiryOutbox.counts).
 */
export function outboxStatus(store: Store): Record<OutboxStatus, number> & { oldestQueuedAt: number | null; total: number } {
  const status = { queued: 0, delivered: 0, dead: 0, spam: 0, oldestQueuedAt: null as number | null, total: 0 };
  if (!hasTable(store, 'enquiry_outbox')) return status;
  const db = tablesOf(store);
  for (const row of db.prepare('SELECT status, COUNT(*) AS n FROM enquiry_outbox GROUP BY status').all() as Array<{ status: OutboxStatus; n: number }>) {
    status[row.status] = row.n;
    status.total += row.n;
  }
  status.oldestQueuedAt = (db.prepare("SELECT MIN(accepted_at) FROM enquiry_outbox WHERE status = 'queued'").pluck().get() as number | null) ?? null;
  return status;
}

/**
 * After a restore: an enquiry queued when the backup was taken may have been delivered since. The
 * CRM has no idempotency key, so each is marked "outcome unknown" and the delivery worker looks it
 * up before it sends anything (the same path as after a crash mid-send). Returns how many.
 */
export function markQueuedForReconcile(store: Store, now: number): number {
  return tablesOf(store).prepare(`UPDATE enquiry_outbox SET sending_since = COALESCE(sending_since, ?) WHERE status = 'queued'`).run(now).changes;
}

/**
 * markQueuedForReconcile for an outbox in either store (a PostgreSQL schema restored with
 * pg_restore, say): every queued enquiry is marked "outcome unknown", and the claims of the relays
 * that ran before the restore are dropped, so the first relay's worker takes the rows at once and
 * looks each up in the CRM before sending. Returns how many are queued.
 */
export async function markQueuedForReconcileAfterRestore(store: object, now: number): Promise<number> {
  const db = queriesOf(store).db.withTables<{ enquiry_outbox: OutboxTable }>();
  const result = await db
    .updateTable('enquiry_outbox')
    .set((eb) => ({ sending_since: eb.fn.coalesce('sending_since', eb.val(now)), claimed_by: null, claim_until: null }))
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
