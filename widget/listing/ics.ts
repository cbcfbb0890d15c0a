/**
 * "Add to calendar" for an open home: an RFC 5545 VCALENDAR built in the browser and offered as a
 * data: URL download, so it costs the relay nothing. Times are written in UTC (`Z`), which every
 * calendar converts to the reader's zone correctly.
 */

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

export function icsDataUrl(ics: string): string {
  return `data:text/calendar;charset=utf-8,${encodeURIComponent(ics)}`;
}
