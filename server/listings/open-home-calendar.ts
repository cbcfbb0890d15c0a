/**
 * "Add to calendar" for an open home: an RFC 5545 VCALENDAR the relay writes for
 * `GET /api/v1/listings/:id/open-homes/:openHomeId.ics` (routes.ts), from the public listing only
 * (its address as the agency shows it, an open home that has not ended). The elements link to it,
 * where they built it in the browser: about 500 gzip bytes on every listing page. Times are
 * written in UTC (`Z`), which every calendar converts to the reader's zone correctly.
 */
import type { ListingDetail } from '../../contract/relay-api.ts';

export interface CalendarEvent {
  /** Globally unique and stable, so re-importing updates rather than duplicates. */
  uid: string;
  start: Date;
  end: Date;
  summary: string;
  location?: string | null;
  description?: string | null;
  url?: string | null;
  /** DTSTAMP; defaults to now. */
  stamp?: Date;
}

/** 20240504T000000Z */
export function icsUtc(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** TEXT values escape backslash, semicolon, comma and newlines (RFC 5545 §3.3.11). */
export function icsEscape(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds content lines longer than 75 octets (RFC 5545 §3.1), never splitting a UTF-8 sequence. */
export function icsFold(line: string): string {
  const encoder = new TextEncoder();
  if (encoder.encode(line).length <= 75) return line;
  const parts: string[] = [];
  let current = '';
  let currentBytes = 0;
  for (const char of line) {
    const bytes = encoder.encode(char).length;
    // The first line holds 75 octets; continuation lines start with a space, so 74 more.
    const limit = parts.length === 0 ? 75 : 74;
    if (currentBytes + bytes > limit) {
      parts.push(current);
      current = '';
      currentBytes = 0;
    }
    current += char;
    currentBytes += bytes;
  }
  parts.push(current);
  return parts.join('\r\n ');
}

export function buildIcs(events: CalendarEvent[], productId = '-//estate-embed//listing//EN'): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', `PRODID:${productId}`, 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH'];
  for (const event of events) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:${icsEscape(event.uid)}`,
      `DTSTAMP:${icsUtc(event.stamp ?? new Date())}`,
      `DTSTART:${icsUtc(event.start)}`,
      `DTEND:${icsUtc(event.end)}`,
      `SUMMARY:${icsEscape(event.summary)}`,
    );
    if (event.location) lines.push(`LOCATION:${icsEscape(event.location)}`);
    if (event.description) lines.push(`DESCRIPTION:${icsEscape(event.description)}`);
    if (event.url) lines.push(`URL:${event.url}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return lines.map(icsFold).join('\r\n') + '\r\n';
}

/** The event's title: fixed words and the address as the agency shows it, never words from the link. */
export const OPEN_HOME_SUMMARY = 'Open home: {address}';

/** What the relay adds to the listing: the page the visitor was on (checked by the route), its own name, the time. */
export interface OpenHomeCalendarOptions {
  /** The listing's page, an http(s) URL, or null. */
  pageUrl: string | null;
  /** Names the relay in the event's UID (PUBLIC_URL's host). */
  host: string;
  now: Date;
}

/**
 * The calendar file of an open home of a listing still for sale or lease, or undefined when the
 * listing has no such open home still to come (over, cancelled, or never one of its own).
 */
export function openHomeCalendar(listing: ListingDetail, openHomeId: number, options: OpenHomeCalendarOptions): string | undefined {
  if (listing.status !== 'available') return undefined;
  const openHome = listing.openHomes.find((candidate) => candidate.id === openHomeId);
  const start = new Date(openHome?.start ?? NaN);
  const end = new Date(openHome?.end ?? NaN);
  if (!openHome || Number.isNaN(start.getTime()) || Number.isNaN(end.getTime()) || end <= options.now) return undefined;
  const address = listing.address?.display || listing.heading || '';
  return buildIcs([
    {
      uid: `open-home-${listing.id}-${openHome.id}@${options.host}`,
      start,
      end,
      // One line: a title with a line break would read as two in most calendars.
      summary: OPEN_HOME_SUMMARY.replaceAll('{address}', address.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, ' ').trim()),
      location: address,
      url: options.pageUrl,
      stamp: options.now,
    },
  ]);
}
