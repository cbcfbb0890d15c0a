import { toCrmDateTime } from '../crm/client.ts';
import type { AddEnquiry } from '../crm/schemas.ts';
import type { ResolvedTarget } from './outbox.ts';
import { compactPhone } from '../../contract/phone.ts';
import type { ParsedEnquiry } from './schema.ts';

export interface MappingOptions {
  /** The holding-area source ('OFFICEWEBSITE' for an agency's own site; ENQUIRY_SOURCE). */
  source: string;
  /** When the relay accepted the enquiry: the enquiry's date in the CRM. */
  acceptedAt: Date;
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

/** Is the target complete enough to deliver: a life in property mode, a user in contact-me mode. */
export function isResolved(enquiry: Pick<ParsedEnquiry, 'listingId' | 'agentId'>, target: ResolvedTarget): boolean {
  if (enquiry.agentId !== undefined) return target.userId != null;
  return target.saleLifeId != null || target.leaseLifeId != null;
}

/**
 * The CRM's AddEnquiry body for an accepted enquiry, built field by field (never by spreading the
 * request). Property mode sends the listing's life id and reference; contact-me mode leaves the
 * property fields out and sends userId, as the reference says.
 */
export function toAddEnquiry(enquiry: ParsedEnquiry, target: ResolvedTarget, options: MappingOptions): AddEnquiry {
  const name = splitName(enquiry.fullName);
  const body: AddEnquiry = {
    enquiryDate: toCrmDateTime(options.acceptedAt),
    source: options.source,
    subject: enquiry.subject ?? defaultSubject(enquiry, target),
    body: enquiry.message,
    originalId: enquiry.originalId,
    fullName: enquiry.fullName,
    firstName: name.firstName,
    ...(name.lastName === undefined ? {} : { lastName: name.lastName }),
    email: enquiry.email,
    // Digits and a leading +: the form a CRM's phone field takes whatever separators were typed.
    ...(enquiry.mobile === undefined ? {} : { mobile: compactPhone(enquiry.mobile) }),
  };
  if (enquiry.agentId !== undefined) {
    if (target.userId != null) body.userId = target.userId;
  } else {
    // One life only: an enquiry is about the sale or the lease (a listing shows one of them).
    if (target.saleLifeId != null) body.saleLifeId = target.saleLifeId;
    else if (target.leaseLifeId != null) body.leaseLifeId = target.leaseLifeId;
    if (target.propertyReference) body.propertyReference = target.propertyReference;
  }
  // The CRM has no consent field; metaData keeps what the person agreed to next to the lead.
  body.metaData = [
    { key: 'consent', value: enquiry.consent === undefined ? 'not asked' : enquiry.consent ? 'given' : 'declined' },
    { key: 'channel', value: 'estate-embed website form' },
  ];
  return body;
}

function defaultSubject(enquiry: ParsedEnquiry, target: ResolvedTarget): string {
  if (enquiry.agentId !== undefined) return 'Website enquiry';
  return target.propertyReference ? `Website enquiry: ${target.propertyReference}` : 'Website enquiry about a listing';
}
