/**
 * Clocks a test sets, so that its outcome does not depend on the day it runs (issue 28): the daily
 * limits reset at 00:00 UTC, open homes and preferred times become past, month ends and daylight
 * saving move local days. Hand the same clock to the relay (`now`, a Clock) and the simulator
 * (`now`, via `asDate`).
 */

/**
 * A clock that stands at `start` when made and then runs on with real time (so backoffs, leases and
 * polls still see time pass). `start` is an instant a test chooses: QUIET_DAY_NOON unless it needs
 * something else.
 */
export function runningClock(start: string | number = QUIET_DAY_NOON): () => number {
  const origin = typeof start === 'number' ? start : Date.parse(start);
  if (Number.isNaN(origin)) throw new Error(`runningClock: not an instant: ${String(start)}`);
  const made = performance.now();
  return () => origin + Math.floor(performance.now() - made);
}

/** The same clock for the simulator, whose `now` gives a Date. */
export const asDate = (clock: () => number) => () => new Date(clock());

/**
 * Midday UTC on a Wednesday: twelve hours from a UTC midnight, in no month's last week, on no
 * daylight-saving change in Australia or the United States: a day on which the date cannot matter.
 */
export const QUIET_DAY_NOON = '2031-06-18T12:00:00.000Z';

/**
 * The UTC day ('YYYY-MM-DD') a clock reads: the day whose count a test looks up, by the clock the
 * limiter counts by, not the wall clock's.
 */
export function utcDayOf(clock: () => number): string {
  return new Date(clock()).toISOString().slice(0, 10);
}

/**
 * For a suite that cannot hand its parts a clock (a composed relay and the operator CLI take none; on
 * PostgreSQL shared times are the database's), yet counts "today's" CRM requests across its steps:
 * when fewer than `spanMs` are left of the UTC day, waits until the day has turned (polling, at
 * most `spanMs`), so the steps all fall on one UTC day. At any other time of day it returns at once.
 */
export async function onOneUtcDayFor(spanMs: number): Promise<void> {
  const dayOf = (at: number) => Math.floor(at / 86_400_000);
  const started = Date.now();
  if (dayOf(started + spanMs) === dayOf(started)) return;
  while (dayOf(Date.now()) === dayOf(started)) await new Promise((resolve) => setTimeout(resolve, 250));
}

/**
 * Whether an open home ends more than `marginMs` from now. The relay leaves out open homes that are
 * over and refuses them (a 404 for the calendar file, a 400 for a registration): a test that reads
 * one and uses it later in its run picks one that cannot end on the way, whatever the time of day
 * (the simulator's are 15 and 30 minute slots, some under way at any hour on a Saturday).
 */
export const lastsBeyond =
  (marginMs: number) =>
  (openHome: { end: string }): boolean =>
    Date.parse(openHome.end) > Date.now() + marginMs;
