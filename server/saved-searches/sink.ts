import type { SavedSearchFilters } from '../../contract/saved-search.ts';
import type { CallOptions, DeliveryFailure, LeadSpamSignal } from '../enquiries/sink.ts';

/**
 * The alert sink: where saved searches go (for the CRM: a contact with a buying or renting
 * requirement). The saved-search module speaks to this interface only, in its own terms (a person,
 * their standing search, the agency's alert lists); server/crm/alert-sink.ts implements it, and
 * the CRM's paths, ids and requirement vocabulary stay there.
 *
 * The creating calls are not idempotent: the worker looks before it sends one again. Each calls
 * `options.beforeSend` (the worker's mark) just before its request leaves, after any wait at the
 * CRM's rate limit: a sink that sent without it would send unmarked.
 */

/** Who follows the search, as the form gave them. */
export interface Follower {
  fullName: string;
  email: string;
  mobile?: string;
}

/** A person the sink holds, and whether they unsubscribed from e-mail (the relay never subscribes them again). */
export interface FoundPerson {
  id: number;
  emailUnsubscribed: boolean;
}

/**
 * The consent record left on the person once they confirmed: when they asked, on which page, with
 * which words, and when and how they confirmed (the Spam Act's consent the sender can show).
 */
export interface ConsentRecord {
  originalId: string;
  email: string;
  search: SavedSearchFilters;
  askedAt: number;
  page: string | null;
  words: string | null;
  confirmedAt: number;
}

/** One saved search as the sink needs it for the holding-area note. */
export interface SavedSearchLead {
  originalId: string;
  follower: Follower;
  search: SavedSearchFilters;
  acceptedAt: number;
  /**
   * 'agent': the agency confirms alerts itself: the note asks an agent to confirm with the person
   * (who was added unsubscribed, their requirement inactive), or, when they had unsubscribed
   * (`unsubscribed`), tells the agent so, nothing else being written. Else: a new subscriber.
   */
  confirmation?: 'email' | 'agent';
  unsubscribed?: boolean;
  /** The spam signal it was caught by (too_fast; honeypot once released): the note carries it for the agent to judge. */
  spamSignal?: LeadSpamSignal;
}

export interface AlertSink {
  /** The person the sink holds under this address, or undefined. Throws when it cannot tell. */
  findPerson(email: string, options?: CallOptions): Promise<FoundPerson | undefined>;
  /**
   * Adds the person; resolves with its id. Not idempotent. `subscribed`: their consent to e-mail is
   * proven (confirmed by its owner); false: added unsubscribed, for an agent to confirm.
   */
  addPerson(follower: Follower, consent: { subscribed: boolean }, options?: CallOptions): Promise<number>;
  /**
   * The person's standing searches equal to `search` (ids, oldest first): how a search whose
   * creation had an unknown outcome is recognised. Undefined when the person is gone (merged or
   * deleted in the CRM): the worker finds or adds them again.
   */
  findSearches(personId: number, search: SavedSearchFilters, options?: CallOptions): Promise<number[] | undefined>;
  /** Adds the standing search to the person (`active` false: matched to no listing until an agent confirms); resolves with its id (null when the answer named none). Not idempotent. */
  addSearch(personId: number, search: SavedSearchFilters, state: { active: boolean }, options?: CallOptions): Promise<number | null>;
  /** Whether the agency names lists for alert followers (step 3 is skipped when not). */
  readonly hasAlertLists: boolean;
  /** Puts the person on the agency's alert lists, keeping the lists they are on. Idempotent. */
  addToAlertLists(personId: number, options?: CallOptions): Promise<void>;
  /** Leaves the consent record on the person; resolves with its id (null when none was named). Not idempotent. */
  recordConsent(personId: number, record: ConsentRecord, options?: CallOptions): Promise<number | null>;
  /** The consent record of this saved search on the person (its id), or undefined. Throws when it cannot tell. */
  findConsent(personId: number, originalId: string, options?: CallOptions): Promise<number | undefined>;
  /**
   * Whether a note for an agent is left in the holding area (step 4) for every saved search. One
   * caught by a spam signal leaves one regardless: the note is where the agent sees the mark.
   */
  readonly leavesNote: boolean;
  /** Leaves the note for an agent; resolves with its id (null when none was named). Not idempotent. */
  leaveNote(lead: SavedSearchLead, options?: CallOptions): Promise<number | null>;
  /** The note left for this saved search (its id; null when held without one), or undefined. Throws when it cannot tell. */
  findNote(lead: SavedSearchLead, options?: CallOptions): Promise<number | null | undefined>;
  /** What a thrown error means (the lead sink's terms); undefined for errors that are not the sink's. */
  failure(error: unknown): DeliveryFailure | undefined;
  /** True when the error says the person is gone (a 404 on their id): the worker goes back to finding them. */
  personGone(error: unknown): boolean;
}
