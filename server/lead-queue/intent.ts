import { sql } from 'kysely';
import { isKeyed, LEAD_KEYS_SECRET, LeadKeys } from '../enquiries/lead-keys.ts';
import { relaySecret } from '../store/relay-secrets.ts';
import { checkpoint, type Store } from '../store/store.ts';
import { queriesOf } from '../store/tables.ts';
import { changed, LeadQueueTable, type LeadQueueOptions, type LeadQueueShape } from './table.ts';

/** What a queue whose rows hold keyed digests and one intent key tells the shared statements below, besides its LeadQueueShape. */
export interface KeyedLeadQueueShape {
  /** The queue's other digest column besides fingerprint (a keyed digest of the address, or NULL). */
  digest: string;
  /** The queue's table of submissions stored as one with a lead of the same intent (no personal data). */
  repeats: string;
  /** How long a lead's intent holds: the same one sent again later than this is a new lead. */
  intentWindowMs: number;
  /** Named in the error thrown when an intent key keeps changing hands ("an enquiry", "a saved search"). */
  what: string;
}

/** The columns the statements below read, under stand-in names (`digest` stands for KeyedLeadQueueShape.digest). */
interface KeyedColumns {
  seq: number;
  original_id: string;
  fingerprint: string;
  status: string;
  accepted_at: number;
  digest: string | null;
  intent_key: string | null;
}
interface RepeatsColumns {
  original_id: string;
  same_as: string;
  fingerprint: string;
  accepted_at: number;
}
type KeyedTables = { queue: KeyedColumns; repeats: RepeatsColumns };

/** What sameIntent answers: stored as one with `sameAs`, stored so before (a retry or a conflict), or try the insert again. */
export type SameIntentOutcome = { outcome: 'same-intent'; sameAs: string } | { outcome: 'duplicate' | 'conflict'; sameAs: string } | 'again';

/**
 * A lead queue whose rows hold keyed digests (the fingerprint and one of the address, keyed with
 * the relay's secret) and one lead per intent (a unique intent key; a submission of the same
 * intent within intentWindowMs is stored in the queue's repeats table). The enquiry outbox and the
 * saved searches configure it with their tables and columns.
 */
export class KeyedLeadQueueTable<Entry extends { seq: number }, Status extends string, Row> extends LeadQueueTable<Entry, Status, Row> {
  readonly #table: string;
  readonly #keyed: KeyedLeadQueueShape;
  #keys: Promise<LeadKeys> | undefined;

  constructor(store: Store, shape: LeadQueueShape<Entry, Status, Row>, keyed: KeyedLeadQueueShape, options: LeadQueueOptions = {}) {
    super(store, shape, options);
    this.#table = shape.table;
    this.#keyed = keyed;
  }

  private get keyedDb() {
    return queriesOf(this.store).db.withTables<KeyedTables>();
  }

  /** The queue's table and its repeats table under the stand-in names (see KeyedColumns). */
  private get queueTable() {
    return this.#table as 'queue';
  }

  private get repeatsTable() {
    return this.#keyed.repeats as 'repeats';
  }

  private get digestColumn() {
    return this.#keyed.digest as 'digest';
  }

  /**
   * The digests this queue stores, keyed with the relay's secret (made on first use, kept in the
   * store: store/relay-secrets.ts). The first call also keys the digests of rows stored before
   * they were keyed (a bare SHA-256 each), so a retry of such a lead still matches its row; a
   * failure is not kept, the next call tries again.
   */
  keys(): Promise<LeadKeys> {
    this.#keys ??= (async () => {
      const keys = new LeadKeys(await relaySecret(this.store, LEAD_KEYS_SECRET));
      await this.keyLegacyDigests(keys);
      return keys;
    })().catch((error: unknown) => {
      this.#keys = undefined;
      throw error;
    });
    return this.#keys;
  }

  /**
   * Rows stored before their digests were keyed hold their fingerprint and digest column as bare
   * SHA-256: each is replaced by its keyed digest (the HMAC of the bare one, as LeadKeys.keyed
   * makes them), payload or not. Each row is one conditional statement (another relay doing the
   * same writes the same), in pages, so a large queue is not locked for long; then the queue's
   * own digests elsewhere (keyLegacyDigestsBeside). On SQLite the old values are then cleared from
   * the WAL too (secure_delete has zeroed them in the pages).
   */
  private async keyLegacyDigests(keys: LeadKeys): Promise<void> {
    const digest = this.digestColumn;
    let rekeyed = 0;
    for (;;) {
      const rows = await this.keyedDb
        .selectFrom(this.queueTable)
        .select(['seq', 'fingerprint', digest])
        .where((eb) => eb.or([eb('fingerprint', 'not like', 'k1:%'), eb.and([eb(digest, 'is not', null), eb(digest, 'not like', 'k1:%')])]))
        .orderBy('seq')
        .limit(500)
        .execute();
      if (rows.length === 0) break;
      for (const row of rows) {
        const value = (row as unknown as Record<string, string | null>)[digest] ?? null;
        await this.keyedDb
          .updateTable(this.queueTable)
          .set({
            fingerprint: isKeyed(row.fingerprint) ? row.fingerprint : keys.keyed(row.fingerprint),
            [digest]: value === null || isKeyed(value) ? value : keys.keyed(value),
          })
          .where('seq', '=', row.seq)
          .where('fingerprint', '=', row.fingerprint)
          .execute();
      }
      rekeyed += rows.length;
    }
    rekeyed += await this.keyLegacyDigestsBeside(keys);
    if (rekeyed > 0 && this.kind === 'sqlite') checkpoint(this.store);
  }

  /** A queue's digests kept outside its table (the saved searches' address claims): keyed in place. Returns how many. */
  protected async keyLegacyDigestsBeside(_keys: LeadKeys): Promise<number> {
    return 0;
  }

  /**
   * Status and fingerprint of an originalId: its own row's, or for a submission stored as one with
   * another lead (same intent), that lead's status and its own fingerprint: its status reads like
   * the first's, and a retry of it is answered as a retry.
   */
  override async state(originalId: string): Promise<{ status: Status; fingerprint: string } | undefined> {
    const own = await super.state(originalId);
    if (own) return own;
    const queue = this.queueTable;
    const repeats = this.repeatsTable;
    const repeat = await this.keyedDb
      .selectFrom(repeats)
      .innerJoin(queue, `${queue}.original_id`, `${repeats}.same_as`)
      .select([`${queue}.status`, `${repeats}.fingerprint`])
      .where(`${repeats}.original_id`, '=', originalId)
      .executeTakeFirst();
    return repeat as { status: Status; fingerprint: string } | undefined;
  }

  /**
   * Runs `tryAccept` until it stores or answers. Each pass either stores, answers, or frees a key
   * that was a day old (sameIntent): a few passes are plenty.
   */
  protected async acceptWithIntent<Outcome>(tryAccept: () => Promise<Outcome | 'again'>): Promise<Outcome> {
    for (let pass = 0; ; pass++) {
      const outcome = await tryAccept();
      if (outcome !== 'again') return outcome;
      if (pass >= 5) throw new Error(`could not store ${this.#keyed.what}: its intent key kept changing hands`);
    }
  }

  /**
   * The operator's release of a quarantined lead (LeadQueueTable.release) with the intent key it
   * would have had, had no honeypot held it back (`intentKey`, made from its payload), and the
   * queue's other keys (`keys`). Judged as at its acceptance, however long it sat in the quarantine:
   * a lead holding the key that was accepted within intentWindowMs of it (either side: the person
   * may have sent it again after the bot-like copy) is the same intent, so the released one is
   * recorded as one with that lead (its originalId kept in the repeats table, its row and payload
   * gone) and 'repeat' is answered; a holder older than that gives the key up; a younger one keeps
   * it, and the released lead, an earlier intent, is queued without it.
   */
  protected async releaseWithIntent(
    originalId: string,
    now: number,
    intentKey: string | undefined,
    keys: Record<string, string | null> = {},
  ): Promise<boolean | 'repeat'> {
    const held = await this.keyedDb
      .selectFrom(this.queueTable)
      .select(['fingerprint', 'accepted_at'])
      .where('original_id', '=', originalId)
      .where('status', '=', 'spam')
      .where(sql.ref('payload'), 'is not', null)
      .executeTakeFirst();
    if (!held) return false;
    if (intentKey === undefined) return this.releaseWith(originalId, now, keys);
    const window = this.#keyed.intentWindowMs;
    const holder = await this.keyedDb.selectFrom(this.queueTable).select(['original_id', 'accepted_at']).where('intent_key', '=', intentKey).executeTakeFirst();
    if (holder && Math.abs(Number(holder.accepted_at) - Number(held.accepted_at)) < window) {
      await this.keyedDb
        .insertInto(this.repeatsTable)
        .values({ original_id: originalId, same_as: holder.original_id, fingerprint: held.fingerprint, accepted_at: held.accepted_at })
        .onConflict((conflict) => conflict.column('original_id').doNothing())
        .execute();
      const moved = await this.keyedDb
        .deleteFrom(this.queueTable)
        .where('original_id', '=', originalId)
        .where('status', '=', 'spam')
        .where(sql.ref('payload'), 'is not', null)
        .executeTakeFirst();
      if (changed(moved) === 1) return 'repeat';
      // Another release (another operator) moved it first: theirs stands.
      await this.keyedDb.deleteFrom(this.repeatsTable).where('original_id', '=', originalId).where('same_as', '=', holder.original_id).execute();
      return false;
    }
    if (holder && Number(holder.accepted_at) <= Number(held.accepted_at) - window) {
      await this.keyedDb
        .updateTable(this.queueTable)
        .set({ intent_key: null })
        .where('intent_key', '=', intentKey)
        .where('original_id', '=', holder.original_id)
        .execute();
    }
    const keepsKey = !holder || Number(holder.accepted_at) <= Number(held.accepted_at) - window;
    return this.releaseWith(originalId, now, { ...keys, intent_key: keepsKey ? intentKey : null });
  }

  /**
   * The insert met another lead's intent key. Older than intentWindowMs (on the database's clock
   * on PostgreSQL), the key is taken from it: one statement, so of two relays racing, one frees it
   * and both insert again, where the unique index picks one. Younger, this submission is stored as
   * one with that lead (its originalId kept, so a retry or status read of it is answered); a
   * submission already stored so is a retry (same fingerprint) or a conflict.
   */
  protected async sameIntent(input: { originalId: string; fingerprint: string; acceptedAt: number }, intentKey: string): Promise<SameIntentOutcome> {
    const freed = await this.keyedDb
      .updateTable(this.queueTable)
      .set({ intent_key: null })
      .where('intent_key', '=', intentKey)
      .where('accepted_at', '<=', sql<number>`${this.nowIn(input.acceptedAt)} - ${this.#keyed.intentWindowMs}`)
      .executeTakeFirst();
    if (changed(freed) > 0) return 'again';
    const holder = await this.keyedDb.selectFrom(this.queueTable).select('original_id').where('intent_key', '=', intentKey).executeTakeFirst();
    // Erased or freed in the meantime: the key is free.
    if (!holder) return 'again';
    const { originalId } = input;
    const stored = await this.keyedDb
      .insertInto(this.repeatsTable)
      .values({ original_id: originalId, same_as: holder.original_id, fingerprint: input.fingerprint, accepted_at: this.nowIn(input.acceptedAt) })
      .onConflict((conflict) => conflict.column('original_id').doNothing())
      .returning('original_id')
      .executeTakeFirst();
    if (stored) return { outcome: 'same-intent', sameAs: holder.original_id };
    const earlier = await this.keyedDb
      .selectFrom(this.repeatsTable)
      .select(['same_as', 'fingerprint'])
      .where('original_id', '=', originalId)
      .executeTakeFirstOrThrow();
    return { outcome: earlier.fingerprint === input.fingerprint ? 'duplicate' : 'conflict', sameAs: earlier.same_as };
  }
}
