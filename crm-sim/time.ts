/** Date helpers in the CRM's formats: DateTime 'YYYY-MM-DDThh:mm:ss+00:00', Date 'YYYY-MM-DD'. */

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The CRM returns DateTimes in UTC with an explicit offset and no fraction: 2022-03-25T01:40:27+00:00. */
export function formatDateTime(date: Date | number): string {
  const d = typeof date === 'number' ? new Date(date) : date;
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}+00:00`
  );
}

export function formatDate(date: Date | number): string {
  return formatDateTime(date).slice(0, 10);
}

/** The UTC calendar day, the unit of the daily quota. */
export function utcDayKey(date: Date | number): string {
  return formatDate(date);
}

/** Milliseconds since the epoch at the start of the UTC day holding `at`. */
export function startOfUtcDay(at: number): number {
  return Math.floor(at / DAY) * DAY;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
// Clients may send any timezone (spec 1.5); a space instead of 'T' is common in hand-written queries.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Parses a DateTime or Date query value into epoch milliseconds; undefined when it is not one.
 * A DateTime without an offset is taken as UTC, as the service documents UTC as its default.
 */
export function parseDateTime(value: string): number | undefined {
  const text = value.trim();
  if (DATE_ONLY.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    return Number.isNaN(ms) ? undefined : ms;
  }
  if (!DATE_TIME.test(text)) return undefined;
  let normalised = text.replace(' ', 'T');
  if (!/(Z|[+-]\d{2}:?\d{2})$/.test(normalised)) normalised += 'Z';
  normalised = normalised.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(normalised);
  return Number.isNaN(ms) ? undefined : ms;
}

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

const offsetCache = new Map<string, number>();

/** Offset of a time zone from UTC at an instant, in milliseconds (Melbourne: +10h or +11h). */
function zoneOffset(at: number, timeZone: string): number {
  // Offsets change on whole hours (daylight saving), so one look-up per zone and hour is exact.
  const cacheKey = `${timeZone}@${Math.floor(at / HOUR)}`;
  const cached = offsetCache.get(cacheKey);
  if (cached !== undefined) return cached;
  if (offsetCache.size > 50_000) offsetCache.clear();
  let formatter = offsetFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-AU', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    offsetFormatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(new Date(at)).map((part) => [part.type, part.value]));
  const asUtc = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = asUtc - Math.floor(at / SECOND) * SECOND;
  offsetCache.set(cacheKey, offset);
  return offset;
}

/**
 * The instant of a local wall-clock time in an Australian time zone, so that open homes and auctions
 * fall on Saturday mornings for the agency whatever the season (daylight saving included).
 */
export function localTimeToUtc(dayStartUtc: number, hour: number, minute: number, timeZone: string): number {
  const wallClock = dayStartUtc + hour * HOUR + minute * MINUTE;
  const firstGuess = wallClock - zoneOffset(wallClock, timeZone);
  return wallClock - zoneOffset(firstGuess, timeZone);
}

/** The local calendar day of an instant, as the UTC midnight of that same calendar date. */
export function localDayStart(at: number, timeZone: string): number {
  return startOfUtcDay(at + zoneOffset(at, timeZone));
}
