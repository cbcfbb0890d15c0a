import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import { CrmError } from './errors.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { DEFAULT_WORK_CLASS, WORK_CLASSES, type WorkClass } from '../runtime/work-class.ts';
import { DEFAULT_SAFETY_MARGIN_MS, type KeyGate } from './key-gate.ts';

export interface LimiterOptions {
  store: Store;
  /** Requests allowed in any one-second window (the CRM allows 10 per API key). */
  requestsPerSecond: number;
  /** Requests allowed per UTC day (the CRM allows 10,000 per API key). */
  dailyLimit: number;
  /**
   * Share of the daily limit (0-1) only enquiry delivery may spend: syncs stop short of it, so a
   * day's sweeps can never leave a lead without a request. Default DEFAULT_LEAD_RESERVE.
   */
  leadReserve?: number;
  /** Added to the one second a slot is held after its answer: covers clock granularity. */
  safetyMarginMs?: number;
  /** Wall clock, for the UTC day of the budget. */
  now?: Clock;
  /** Monotonic clock in ms, for the window. */
  monotonicNow?: () => number;
  /** DATABASE_URL: the limits held in PostgreSQL for every relay on the key (shared-gate.ts). */
  shared?: SharedLimits;
}

/** The shared gate, and what to do without it. */
export interface SharedLimits {
  gate: KeyGate;
  /** Relays on the key seen alive lately (the relay registry): without the database, this relay keeps to its share. */
  relaysAlive: () => number;
  /** Told when the database goes out of reach and when it is back. */
  onChange?: (reachable: boolean, error?: unknown) => void;
  /** How often to try the database again while it is out of reach (default 1 s). */
  retryMs?: number;
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
  workClass: WorkClass;
  agency: string;
  /** Set while the caller's agency has never filled its listing cache (AcquireOptions.fillOrder). */
  fillOrder?: () => number | undefined;
  /** Arrival order, for ties in the fill lane. */
  seq: number;
  resolve: (release: ReleaseSlot) => void;
  reject: (error: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** 2 %: 200 of the CRM's 10,000 a day, a few enquiries' worth at least for the busiest days of a key. */
export const DEFAULT_LEAD_RESERVE = 0.02;

/** Who is asking and for what: the gate serves classes in priority order, agencies in turns within a class. */
export interface AcquireOptions {
  signal?: AbortSignal;
  /** Default DEFAULT_WORK_CLASS. */
  workClass?: WorkClass;
  /** The agency (access token) the request is for; one agency's turn is one request. Default: one shared agency. */
  agency?: string;
  /**
   * The agency has never filled its listing cache: its place in the first-fill order (lower goes
   * first), read whenever the gate chooses; undefined once it has filled. Such requests (not
   * enquiries) wait in the fill lane (FairQueue) instead of their class.
   */
  fillOrder?: () => number | undefined;
}

/**
 * Waiters by priority class, and within a class by agency, served round-robin: each agency with
 * requests waiting gets one in turn, so an agency whose sweep is thousands of pages long holds
 * every other agency back by at most one request per turn, not by its whole sweep. (Deficit round
 * robin with a quantum of one request: every request costs the same against the CRM's limits.)
 * Within an agency and class, first come, first served.
 *
 * First fills are the exception (a relay starting with many empty agencies): turns would have every
 * agency fill at the very end, together. The requests of agencies that have never filled their
 * cache (but enquiries) wait in a fill lane of their own, after catch-up and before sweeps, served
 * one agency at a time in fill order (the smallest first; ties in the order agencies first came to
 * the gate), so each agency is serving as soon as its own requests are through, the small ones
 * within seconds. The gate still never idles while anyone waits: the slots the first agency in
 * order cannot use go to the next, so the last agency fills no later than in turns.
 */
class FairQueue {
  private readonly classes = new Map<WorkClass, { byAgency: Map<string, Waiter[]>; turns: string[] }>(
    WORK_CLASSES.map((workClass) => [workClass, { byAgency: new Map(), turns: [] }]),
  );
  private readonly filling: Waiter[] = [];
  /** When each agency first came to the gate: the tie-break of the fill order, stable where turns would interleave. */
  private readonly firstSeen = new Map<string, number>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(waiter: Waiter): void {
    if (!this.firstSeen.has(waiter.agency)) this.firstSeen.set(waiter.agency, this.firstSeen.size);
    this.count++;
    if (waiter.workClass !== 'enquiry' && waiter.fillOrder?.() !== undefined) {
      this.filling.push(waiter);
      return;
    }
    const queue = this.classes.get(waiter.workClass)!;
    const own = queue.byAgency.get(waiter.agency);
    if (own) own.push(waiter);
    else {
      queue.byAgency.set(waiter.agency, [waiter]);
      queue.turns.push(waiter.agency);
    }
  }

  /** The next waiter: the highest class with anyone waiting (the fill lane just before sweeps), the agency whose turn it is. */
  shift(): Waiter | undefined {
    for (const [workClass, queue] of this.classes) {
      if (workClass === 'sweep' && this.filling.length > 0) return this.shiftFilling();
      const agency = queue.turns.shift();
      if (agency === undefined) continue;
      const own = queue.byAgency.get(agency)!;
      const waiter = own.shift()!;
      // Back of the line for its next request.
      if (own.length > 0) queue.turns.push(agency);
      else queue.byAgency.delete(agency);
      this.count--;
      return waiter;
    }
    return undefined;
  }

  /** The fill lane's next: lowest fill order (an agency filled meanwhile first), then the agency first seen, then arrival. */
  private shiftFilling(): Waiter {
    // Read for each waiter (a cheap field read): an agency's sync and its start-up checks have orders of their own.
    const orders = this.filling.map((waiter) => waiter.fillOrder?.() ?? -1);
    let best = 0;
    for (let index = 1; index < this.filling.length; index++) {
      const a = this.filling[index]!;
      const b = this.filling[best]!;
      const byOrder = orders[index]! - orders[best]!;
      const bySeen = this.firstSeen.get(a.agency)! - this.firstSeen.get(b.agency)!;
      if (byOrder < 0 || (byOrder === 0 && (bySeen < 0 || (bySeen === 0 && a.seq < b.seq)))) best = index;
    }
    this.count--;
    return this.filling.splice(best, 1)[0]!;
  }

  remove(waiter: Waiter): boolean {
    const filling = this.filling.indexOf(waiter);
    if (filling >= 0) {
      this.filling.splice(filling, 1);
      this.count--;
      return true;
    }
    const queue = this.classes.get(waiter.workClass)!;
    const own = queue.byAgency.get(waiter.agency);
    const index = own?.indexOf(waiter) ?? -1;
    if (!own || index < 0) return false;
    own.splice(index, 1);
    if (own.length === 0) {
      queue.byAgency.delete(waiter.agency);
      queue.turns.splice(queue.turns.indexOf(waiter.agency), 1);
    }
    this.count--;
    return true;
  }

  drain(): Waiter[] {
    const all: Waiter[] = [];
    for (let waiter = this.shift(); waiter; waiter = this.shift()) all.push(waiter);
    return all;
  }

  /** Waiting callers of each class (the fill lane's by the class they asked for). */
  byClass(): Record<WorkClass, number> {
    const counts = Object.fromEntries(WORK_CLASSES.map((workClass) => [workClass, 0])) as Record<WorkClass, number>;
    for (const [workClass, queue] of this.classes) for (const own of queue.byAgency.values()) counts[workClass] += own.length;
    for (const waiter of this.filling) counts[waiter.workClass]++;
    return counts;
  }
}

/** Ends a request's hold on its rate slot; call it once the response has arrived or the request failed. */
export type ReleaseSlot = () => void;

interface Slot {
  /** When its answer (or failure) came back; undefined while in flight. */
  doneAt?: number;
}

/**
 * The one gate every CRM request passes through, shared by all callers of a client.
 *
 * Rate: each request holds a slot from the moment it is sent until one second (+ a small margin)
 * after its answer came back, and at most `requestsPerSecond` slots are held at a time. Why not
 * just a sliding window of send times: the CRM counts ARRIVALS on its clock, and a request's
 * arrival can be delayed by anything from connection set-up to a stalled event loop, so sends
 * spread over more than a second can arrive inside one (measured against the simulator on a busy
 * machine: 88 arrivals in one second under a 50/s send-time window; 52 with a 100 ms margin and
 * spaced sends). Holding the slot until answer + 1 s makes the bound hold whatever the latency:
 * a request arrives before its answer leaves, so any N+1 requests arriving within one second
 * would have had to overlap in their slots, which the gate forbids. The margin only covers clock
 * granularity. The cost is throughput, N per (1 s + latency), which is the safe side. (A request
 * that timed out counts as answered at its timeout: by then it has long arrived, if ever.)
 * Waiters are served by priority class (work-class.ts: enquiries, then webhook refreshes, then
 * catch-up, then sweeps) and, within a class, agency by agency in turns (FairQueue), by one timer;
 * agencies that have never filled their cache fill one after another, the smallest first, between
 * catch-up and sweeps (FairQueue's fill lane).
 * One gate per API key serves every agency on it, so the per-second bound holds for all together.
 *
 * Daily budget: counted in SQLite (table crm_budget, one row per UTC day) by an atomic
 * "increment if below the limit", so the count survives a restart and is shared by every process
 * on the same store. A request is counted when it is let through (sent), whatever the answer.
 */
export class RequestLimiter {
  readonly requestsPerSecond: number;
  readonly dailyLimit: number;
  /** Requests of the day only enquiry delivery may spend. */
  readonly leadReserve: number;
  private readonly holdMs: number;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly monotonicNow: () => number;
  /** Slots in flight or released less than holdMs ago. */
  private slots: Slot[] = [];
  private readonly waiters = new FairQueue();
  private arrivals = 0;
  private timer: NodeJS.Timeout | undefined;
  private pausedUntil = 0;
  private refusedUntil: { date: Date; reason: string } | undefined;
  private closed = false;
  private readonly spendStatement;
  private readonly readStatement;
  private readonly shared: SharedLimits | undefined;
  /** The database is out of reach: this relay keeps to its share (sharedShare) and counts in memory until it is back. */
  private sharedDown = false;
  /** The day's count by every relay, as last heard from the database. */
  private sharedUsed = { day: '', used: 0 };
  /** Requests sent while the database was out of reach, added to its count once it is back. */
  private unsharedSpent = { day: '', count: 0 };
  /** The waiter being served by a shared take in progress, or waiting for a shared slot. */
  private head: Waiter | undefined;
  private sharedBusy = false;
  private sharedWaitUntil = 0;
  private sharedRetry: NodeJS.Timeout | undefined;

  constructor(options: LimiterOptions) {
    if (!(options.requestsPerSecond >= 1)) throw new RangeError('requestsPerSecond must be at least 1');
    if (!(options.dailyLimit >= 1)) throw new RangeError('dailyLimit must be at least 1');
    this.requestsPerSecond = Math.floor(options.requestsPerSecond);
    this.dailyLimit = Math.floor(options.dailyLimit);
    const reserveShare = options.leadReserve ?? DEFAULT_LEAD_RESERVE;
    if (!(reserveShare >= 0 && reserveShare < 1)) throw new RangeError('leadReserve must be a share from 0 to below 1');
    this.leadReserve = Math.floor(this.dailyLimit * reserveShare);
    this.holdMs = 1000 + (options.safetyMarginMs ?? DEFAULT_SAFETY_MARGIN_MS);
    this.store = options.store;
    this.clock = options.now ?? systemClock;
    this.monotonicNow = options.monotonicNow ?? (() => performance.now());
    // RETURNING gives no row when the WHERE refuses the update: that is "budget spent".
    this.spendStatement = tablesOf(this.store).prepare<[{ day: string; limit: number }], { used: number }>(
      `INSERT INTO crm_budget (day, used) VALUES (@day, 1)
       ON CONFLICT (day) DO UPDATE SET used = used + 1 WHERE used < @limit
       RETURNING used`,
    );
    this.readStatement = tablesOf(this.store).prepare<[string], { used: number }>('SELECT used FROM crm_budget WHERE day = ?');
    this.shared = options.shared;
  }

  private now(): Date {
    return new Date(this.clock());
  }

  /** Today's budget, read from the store (so it includes what other processes spent). */
  budget(): BudgetStatus {
    const now = this.now();
    const day = utcDay(now);
    const used = this.shared ? this.sharedUsedOn(day) : (this.readStatement.get(day)?.used ?? 0);
    return { day, used, limit: this.dailyLimit, remaining: Math.max(0, this.dailyLimit - used), resetsAt: nextUtcMidnight(now) };
  }

  /** The day's count by every relay as last heard, and what this relay sent since the database went out of reach. */
  private sharedUsedOn(day: string): number {
    return (this.sharedUsed.day === day ? this.sharedUsed.used : 0) + (this.unsharedSpent.day === day ? this.unsharedSpent.count : 0);
  }

  /** Reads the day's count from the database (all relays), for status and the checks before queueing. */
  async refreshSharedBudget(): Promise<BudgetStatus> {
    if (this.shared && !this.sharedDown) {
      const day = utcDay(this.now());
      try {
        this.noteSharedUsed(day, await this.shared.gate.used(day));
      } catch (error) {
        this.sharedUnreachable(error);
      }
    }
    return this.budget();
  }

  private noteSharedUsed(day: string, used: number): void {
    if (this.sharedUsed.day !== day || used > this.sharedUsed.used) this.sharedUsed = { day, used };
  }

  /**
   * Resolves when this caller may send one request (counted against the day's budget), with the
   * function to call when its answer has come back. Rejects at once with a CrmError
   * `budget_exhausted` when the day's budget is spent, or with `aborted` when the signal fires
   * while waiting.
   */
  acquire(signalOrOptions?: AbortSignal | AcquireOptions): Promise<ReleaseSlot> {
    const options: AcquireOptions = signalOrOptions instanceof AbortSignal ? { signal: signalOrOptions } : (signalOrOptions ?? {});
    const { signal } = options;
    if (this.closed) return Promise.reject(closedError());
    if (signal?.aborted) return Promise.reject(abortedError(signal));
    const workClass = options.workClass ?? DEFAULT_WORK_CLASS;
    const status = this.budget();
    if (status.used >= this.limitFor(workClass)) return Promise.reject(budgetError(status, this.reserveNote(workClass)));
    if (this.refusedUntil && this.now() < this.refusedUntil.date) return Promise.reject(refusedError(this.refusedUntil));
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = { workClass, agency: options.agency ?? '', fillOrder: options.fillOrder, seq: this.arrivals++, resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          this.waiters.remove(waiter);
          reject(abortedError(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.push(waiter);
      this.pump();
    });
  }

  /**
   * Raises today's count to `used` if that is higher (never lowers it): for when the CRM, which
   * counts per API key across every process and integration using it, reports more than we know of.
   */
  raiseUsedTo(used: number): BudgetStatus {
    const day = utcDay(this.now());
    if (this.shared) {
      this.noteSharedUsed(day, Math.floor(used));
      if (!this.sharedDown) void this.shared.gate.add(day, 0, Math.max(0, Math.floor(used))).catch((error: unknown) => this.sharedUnreachable(error));
      return this.budget();
    }
    tablesOf(this.store)
      .prepare('INSERT INTO crm_budget (day, used) VALUES (?, ?) ON CONFLICT (day) DO UPDATE SET used = max(used, excluded.used)')
      .run(day, Math.max(0, Math.floor(used)));
    return this.budget();
  }

  /**
   * Holds every caller back until `delayMs` from now: after a 429 with Retry-After, the CRM has
   * said when it will take requests again, and that holds for the whole API key, not one call.
   */
  pauseFor(delayMs: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.monotonicNow() + delayMs);
    this.pump();
  }

  /**
   * Makes every call fail fast until `date`: the CRM asked for a wait too long to queue callers
   * through (its daily quota, say), so they hear it at once, with when to come back.
   */
  refuseUntil(date: Date, reason: string): void {
    if (!this.refusedUntil || date > this.refusedUntil.date) this.refusedUntil = { date, reason };
  }

  /** Number of callers waiting for a slot. */
  get queued(): number {
    return this.waiters.length + (this.head && !this.head.signal?.aborted ? 1 : 0);
  }

  private usageReadAt = Number.NEGATIVE_INFINITY;
  private readonly granted = Object.fromEntries(WORK_CLASSES.map((workClass) => [workClass, 0])) as Record<WorkClass, number>;

  /** Requests let through since this gate opened, by work class (what each kind of work costs). */
  grantedByClass(): Record<WorkClass, number> {
    return { ...this.granted };
  }

  /**
   * Whether this caller should read the key's usage (GET /integrator/usage) now: true at most once
   * per `intervalMs` for the whole key, so N agencies on one key spend one read, not N.
   */
  claimUsageRead(intervalMs: number): boolean {
    const now = this.monotonicNow();
    if (now - this.usageReadAt < intervalMs) return false;
    this.usageReadAt = now;
    return true;
  }

  /** Callers waiting for a slot, by work class. */
  queuedByClass(): Record<WorkClass, number> {
    return this.waiters.byClass();
  }

  /** Requests sent whose answer has not come back yet. */
  get inFlight(): number {
    return this.slots.filter((slot) => slot.doneAt === undefined).length;
  }

  /** Rejects every waiting caller; later acquires fail. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Holders that took this limiter from limiterForKey and have not released it. */
  private holders = 0;

  retain(): this {
    this.holders++;
    return this;
  }

  /** A client is done with it: closes it when no other holder is left (a limiter made directly has none). */
  release(): void {
    this.holders = Math.max(0, this.holders - 1);
    if (this.holders === 0) this.close();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sharedRetry) clearTimeout(this.sharedRetry);
    this.sharedRetry = undefined;
    const head = this.head;
    this.head = undefined;
    if (head) this.settle(head, closedError());
    for (const waiter of this.waiters.drain()) this.settle(waiter, closedError());
  }

  private pump(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.closed) return;
    const now = this.monotonicNow();
    this.slots = this.slots.filter((slot) => slot.doneAt === undefined || slot.doneAt > now - this.holdMs);
    if (this.head?.signal?.aborted) this.head = undefined;
    const cap = this.shared && this.sharedDown ? this.sharedShare() : this.requestsPerSecond;
    while ((this.head || this.waiters.length > 0) && now >= this.pausedUntil && this.slots.length < cap) {
      if (this.shared && !this.sharedDown) {
        // The database decides (one take at a time per relay); it wakes the pump when done.
        if (!this.sharedBusy && now >= this.sharedWaitUntil) this.takeShared();
        else if (!this.sharedBusy) this.timer = setTimeout(() => this.pump(), Math.ceil(this.sharedWaitUntil - now) + 1);
        return;
      }
      const waiter = this.head ?? this.waiters.shift()!;
      this.head = undefined;
      const wallNow = this.now();
      const day = utcDay(wallNow);
      let spent: { used: number } | undefined;
      try {
        spent = this.shared
          ? this.spendUnshared(day, this.limitFor(waiter.workClass))
          : this.spendStatement.get({ day, limit: this.limitFor(waiter.workClass) });
      } catch (error) {
        this.settle(waiter, error);
        continue;
      }
      if (!spent) {
        const used = this.shared ? this.sharedUsedOn(day) : (this.readStatement.get(day)?.used ?? this.dailyLimit);
        const status = { day, used, limit: this.dailyLimit, remaining: Math.max(0, this.dailyLimit - used), resetsAt: nextUtcMidnight(wallNow) };
        this.settle(waiter, budgetError(status, this.reserveNote(waiter.workClass)));
        continue;
      }
      this.grantSlot(waiter);
    }
    if (this.waiters.length === 0 && !this.head) return;
    // Wake when a released slot expires or a pause ends; a slot still in flight wakes us on release.
    const releases = this.slots.flatMap((slot) => (slot.doneAt === undefined ? [] : [slot.doneAt + this.holdMs]));
    const slotFreeAt = this.slots.length < cap ? now : releases.length > 0 ? Math.min(...releases) : undefined;
    if (slotFreeAt === undefined) return;
    const wakeAt = Math.max(slotFreeAt, this.pausedUntil);
    // +1: timers may fire a fraction of a millisecond early relative to performance.now().
    this.timer = setTimeout(() => this.pump(), Math.max(0, Math.ceil(wakeAt - now)) + 1);
  }

  /** Gives `waiter` a slot; its release (once) dates the slot, runs `onRelease` and serves the next. */
  private grantSlot(waiter: Waiter, onRelease?: () => void): void {
    const slot: Slot = {};
    this.slots.push(slot);
    this.granted[waiter.workClass]++;
    this.settle(waiter, undefined, () => {
      if (slot.doneAt !== undefined) return;
      slot.doneAt = this.monotonicNow();
      onRelease?.();
      this.pump();
    });
  }

  /** Serves the next waiter through the database: a slot and the day's count in one statement. */
  private takeShared(): void {
    const shared = this.shared!;
    const waiter = this.head ?? this.waiters.shift()!;
    this.head = undefined;
    this.sharedBusy = true;
    const day = utcDay(this.now());
    void shared.gate
      .take(day, this.limitFor(waiter.workClass))
      .then(
        (taken) => {
          // Closed while the database answered: the caller hears it, a slot taken frees at once.
          if (this.closed) {
            this.settle(waiter, closedError());
            if (taken.kind === 'granted') void shared.gate.release(taken.slot, taken.take, false).catch(() => undefined);
            return;
          }
          if (taken.kind === 'wait') {
            this.head = waiter;
            this.sharedWaitUntil = this.monotonicNow() + taken.waitMs;
            return;
          }
          if (taken.kind === 'spent') {
            this.noteSharedUsed(day, taken.used);
            const status = this.budget();
            this.settle(waiter, budgetError(status, this.reserveNote(waiter.workClass)));
            return;
          }
          this.noteSharedUsed(day, taken.used);
          const giveBack = (sent: boolean) => void shared.gate.release(taken.slot, taken.take, sent).catch((error: unknown) => this.sharedUnreachable(error));
          // Cancelled while the database answered: nothing is sent, the slot frees at once.
          if (waiter.signal?.aborted) return giveBack(false);
          this.grantSlot(waiter, () => giveBack(true));
        },
        (error: unknown) => {
          if (this.closed) return this.settle(waiter, closedError());
          // The database is out of reach: the waiter is served next, by this relay's share.
          this.head = waiter;
          this.sharedUnreachable(error);
        },
      )
      .finally(() => {
        this.sharedBusy = false;
        this.pump();
      });
  }

  /** Without the database: at most a 1/N share of the key's per second limit, N the relays last seen alive (never more than the whole). */
  private sharedShare(): number {
    const relays = Math.max(1, Math.floor(this.shared!.relaysAlive()));
    return Math.max(1, Math.floor(this.requestsPerSecond / relays));
  }

  /** Without the database: counts in memory against the day's count as last heard. */
  private spendUnshared(day: string, limit: number): { used: number } | undefined {
    if (this.unsharedSpent.day !== day) this.unsharedSpent = { day, count: 0 };
    if (this.sharedUsedOn(day) >= limit) return undefined;
    this.unsharedSpent.count++;
    return { used: this.sharedUsedOn(day) };
  }

  private sharedUnreachable(error: unknown): void {
    if (this.sharedDown || this.closed) return;
    this.sharedDown = true;
    this.shared!.onChange?.(false, error);
    this.retryShared();
  }

  /** While out of reach: tries the database every retryMs; once back, adds what was sent meanwhile and serves through it again. */
  private retryShared(): void {
    if (this.closed) return;
    this.sharedRetry = setTimeout(() => {
      const day = this.unsharedSpent.day || utcDay(this.now());
      const count = this.unsharedSpent.day === day ? this.unsharedSpent.count : 0;
      this.shared!.gate.add(day, count).then(
        (used) => {
          this.sharedUsed = { day, used };
          if (this.unsharedSpent.day === day) this.unsharedSpent.count -= count;
          // Sent while this add was on its way: added too (counted here until it lands).
          const late = this.unsharedSpent.day === day ? this.unsharedSpent.count : 0;
          if (late > 0)
            void this.shared!.gate.add(day, late).then(
              (total) => {
                this.unsharedSpent.count -= late;
                this.noteSharedUsed(day, total);
              },
              () => undefined,
            );
          this.sharedDown = false;
          this.shared!.onChange?.(true);
          this.pump();
        },
        () => this.retryShared(),
      );
    }, this.shared!.retryMs ?? 1_000);
    this.sharedRetry.unref();
  }

  /** How far into the day's budget this class may go: all of it for enquiries, short of the lead reserve for the rest. */
  private limitFor(workClass: WorkClass): number {
    return workClass === 'enquiry' ? this.dailyLimit : this.dailyLimit - this.leadReserve;
  }

  private reserveNote(workClass: WorkClass): string | undefined {
    return workClass === 'enquiry' || this.leadReserve === 0 ? undefined : `the last ${this.leadReserve} are kept for enquiry delivery`;
  }

  private settle(waiter: Waiter, error?: unknown, release?: ReleaseSlot): void {
    if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
    if (error === undefined) waiter.resolve(release!);
    else waiter.reject(error);
  }
}

export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function nextUtcMidnight(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1));
}

function budgetError(status: BudgetStatus, note?: string): CrmError {
  return new CrmError(
    `The daily CRM request budget is spent (${status.used} of ${status.limit} on ${status.day} UTC${note ? `; ${note}` : ''}); ` +
      `requests resume at ${status.resetsAt.toISOString()} (00:00 UTC). Nothing was sent.`,
    // Retryable, but only from retryAt: an outbox keeps its work and tries again after the reset.
    { code: 'budget_exhausted', retryable: true, retryAt: status.resetsAt },
  );
}

function refusedError(refused: { date: Date; reason: string }): CrmError {
  return new CrmError(`${refused.reason} Requests resume at ${refused.date.toISOString()}. Nothing was sent.`, {
    code: 'rate_limited',
    status: 429,
    retryable: true,
    retryAt: refused.date,
  });
}

function abortedError(signal: AbortSignal): CrmError {
  return new CrmError('The CRM request was cancelled before it was sent.', { code: 'aborted', cause: signal.reason });
}

function closedError(): CrmError {
  return new CrmError('The CRM client is closed.', { code: 'closed' });
}

/** Requests counted against the CRM's daily limit on `day` (YYYY-MM-DD, UTC), for `npm run relay -- status`. */
export function budgetUsedOn(store: Store, day: string): number {
  if (!hasTable(store, 'crm_budget')) return 0;
  return (tablesOf(store).prepare('SELECT used FROM crm_budget WHERE day = ?').pluck().get(day) as number | undefined) ?? 0;
}

/** The open limiter of each API key (and store, which holds its budget), by a digest: the key itself is not kept. */
const limitersByKey = new Map<string, RequestLimiter>();

/**
 * The one gate of an API key in this process: the CRM limits requests per key, so every client of
 * the key (a second agency on the same key, a CLI sync in the relay's process) must pass the same
 * one. Each client releases it when it closes (the last one closes it); a closed limiter is
 * replaced by a new one.
 */
export function limiterForKey(apiKey: string, options: LimiterOptions): RequestLimiter {
  const id = createHash('sha256').update(apiKey).update('\0').update(options.store.file).digest('hex');
  const existing = limitersByKey.get(id);
  if (existing && !existing.isClosed) return existing.retain();
  const limiter = new RequestLimiter(options);
  limitersByKey.set(id, limiter);
  return limiter.retain();
}

// Calls per agency ------------------------------------------------------------------------------

/*
 * Requests one agency's client sent, per UTC day, in that agency's store (the key's total is the
 * daily budget in DATA_DIR's store): the operator view's "CRM calls today" survives a restart.
 * One row of crm_access per day, the last week kept.
 */

/** Key prefix of those rows: each relay's own, never copied between relays (cluster/replica.ts). */
export const CALLS_PREFIX = 'crm-calls:';
const CALLS_KEEP_DAYS = 7;

/** Requests counted on `day` (YYYY-MM-DD, UTC); 0 when none, or the store is older than the table. */
export function callsOn(store: Store, day: string): number {
  if (!hasTable(store, 'crm_access')) return 0;
  const value = tablesOf(store).prepare('SELECT value FROM crm_access WHERE key = ?').pluck().get(`${CALLS_PREFIX}${day}`) as string | undefined;
  const calls = Number(value ?? 0);
  return Number.isSafeInteger(calls) && calls > 0 ? calls : 0;
}

/** Counts one request on `day`; the first of a day drops the days older than a week. Returns the day's count. */
export function countCall(store: Store, day: string): number {
  const db = tablesOf(store);
  return db
    .transaction(() => {
      const calls = callsOn(store, day) + 1;
      db.prepare('INSERT INTO crm_access (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(
        `${CALLS_PREFIX}${day}`,
        String(calls),
      );
      if (calls === 1) {
        const oldest = new Date(Date.parse(`${day}T00:00:00Z`) - CALLS_KEEP_DAYS * 86_400_000).toISOString().slice(0, 10);
        db.prepare("DELETE FROM crm_access WHERE key LIKE 'crm-calls:%' AND key < ?").run(`${CALLS_PREFIX}${oldest}`);
      }
      return calls;
    })
    .immediate();
}
