import type { Generated, Selectable } from 'kysely';
import { KeyedLeadQueueTable } from '../lead-queue/intent.ts';
import { changed, quarantined, spamRow, type LeadQueueOptions, type SpamReason } from '../lead-queue/table.ts';
import type { Store } from '../store/store.ts';
import { hasTable, queriesOf, tablesOf } from '../store/tables.ts';
import { leadTarget, type ParsedEnquiry } from './schema.ts';
import type { LeadDestination } from './sink.ts';

export type OutboxStatus = 'queued' | 'delivered' | 'dead' | 'spam';
export { DEFAULT_CLAIM_LEASE_MS, type SpamReason } from '../lead-queue/table.ts';

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
  /** The validated enquiry; null for a repeat registration and once erased (a quarantined one keeps it). */
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
  /** A lead sent once per person and occasion (schema.ts onceKey, keyed): unique among rows that have one (migration 120). */
  once_key: string | null;
  /** One lead per intent (schema.ts intentDigest, keyed): unique among rows that have one (migration 160). */
  intent_key: string | null;
  /** The relay (worker) delivering it now; NULL when nobody is. */
  claimed_by: string | null;
  /** When that claim lapses (ms): after it, any relay may take the row over. */
  claim_until: number | null;
}

type Row = Selectable<OutboxTable>;

/** How long a lead's intent holds: the same lead sent again later than this is a new lead. */
export const INTENT_WINDOW_MS = 24 * 60 * 60_000;

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
  /**
   * A spam signal (lead-queue/table.ts SpamReason): too_fast is queued and delivered marked,
   * honeypot is kept whole in the quarantine, repeat_registration is stored without personal data.
   */
  spamReason?: SpamReason;
  /**
   * For a lead sent once per person and occasion (an open-home registration): no two rows hold the
   * same key, so a second registration under another originalId is not stored (outcome 'repeat').
   */
  onceKey?: string;
  /**
   * One lead per intent (lead-keys.ts intentKey): a lead with the same key accepted less than
   * INTENT_WINDOW_MS before stands for this one (outcome 'same-intent'); an older one gives it up.
   */
  intentKey?: string;
}

export type AcceptOutcome =
  | { outcome: 'created'; entry: OutboxEntry }
  /** This originalId was stored before: the same body again (a retry), or another. */
  | { outcome: 'duplicate' | 'conflict'; entry: OutboxEntry }
  /** Another row holds the same onceKey: nothing stored. */
  | { outcome: 'repeat' }
  /** Another lead holds the same intentKey: this originalId is stored as one with it (`sameAs`), nothing more is sent. */
  | { outcome: 'same-intent'; sameAs: string }
  /** This originalId was stored as one with `sameAs` before: the same body again, or another. */
  | { outcome: 'duplicate' | 'conflict'; sameAs: string };

export interface ListOptions {
  status?: OutboxStatus | 'all';
  limit?: number;
}

/** Who claims rows through the outbox, and whose clock it reads (lead-queue/table.ts). */
export type OutboxOptions = LeadQueueOptions;

/**
 * The durable outbox of enquiries: a lead queue (lead-queue/table.ts: claims, retries, erasure,
 * the operator's moves) over the table enquiry_outbox, whose one write is the POST of the lead,
 * marked in sending_since.
 */
export class EnquiryOutbox extends KeyedLeadQueueTable<OutboxEntry, OutboxStatus, Row> {
  constructor(store: Store, options: OutboxOptions = {}) {
    super(
      store,
      // The once and intent keys are keyed digests of the address: erased with the payload all the same.
      { table: 'enquiry_outbox', mark: 'sending_since', statuses: ['queued', 'delivered', 'dead', 'spam'], personal: ['once_key', 'intent_key'], fromRow },
      // Rows stored before migration 160 hold their fingerprint and once key as bare SHA-256 (keyed on first use: keys()).
      { digest: 'once_key', repeats: 'enquiry_repeats', intentWindowMs: INTENT_WINDOW_MS, what: 'an enquiry' },
      options,
    );
  }

  private get db() {
    return queriesOf(this.store).db.withTables<{ enquiry_outbox: OutboxTable }>();
  }

  /**
   * Stores a new enquiry, or finds the one already stored under its originalId. The UNIQUE
   * constraint decides between two submissions racing with the same id (in one process or
   * several): exactly one insert wins, the other reads the winner and compares fingerprints. The
   * same goes for two with the same onceKey (the partial unique index of migration 120): the loser
   * stores nothing and hears 'repeat'; and for two with the same intentKey (migration 160): the
   * loser is stored as one with the winner ('same-intent'), unless the winner is a day old, when
   * its key is taken from it and the insert tried again.
   */
  async accept(input: NewEnquiry): Promise<AcceptOutcome> {
    return this.acceptWithIntent(() => this.tryAccept(input));
  }

  private async tryAccept(input: NewEnquiry): Promise<AcceptOutcome | 'again'> {
    const { enquiry, target } = input;
    const row = spamRow(input.spamReason);
    const spam = row.status === 'spam';
    const inserted = await this.db
      .insertInto('enquiry_outbox')
      .values({
        original_id: enquiry.originalId,
        fingerprint: input.fingerprint,
        status: row.status,
        spam_reason: input.spamReason ?? null,
        // PostgreSQL: the database's clock (nowIn), so any relay's worker finds it due at once.
        accepted_at: this.nowIn(input.acceptedAt),
        listing_id: leadTarget(enquiry).listingId ?? null,
        agent_id: leadTarget(enquiry).agentId ?? null,
        destination: target ?? null,
        payload: row.keepsPayload ? JSON.stringify(enquiry) : null,
        next_attempt_at: this.nowIn(input.acceptedAt),
        window_start: this.nowIn(input.acceptedAt),
        sending_since: null,
        last_error: null,
        delivered_at: null,
        crm_enquiry_id: null,
        dead_at: null,
        erased_at: null,
        once_key: spam ? null : (input.onceKey ?? null),
        intent_key: spam ? null : (input.intentKey ?? null),
        claimed_by: null,
        claim_until: null,
      })
      // Any unique key: the originalId, the once key or the intent key (no conflict target names them all).
      .onConflict((conflict) => conflict.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { outcome: 'created', entry: fromRow(inserted) };
    const entry = await this.get(enquiry.originalId);
    if (entry) return { outcome: entry.fingerprint === input.fingerprint ? 'duplicate' : 'conflict', entry };
    if (!spam && input.intentKey !== undefined) return this.sameIntent({ ...input, originalId: enquiry.originalId }, input.intentKey);
    if (!spam && input.onceKey !== undefined) return { outcome: 'repeat' };
    throw new Error('outbox row vanished right after a conflicting insert');
  }

  /**
   * The operator's release of a quarantined enquiry, with the keys it would have had had no
   * honeypot held it back, so that it cannot duplicate a lead the same person sent outside the
   * quarantine (before or after it): an open-home registration takes its once key, unless this
   * person is registered for this open home already, when it becomes a repeat registration (its
   * personal data erased, nothing sent: 'repeat'); any other lead takes its intent key, or is
   * recorded as one with the same lead taken within a day of it (KeyedLeadQueueTable.releaseWithIntent).
   */
  override async release(originalId: string, now: number): Promise<boolean | 'repeat'> {
    const entry = await this.get(originalId);
    if (!entry || !quarantined(entry)) return false;
    const keys = await this.keys();
    const onceKey = keys.onceKey(entry.payload!) ?? null;
    if (onceKey !== null) {
      const registered = await this.db.selectFrom('enquiry_outbox').select('original_id').where('once_key', '=', onceKey).executeTakeFirst();
      if (registered) return (await this.keepAsRepeatRegistration(originalId)) ? 'repeat' : false;
    }
    return this.releaseWithIntent(originalId, now, keys.intentKey(entry.payload!), { once_key: onceKey });
  }

  /** A quarantined registration found to repeat one already taken: kept as a repeat registration is stored at acceptance (no personal data). */
  private async keepAsRepeatRegistration(originalId: string): Promise<boolean> {
    const result = await this.db
      .updateTable('enquiry_outbox')
      .set({ spam_reason: 'repeat_registration', payload: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'spam')
      .where('payload', 'is not', null)
      .executeTakeFirst();
    return changed(result) === 1;
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

  /** Committed before the POST leaves (startWrite): after a crash, the row says "this may have reached the CRM". */
  async startSending(originalId: string, now: number, leaseMs?: number): Promise<boolean> {
    return this.startWrite(originalId, now, leaseMs);
  }

  /** The POST (or a reconciliation) proved the CRM does not hold it. */
  async clearSending(originalId: string): Promise<void> {
    return this.clearWrite(originalId);
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

  /** Drops the personal data of enquiries delivered at or before `deliveredBefore`. Returns how many. */
  async eraseDelivered(deliveredBefore: number, now: number): Promise<number> {
    return this.erasePayloads('delivered', 'delivered_at', deliveredBefore, now);
  }
}

/**
 * The outbox's figures for `npm run relay -- status` (zeros in a store older than the outbox).
 * The SQLite store's outbox: with DATABASE_URL the outbox is in PostgreSQL (EnquiryOutbox.counts).
 */
export function outboxStatus(store: Store): Record<OutboxStatus | 'quarantined', number> & { oldestQueuedAt: number | null; total: number } {
  const status = { queued: 0, delivered: 0, dead: 0, spam: 0, quarantined: 0, oldestQueuedAt: null as number | null, total: 0 };
  if (!hasTable(store, 'enquiry_outbox')) return status;
  const db = tablesOf(store);
  // A spam row still holding its payload is quarantined (lead-queue/table.ts counts), not counted under spam.
  const rows = db
    .prepare("SELECT status, COUNT(*) AS n, COUNT(CASE WHEN status = 'spam' AND payload IS NOT NULL THEN 1 END) AS held FROM enquiry_outbox GROUP BY status")
    .all() as Array<{ status: OutboxStatus; n: number; held: number }>;
  for (const row of rows) {
    status[row.status] = row.n - row.held;
    status.quarantined += row.held;
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
