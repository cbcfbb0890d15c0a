import type { ClientRateLimitInfo, Store } from 'express-rate-limit';
import { systemClock, type Clock } from '../runtime/clock.ts';

const DAY_MS = 24 * 60 * 60_000;

/** Start of the UTC day holding `at` (ms). */
export function utcDayStart(at: number): number {
  return Math.floor(at / DAY_MS) * DAY_MS;
}

/** Next 00:00 UTC after `at` (ms). */
export function nextUtcMidnight(at: number): number {
  return utcDayStart(at) + DAY_MS;
}

/**
 * An express-rate-limit store whose windows are UTC days (the CRM's quota day) rather than 24
 * hours from a client's first request: every count starts again at 00:00 UTC, which is also what
 * the refusal tells the client. In memory, as the per-minute limiter's: a restart forgives.
 */
export class UtcDayStore implements Store {
  localKeys = true;
  private day = -1;
  private hits = new Map<string, number>();

  constructor(private readonly now: Clock = systemClock) {}

  private roll(): number {
    const current = this.now();
    const day = utcDayStart(current);
    if (day !== this.day) {
      this.day = day;
      this.hits = new Map();
    }
    return current;
  }

  get(key: string): ClientRateLimitInfo | undefined {
    const current = this.roll();
    const totalHits = this.hits.get(key);
    return totalHits === undefined ? undefined : { totalHits, resetTime: new Date(nextUtcMidnight(current)) };
  }

  increment(key: string): ClientRateLimitInfo {
    const current = this.roll();
    const totalHits = (this.hits.get(key) ?? 0) + 1;
    this.hits.set(key, totalHits);
    return { totalHits, resetTime: new Date(nextUtcMidnight(current)) };
  }

  decrement(key: string): void {
    this.roll();
    const hits = this.hits.get(key);
    if (hits !== undefined) this.hits.set(key, Math.max(0, hits - 1));
  }

  resetKey(key: string): void {
    this.hits.delete(key);
  }

  resetAll(): void {
    this.hits.clear();
  }
}

/**
 * The relay-wide cap on enquiries forwarded per UTC day: each one spends CRM quota (a POST, and a
 * look-up when its outcome is unknown), so a flood from many addresses cannot eat the share the
 * listing sync and the day's real leads need. Counted from the outbox (non-spam rows accepted
 * since 00:00 UTC), so a restart does not reset it.
 */
export class DailyEnquiryBudget {
  private day = -1;
  private used = 0;

  constructor(
    /** Where the day's count is read: the enquiry outbox, or any store counting what it took for the CRM (saved searches). */
    private readonly outbox: { forwardableAcceptedSince(at: number): Promise<number> },
    readonly limit: number,
    private readonly now: Clock = systemClock,
  ) {}

  /** Reads the day's count from the outbox when a new UTC day has begun (call before spentUntil). */
  async refresh(): Promise<void> {
    const day = utcDayStart(this.now());
    if (day === this.day) return;
    const used = await this.outbox.forwardableAcceptedSince(day);
    if (day !== this.day) {
      this.day = day;
      this.used = used;
    }
  }

  /** When the budget is spent: the time it renews (ms); otherwise undefined. */
  spentUntil(): number | undefined {
    const current = this.now();
    return this.used >= this.limit ? nextUtcMidnight(current) : undefined;
  }

  /**
   * Takes one enquiry from the budget, before its insert is awaited, so requests storing at the
   * same time cannot all take the last one; `release` gives it back if the insert did not happen.
   */
  record(): void {
    this.used++;
  }

  release(): void {
    this.used = Math.max(0, this.used - 1);
  }
}
