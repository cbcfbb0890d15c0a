import type { CallOptions, DeliveryFailure } from '../lead-queue/failure.ts';
import type { SpamReason } from '../lead-queue/table.ts';
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
  /**
   * A spam signal the lead was caught by (too_fast, or honeypot for one the operator released from
   * the quarantine): the sink marks the lead with it for the agent to judge. Absent for most.
   */
  spamSignal?: LeadSpamSignal;
}

/** The signals a delivered lead may carry (a repeat registration is never delivered). */
export type LeadSpamSignal = Exclude<SpamReason, 'repeat_registration'>;

export type { CallOptions, DeliveryFailure } from '../lead-queue/failure.ts';

export interface LeadSink {
  /** Whether a destination is complete enough to deliver to: for a lead about a listing, to an agent, or to the office. */
  isComplete(destination: LeadDestination, about: 'listing' | 'agent' | 'office'): boolean;
  /** Where a lead to the office goes (an appraisal naming no agent): it needs no look-up. */
  officeDestination(): LeadDestination;
  /**
   * Hands the lead over; resolves with the sink's id for it (null when its answer named none). Not
   * idempotent. Calls `options.beforeSend` (the outbox's mark) just before the request leaves,
   * after any wait at the CRM's rate limit: a sink that sent without it would send unmarked.
   */
  deliver(lead: Lead, options?: CallOptions): Promise<{ id: number | null }>;
  /** The sink's id of the lead stored under `lead.originalId` (null: held, id unknown), or undefined when it does not hold it. Throws when it cannot tell. */
  findByOriginalId(lead: Lead, options?: CallOptions): Promise<number | null | undefined>;
  /** What an error thrown by `deliver` or `findByOriginalId` means; undefined for errors that are not the sink's (the store, a bug). */
  failure(error: unknown): DeliveryFailure | undefined;
}
