import { performance } from 'node:perf_hooks';
import type { Store } from '../store/store.ts';
import { CrmError } from './errors.ts';

export interface LimiterOptions {
  store: Store;
  /** Requests allowed in any one-second window (the CRM allows 10 per API key). */
  requestsPerSecond: number;
  /** Requests allowed per UTC day (the CRM allows 10,000 per API key). */
  dailyLimit: number;
  /**
   * Added to the one-second window. The CRM counts arrivals on its own clock; our send times
   * differ from its arrival times by a latency that varies (event loop, connection set-up), so we
   * keep every (1 s + margin) window under the limit, which keeps every 1 s window of arrivals
   * under it as long as the latency varies by less than the margin.
   */
  safetyMarginMs?: number;
  /** Wall clock, for the UTC day of the budget. */
  now?: () => Date;
  /** Monotonic clock in ms, for the window. */
  monotonicNow?: () => number;
}

export interface BudgetStatus {
  /** UTC day, YYYY-MM-DD. */
  day: string;
  used: number;
  limit: number;
  remaining: number;
  /** When the budget resets: the next 00:00 UTC. */
  resetsAt: Date;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export const DEFAULT_SAFETY_MARGIN_MS = 100;

/**
 * The one gate every CRM request passes through, shared by all callers of a client.
 *
 * Rate: a sliding window of send timestamps; a request is let through only when fewer than
 * `requestsPerSecond` were let through in the last (1 s + margin). Waiters are served first come,
 * first served, by one timer.
 *
 * Daily budget: counted in SQLite (table crm_budget, one row per UTC day) by an atomic
 * "increment if below the limit", so the count survives a restart and is shared by every process
 * on the same store. A request is counted when it is let through (sent), whatever the answer.
 */
export class RequestLimiter {
  readonly requestsPerSecond: number;
  readonly dailyLimit: number;
  private readonly spanMs: number;
  private readonly store: Store;
  private readonly now: () => Date;
  private readonly monotonicNow: () => number;
  /** Send times (monotonic ms) inside the current span, oldest first. */
  private readonly sent: number[] = [];
  private readonly waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private pausedUntil = 0;
  private closed = false;
  private readonly spendStatement;
  private readonly readStatement;

  constructor(options: LimiterOptions) {
    if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive');
    if (!(options.dailyLimit > 0)) throw new RangeError('dailyLimit must be positive');
    this.requestsPerSecond = Math.floor(options.requestsPerSecond);
    this.dailyLimit = Math.floor(options.dailyLimit);
    this.spanMs = 1000 + (options.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS);
    this.store = options.store;
    this.now = options.now ?? (() => new Date());
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
    // RETURNING gives no row when the WHERE refuses the update: that is "budget spent".
    this.spendStatement = this.store.db.prepare<[{ day: string; limit: number }], { used: number }>(
      `INSERT INTO crm_budget (day, used) VALUES (@day, 1)
       ON CONFLICT (day) DO UPDATE SET used = used + 1 WHERE used < @limit
       RETURNING used`,
    );
    this.readStatement = this.store.db.prepare<[string], { used: number }>('SELECT used FROM crm_budget WHERE day = ?');
  }

  /** Today's budget, read from the store (so it includes what other processes spent). */
  budget(): BudgetStatus {
    const now = this.now();
    const day = utcDay(now);
    const used = this.readStatement.get(day)?.used ?? 0;
    return { day, used, limit: this.dailyLimit, remaining: Math.max(0, this.dailyLimit - used), resetsAt: nextUtcMidnight(now) };
  }

  /**
   * Resolves when this caller may send one request (and counts it against the day's budget).
   * Rejects at once with a CrmError `budget_exhausted` when the day's budget is spent, or with
   * `aborted` when the signal fires while waiting.
   */
  acquire(signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    if (signal?.aborted) return Promise.reject(abortedError(signal));
    const status = this.budget();
    if (status.remaining <= 0) return Promise.reject(budgetError(status));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const index = this.waiters.indexOf(waiter);
          if (index >= 0) this.waiters.splice(index, 1);
          reject(abortedError(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /**
   * Holds every caller back until `delayMs` from now: after a 429 with Retry-After, the CRM has
   * said when it will take requests again, and that holds for the whole API key, not one call.
   */
  pauseFor(delayMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.monotonicNow() + delayMs);
    this.pump();
  }

  /** Number of callers waiting for a slot. */
  get queued(): number {
    return this.waiters.length;
  }

  /** Rejects every waiting caller; later acquires fail. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const waiter of this.waiters.splice(0)) this.settle(waiter, closedError());
  }

  private pump(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    let now = this.monotonicNow();
    while (this.sent.length > 0 && this.sent[0]! <= now - this.spanMs) this.sent.shift();
    while (this.waiters.length > 0 && now >= this.pausedUntil && this.sent.length < this.requestsPerSecond) {
      const waiter = this.waiters.shift()!;
      const wallNow = this.now();
      const day = utcDay(wallNow);
      let spent: { used: number } | undefined;
      try {
        spent = this.spendStatement.get({ day, limit: this.dailyLimit });
      } catch (error) {
        this.settle(waiter, error);
        continue;
      }
      if (!spent) {
        this.settle(waiter, budgetError({ day, used: this.dailyLimit, limit: this.dailyLimit, remaining: 0, resetsAt: nextUtcMidnight(wallNow) }));
        continue;
      }
      // Stamped after the (synchronous, fsync'ed) write, as close as we get to the send itself.
      now = this.monotonicNow();
      this.sent.push(now);
      this.settle(waiter);
    }
    if (this.waiters.length === 0) return;
    const nextSlot = this.sent.length < this.requestsPerSecond ? now : this.sent[0]! + this.spanMs;
    const wakeAt = Math.max(nextSlot, this.pausedUntil);
    // +1: timers may fire a fraction of a millisecond early relative to performance.now().
    this.timer = setTimeout(() => this.pump(), Math.max(0, Math.ceil(wakeAt - now)) + 1);
  }

  private settle(waiter: Waiter, error?: unknown): void {
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
    if (error === undefined) waiter.resolve();
    else waiter.reject(error);
  }
}

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function nextUtcMidnight(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
}

function budgetError(status: BudgetStatus): CrmError {
  return new CrmError(
    `The daily CRM request budget is spent (${status.used} of ${status.limit} on ${status.day} UTC); ` +
      `requests resume at ${status.resetsAt.toISOString()} (00:00 UTC). Nothing was sent.`,
    // Retryable, but only from retryAt: an outbox keeps its work and tries again after the reset.
    { code: 'budget_exhausted', retryable: true, retryAt: status.resetsAt },
  );
}

function abortedError(signal: AbortSignal): CrmError {
  return new CrmError('The CRM request was cancelled before it was sent.', { code: 'aborted', cause: signal.reason });
}

function closedError(): CrmError {
  return new CrmError('The CRM client is closed.', { code: 'closed' });
}
