import { sql, type Generated, type RawBuilder, type Selectable } from 'kysely';
import type { SavedSearchConfirmation, SavedSearchFilters } from '../../contract/saved-search.ts';
import { KeyedLeadQueueTable } from '../lead-queue/intent.ts';
import { savedSearchIntentDigest } from './schema.ts';
import { changed, DEFAULT_CLAIM_LEASE_MS, spamRow, type LeadQueueOptions, type SpamReason } from '../lead-queue/table.ts';
import type { LeadKeys } from '../enquiries/lead-keys.ts';
import { checkpoint, type Store } from '../store/store.ts';
import { hasTable, queriesOf, tablesOf } from '../store/tables.ts';

/**
 * queued (on its way into the CRM), saved, dead, spam (answered, nothing kept; with its payload:
 * quarantined); and for double opt-in: unconfirmed (waiting for its owner to follow the e-mailed
 * link; nothing in the CRM), expired (not confirmed in time: erased), unsubscribed (confirmed, but
 * the CRM's contact had unsubscribed from e-mail: nothing written, the visitor told to ask the agency).
 */
export type SavedSearchStatus = 'queued' | 'saved' | 'dead' | 'spam' | 'unconfirmed' | 'expired' | 'unsubscribed';

/**
 * Where a saved search is on its way into the CRM, in order: find or add the person, add their
 * standing search, put them on the agency's alert lists, leave the consent record on the person,
 * leave a note for an agent, done. Kept per row and committed after each step, so a crash resumes
 * at the step it stopped at.
 */
export const STEPS = ['person', 'search', 'lists', 'consent', 'note', 'done'] as const;
export type Step = (typeof STEPS)[number];

/** What the visitor sent, kept until the saved search is in the CRM (and erased after the retention time). */
export interface SavedSearchPayload {
  fullName: string;
  email: string;
  mobile?: string;
  consent: true;
  search: SavedSearchFilters;
  /** The site language the form was in (contract/languages.ts), when the relay has its words: the e-mail and its page are in it. */
  language?: string;
}

/** What the visitor agreed to and where (kept beside the row, no personal data): the consent record's first half. */
export interface ConsentAsked {
  /** The page they saved the search on (origin and path), when the form said. */
  page: string | null;
  /** The consent box's words as the page showed them, when the form said. */
  words: string | null;
}

export interface SavedSearchEntry {
  seq: number;
  originalId: string;
  fingerprint: string;
  status: SavedSearchStatus;
  spamReason: SpamReason | null;
  acceptedAt: number;
  /** A keyed digest of the e-mail address (never the address): the per-address claim's key. */
  addressKey: string | null;
  payload: SavedSearchPayload | null;
  step: Step;
  personId: number | null;
  searchId: number | null;
  noteId: number | null;
  /** Creating writes of the current step sent so far (reset as a step is done): its back-off grows with them. */
  attempts: number;
  nextAttemptAt: number;
  windowStart: number;
  /** Set while the current step's write may be (or may have been) in the CRM's hands: look before writing again. */
  writingSince: number | null;
  lastError: string | null;
  savedAt: number | null;
  deadAt: number | null;
  erasedAt: number | null;
  /** How it is confirmed; null for one accepted before double opt-in (delivered as then). */
  confirmation: SavedSearchConfirmation | null;
  /** The consent record: asked (accepted_at, consent page and words), confirmed (when, how: `confirmation`). */
  consent: ConsentAsked;
  confirmedAt: number | null;
  expiresAt: number | null;
  mailSentAt: number | null;
  mailAttempts: number;
}

/** The table as the query builder sees it (SQLite migration 130, PostgreSQL pg-migrations 060). */
interface SavedSearchTable {
  seq: Generated<number>;
  original_id: string;
  fingerprint: string;
  status: SavedSearchStatus;
  spam_reason: SpamReason | null;
  accepted_at: number;
  address_key: string | null;
  payload: string | null;
  step: Step;
  person_id: number | null;
  search_id: number | null;
  note_id: number | null;
  attempts: Generated<number>;
  next_attempt_at: number;
  window_start: number;
  writing_since: number | null;
  last_error: string | null;
  saved_at: number | null;
  dead_at: number | null;
  erased_at: number | null;
  claimed_by: string | null;
  claim_until: number | null;
  /** One saved search per intent (schema.ts savedSearchIntentDigest, keyed): unique among rows that have one (migration 200). */
  intent_key: string | null;
  /** Double opt-in (migration 210): see there. */
  confirmation: SavedSearchConfirmation | null;
  confirm_key: string | null;
  expires_at: number | null;
  mail_due_at: number | null;
  mail_attempts: Generated<number>;
  mail_sent_at: number | null;
  /** Who is sending the confirmation e-mail now (the queue's owner, migration 222); NULL when nobody is. */
  mail_claimed_by: string | null;
  confirmed_at: number | null;
  consent_page: string | null;
  consent_text: string | null;
}

/** How long a saved search's intent holds: the same one sent again later than this is a new saved search. */
export const SAVED_SEARCH_INTENT_WINDOW_MS = 24 * 60 * 60_000;

/** One e-mail address in one relay's hands: two saved searches for it are never worked at once. */
interface AddressClaimTable {
  address_key: string;
  holder: string;
  claim_until: number;
}

type Tables = {
  saved_searches: SavedSearchTable;
  saved_search_address_claims: AddressClaimTable;
};

function fromRow(row: Selectable<SavedSearchTable>): SavedSearchEntry {
  return {
    seq: Number(row.seq),
    originalId: row.original_id,
    fingerprint: row.fingerprint,
    status: row.status,
    spamReason: row.spam_reason,
    acceptedAt: Number(row.accepted_at),
    addressKey: row.address_key,
    payload: row.payload === null ? null : (JSON.parse(row.payload) as SavedSearchPayload),
    step: row.step,
    personId: row.person_id === null ? null : Number(row.person_id),
    searchId: row.search_id === null ? null : Number(row.search_id),
    noteId: row.note_id === null ? null : Number(row.note_id),
    attempts: row.attempts,
    nextAttemptAt: Number(row.next_attempt_at),
    windowStart: Number(row.window_start),
    writingSince: row.writing_since === null ? null : Number(row.writing_since),
    lastError: row.last_error,
    savedAt: row.saved_at === null ? null : Number(row.saved_at),
    deadAt: row.dead_at === null ? null : Number(row.dead_at),
    erasedAt: row.erased_at === null ? null : Number(row.erased_at),
    confirmation: row.confirmation,
    consent: { page: row.consent_page, words: row.consent_text },
    confirmedAt: row.confirmed_at === null ? null : Number(row.confirmed_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    mailSentAt: row.mail_sent_at === null ? null : Number(row.mail_sent_at),
    mailAttempts: Number(row.mail_attempts),
  };
}

export interface NewSavedSearch {
  originalId: string;
  fingerprint: string;
  acceptedAt: number;
  addressKey: string;
  payload: SavedSearchPayload;
  spamReason?: SpamReason;
  /**
   * One saved search per intent (the keyed savedSearchIntentDigest): one with the same key
   * accepted less than SAVED_SEARCH_INTENT_WINDOW_MS before stands for this one (outcome
   * 'same-intent'); an older one gives it up. A quarantined one (honeypot) keeps none.
   */
  intentKey?: string;
  /**
   * How it is confirmed. 'email': stored unconfirmed until its owner follows the link (whose token
   * digest is `confirmKey`), for `validMs` from acceptance (the queue's clock); 'agent': queued at once. Undefined only in tests of
   * the delivery alone.
   */
  confirmation?: { mode: SavedSearchConfirmation; confirmKey?: string; validMs?: number };
  consent?: ConsentAsked;
}

export type AcceptOutcome =
  | { outcome: 'created'; entry: SavedSearchEntry }
  /** The same originalId accepted before: with the same fingerprint (a retry) or not (a conflict). */
  | { outcome: 'duplicate' | 'conflict'; entry?: SavedSearchEntry }
  /** Another saved search holds the same intentKey: this originalId is stored as one with it (`sameAs`), nothing more is sent. */
  | { outcome: 'same-intent'; sameAs: string };

/** What a step learnt, written with the step it moves to. */
export interface StepResult {
  step: Step;
  personId?: number | null;
  searchId?: number | null;
  noteId?: number | null;
}

export { DEFAULT_CLAIM_LEASE_MS } from '../lead-queue/table.ts';

/**
 * The durable store of saved searches: a lead queue (lead-queue/table.ts, as the enquiry outbox:
 * claims, retries, erasure, the operator's moves) over the table saved_searches, whose CRM writes
 * (a person, a search, a note) are marked in writing_since, one step at a time. A worker claims due
 * rows for a lease, and each row's e-mail address besides (saved_search_address_claims): one relay,
 * one saved search at a time per address, so the person is looked up and added once and their
 * searches are told apart.
 */
export class SavedSearchStore extends KeyedLeadQueueTable<SavedSearchEntry, SavedSearchStatus, Selectable<SavedSearchTable>> {
  constructor(store: Store, options: LeadQueueOptions = {}) {
    super(
      store,
      // The intent key is a keyed digest of the address: erased with the payload and the address key.
      {
        table: 'saved_searches',
        mark: 'writing_since',
        statuses: ['queued', 'unconfirmed', 'saved', 'unsubscribed', 'expired', 'dead', 'spam'],
        personal: ['address_key', 'intent_key', 'confirm_key'],
        fromRow,
      },
      // Rows stored before migration 200 hold their fingerprint and address key as bare SHA-256 (keyed on first use: keys()).
      { digest: 'address_key', repeats: 'saved_search_repeats', intentWindowMs: SAVED_SEARCH_INTENT_WINDOW_MS, what: 'a saved search' },
      options,
    );
  }

  private get db() {
    return queriesOf(this.store).db.withTables<Tables>();
  }

  /** The address claims of rows stored before migration 200 hold a bare SHA-256: each is moved to its keyed key. */
  protected override async keyLegacyDigestsBeside(keys: LeadKeys): Promise<number> {
    const claims = await this.db.selectFrom('saved_search_address_claims').selectAll().where('address_key', 'not like', 'k1:%').execute();
    for (const claim of claims) {
      // Dropped when the keyed one is held already: a claim is a lease, and its row claims again.
      await this.db
        .insertInto('saved_search_address_claims')
        .values({ ...claim, address_key: keys.keyed(claim.address_key) })
        .onConflict((conflict) => conflict.column('address_key').doNothing())
        .execute();
      await this.db.deleteFrom('saved_search_address_claims').where('address_key', '=', claim.address_key).execute();
    }
    return claims.length;
  }

  /**
   * Stores a new saved search, or finds the one stored under its originalId. The UNIQUE
   * constraints decide a race (in one process or several relays): of two with one originalId, one
   * insert wins and the other compares fingerprints; of two with one intentKey, the loser is stored
   * as one with the winner ('same-intent'), unless the winner is a day old, when its key is taken
   * from it and the insert tried again.
   */
  async accept(input: NewSavedSearch): Promise<AcceptOutcome> {
    return this.acceptWithIntent(() => this.tryAccept(input));
  }

  private async tryAccept(input: NewSavedSearch): Promise<AcceptOutcome | 'again'> {
    // A flagged one (too_fast) is queued as any other; a quarantined one (honeypot) is a spam row that keeps its payload.
    const row = spamRow(input.spamReason);
    const spam = row.status === 'spam';
    const at = this.nowIn(input.acceptedAt);
    // Double opt-in: nothing is worked until the owner of the address confirms (a quarantined one waits for the operator first).
    const awaitsOwner = !spam && input.confirmation?.mode === 'email';
    const inserted = await this.db
      .insertInto('saved_searches')
      .values({
        original_id: input.originalId,
        fingerprint: input.fingerprint,
        status: awaitsOwner ? 'unconfirmed' : row.status,
        spam_reason: input.spamReason ?? null,
        accepted_at: at,
        address_key: row.keepsPayload ? input.addressKey : null,
        payload: row.keepsPayload ? JSON.stringify(input.payload) : null,
        step: 'person',
        person_id: null,
        search_id: null,
        note_id: null,
        next_attempt_at: at,
        window_start: at,
        writing_since: null,
        last_error: null,
        saved_at: null,
        dead_at: null,
        erased_at: null,
        claimed_by: null,
        claim_until: null,
        intent_key: spam ? null : (input.intentKey ?? null),
        confirmation: input.confirmation?.mode ?? null,
        confirm_key: input.confirmation?.confirmKey ?? null,
        expires_at: input.confirmation?.validMs === undefined ? null : sql<number>`${at} + ${input.confirmation.validMs}`,
        // The confirmation e-mail is due at once (confirmation.ts sends it); a quarantined one's when released.
        mail_due_at: awaitsOwner ? at : null,
        mail_sent_at: null,
        mail_claimed_by: null,
        confirmed_at: null,
        consent_page: input.consent?.page ?? null,
        consent_text: input.consent?.words ?? null,
      })
      // Either unique key: the originalId or the intent key (no conflict target names both).
      .onConflict((conflict) => conflict.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) return { outcome: 'created', entry: fromRow(inserted) };
    const entry = await this.get(input.originalId);
    if (entry) return { outcome: entry.fingerprint === input.fingerprint ? 'duplicate' : 'conflict', entry };
    if (!spam && input.intentKey !== undefined) {
      const same = await this.sameIntent(input, input.intentKey);
      // A retry or a conflict of a repeat is answered without the saved search it is one with.
      return same === 'again' || same.outcome === 'same-intent' ? same : { outcome: same.outcome };
    }
    throw new Error('saved search vanished right after a conflicting insert');
  }

  /**
   * Takes the row's e-mail address for this row until `now + leaseMs`: free, lapsed (a relay that
   * died), or already this row's. One statement (INSERT … ON CONFLICT DO UPDATE … WHERE), so two
   * relays asking at the same moment cannot both have it. The holder is the saved search itself
   * (whichever relay works it), so a relay taking a row over keeps its address. Returns when it is
   * free again otherwise.
   */
  async claimAddress(
    entry: Pick<SavedSearchEntry, 'originalId' | 'addressKey'>,
    now: number,
    leaseMs = DEFAULT_CLAIM_LEASE_MS,
  ): Promise<{ held: true } | { held: false; until: number }> {
    if (entry.addressKey === null) return { held: true };
    const current = this.nowIn(now);
    const holder = entry.originalId;
    const taken = await this.db
      .insertInto('saved_search_address_claims')
      .values({ address_key: entry.addressKey, holder, claim_until: sql<number>`${current} + ${leaseMs}` })
      .onConflict((conflict) =>
        conflict
          .column('address_key')
          .doUpdateSet({ holder, claim_until: sql<number>`${current} + ${leaseMs}` })
          .where((eb) => eb.or([eb('saved_search_address_claims.claim_until', '<=', current), eb('saved_search_address_claims.holder', '=', holder)])),
      )
      .returning('holder')
      .executeTakeFirst();
    if (taken?.holder === holder) return { held: true };
    const row = await this.db.selectFrom('saved_search_address_claims').select('claim_until').where('address_key', '=', entry.addressKey).executeTakeFirst();
    return { held: false, until: Number(row?.claim_until ?? 0) };
  }

  /** Lets go of the address a saved search holds: once it is saved or dead, or waits with no write of unknown outcome. */
  async releaseAddress(originalId: string): Promise<void> {
    await this.db.deleteFrom('saved_search_address_claims').where('holder', '=', originalId).execute();
  }

  /**
   * Keeps a saved search's address until `until` (the store's clock): it waits to look up a write
   * of unknown outcome, and no other saved search of the address may add the person meanwhile.
   */
  async holdAddressUntil(originalId: string, until: number): Promise<void> {
    await this.db
      .updateTable('saved_search_address_claims')
      .set({ claim_until: Math.round(until) })
      .where('holder', '=', originalId)
      .execute();
  }

  /** Extends this owner's claims on rows still in work, and on their addresses. */
  override async renewClaims(originalIds: string[], now: number, leaseMs = DEFAULT_CLAIM_LEASE_MS): Promise<void> {
    if (originalIds.length === 0) return;
    await super.renewClaims(originalIds, now, leaseMs);
    await this.db
      .updateTable('saved_search_address_claims')
      .set({ claim_until: sql<number>`${this.nowIn(now)} + ${leaseMs}` })
      .where('holder', 'in', originalIds)
      .execute();
  }

  /** Commits a step's outcome and the step it moves to (the write, if any, is known now). False when the row is not this owner's to move. */
  async advance(originalId: string, result: StepResult): Promise<boolean> {
    const update = await this.db
      .updateTable('saved_searches')
      .set({
        step: result.step,
        writing_since: null,
        // A step's attempts are its own: the next step's back-off starts from its first failure.
        attempts: 0,
        ...(result.personId === undefined ? {} : { person_id: result.personId }),
        ...(result.searchId === undefined ? {} : { search_id: result.searchId }),
        ...(result.noteId === undefined ? {} : { note_id: result.noteId }),
      })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(update) === 1;
  }

  /** Every step done: the saved search is in the CRM. Releases the claim (the address is released by the worker). */
  async markSaved(originalId: string, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('saved_searches')
      .set({ status: 'saved', step: 'done', saved_at: at, writing_since: null, last_error: null, claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /** Another saved search of the same address is being worked: try this one once that claim may be over, without counting an attempt. */
  async waitForAddress(originalId: string, nextAttemptAt: number): Promise<void> {
    await this.db
      .updateTable('saved_searches')
      .set({ next_attempt_at: Math.round(nextAttemptAt), claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .execute();
  }

  /** The search ids other saved searches of this person recorded: never taken for this one. */
  async searchIdsOfOthers(personId: number, originalId: string): Promise<number[]> {
    const rows = await this.db
      .selectFrom('saved_searches')
      .select('search_id')
      .where('person_id', '=', personId)
      .where('search_id', 'is not', null)
      .where('original_id', '!=', originalId)
      .execute();
    return rows.map((row) => Number(row.search_id));
  }

  /**
   * What the confirmation worker has to do now, read without a write: whether an unconfirmed saved
   * search's e-mail is due, and whether one's link has lapsed. An idle relay then never takes the
   * store's write lock (on SQLite a write waits, event loop and all, while another process holds it).
   */
  async confirmationWork(now: number): Promise<{ mailDue: boolean; expired: boolean }> {
    const current = this.nowIn(now);
    const [mail, lapsed] = await Promise.all([
      this.db.selectFrom('saved_searches').select('seq').where('status', '=', 'unconfirmed').where('mail_due_at', '<=', current).limit(1).executeTakeFirst(),
      this.db.selectFrom('saved_searches').select('seq').where('status', '=', 'unconfirmed').where('expires_at', '<=', current).limit(1).executeTakeFirst(),
    ]);
    return { mailDue: mail !== undefined, expired: lapsed !== undefined };
  }

  /**
   * Takes up to `limit` unconfirmed saved searches whose confirmation e-mail is due, oldest first,
   * by moving their due time a lease ahead and naming this owner as their sender (one statement;
   * SKIP LOCKED on PostgreSQL): a relay that dies while sending leaves them due again when the
   * lease is over, or at once when it starts again (releaseOwnMailClaims), and the e-mail goes once
   * more (the same link: a second copy is harmless, a lost one is not).
   */
  async claimMailDue(now: number, limit: number, leaseMs = DEFAULT_CLAIM_LEASE_MS): Promise<SavedSearchEntry[]> {
    const current = this.nowIn(now);
    const rows = await this.db
      .updateTable('saved_searches')
      .set((eb) => ({ mail_due_at: sql<number>`${current} + ${leaseMs}`, mail_attempts: eb('mail_attempts', '+', 1), mail_claimed_by: this.owner }))
      .where('seq', 'in', (eb) =>
        eb
          .selectFrom('saved_searches')
          .select('seq')
          .where('status', '=', 'unconfirmed')
          .where('mail_due_at', '<=', current)
          .orderBy('seq')
          .limit(limit)
          .$if(this.kind === 'postgres', (query) => query.forUpdate().skipLocked()),
      )
      .returningAll()
      .execute();
    return rows.map(fromRow).sort((a, b) => a.seq - b.seq);
  }

  /** Keeps this owner's claims on e-mails it is still sending from lapsing: their due time moved a lease ahead again (the heartbeat). */
  async renewMailClaims(originalIds: string[], now: number, leaseMs = DEFAULT_CLAIM_LEASE_MS): Promise<void> {
    if (originalIds.length === 0) return;
    await this.db
      .updateTable('saved_searches')
      .set({ mail_due_at: sql<number>`${this.nowIn(now)} + ${leaseMs}` })
      .where('original_id', 'in', originalIds)
      .where('status', '=', 'unconfirmed')
      .where('mail_claimed_by', '=', this.owner)
      .execute();
  }

  /**
   * A relay starting again: the e-mails its previous process had claimed and not finished are due
   * now, instead of when their lease would lapse. Called before the process claims any itself, so
   * every claim of this owner is a dead process's. The owner is one relay: on PostgreSQL its id
   * (the registry refuses a second live process with it), on SQLite its host and DATA_DIR (whose
   * store one relay process works). Returns how many.
   */
  async releaseOwnMailClaims(now: number): Promise<number> {
    const result = await this.db
      .updateTable('saved_searches')
      .set({ mail_due_at: this.nowIn(now), mail_claimed_by: null })
      .where('status', '=', 'unconfirmed')
      .where('mail_claimed_by', '=', this.owner)
      .executeTakeFirst();
    return changed(result);
  }

  /** The SMTP server took the confirmation e-mail. */
  async markMailSent(originalId: string, at: number): Promise<void> {
    await this.db
      .updateTable('saved_searches')
      .set({ mail_sent_at: this.nowIn(at), mail_due_at: null, mail_claimed_by: null, last_error: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'unconfirmed')
      .execute();
  }

  /** The e-mail could not be sent: try again at `at`, or never (`at` null: refused for good, left to expire), noting why (no address in it). */
  async mailRetryLater(originalId: string, at: number | null, error: string): Promise<void> {
    await this.db
      .updateTable('saved_searches')
      .set({ mail_due_at: at === null ? null : Math.round(at), mail_claimed_by: null, last_error: error })
      .where('original_id', '=', originalId)
      .where('status', '=', 'unconfirmed')
      .execute();
  }

  /** The saved search whose link's token digest is `confirmKey`, whatever its status. */
  async byConfirmKey(confirmKey: string): Promise<SavedSearchEntry | undefined> {
    const row = await this.db.selectFrom('saved_searches').selectAll().where('confirm_key', '=', confirmKey).executeTakeFirst();
    return row ? fromRow(row) : undefined;
  }

  /**
   * The owner of the address followed the link: an unconfirmed, unexpired saved search is queued
   * for the CRM (its retry window starting now) with the time of confirmation. One conditional
   * UPDATE: two clicks (or two relays) confirm it once. False when it is not waiting (confirmed
   * already, expired, erased).
   */
  async confirm(confirmKey: string, now: number): Promise<boolean> {
    const current = this.nowIn(now);
    const result = await this.db
      .updateTable('saved_searches')
      .set({
        status: 'queued',
        confirmed_at: current,
        next_attempt_at: current,
        window_start: current,
        mail_due_at: null,
        mail_claimed_by: null,
        claimed_by: null,
        claim_until: null,
      })
      .where('confirm_key', '=', confirmKey)
      .where('status', '=', 'unconfirmed')
      .where('expires_at', '>', current)
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /**
   * Unconfirmed saved searches whose link lapsed (expires_at at or before now): expired, and their
   * personal data (payload, address digests, the link's digest) erased; the row stays, without it,
   * so a repeat of its originalId is still answered. Returns how many.
   */
  async expireUnconfirmed(now: number): Promise<number> {
    const current = this.nowIn(now);
    const result = await this.db
      .updateTable('saved_searches')
      .set({
        status: 'expired',
        payload: null,
        address_key: null,
        intent_key: null,
        confirm_key: null,
        mail_due_at: null,
        mail_claimed_by: null,
        consent_page: null,
        consent_text: null,
        erased_at: current,
      })
      .where('status', '=', 'unconfirmed')
      .where('expires_at', '<=', current)
      .executeTakeFirst();
    const expired = changed(result);
    if (expired > 0 && this.kind === 'sqlite') checkpoint(this.store);
    return expired;
  }

  /**
   * The CRM's contact for the address had unsubscribed from e-mail: nothing more is written for this
   * saved search (the relay never re-subscribes anyone); the link's page tells its owner to ask the agency.
   */
  async markUnsubscribed(originalId: string, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('saved_searches')
      .set({ status: 'unsubscribed', step: 'done', saved_at: at, writing_since: null, claimed_by: null, claim_until: null })
      .where('original_id', '=', originalId)
      .where('status', '=', 'queued')
      .where(this.mine())
      .executeTakeFirst();
    return changed(result) === 1;
  }

  /**
   * The operator's release of a quarantined saved search, with the intent key it would have had
   * (KeyedLeadQueueTable.releaseWithIntent: recorded as one with the same search of the same
   * address taken within a day of it, 'repeat', rather than sent twice).
   */
  override async release(originalId: string, now: number): Promise<boolean | 'repeat'> {
    const entry = await this.get(originalId);
    if (!entry?.payload) return false;
    const keys = await this.keys();
    return this.releaseWithIntent(originalId, now, keys.keyed(savedSearchIntentDigest({ email: entry.payload.email, search: entry.payload.search })));
  }

  /**
   * A released saved search still needs its owner's confirmation when the agency asks for it: it
   * becomes unconfirmed (its e-mail due now, its link valid from now), never queued straight.
   */
  protected override async releasedAs(originalId: string, current: RawBuilder<number>): Promise<Record<string, unknown>> {
    const entry = await this.get(originalId);
    if (entry?.confirmation !== 'email' || entry.confirmedAt !== null) return {};
    const validMs = (entry.expiresAt ?? entry.acceptedAt) - entry.acceptedAt;
    return { status: 'unconfirmed', mail_due_at: current, mail_claimed_by: null, expires_at: sql<number>`${current} + ${validMs}` };
  }

  /** Drops the personal data of unsubscribed ones (nothing was written for them) `before` on, as of saved ones. */
  async eraseUnsubscribed(before: number, now: number): Promise<number> {
    return this.erasePayloads('unsubscribed', 'saved_at', before, now);
  }

  /** Drops the personal data (payload and the address digest) of saved searches in the CRM since `before`. */
  async eraseSaved(before: number, now: number): Promise<number> {
    return this.erasePayloads('saved', 'saved_at', before, now);
  }
}

/**
 * The saved-search queue's figures for `npm run relay -- status`, beside the outbox's (zeros in a
 * store older than the queue): queued (waiting for the CRM), saved, dead (a refusal or the retry
 * window over), spam (answered, nothing kept), quarantined (honeypot, kept whole for the operator),
 * and when the oldest queued one was accepted. The SQLite store's queue: with
 * DATABASE_URL it is in PostgreSQL (SavedSearchStore.counts, through the running relay).
 */
export function savedSearchStatus(store: Store): Record<SavedSearchStatus | 'quarantined', number> & { oldestQueuedAt: number | null } {
  const status = { queued: 0, unconfirmed: 0, saved: 0, unsubscribed: 0, expired: 0, dead: 0, spam: 0, quarantined: 0, oldestQueuedAt: null as number | null };
  if (!hasTable(store, 'saved_searches')) return status;
  const db = tablesOf(store);
  // A spam row still holding its payload is quarantined (lead-queue/table.ts counts), not counted under spam.
  const rows = db
    .prepare("SELECT status, COUNT(*) AS n, COUNT(CASE WHEN status = 'spam' AND payload IS NOT NULL THEN 1 END) AS held FROM saved_searches GROUP BY status")
    .all() as Array<{ status: SavedSearchStatus; n: number; held: number }>;
  for (const row of rows) {
    status[row.status] = row.n - row.held;
    status.quarantined += row.held;
  }
  status.oldestQueuedAt = (db.prepare("SELECT MIN(accepted_at) FROM saved_searches WHERE status = 'queued'").pluck().get() as number | null) ?? null;
  return status;
}
