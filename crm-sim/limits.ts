import { SECOND, startOfUtcDay, utcDayKey, DAY } from './time.ts';

/**
 * The CRM's per-API-key limits: at most `requestsPerSecond` requests in any sliding one-second
 * window, and `dailyLimit` requests per UTC day (reset at 00:00 UTC).
 *
 * What counts: a request that passed the API-key check and was not itself refused for a limit.
 * A 429 does not use up quota (throttled requests are not served, as API gateways do it), so a
 * client that backs off properly is not locked out by its own retries. Requests refused for a bad
 * token (401) or answered with 4xx/5xx after the gate do count: the gateway let them through.
 *
 * Separately, every arrival is recorded for the `peakRequestsPerSecond` counter, including the
 * refused ones: that is the figure that shows whether a client kept to the limit.
 */

export interface LimitSettings {
  requestsPerSecond: number;
  dailyLimit: number;
}

export type LimitDecision =
  | { allowed: true; usedToday: number; remainingToday: number }
  | { allowed: false; reason: 'per-second' | 'daily'; retryAfterSeconds: number; usedToday: number };

interface KeyUsage {
  /** Times of the admitted requests within the last second, oldest first. */
  admitted: number[];
  /** Times of every arrival within the last second, for the peak counter. */
  arrivals: number[];
  peakPerSecond: number;
  refusedPerSecond: number;
  refusedDaily: number;
  day: string;
  usedToday: number;
}

export interface KeyUsageSnapshot {
  peakRequestsPerSecond: number;
  refusedPerSecond: number;
  refusedDaily: number;
  day: string;
  usedToday: number;
}

function dropOlderThan(times: number[], cutoff: number): void {
  let stale = 0;
  while (stale < times.length && times[stale]! <= cutoff) stale++;
  if (stale > 0) times.splice(0, stale);
}

export class RateLimiter {
  private readonly usage = new Map<string, KeyUsage>();

  constructor(public settings: LimitSettings) {}

  private entry(key: string, now: number): KeyUsage {
    let usage = this.usage.get(key);
    const day = utcDayKey(now);
    if (!usage) {
      usage = { admitted: [], arrivals: [], peakPerSecond: 0, refusedPerSecond: 0, refusedDaily: 0, day, usedToday: 0 };
      this.usage.set(key, usage);
    }
    if (usage.day !== day) {
      usage.day = day;
      usage.usedToday = 0;
    }
    return usage;
  }

  /** Records an arrival and decides whether it may proceed; admitted requests are counted. */
  check(key: string, now: number): LimitDecision {
    const usage = this.entry(key, now);
    const windowStart = now - SECOND;
    dropOlderThan(usage.arrivals, windowStart);
    usage.arrivals.push(now);
    usage.peakPerSecond = Math.max(usage.peakPerSecond, usage.arrivals.length);

    if (usage.usedToday >= this.settings.dailyLimit) {
      usage.refusedDaily++;
      const nextMidnight = startOfUtcDay(now) + DAY;
      return { allowed: false, reason: 'daily', retryAfterSeconds: Math.max(1, Math.ceil((nextMidnight - now) / SECOND)), usedToday: usage.usedToday };
    }
    dropOlderThan(usage.admitted, windowStart);
    if (usage.admitted.length >= this.settings.requestsPerSecond) {
      usage.refusedPerSecond++;
      // The window frees a slot when its oldest admitted request is a second old.
      const wait = usage.admitted[0]! + SECOND - now;
      return { allowed: false, reason: 'per-second', retryAfterSeconds: Math.max(1, Math.ceil(wait / SECOND)), usedToday: usage.usedToday };
    }
    usage.admitted.push(now);
    usage.usedToday++;
    return { allowed: true, usedToday: usage.usedToday, remainingToday: Math.max(0, this.settings.dailyLimit - usage.usedToday) };
  }

  /** The day's use for GET /integrator/usage. */
  /** Requests another tool made with the same API key today (they count against its daily limit, not its per-second window here). */
  spendElsewhere(key: string, requests: number, now: number): void {
    const usage = this.entry(key, now);
    usage.usedToday = Math.min(this.settings.dailyLimit, usage.usedToday + requests);
  }

  dailyUsage(key: string, now: number): { used: number; remaining: number } {
    const usage = this.entry(key, now);
    return { used: usage.usedToday, remaining: Math.max(0, this.settings.dailyLimit - usage.usedToday) };
  }

  snapshot(): Record<string, KeyUsageSnapshot> {
    const result: Record<string, KeyUsageSnapshot> = {};
    for (const [key, usage] of this.usage) {
      result[key] = {
        peakRequestsPerSecond: usage.peakPerSecond,
        refusedPerSecond: usage.refusedPerSecond,
        refusedDaily: usage.refusedDaily,
        day: usage.day,
        usedToday: usage.usedToday,
      };
    }
    return result;
  }

  /** Forgets the peak and refusal counters but keeps the quota spent (the real day goes on). */
  resetCounters(): void {
    for (const usage of this.usage.values()) {
      usage.peakPerSecond = 0;
      usage.refusedPerSecond = 0;
      usage.refusedDaily = 0;
      usage.arrivals = [];
    }
  }

  resetAll(): void {
    this.usage.clear();
  }
}
