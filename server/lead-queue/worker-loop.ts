import type { EnquiryDeliveryConfig } from '../runtime/config.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import { asWork, type WorkClass } from '../runtime/work-class.ts';
import type { Worker } from '../runtime/worker.ts';
import type { WriteHealth } from '../store/store.ts';
import { CircuitBreaker, DEFAULT_BREAKER_SETTINGS, type BreakerChange, type BreakerOutcome, type BreakerSettings } from './breaker.ts';
import { CONFIG_RETRY_MS, type DeliveryFailure } from './failure.ts';
import { DEFAULT_CLAIM_LEASE_MS } from './table.ts';

/** A queue's worker settings: those read from the environment (runtime/config.ts) and a few only tests set. */
export interface LeadQueueWorkerSettings extends EnquiryDeliveryConfig {
  /** How long stop() lets in-flight work finish before cancelling it. Default 5 s. */
  stopGraceMs?: number;
  /** Circuit breaker thresholds (breaker.ts); the cooldown defaults to retryBaseMs. */
  breaker?: Partial<BreakerSettings>;
}

/** The first look-up after a write with an unknown outcome (ENQUIRY_EARLY_LOOKUP_MS's default). */
export const DEFAULT_EARLY_LOOKUP_MS = 2_000;

/** How many moved marks a worker remembers (a row looked up after more failures than this waits as after a restart). */
const MOVED_MARKS_KEPT = 10_000;

/** What the loop needs of a queue's rows. */
export interface LoopEntry {
  originalId: string;
  windowStart: number;
}

/** What the loop needs of a queue (lead-queue/table.ts). */
export interface LoopQueue<Entry> {
  store: { writes: WriteHealth };
  clockOffset(local: Clock): Promise<number>;
  claimDue(now: number, limit: number, leaseMs: number, inFlight: string[]): Promise<Entry[]>;
  releaseClaims(originalIds: string[]): Promise<void>;
  renewClaims(originalIds: string[], now: number, leaseMs: number): Promise<void>;
  nextDueAfter(now: number): Promise<number | undefined>;
  retryLater(originalId: string, nextAttemptAt: number, error: string, outcomeUnknown: boolean, markAt?: number): Promise<void>;
}

export interface LeadQueueLoopOptions<Entry extends LoopEntry> {
  /** The worker's name (runtime/worker.ts). */
  name: string;
  /** The class its CRM requests run as, at the CRM's gate (runtime/work-class.ts). */
  workClass: WorkClass;
  queue: LoopQueue<Entry>;
  log: Logger;
  settings: LeadQueueWorkerSettings;
  now: Clock;
  random: () => number;
  /** Works one claimed entry; resolves with what it says of the CRM (for the circuit breaker), undefined when nothing reached it. */
  work(entry: Entry): Promise<BreakerOutcome | undefined>;
  /** Drops the personal data kept past its time (once a minute, while the store takes writes). */
  erase(current: number): Promise<void>;
  /** After erasure, on every pass (the enquiries' metrics line). */
  report?(current: number): Promise<void>;
  onBreakerChange(change: BreakerChange): void;
  /** Whether an entry whose work failed unexpectedly may have a write in the CRM's hands. */
  mayBeInCrm(entry: Entry): boolean;
  /** The log's words. */
  words: { unreadable: string; erasureFailed: string; storeFailed: string; unexpected: string };
}

export interface LeadQueueLoop<Entry extends LoopEntry> extends Worker {
  /** Look for work now (called when an entry is accepted). */
  wake(): void;
  /** Work everything due now and wait for it (tests drive the worker with this). */
  drain(): Promise<void>;
  readonly breaker: CircuitBreaker;
  /** How long a claim lasts (ms). */
  readonly leaseMs: number;
  /** The queue's clock minus this relay's (ms): 0 on SQLite; on PostgreSQL, the database's, read at each pass. */
  readonly offset: number;
  /** Now on the queue's clock: what rows' times are compared with and written in. */
  shared(): number;
  /** Cancels the CRM requests under way when stop() runs out of grace. */
  readonly signal: AbortSignal;
  /** When the retry window of `entry` closes (the queue's clock). */
  windowEnd(entry: Entry): number;
  /**
   * When to try again after `failure` (the queue's clock), `failures` the failures in a row of
   * this step, this one included: exponential backoff with jitter, capped; no sooner than the
   * sink's time to come back (Retry-After), the credentials' wait, or (an outcome unknown that may
   * still land) the early look-up's delay.
   */
  nextAttemptAt(failure: DeliveryFailure | undefined, failures: number, outcomeUnknown: boolean, current: number): number;
  /**
   * The write mark's new time after a write with an unknown outcome failed at `current`: the mark
   * says since when nothing more can land (lookupBelievedAt). A request that may still land
   * (a timeout, a cut connection) may land until then; one the CRM answered itself (a 5xx) has
   * ended, so its mark is put a look-up delay back and a look-up that finds nothing is believed at once.
   */
  markAfterFailure(originalId: string, failure: DeliveryFailure | undefined, current: number): number;
  /**
   * A write marked at `markSince` by an earlier process (a crash, a stop mid-request, a restore)
   * may still be on its way: when to look it up (it left before this worker started), or
   * undefined when that time has come. A write of this process that failed was given that time
   * (or not, if the CRM answered) by the retry.
   */
  lookAfter(markSince: number, current: number): number | undefined;
  /**
   * A look-up found nothing of a write marked at `markSince`: undefined when that is believed (the
   * write may be sent again), else when to look again. Believed once ENQUIRY_RECONCILE_DELAY_MS
   * has passed since the mark (markAfterFailure), or, for a mark from before this worker started
   * that this process did not move (an earlier process's, whose request the kill may have left
   * in flight), since the start. A look-up that finds the write is believed at once, whenever it
   * is made: so the early look-up settles a dropped answer in seconds while nothing is written
   * twice on the strength of a look made too soon.
   */
  lookupBelievedAt(originalId: string, markSince: number, current: number): number | undefined;
  /** What one failure says about the CRM, for the circuit breaker: undefined when nothing reached it. */
  crmOutcome(failure: DeliveryFailure | undefined): BreakerOutcome | undefined;
}

/**
 * The loop a durable lead queue's worker runs, whatever its steps (an enquiry's one POST, a saved
 * search's person, search, lists and note):
 *
 * - At most `concurrency` entries in work; each pass claims the oldest due rows for a lease,
 *   renewed while they run; rows claimed but not started are released at once for other relays.
 * - A circuit breaker (breaker.ts) stops all work during a real outage (many failures in a row or
 *   in a short window, or the CRM naming a time to come back), so the queue waits in order instead
 *   of every row spending a request; one probe tells when the CRM is back.
 * - The store failing (a lock held by another process, a full disk) is logged and retried later;
 *   it never ends the process, and a row's state only ever moves forward in committed steps.
 * - Times in a shared queue are the database's clock, not this relay's (relays' clocks need not
 *   agree): the claims' statements read it themselves, and every time the worker writes or
 *   compares with a row's (due times, retry windows, erasure) is its own clock plus the queue's
 *   offset, read at the start of each pass (`shared()`). The circuit breaker and the store's write
 *   health are this relay's own and keep its clock.
 */
export function leadQueueLoop<Entry extends LoopEntry>(options: LeadQueueLoopOptions<Entry>): LeadQueueLoop<Entry> {
  const { queue, log, settings, now, random, words } = options;
  const stopGraceMs = settings.stopGraceMs ?? 5_000;
  const leaseMs = settings.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS;
  const earlyLookupMs = Math.min(settings.earlyLookupMs ?? DEFAULT_EARLY_LOOKUP_MS, settings.reconcileDelayMs);
  let offset = 0;
  const shared = () => now() + offset;
  /** Reads the offset again; when the database does not answer, the last one stays (the pass's own queries report the failure). */
  async function readOffset(): Promise<void> {
    offset = await queue.clockOffset(now).catch(() => offset);
  }

  const writes: WriteHealth = queue.store.writes;
  const breaker = new CircuitBreaker(
    {
      ...DEFAULT_BREAKER_SETTINGS,
      cooldownMs: settings.retryBaseMs,
      maxCooldownMs: Math.max(settings.retryBaseMs, Math.min(settings.retryMaxMs, DEFAULT_BREAKER_SETTINGS.maxCooldownMs)),
      ...settings.breaker,
    },
    now,
    options.onBreakerChange,
  );
  const inFlight = new Map<string, Promise<void>>();
  /** The marks this process moved (markAfterFailure), by originalId: the newest MOVED_MARKS_KEPT. */
  const movedMarks = new Map<string, number>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let lastErasure = 0;
  let abort = new AbortController();
  let startedAt = now();
  let ticking: Promise<void> | undefined;
  let tickAgain = false;
  let lastRenewal = 0;

  function schedule(delayMs: number): void {
    if (!running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(tick, Math.max(0, Math.min(delayMs, settings.pollMs)));
    timer.unref?.();
  }

  function tick(): void {
    timer = undefined;
    if (!running) return;
    // One pass at a time: a pass waits on the store, and an entry's work ending meanwhile asks for another.
    if (ticking) {
      tickAgain = true;
      return;
    }
    ticking = pass().finally(() => {
      ticking = undefined;
      if (tickAgain) {
        tickAgain = false;
        schedule(0);
      }
    });
  }

  async function pass(): Promise<void> {
    try {
      await readOffset();
      const current = shared();
      await housekeeping(current);
      await renewClaims(current);
      // Stopped while the store answered: start nothing more.
      if (!running) return;
      // The work it starts runs on by itself (each catches its own failure).
      void (await dispatch(current));
      // Every slot busy: a finishing entry reschedules. Otherwise every row due now is in work,
      // so wake for the next row that falls due later (or the poll, for work another process queues).
      if (inFlight.size >= settings.concurrency) return schedule(settings.pollMs);
      // The breaker and the store's write health keep this relay's clock; rows' due times the queue's.
      const waitUntil = Math.max(breaker.reopensAt ?? 0, writes.heldUntil() ?? 0);
      const local = now();
      if (waitUntil > local) return schedule(waitUntil - local);
      const nextDue = await queue.nextDueAfter(current);
      schedule(nextDue === undefined ? settings.pollMs : nextDue - shared());
    } catch (error) {
      // Reading the queue failed (the store is unreadable): say so and look again later.
      writes.failed(error);
      log.error({ err: error }, words.unreadable);
      schedule(settings.pollMs);
    }
  }

  /** Keeps this relay's claims on its rows in work from lapsing while they run. */
  async function renewClaims(current: number): Promise<void> {
    if (inFlight.size === 0 || current - lastRenewal < leaseMs / 4) return;
    lastRenewal = current;
    await queue.renewClaims([...inFlight.keys()], current, leaseMs);
  }

  /** Claims the oldest due rows and starts their work, up to the concurrency limit. Returns what it started. */
  async function dispatch(current: number): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    // The store refusing writes: every entry would stop the event loop for busy_timeout and fail.
    if (writes.heldUntil() !== undefined) return started;
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return started;
    const claimed = await queue.claimDue(current, free, leaseMs, [...inFlight.keys()]);
    const unstarted: string[] = [];
    for (const entry of claimed) {
      if (inFlight.has(entry.originalId)) continue;
      const ticket = inFlight.size < settings.concurrency ? breaker.tryAcquire() : undefined;
      if (!ticket) {
        // Claimed but not started (the breaker allows one probe, or the slots filled): let other relays have it.
        unstarted.push(entry.originalId);
        continue;
      }
      const run = asWork(options.workClass, () => options.work(entry))
        .then((outcome) => (outcome ? breaker.record(ticket, outcome) : breaker.release(ticket)))
        .catch((error: unknown) => {
          breaker.release(ticket);
          // The work handles CRM errors itself; this is the store failing, or a bug.
          if (writes.failed(error)) {
            log.error({ err: error, originalId: entry.originalId, retryInMs: Math.round((writes.heldUntil() ?? now()) - now()) }, words.storeFailed);
            return;
          }
          log.error({ err: error, originalId: entry.originalId }, words.unexpected);
          // The row keeps its committed state and is tried again later if this write fails too.
          return queue
            .retryLater(entry.originalId, shared() + settings.retryBaseMs, 'internal error (see the relay log)', options.mayBeInCrm(entry))
            .catch((storeError: unknown) => {
              writes.failed(storeError);
            });
        })
        .finally(() => {
          inFlight.delete(entry.originalId);
          if (running) schedule(0);
        });
      inFlight.set(entry.originalId, run);
      started.push(run);
    }
    if (unstarted.length) await queue.releaseClaims(unstarted);
    return started;
  }

  async function housekeeping(current: number): Promise<void> {
    if (current - lastErasure >= 60_000 && writes.heldUntil() === undefined) {
      // Set first: a failing pass is tried again in a minute, not on every tick.
      lastErasure = current;
      try {
        await options.erase(current);
      } catch (error) {
        writes.failed(error);
        log.error({ err: error }, words.erasureFailed);
      }
    }
    await options.report?.(current);
  }

  /** Not the sink's error (undefined): we cannot tell whether the request may still land, so as if it may. */
  const mayStillLand = (failure: DeliveryFailure | undefined) => failure?.mayStillLand ?? true;

  function backoff(failures: number): number {
    const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
    // Equal jitter: never sooner than half the step, so a retry storm cannot form.
    return ceiling / 2 + random() * (ceiling / 2);
  }

  return {
    name: options.name,
    breaker,
    leaseMs,
    get offset() {
      return offset;
    },
    shared,
    get signal() {
      return abort.signal;
    },
    windowEnd: (entry) => entry.windowStart + settings.maxAgeMs,
    nextAttemptAt(failure, failures, outcomeUnknown, current) {
      let nextAt = current + backoff(failures);
      // The sink's time to come back is on this relay's clock.
      if (failure?.retryAt) nextAt = Math.max(nextAt, failure.retryAt + offset);
      if (failure?.reason === 'credentials') nextAt = Math.max(nextAt, current + CONFIG_RETRY_MS);
      // Not the sink's error: we cannot tell whether the request may still land, so look as if it may.
      if (outcomeUnknown && mayStillLand(failure)) nextAt = Math.max(nextAt, current + earlyLookupMs);
      return nextAt;
    },
    markAfterFailure(originalId, failure, current) {
      const mark = Math.round(mayStillLand(failure) ? current : current - settings.reconcileDelayMs);
      // Remembered so that a mark put back to before this worker's start is not taken for an earlier process's.
      movedMarks.delete(originalId);
      movedMarks.set(originalId, mark);
      if (movedMarks.size > MOVED_MARKS_KEPT) movedMarks.delete(movedMarks.keys().next().value!);
      return mark;
    },
    lookAfter(markSince, current) {
      const startedAtShared = startedAt + offset;
      const lookAt = startedAtShared + earlyLookupMs;
      return markSince < startedAtShared && current < lookAt ? lookAt : undefined;
    },
    lookupBelievedAt(originalId, markSince, current) {
      const startedAtShared = startedAt + offset;
      const movedHere = movedMarks.get(originalId) === markSince;
      const believedAt = (markSince < startedAtShared && !movedHere ? startedAtShared : markSince) + settings.reconcileDelayMs;
      if (current < believedAt) return believedAt;
      movedMarks.delete(originalId);
      return undefined;
    },
    crmOutcome(failure) {
      if (!failure || failure.reason === 'stopped') return undefined;
      if (failure.reason === 'credentials') return { ok: false, retryAt: now() + CONFIG_RETRY_MS };
      if (failure.retryable) return { ok: false, retryAt: failure.retryAt };
      // A definite refusal (400, 404, …) is the CRM answering: it is up.
      return { ok: true };
    },
    start() {
      if (running) return;
      running = true;
      startedAt = now();
      abort = new AbortController();
      schedule(0);
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      // A pass under way may still be starting work: it is among what is waited for below.
      await ticking;
      const pending = Promise.allSettled([...inFlight.values()]);
      const grace = new Promise<void>((resolve) => setTimeout(resolve, stopGraceMs).unref());
      await Promise.race([pending, grace]);
      abort.abort();
      await pending;
    },
    wake() {
      if (running) schedule(0);
    },
    async drain() {
      // Repeats until nothing due is left: one entry's work can make the next one due (backoff 0 in tests).
      for (let round = 0; round < 1000; round++) {
        await readOffset();
        const current = shared();
        await housekeeping(current);
        const started = await dispatch(current);
        if (started.length === 0 && inFlight.size === 0) return;
        await Promise.allSettled(started.length ? started : [...inFlight.values()]);
      }
    },
  };
}
