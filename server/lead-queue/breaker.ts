import type { Clock } from '../runtime/clock.ts';

/**
 * A circuit breaker for deliveries to the CRM. Closed, deliveries flow and a failing enquiry
 * backs off on its own (the worker's per-row backoff). It opens only on signs of a real outage:
 *
 * - `consecutiveFailures` failures in a row, or
 * - a failure rate of at least `failureRate` over the last `windowMs` (once `minRequests` ended in it), or
 * - the CRM naming a time to come back (Retry-After, a spent daily quota, refused credentials),
 *   which holds for the whole API key, not one request.
 *
 * Open, nothing is sent until the cooldown (or the CRM's time) is over; then it half-opens and
 * lets exactly one delivery through as a probe. The probe's success closes it; its failure opens
 * it again for twice as long (up to `maxCooldownMs`).
 */
export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerSettings {
  consecutiveFailures: number;
  failureRate: number;
  windowMs: number;
  minRequests: number;
  cooldownMs: number;
  maxCooldownMs: number;
}

export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  // A CRM failing one request in three still delivers: 8 in a row happens by chance about once in
  // 4,500 runs of eight at that rate, and 75 % over half a minute is not "one in three".
  consecutiveFailures: 8,
  failureRate: 0.75,
  windowMs: 30_000,
  minRequests: 10,
  cooldownMs: 10_000,
  maxCooldownMs: 5 * 60_000,
};

/** A permission to send, from `tryAcquire`; hand it back to `record` with the outcome. */
export interface BreakerTicket {
  probe: boolean;
}

export type BreakerOutcome =
  /** The CRM answered (a 2xx, or a definite refusal such as a 400: it is up). */
  | { ok: true }
  /** A retryable failure (5xx, 429, timeout, connection); `retryAt` when the CRM named a time. */
  | { ok: false; retryAt?: number };

export interface BreakerChange {
  state: BreakerState;
  until?: number;
  reason: string;
}

export class CircuitBreaker {
  private current: BreakerState = 'closed';
  private openUntil = 0;
  private cooldown: number;
  private streak = 0;
  private probeOut = false;
  private recent: Array<{ at: number; ok: boolean }> = [];

  constructor(
    private readonly settings: BreakerSettings,
    private readonly now: Clock,
    private readonly onChange: (change: BreakerChange) => void = () => {},
  ) {
    this.cooldown = settings.cooldownMs;
  }

  get state(): BreakerState {
    return this.current;
  }

  /** When an open breaker will let a probe through (ms), or undefined when it is not open. */
  get reopensAt(): number | undefined {
    return this.current === 'open' ? this.openUntil : undefined;
  }

  /** A ticket to send one delivery now, or undefined while open (or while the probe is out). */
  tryAcquire(): BreakerTicket | undefined {
    const current = this.now();
    if (this.current === 'open') {
      if (current < this.openUntil) return undefined;
      this.current = 'half-open';
      this.onChange({ state: 'half-open', reason: 'cooldown over: one probe delivery' });
    }
    if (this.current === 'half-open') {
      if (this.probeOut) return undefined;
      this.probeOut = true;
      return { probe: true };
    }
    return { probe: false };
  }

  /** A ticket that was not used (nothing was sent): frees the probe slot. */
  release(ticket: BreakerTicket): void {
    if (ticket.probe) this.probeOut = false;
  }

  record(ticket: BreakerTicket, outcome: BreakerOutcome): void {
    const current = this.now();
    if (ticket.probe) this.probeOut = false;
    this.recent.push({ at: current, ok: outcome.ok });
    this.recent = this.recent.filter((entry) => entry.at > current - this.settings.windowMs);
    this.streak = outcome.ok ? 0 : this.streak + 1;

    if (outcome.ok) {
      if (ticket.probe && this.current === 'half-open') {
        this.current = 'closed';
        this.cooldown = this.settings.cooldownMs;
        this.recent = [];
        this.onChange({ state: 'closed', reason: 'probe delivered' });
      }
      return;
    }
    const named = outcome.retryAt !== undefined && outcome.retryAt > current ? outcome.retryAt : undefined;
    if (ticket.probe && this.current === 'half-open') {
      this.cooldown = Math.min(this.settings.maxCooldownMs, this.cooldown * 2);
      return this.open(Math.max(current + this.cooldown, named ?? 0), 'probe failed');
    }
    if (named !== undefined) {
      // Honoured in any state: the CRM said when it takes requests again.
      if (this.current !== 'open' || named > this.openUntil) this.open(named, 'the CRM asked to wait (Retry-After)');
      return;
    }
    if (this.current !== 'closed') return;
    const failures = this.recent.filter((entry) => !entry.ok).length;
    if (this.streak >= this.settings.consecutiveFailures) {
      this.open(current + this.cooldown, `${this.streak} failures in a row`);
    } else if (this.recent.length >= this.settings.minRequests && failures / this.recent.length >= this.settings.failureRate) {
      this.open(current + this.cooldown, `${failures} of the last ${this.recent.length} deliveries failed`);
    }
  }

  private open(until: number, reason: string): void {
    this.current = 'open';
    this.openUntil = until;
    this.onChange({ state: 'open', until, reason });
  }
}
