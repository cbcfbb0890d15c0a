import type { SellingWhen } from '../../contract/relay-api.ts';
import { isQuestion, leadKind, type ParsedEnquiry } from './schema.ts';

/**
 * How a lead reads to the agent who opens it: a subject and a body that say at a glance what kind
 * of lead it is ("Appraisal request", "Open home registration", …), and its details as key/value
 * pairs for the sink's structured fields (the CRM's metaData). The one place a lead's details are
 * put together: a sink adds only its own keys (consent, channel), and what a page adds to a lead
 * later (where it came from) belongs here too.
 */
export interface LeadText {
  subject: string;
  body: string;
  details: Array<{ key: string; value: string }>;
}

export interface LeadTextOptions {
  /** The agency's time zone (SITE_TIME_ZONE): open-home and inspection times are written in it. */
  timeZone: string;
  /** The listing's reference in the CRM, when the lead is about one: it follows the address in a subject. */
  listingName?: string | null;
  /** The listing's address as published (a withheld street is not in it), when the lead is about one. */
  listingAddress?: string | null;
}

/** The CRM's longest subject. */
const SUBJECT_MAX = 255;

/**
 * Where a lead about a listing is, as a subject names it: the address as published, the CRM
 * reference after it ("12 Example Street, Kew VIC (HY40015)"); the reference alone only for a
 * lead queued before its listing's address was kept.
 */
function placeOf(options: LeadTextOptions): string | undefined {
  const address = options.listingAddress?.trim();
  const reference = options.listingName?.trim();
  if (address) return reference ? `${address} (${reference})` : address;
  return reference || undefined;
}

/** `lead` then `: place`, the lead's own words cut (never the place) to fit the CRM's subject. */
function subjectNaming(lead: string, place: string | undefined): string {
  if (!place) return lead.slice(0, SUBJECT_MAX);
  const room = SUBJECT_MAX - place.length - 2;
  return room <= 1 ? place.slice(0, SUBJECT_MAX) : `${lead.length > room ? `${lead.slice(0, room - 1)}…` : lead}: ${place}`;
}

/**
 * A question's subject: the page's own (the listing element sends the address), with the place
 * added when it does not name the address already; "Website enquiry: <place>" when it gave none.
 * Undefined for a question to an agent or the office with no subject (the sink words it).
 */
export function questionSubject(subject: string | undefined, options: LeadTextOptions): string | undefined {
  const place = placeOf(options);
  const given = subject?.trim();
  if (!given) return place ? subjectNaming('Website enquiry', place) : undefined;
  const address = options.listingAddress?.trim();
  if (!place || (address && given.toLowerCase().includes(address.toLowerCase()))) return given.slice(0, SUBJECT_MAX);
  return subjectNaming(given, place);
}

const SELLING_WHEN_WORDS: Record<SellingWhen, string> = {
  now: 'as soon as possible',
  '3-months': 'within 3 months',
  '6-months': 'within 6 months',
  '12-months': 'within a year',
  'not-sure': 'not sure yet',
};

/** The subject, body and details of a lead other than a question (a question's subject and body are its own). */
export function leadText(lead: ParsedEnquiry, options: LeadTextOptions): LeadText | undefined {
  if (isQuestion(lead)) return undefined;
  const details: LeadText['details'] = [{ key: 'leadType', value: leadKind(lead) }];
  const detail = (key: string, value: string | number | undefined) => {
    if (value !== undefined && value !== '') details.push({ key, value: String(value) });
  };
  const place = placeOf(options);
  const lines: string[] = [];
  let subject: string;
  switch (lead.kind) {
    case 'appraisal': {
      const address = `${lead.street}, ${lead.suburb} ${lead.postcode.toUpperCase()}`;
      subject = `Appraisal request: ${address}`;
      lines.push('Appraisal request', '', `Property: ${address}`);
      if (lead.propertyType) lines.push(`Property type: ${lead.propertyType}`);
      if (lead.bedrooms !== undefined) lines.push(`Bedrooms: ${lead.bedrooms}`);
      if (lead.sellingWhen) lines.push(`Thinking of selling: ${SELLING_WHEN_WORDS[lead.sellingWhen]}`);
      detail('street', lead.street);
      detail('suburb', lead.suburb);
      detail('postcode', lead.postcode.toUpperCase());
      detail('propertyType', lead.propertyType);
      detail('bedrooms', lead.bedrooms);
      detail('sellingWhen', lead.sellingWhen);
      break;
    }
    case 'open-home': {
      const when = lead.openHome ? timeRange(lead.openHome.start, lead.openHome.end, options.timeZone) : `open home ${lead.openHomeId}`;
      // The time before the reference: "…: 12 Example Street, Kew VIC, Saturday 5 December 2026, 10:00 am AEDT – 10:30 am AEDT (HY40015)".
      const address = options.listingAddress?.trim();
      const reference = options.listingName?.trim();
      subject = subjectNaming('Open home registration', [address, when].filter(Boolean).join(', ') + (reference ? ` (${reference})` : ''));
      lines.push('Open home registration', '', `Open home: ${when}`, `People coming: ${lead.attendees}`);
      detail('openHomeId', lead.openHomeId);
      detail('openHomeStart', lead.openHome?.start);
      detail('openHomeEnd', lead.openHome?.end);
      detail('attendees', lead.attendees);
      break;
    }
    case 'inspection': {
      subject = subjectNaming('Private inspection request', place);
      lines.push('Private inspection request', '', 'Preferred times:');
      lead.preferredTimes.forEach((time, index) => {
        lines.push(`${index + 1}. ${dateTime(time, options.timeZone)}`);
        detail(`preferredTime${index + 1}`, time);
      });
      break;
    }
  }
  if (lead.message) lines.push('', 'Message:', lead.message);
  return { subject, body: lines.join('\n'), details };
}

/** Is this a seller's lead (the agency's seller categories go with it)? */
export function isSellerLead(lead: ParsedEnquiry): boolean {
  return lead.kind === 'appraisal';
}

const formats = new Map<string, Intl.DateTimeFormat>();
function format(timeZone: string, withDate: boolean): Intl.DateTimeFormat {
  const key = `${timeZone}|${withDate}`;
  let made = formats.get(key);
  if (!made) {
    made = new Intl.DateTimeFormat('en-AU', {
      timeZone,
      ...(withDate ? { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' } : {}),
      hour: 'numeric',
      minute: '2-digit',
      timeZoneName: 'short',
    });
    formats.set(key, made);
  }
  return made;
}

/** "Saturday 14 June 2025 at 10:30 am AEST", in the agency's zone. */
export function dateTime(iso: string, timeZone: string): string {
  return format(timeZone, true).format(new Date(iso));
}

/** "Saturday 14 June 2025, 10:00 am AEST – 10:30 am AEST": an open home, in the agency's zone. */
export function timeRange(start: string, end: string, timeZone: string): string {
  return `${dateTime(start, timeZone)} – ${format(timeZone, false).format(new Date(end))}`;
}
