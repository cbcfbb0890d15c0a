/** Days as the visits module counts them: `YYYY-MM-DD` in the agency's time zone (SITE_TIME_ZONE). */

const formats = new Map<string, Intl.DateTimeFormat>();

/** The agency's day at `at` (ms since the epoch). */
export function dayIn(timeZone: string, at: number): string {
  let format = formats.get(timeZone);
  // en-CA writes dates as YYYY-MM-DD.
  if (!format) formats.set(timeZone, (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })));
  return format.format(at);
}

/** The day `days` before `day` (calendar days: no time zone involved). */
export function daysBefore(day: string, days: number): string {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, date - days)).toISOString().slice(0, 10);
}
