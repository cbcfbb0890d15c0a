import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { clearPending, loadPending, savePending, type PendingEnquiry } from './pending-store.ts';

export interface PendingSubmissionOptions {
  /** Sends the kept submission again (same originalId). */
  resend(pending: PendingEnquiry): void;
  /** Whether a send may start now (not already sending, still on the page). */
  canResend(): boolean;
  /** First wait after a failure (grows threefold per failure, ±20%); default 5 s. */
  baseDelayMs?: number;
  /** Longest wait between two tries; default 5 minutes. */
  maxDelayMs?: number;
  /** Longest a Retry-After is honoured; default 10 minutes. */
  maxRetryAfterMs?: number;
  /** Injectable for tests. */
  random?: () => number;
}

/**
 * The submission that has not reached the relay yet: kept in localStorage under its key (so a
 * reload or a closed tab does not lose it), sent again with backoff while the page stays open,
 * at once when the browser comes back online, and forgotten once the relay has answered for good.
 * The element decides what a send is and what counts as definitive; this keeps the timing.
 */
export class PendingSubmissionController implements ReactiveController {
  #pending: PendingEnquiry | undefined;
  #failures = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #options: Required<PendingSubmissionOptions>;

  constructor(host: ReactiveControllerHost, options: PendingSubmissionOptions) {
    this.#options = { baseDelayMs: 5_000, maxDelayMs: 5 * 60_000, maxRetryAfterMs: 10 * 60_000, random: Math.random, ...options };
    host.addController(this);
  }

  /** The submission being sent or waiting for a retry, if any. */
  get current(): PendingEnquiry | undefined {
    return this.#pending;
  }

  /** Looks for a submission kept under `key` (from an earlier page), and holds it if there is one. */
  restore(key: string): PendingEnquiry | undefined {
    const stored = loadPending(key);
    if (stored) this.#pending = stored;
    return stored;
  }

  /** Holds and stores a submission about to be sent. */
  keep(key: string, pending: PendingEnquiry): void {
    this.#pending = pending;
    savePending(key, pending);
  }

  /** The relay has answered for good (accepted, or refused for ever): forget it. */
  settle(key: string | undefined): void {
    if (key) clearPending(key);
    this.#pending = undefined;
    this.#failures = 0;
    this.#cancelRetry();
  }

  /** A send is starting: no retry is due meanwhile. */
  sending(): void {
    this.#cancelRetry();
  }

  /**
   * A send failed in a way that may pass (offline, 5xx, 429, timeout): schedules the next try and
   * returns the wait in ms (Retry-After when the relay gave one, else backoff with jitter).
   */
  failed(retryAfterMs?: number): number {
    this.#failures += 1;
    const wait =
      retryAfterMs !== undefined
        ? Math.min(this.#options.maxRetryAfterMs, retryAfterMs)
        : Math.min(this.#options.maxDelayMs, this.#options.baseDelayMs * 3 ** (this.#failures - 1)) * (0.8 + this.#options.random() * 0.4);
    this.#cancelRetry();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#resendIfDue();
    }, wait);
    return wait;
  }

  hostConnected(): void {
    window.addEventListener('online', this.#onOnline);
  }

  hostDisconnected(): void {
    window.removeEventListener('online', this.#onOnline);
    this.#cancelRetry();
  }

  readonly #onOnline = (): void => this.#resendIfDue();

  #resendIfDue(): void {
    if (this.#pending && this.#options.canResend()) this.#options.resend(this.#pending);
  }

  #cancelRetry(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
