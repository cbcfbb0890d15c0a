/**
 * Calendar days as the report counts them: `YYYY-MM-DD` in the agency's time zone (SITE_TIME_ZONE),
 * the same days the visits module keeps its counts by. Day arithmetic is done on the date alone
 * (at UTC noon), so a daylight-saving change never makes a day vanish or repeat.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

/** The agency's day that an instant falls on. */
export function dayOf(at: number, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) formats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(at);
}

const noonOf = (day: string) => Date.parse(`${day}T12:00:00Z`);

/** The day `count` days after `day` (before, when negative). */
export function addDays(day: string, count: number): string {
  return new Date(noonOf(day) + count * 86_400_000).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (0 on the same day). */
export function daysBetween(from: string, to: string): number {
  return Math.round((noonOf(to) - noonOf(from)) / 86_400_000);
}

/** Every day from `since` to `until`, both included. */
export function daySpan(since: string, until: string): string[] {
  const days: string[] = [];
  for (let day = since; day <= until; day = addDays(day, 1)) days.push(day);
  return days;
}

/** "Saturday 28 November", as the words beside a chart name a day. */
export function longDay(day: string): string {
  return new Intl.DateTimeFormat('en-AU', { weekday: 'long', day: 'numeric', month: 'long', timeZone: 'UTC' }).format(noonOf(day));
}

/** "28 Nov 2026", as the report's facts name a day. */
export function mediumDay(day: string): string {
  return new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(noonOf(day));
}

/** "28 Nov", as an axis and a table name a day. */
export function shortDay(day: string): string {
  return new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(noonOf(day));
}
