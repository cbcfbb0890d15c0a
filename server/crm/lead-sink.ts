import { compactPhone } from '../../contract/phone.ts';
import { isQuestion, leadAbout, type ParsedEnquiry } from '../enquiries/schema.ts';
import { isSellerLead, leadText, questionSubject } from '../enquiries/lead-text.ts';
import type { DeliveryFailure, LeadSink, LeadSpamSignal } from '../enquiries/sink.ts';
import { isCrmError, toCrmDateTime, type CrmClient } from './client.ts';
import { decodeDestination, encodeDestination, type CrmDestination } from './lead-destination.ts';
import type { AddEnquiry } from './schemas.ts';
import { leadOriginMetaData } from './lead-origin.ts';

/**
 * Where an enquiry goes in the CRM: a listing's life (property mode) or a user (contact-me mode).
 * The lead sink's destination token, decoded (lead-destination.ts).
 */
export type ResolvedTarget = CrmDestination;

/** Pages of GET /enquiries read when looking for one enquiry (100 each). */
const RECONCILE_MAX_PAGES = 20;
/** Credentials problems are the operator's to fix; the lead waits for them rather than dying. */
const CREDENTIAL_CODES = new Set(['unauthorized', 'forbidden']);

export interface CrmLeadSinkOptions {
  /** The holding-area source ('OFFICEWEBSITE' for an agency's own site; ENQUIRY_SOURCE). */
  source: string;
  /** Category ids a seller's lead (an appraisal request) carries (ENQUIRY_SELLER_CATEGORIES); none by default. */
  sellerCategories?: readonly number[];
  /** The agency's time zone (SITE_TIME_ZONE): open-home and inspection times in a lead's text. Default Australia/Sydney. */
  timeZone?: string;
}

/**
 * The CRM as the relay's lead sink: an enquiry becomes an AddEnquiry in the CRM's holding area, and
 * a lead whose POST may have arrived is looked up in GET /enquiries by its originalId (the CRM does
 * not deduplicate).
 */
export function crmLeadSink(crm: CrmClient, options: CrmLeadSinkOptions): LeadSink {
  return {
    isComplete: (destination, about) => isResolved(about, decodeDestination(destination)),
    officeDestination: () => encodeDestination({}),
    async deliver(lead, callOptions) {
      const body = toAddEnquiry(lead.enquiry, decodeDestination(lead.destination), {
        source: options.source,
        acceptedAt: new Date(lead.acceptedAt),
        sellerCategories: options.sellerCategories,
        timeZone: options.timeZone,
        spamSignal: lead.spamSignal,
      });
      const stored = await crm.addEnquiry(body, callOptions);
      return { id: stored.id };
    },
    async findByOriginalId(lead, callOptions) {
      const target = decodeDestination(lead.destination);
      // A little before acceptance, in case the CRM files the date in another zone or clock.
      const since = new Date(lead.acceptedAt - 60 * 60_000);
      // A lead to the office (no life, no user) is looked for among the enquiries of its source.
      const filter =
        target.userId != null
          ? { userId: target.userId }
          : target.saleLifeId != null
            ? { saleLifeId: target.saleLifeId }
            : target.leaseLifeId != null
              ? { leaseLifeId: target.leaseLifeId }
              : { source: options.source };
      for (let page = 1; page <= RECONCILE_MAX_PAGES; page++) {
        const list = await crm.listEnquiries({ ...filter, enquiryDateSince: since, sort: 'enquiryDate', sortOrder: 'asc', page, pageSize: 100 }, callOptions);
        const match = list.items.find((item) => item.originalId === lead.originalId);
        if (match) return match.id;
        if (page >= list.totalPages || list.items.length + list.invalidItems === 0) return undefined;
      }
      // Not seen in the pages read: too many enquiries since for one life. Posting again risks a
      // duplicate, waiting risks nothing but time; take it as not found only after the window.
      throw new Error(`more than ${RECONCILE_MAX_PAGES * 100} enquiries to search for this life since acceptance`);
    },
    failure: crmDeliveryFailure,
  };
}

/** A CrmError in the relay's terms; undefined for anything else. */
export function crmDeliveryFailure(error: unknown): DeliveryFailure | undefined {
  if (!isCrmError(error)) return undefined;
  // By its codes and the field it names, never the CRM's words: a refusal may echo a visitor's (errors.ts).
  const crmSays = [error.crmCode, error.crmField && `field ${error.crmField}`].filter(Boolean).join(' ');
  const parts = [error.code, error.status === undefined ? undefined : String(error.status), crmSays].filter(Boolean);
  return {
    reason: CREDENTIAL_CODES.has(error.code)
      ? 'credentials'
      : error.code === 'aborted' || error.code === 'closed'
        ? 'stopped'
        : error.code === 'invalid_response'
          ? 'unreadable_answer'
          : 'other',
    retryable: error.retryable,
    outcomeUnknown: error.outcomeUnknown,
    // A 5xx the CRM answered itself ends the request; a gateway's 502/504 or a timeout may not have.
    mayStillLand: error.code !== 'server_error' || error.status === undefined || error.status === 502 || error.status === 504,
    retryAt: error.retryAt?.getTime(),
    setting: error.setting,
    description: parts.join(' ').slice(0, 500),
    refusal: crmSays ? `CRM ${error.status ?? ''} ${crmSays}`.replace(/\s+/g, ' ') : undefined,
  };
}

interface MappingOptions {
  /** The holding-area source ('OFFICEWEBSITE' for an agency's own site; ENQUIRY_SOURCE). */
  source: string;
  /** When the relay accepted the enquiry: the enquiry's date in the CRM. */
  acceptedAt: Date;
  /** Category ids of a seller's lead (ENQUIRY_SELLER_CATEGORIES). */
  sellerCategories?: readonly number[];
  /** The agency's time zone, for times in a lead's text (default Australia/Sydney). */
  timeZone?: string;
  /** The spam signal the lead was caught by, if any: a metaData entry for the agent to judge (spamSignalMetaData). */
  spamSignal?: LeadSpamSignal;
}

/**
 * "Mary Jane Citizen" → first "Mary Jane", last "Citizen": the CRM files people by surname, and
 * the last word is the surname more often than not. One word is a first name only. fullName is
 * always sent too, as typed, so nothing is lost when the guess is wrong.
 */
export function splitName(fullName: string): { firstName: string; lastName?: string } {
  const words = fullName.trim().split(/\s+/);
  if (words.length < 2) return { firstName: words[0] ?? '' };
  return { firstName: words.slice(0, -1).join(' '), lastName: words.at(-1)! };
}

/** Is the target complete enough to deliver: a life for a listing, a user for an agent; the office needs nothing. */
export function isResolved(about: 'listing' | 'agent' | 'office', target: ResolvedTarget): boolean {
  if (about === 'office') return true;
  if (about === 'agent') return target.userId != null;
  return target.saleLifeId != null || target.leaseLifeId != null;
}

/**
 * The CRM's AddEnquiry body for an accepted lead, built field by field (never by spreading the
 * request). Property mode sends the listing's life id and reference; contact-me mode leaves the
 * property fields out and sends userId, as the reference says; a lead to the office sends neither.
 * A question's subject and body are its own; the other kinds' are written by lead-text.ts, and
 * their details also go in metaData.
 */
export function toAddEnquiry(enquiry: ParsedEnquiry, target: ResolvedTarget, options: MappingOptions): AddEnquiry {
  const name = splitName(enquiry.fullName);
  const about = leadAbout(enquiry);
  // Only a lead about a listing names it (a destination to an agent or the office has neither).
  const place = about === 'listing' ? { listingName: target.propertyReference, listingAddress: target.address } : {};
  const textOptions = { timeZone: options.timeZone ?? 'Australia/Sydney', ...place };
  const text = leadText(enquiry, textOptions);
  const body: AddEnquiry = {
    enquiryDate: toCrmDateTime(options.acceptedAt),
    source: options.source,
    subject: text?.subject ?? (isQuestion(enquiry) ? questionSubject(enquiry.subject, textOptions) : undefined) ?? defaultSubject(about),
    body: text?.body ?? (isQuestion(enquiry) ? enquiry.message : ''),
    originalId: enquiry.originalId,
    fullName: enquiry.fullName,
    firstName: name.firstName,
    ...(name.lastName === undefined ? {} : { lastName: name.lastName }),
    email: enquiry.email,
    // Digits and a leading +: the form a CRM's phone field takes whatever separators were typed.
    ...(enquiry.mobile === undefined ? {} : { mobile: compactPhone(enquiry.mobile) }),
  };
  if (about === 'agent') {
    if (target.userId != null) body.userId = target.userId;
  } else if (about === 'listing') {
    // One life only: an enquiry is about the sale or the lease (a listing shows one of them).
    if (target.saleLifeId != null) body.saleLifeId = target.saleLifeId;
    else if (target.leaseLifeId != null) body.leaseLifeId = target.leaseLifeId;
    if (target.propertyReference) body.propertyReference = target.propertyReference;
  }
  if (isSellerLead(enquiry) && options.sellerCategories?.length) body.categories = options.sellerCategories.map((id) => ({ id }));
  // The CRM has no consent field; metaData keeps what the person agreed to next to the lead.
  body.metaData = [
    { key: 'consent', value: enquiry.consent === undefined ? 'not asked' : enquiry.consent ? 'given' : 'declined' },
    // What was agreed to, in the page's words (the page and the time are the lead's own: page, enquiryDate).
    ...(enquiry.consent && enquiry.consentText ? [{ key: 'consentWords', value: enquiry.consentText }] : []),
    { key: 'channel', value: 'estate-embed website form' },
    ...(text?.details ?? []),
    ...leadOriginMetaData(enquiry),
    ...spamSignalMetaData(options.spamSignal, enquiry.elapsedMs),
    // A contact-me lead the office takes because its agent has left: who it was written to.
    ...(about === 'agent' && target.userId == null
      ? [{ key: 'addressedTo', value: `user ${(enquiry as { agentId: number }).agentId}, no longer with the agency: sent to the office` }]
      : []),
  ];
  return body;
}

/**
 * The mark a lead caught by a spam signal carries to the CRM, in an agent's words: the relay
 * delivers it rather than guess, and the agent judges (`spamSignal` in metaData). `elapsedMs`: how
 * long after the form was shown it was sent.
 */
export function spamSignalMetaData(signal: LeadSpamSignal | undefined, elapsedMs?: number): Array<{ key: string; value: string }> {
  if (signal === 'too_fast') {
    const when =
      elapsedMs === undefined ? 'sooner after the form was shown than a person usually takes' : `${(elapsedMs / 1000).toFixed(1)} s after the form was shown`;
    return [{ key: 'spamSignal', value: `too_fast: sent ${when}; a browser filling the form in does that, and so do bots. Check before replying.` }];
  }
  if (signal === 'honeypot')
    return [
      {
        key: 'spamSignal',
        value: "honeypot: a field hidden from people was filled in; the relay's operator released it from quarantine. Check before replying.",
      },
    ];
  return [];
}

/** A question that names no place, and whose listing the relay cannot name either. */
function defaultSubject(about: 'listing' | 'agent' | 'office'): string {
  return about === 'listing' ? 'Website enquiry about a listing' : 'Website enquiry';
}
