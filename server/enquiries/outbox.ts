import { checkpoint, type Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import type { ParsedEnquiry } from './schema.ts';
import type { LeadDestination } from './sink.ts';

export type OutboxStatus = 'queued' | 'delivered' | 'dead' | 'spam';
export type SpamReason = 'honeypot' | 'too_fast';

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
  /** Where it goes, in the lead sink's form (sink.ts); the sink's `unresolved` until known. */
  target: LeadDestination;
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

interface Row {
  seq: number;
  original_id: string;
  fingerprint: string;
  status: OutboxStatus;
  spam_reason: SpamReason | null;
  accepted_at: number;
  listing_id: number | null;
  agent_id: number | null;
  destination: string | null;
  payload: string | null;
  attempts: number;
  next_attempt_at: number;
  window_start: number;
  sending_since: number | null;
  last_error: string | null;
  delivered_at: number | null;
  crm_enquiry_id: number | null;
  found_by_reconcile: number;
  dead_at: number | null;
  erased_at: number | null;
}

function fromRow(row: Row, unresolved: LeadDestination): OutboxEntry {
  return {
    seq: row.seq,
    originalId: row.original_id,
    fingerprint: row.fingerprint,
    status: row.status,
    spamReason: row.spam_reason,
    acceptedAt: row.accepted_at,
    listingId: row.listing_id,
    agentId: row.agent_id,
    target: row.destination === null ? unresolved : { ...unresolved, ...(JSON.parse(row.destination) as LeadDestination) },
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
}

interface InsertParams {
  originalId: string;
  fingerprint: string;
  status: OutboxStatus;
  spamReason: SpamReason | null;
  acceptedAt: number;
  listingId: number | null;
  agentId: number | null;
  destination: string | null;
  payload: string | null;
}

export type AcceptOutcome =
  | { outcome: 'created'; entry: OutboxEntry }
  | { outcome: 'duplicate'; entry: OutboxEntry }
  | { outcome: 'conflict'; entry: OutboxEntry };

export interface ListOptions {
  status?: OutboxStatus | 'all';
  limit?: number;
}

/**
 * The durable outbox of enquiries. Every write is one SQLite statement or transaction on a store
 * opened with synchronous=FULL, so when a method returns, the change survives a kill -9 or a power
 * cut: the 202 is sent only after `accept` returns.
 */
export class EnquiryOutbox {
  private readonly statements;

  /**
   * @param unresolved what an entry's target reads as before it is resolved: the lead sink's
   *   `unresolved` (default: empty).
   */
  constructor(
    readonly store: Store,
    private readonly unresolved: LeadDestination = {},
  ) {
    const db = tablesOf(store);
    this.statements = {
      insert: db.prepare<[InsertParams]>(
        `INSERT INTO enquiry_outbox (original_id, fingerprint, status, spam_reason, accepted_at, listing_id, agent_id,
           destination, payload, next_attempt_at, window_start)
         VALUES (@originalId, @fingerprint, @status, @spamReason, @acceptedAt, @listingId, @agentId,
           @destination, @payload, @acceptedAt, @acceptedAt)
         ON CONFLICT (original_id) DO NOTHING`,
      ),
      byId: db.prepare<[string], Row>('SELECT * FROM enquiry_outbox WHERE original_id = ?'),
      stateById: db.prepare<[string], { status: OutboxStatus; fingerprint: string }>(
        'SELECT status, fingerprint FROM enquiry_outbox WHERE original_id = ?',
      ),
      due: db.prepare<[number, number], Row>(
        `SELECT * FROM enquiry_outbox WHERE status = 'queued' AND next_attempt_at <= ? ORDER BY seq LIMIT ?`,
      ),
      nextDueAfter: db.prepare<[number], { at: number | null }>(
        `SELECT MIN(next_attempt_at) AS at FROM enquiry_outbox WHERE status = 'queued' AND next_attempt_at > ?`,
      ),
      resolveTarget: db.prepare<[string, string]>(
        `UPDATE enquiry_outbox SET destination = ? WHERE original_id = ? AND status = 'queued'`,
      ),
      startSending: db.prepare<[number, string]>(
        `UPDATE enquiry_outbox SET sending_since = ?, attempts = attempts + 1 WHERE original_id = ? AND status = 'queued'`,
      ),
      clearSending: db.prepare<[string]>(`UPDATE enquiry_outbox SET sending_since = NULL WHERE original_id = ?`),
      delivered: db.prepare<[number, number | null, number, string]>(
        `UPDATE enquiry_outbox SET status = 'delivered', delivered_at = ?, crm_enquiry_id = ?, found_by_reconcile = ?,
           sending_since = NULL, last_error = NULL
         WHERE original_id = ? AND status = 'queued'`,
      ),
      retryLater: db.prepare<[{ nextAttemptAt: number; error: string; keepSending: number; originalId: string }]>(
        `UPDATE enquiry_outbox SET next_attempt_at = @nextAttemptAt, last_error = @error,
           sending_since = CASE WHEN @keepSending = 1 THEN sending_since ELSE NULL END
         WHERE original_id = @originalId AND status = 'queued'`,
      ),
      dead: db.prepare<[number, string, string]>(
        `UPDATE enquiry_outbox SET status = 'dead', dead_at = ?, last_error = ?, sending_since = NULL
         WHERE original_id = ? AND status = 'queued'`,
      ),
      requeue: db.prepare<[{ now: number; originalId: string }]>(
        `UPDATE enquiry_outbox SET status = 'queued', dead_at = NULL, attempts = 0, next_attempt_at = @now, window_start = @now
         WHERE original_id = @originalId AND status = 'dead' AND payload IS NOT NULL`,
      ),
      erase: db.prepare<[number, number]>(
        `UPDATE enquiry_outbox SET payload = NULL, erased_at = ? WHERE status = 'delivered' AND payload IS NOT NULL AND delivered_at <= ?`,
      ),
      eraseDead: db.prepare<[number, number]>(
        `UPDATE enquiry_outbox SET payload = NULL, erased_at = ? WHERE status = 'dead' AND payload IS NOT NULL AND dead_at <= ?`,
      ),
      purgeOne: db.prepare<[string]>(`DELETE FROM enquiry_outbox WHERE original_id = ? AND status = 'dead'`),
      purgeDead: db.prepare<[number]>(`DELETE FROM enquiry_outbox WHERE status = 'dead' AND dead_at <= ?`),
      counts: db.prepare<[], { status: OutboxStatus; count: number }>(
        'SELECT status, COUNT(*) AS count FROM enquiry_outbox GROUP BY status',
      ),
      forwardableSince: db.prepare<[number], { count: number }>(
        `SELECT COUNT(*) AS count FROM enquiry_outbox WHERE accepted_at >= ? AND status != 'spam'`,
      ),
      oldestQueued: db.prepare<[], { at: number | null }>(`SELECT MIN(accepted_at) AS at FROM enquiry_outbox WHERE status = 'queued'`),
    };
  }

  /**
   * Stores a new enquiry, or finds the one already stored under its originalId. The UNIQUE
   * constraint decides between two submissions racing with the same id (in one process or
   * several): exactly one insert wins, the other reads the winner and compares fingerprints.
   */
  accept(input: NewEnquiry): AcceptOutcome {
    const { enquiry, target } = input;
    const spam = input.spamReason !== undefined;
    const result = this.statements.insert.run({
      originalId: enquiry.originalId,
      fingerprint: input.fingerprint,
      status: spam ? 'spam' : 'queued',
      spamReason: input.spamReason ?? null,
      acceptedAt: input.acceptedAt,
      listingId: enquiry.listingId ?? null,
      agentId: enquiry.agentId ?? null,
      destination: target === undefined ? null : JSON.stringify(target),
      payload: spam ? null : JSON.stringify(enquiry),
    });
    const entry = this.get(enquiry.originalId);
    if (!entry) throw new Error('outbox row vanished right after insert');
    if (result.changes === 1) return { outcome: 'created', entry };
    return { outcome: entry.fingerprint === input.fingerprint ? 'duplicate' : 'conflict', entry };
  }

  get(originalId: string): OutboxEntry | undefined {
    const row = this.statements.byId.get(originalId);
    return row ? fromRow(row, this.unresolved) : undefined;
  }

  /** Status and fingerprint only: what the per-request checks need, without reading the payload. */
  state(originalId: string): { status: OutboxStatus; fingerprint: string } | undefined {
    return this.statements.stateById.get(originalId);
  }

  /** Queued entries whose next attempt is due, oldest acceptance first. */
  due(now: number, limit: number): OutboxEntry[] {
    return this.statements.due.all(now, limit).map((row) => fromRow(row, this.unresolved));
  }

  /** When the earliest queued entry not yet due at `now` falls due (ms), or undefined when none. */
  nextDueAfter(now: number): number | undefined {
    return this.statements.nextDueAfter.get(now)?.at ?? undefined;
  }

  resolveTarget(originalId: string, target: LeadDestination): void {
    this.statements.resolveTarget.run(JSON.stringify(target), originalId);
  }

  /** Committed before the POST leaves: after a crash, the row says "this may have reached the CRM". */
  startSending(originalId: string, now: number): void {
    this.statements.startSending.run(now, originalId);
  }

  /** The POST (or a reconciliation) proved the CRM does not hold it. */
  clearSending(originalId: string): void {
    this.statements.clearSending.run(originalId);
  }

  markDelivered(originalId: string, at: number, crmEnquiryId: number | null, foundByReconcile: boolean): boolean {
    return this.statements.delivered.run(at, crmEnquiryId, foundByReconcile ? 1 : 0, originalId).changes === 1;
  }

  /** Schedules another attempt. `outcomeUnknown` keeps the "may have reached the CRM" mark. */
  retryLater(originalId: string, nextAttemptAt: number, error: string, outcomeUnknown: boolean): void {
    this.statements.retryLater.run({ nextAttemptAt: Math.round(nextAttemptAt), error, keepSending: outcomeUnknown ? 1 : 0, originalId });
  }

  markDead(originalId: string, at: number, error: string): boolean {
    return this.statements.dead.run(at, error, originalId).changes === 1;
  }

  /** An operator's replay of a dead letter: queued again with a fresh retry window. */
  requeue(originalId: string, now: number): boolean {
    return this.statements.requeue.run({ now, originalId }).changes === 1;
  }

  /** Drops the personal data of enquiries delivered at or before `deliveredBefore`. Returns how many. */
  eraseDelivered(deliveredBefore: number, now: number): number {
    return this.removedFromDisk(this.statements.erase.run(now, deliveredBefore).changes);
  }

  /**
   * Drops the personal data of dead letters that died at or before `deadBefore`: a lead nobody
   * replayed in that time is not kept for ever. The row stays (status, fingerprint), so the widget's
   * status check and a repeat of the same submission still get their answers. Returns how many.
   */
  eraseDead(deadBefore: number, now: number): number {
    return this.removedFromDisk(this.statements.eraseDead.run(now, deadBefore).changes);
  }

  /** Deletes one dead letter. */
  purge(originalId: string): boolean {
    return this.removedFromDisk(this.statements.purgeOne.run(originalId).changes) === 1;
  }

  /** Deletes every dead letter that died at or before `deadBefore`. */
  purgeDead(deadBefore: number): number {
    return this.removedFromDisk(this.statements.purgeDead.run(deadBefore).changes);
  }

  /**
   * After personal data was erased or deleted: secure_delete (store.ts) has zeroed it in the
   * database pages, but the WAL still holds the pages as they were written. A TRUNCATE checkpoint
   * copies the new pages home and empties the WAL, so the data is gone from disk, not only from SQL.
   */
  private removedFromDisk(rows: number): number {
    if (rows > 0) checkpoint(this.store);
    return rows;
  }

  counts(): Record<OutboxStatus, number> {
    const counts: Record<OutboxStatus, number> = { queued: 0, delivered: 0, dead: 0, spam: 0 };
    for (const { status, count } of this.statements.counts.all()) counts[status] = count;
    return counts;
  }

  /** Enquiries accepted for delivery (spam left out) at or after `at` (ms): the daily budget's count. */
  forwardableAcceptedSince(at: number): number {
    return this.statements.forwardableSince.get(at)?.count ?? 0;
  }

  /** Acceptance time of the oldest queued enquiry (ms), for the "oldest queued age" metric. */
  oldestQueuedAt(): number | undefined {
    return this.statements.oldestQueued.get()?.at ?? undefined;
  }

  list(options: ListOptions = {}): OutboxEntry[] {
    const status = options.status ?? 'all';
    const limit = Math.max(1, Math.min(options.limit ?? 100, 10_000));
    const rows =
      status === 'all'
        ? tablesOf(this.store).prepare<[number], Row>('SELECT * FROM enquiry_outbox ORDER BY seq DESC LIMIT ?').all(limit)
        : tablesOf(this.store)
            .prepare<[string, number], Row>('SELECT * FROM enquiry_outbox WHERE status = ? ORDER BY seq DESC LIMIT ?')
            .all(status, limit);
    return rows.map((row) => fromRow(row, this.unresolved));
  }
}

/** The outbox's figures for `npm run relay -- status` (zeros in a store older than the outbox). */
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
