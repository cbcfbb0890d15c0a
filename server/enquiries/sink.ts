import type { ParsedEnquiry } from './schema.ts';

/**
 * The lead sink: where the relay hands accepted enquiries (leads). The enquiry module speaks to
 * this interface only; server/crm/lead-sink.ts implements it for the CRM, and a second CRM would
 * bring its own. Where a lead goes (for the CRM: a listing's sale or lease life and its reference,
 * or a user) is a LeadDestination the sink's adapter makes and reads.
 */

/**
 * Where a lead goes, as an opaque token: made by the CRM adapter (the listing source for a listing
 * or an agent), carried by the listing port, stored as text by the listing cache and the outbox,
 * and read by the lead sink only. Nothing else looks inside it.
 */
export type LeadDestination = string & { readonly __brand: 'LeadDestination' };

/** One lead as the outbox hands it to the sink. */
export interface Lead {
  /** The widget's UUID: how the sink finds a lead it may already hold. */
  originalId: string;
  enquiry: ParsedEnquiry;
  acceptedAt: number;
  destination: LeadDestination;
}

/** What a failed delivery or look-up means, in the relay's terms (the sink translates its errors). */
export interface DeliveryFailure {
  /**
   * 'credentials': the operator must fix a setting (the lead waits for it); 'stopped': the relay is
   * stopping or the call was cancelled; 'unreadable_answer': the sink took the lead but its answer
   * could not be read; 'other': anything else (see `retryable`).
   */
  reason: 'credentials' | 'stopped' | 'unreadable_answer' | 'other';
  /** The same call may succeed later (rate limits, outages, timeouts). */
  retryable: boolean;
  /** The request may have reached the sink and been acted on: look the lead up before sending it again. */
  outcomeUnknown: boolean;
  /**
   * A request with an unknown outcome may still land later (a timeout, a cut connection, a
   * gateway's 502/504), so the look-up waits; false when the sink itself answered.
   */
  mayStillLand: boolean;
  /** When the sink said it takes requests again (ms). */
  retryAt?: number;
  /** The setting to fix, for a credentials failure. */
  setting?: string;
  /** For the outbox and the log: codes, statuses and the sink's message, never the lead's data. */
  description: string;
  /** The sink's own words for a definite refusal (dead-letters the lead), when it gave any. */
  refusal?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface LeadSink {
  /** Whether a destination is complete enough to deliver to: for a lead about a listing, to an agent, or to the office. */
  isComplete(destination: LeadDestination, about: 'listing' | 'agent' | 'office'): boolean;
  /** Where a lead to the office goes (an appraisal naming no agent): it needs no look-up. */
  officeDestination(): LeadDestination;
  /** Hands the lead over; resolves with the sink's id for it (null when its answer named none). Not idempotent. */
  deliver(lead: Lead, options?: CallOptions): Promise<{ id: number | null }>;
  /** The sink's id of the lead stored under `lead.originalId` (null: held, id unknown), or undefined when it does not hold it. Throws when it cannot tell. */
  findByOriginalId(lead: Lead, options?: CallOptions): Promise<number | null | undefined>;
  /** What an error thrown by `deliver` or `findByOriginalId` means; undefined for errors that are not the sink's (the store, a bug). */
  failure(error: unknown): DeliveryFailure | undefined;
}
