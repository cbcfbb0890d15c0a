import type { EnquiryDeliveryConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';
import { isStoreUnavailable, type WriteHealth } from '../store/store.ts';
import { CircuitBreaker, DEFAULT_BREAKER_SETTINGS, type BreakerOutcome, type BreakerSettings, type BreakerState } from '../lead-queue/breaker.ts';
import type { EnquiryMetrics } from './metrics.ts';
import { DEFAULT_CLAIM_LEASE_MS, type EnquiryOutbox, type OutboxEntry } from './outbox.ts';
import type { DeliveryFailure, Lead, LeadDestination, LeadSink } from './sink.ts';
import { findTarget, type EnquiryTargets } from './targets.ts';
import { leadAbout } from './schema.ts';
import type { Clock } from '../runtime/clock.ts';
import { asWork } from '../runtime/work-class.ts';

/** The delivery worker's settings: those read from the environment (runtime/config.ts) and a few only tests set. */
export interface DeliverySettings extends EnquiryDeliveryConfig {
  /** How often a metrics summary goes to the log (only when something changed). Default 60 s. */
  metricsLogMs?: number;
  /** How long stop() lets in-flight deliveries finish before cancelling them. Default 5 s. */
  stopGraceMs?: number;
  /** Circuit breaker thresholds (breaker.ts); the cooldown defaults to retryBaseMs. */
  breaker?: Partial<BreakerSettings>;
  /**
   * How long a claim on a row lasts (ms) before another relay sharing the outbox may take it over;
   * renewed while the delivery runs. Default 2 minutes (outbox.ts DEFAULT_CLAIM_LEASE_MS).
   */
  claimLeaseMs?: number;
}

export interface DeliveryWorkerDeps {
  outbox: EnquiryOutbox;
  /** Where leads go (server/crm/lead-sink.ts for the CRM). */
  sink: LeadSink;
  targets: EnquiryTargets;
  metrics: EnquiryMetrics;
  log: Logger;
  settings: DeliverySettings;
  now?: Clock;
  random?: () => number;
}

export interface DeliveryWorker extends Worker {
  /** Look for work now (called when an enquiry is accepted). */
  wake(): void;
  /** Deliver everything due now and wait for it (tests drive the worker with this). */
  drain(): Promise<void>;
  /** The circuit breaker's state (closed: deliveries flow). */
  readonly breakerState: BreakerState;
}

/** Credentials problems are the operator's to fix; the lead waits for them rather than dying. */
const CONFIG_RETRY_MS = 5 * 60_000;

/**
 * Delivers queued enquiries to the lead sink (the CRM), oldest first.
 *
 * - At most `concurrency` deliveries in flight; each takes the oldest due row.
 * - Before a POST the row is marked "sending" (committed); once the outcome is known the mark is
 *   cleared. A row still marked when picked up (a timeout, a dropped connection, a 5xx, or a
 *   kill -9 mid-request) is first looked up in GET /enquiries by its originalId, and posted again
 *   only if the CRM does not hold it: the CRM does not deduplicate.
 * - 429, 5xx, timeouts: that enquiry alone is retried, with exponential backoff and jitter, until
 *   the retry window (ENQUIRY_MAX_AGE_HOURS) is over, then dead-lettered; the others keep flowing.
 * - A circuit breaker (breaker.ts) stops all sending during a real outage (many failures in a row
 *   or in a short window, or the CRM naming a time to come back), so the queue waits in order
 *   instead of every row spending a request; one probe delivery tells when the CRM is back.
 * - A 400 from the CRM dead-letters at once, with the CRM's message.
 * - The store failing (a lock held by another process, a full disk) is logged and retried later;
 *   it never ends the process, and a row's state only ever moves forward in committed steps.
 * - Relays sharing one outbox (PostgreSQL) each claim the rows they deliver for a lease, renewed
 *   while the delivery runs; a relay that dies leaves claims that lapse, and another relay takes
 *   the rows over (reconciling first: they are marked "sending"). A relay whose claim lapsed and
 *   was taken over sends nothing more for that row (startSending is fenced by the claim).
 * - Times in a shared outbox are the database's clock, not this relay's (relays' clocks need not
 *   agree): the claims' statements read it themselves, and every time this worker writes or
 *   compares with a row's (due times, retry windows, erasure) is its own clock plus the outbox's
 *   offset, read at the start of each pass (`shared()`). The circuit breaker and the store's
 *   write health are this relay's own and keep its clock.
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const { outbox, sink, targets, metrics, settings } = deps;
  const log = deps.log.child({ component: 'enquiry-delivery' });
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const metricsLogMs = settings.metricsLogMs ?? 60_000;
  const stopGraceMs = settings.stopGraceMs ?? 5_000;
  const leaseMs = settings.claimLeaseMs ?? DEFAULT_CLAIM_LEASE_MS;
  /** The outbox's clock minus this relay's (ms): 0 on SQLite; on PostgreSQL, the database's, read at each pass. */
  let offset = 0;
  /** Now on the outbox's clock: what rows' times are compared with and written in. */
  const shared = () => now() + offset;
  /** Reads the offset again; when the database does not answer, the last one stays (the pass's own queries report the failure). */
  async function readOffset(): Promise<void> {
    offset = await outbox.clockOffset(now).catch(() => offset);
  }

  const writes: WriteHealth = outbox.store.writes;
  const breaker = new CircuitBreaker(
    {
      ...DEFAULT_BREAKER_SETTINGS,
      cooldownMs: settings.retryBaseMs,
      maxCooldownMs: Math.max(settings.retryBaseMs, Math.min(settings.retryMaxMs, DEFAULT_BREAKER_SETTINGS.maxCooldownMs)),
      ...settings.breaker,
    },
    now,
    (change) => {
      if (change.state === 'open' && !metrics.circuitOpen) metrics.circuitOpenings++;
      metrics.circuitOpen = change.state !== 'closed';
      const fields = { breaker: change.state, reason: change.reason, ...(change.until ? { retryInMs: Math.round(change.until - now()) } : {}) };
      if (change.state === 'open') log.warn(fields, 'CRM looks down: enquiry deliveries paused');
      else log.info(fields, change.state === 'closed' ? 'CRM back: enquiry deliveries resumed' : 'probing the CRM with one enquiry');
    },
  );
  const inFlight = new Map<string, Promise<void>>();
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let lastErasure = 0;
  let lastMetricsLog = 0;
  let lastMetricsLine = '';
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
    // One pass at a time: a pass waits on the store, and a delivery ending meanwhile asks for another.
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
      // The deliveries it starts run on by themselves (each catches its own failure).
      void (await dispatch(current));
      // Every slot busy: a finishing delivery reschedules. Otherwise every row due now is in flight,
      // so wake for the next row that falls due later (or the poll, for work another process queues).
      if (inFlight.size >= settings.concurrency) return schedule(settings.pollMs);
      // The breaker and the store's write health keep this relay's clock; rows' due times the outbox's.
      const waitUntil = Math.max(breaker.reopensAt ?? 0, writes.heldUntil() ?? 0);
      const local = now();
      if (waitUntil > local) return schedule(waitUntil - local);
      const nextDue = await outbox.nextDueAfter(current);
      schedule(nextDue === undefined ? settings.pollMs : nextDue - shared());
    } catch (error) {
      // Reading the queue failed (the store is unreadable): say so and look again later.
      writes.failed(error);
      log.error({ err: error }, 'enquiry worker could not read its queue; will retry');
      schedule(settings.pollMs);
    }
  }

  /** Keeps this relay's claims on its in-flight rows from lapsing while their deliveries run. */
  async function renewClaims(current: number): Promise<void> {
    if (inFlight.size === 0 || current - lastRenewal < leaseMs / 4) return;
    lastRenewal = current;
    await outbox.renewClaims([...inFlight.keys()], current, leaseMs);
  }

  /** Claims the oldest due rows and starts their deliveries, up to the concurrency limit. Returns what it started. */
  async function dispatch(current: number): Promise<Promise<void>[]> {
    const started: Promise<void>[] = [];
    // The store refusing writes: every delivery would stop the event loop for busy_timeout and fail.
    if (writes.heldUntil() !== undefined) return started;
    const free = settings.concurrency - inFlight.size;
    if (free <= 0) return started;
    const claimed = await outbox.claimDue(current, free, leaseMs, [...inFlight.keys()]);
    const unstarted: string[] = [];
    for (const entry of claimed) {
      if (inFlight.has(entry.originalId)) continue;
      const ticket = inFlight.size < settings.concurrency ? breaker.tryAcquire() : undefined;
      if (!ticket) {
        // Claimed but not started (the breaker allows one probe, or the slots filled): let other relays have it.
        unstarted.push(entry.originalId);
        continue;
      }
      // Leads go before any sync at the CRM's gate.
      const delivery = asWork('enquiry', () => deliver(entry))
        .then((outcome) => (outcome ? breaker.record(ticket, outcome) : breaker.release(ticket)))
        .catch((error: unknown) => {
          breaker.release(ticket);
          // deliver() handles CRM errors itself; this is the store failing, or a bug.
          if (writes.failed(error)) {
            log.error(
              { err: error, originalId: entry.originalId, retryInMs: Math.round((writes.heldUntil() ?? now()) - now()) },
              'enquiry delivery could not write to the store; will retry',
            );
            return;
          }
          log.error({ err: error, originalId: entry.originalId }, 'enquiry delivery failed unexpectedly');
          // The row keeps its committed state and is tried again later if this write fails too.
          return outbox
            .retryLater(entry.originalId, shared() + settings.retryBaseMs, 'internal error (see the relay log)', entry.sendingSince !== null)
            .catch((storeError: unknown) => {
              writes.failed(storeError);
            });
        })
        .finally(() => {
          inFlight.delete(entry.originalId);
          if (running) schedule(0);
        });
      inFlight.set(entry.originalId, delivery);
      started.push(delivery);
    }
    if (unstarted.length) await outbox.releaseClaims(unstarted);
    return started;
  }

  async function housekeeping(current: number): Promise<void> {
    if (current - lastErasure >= 60_000 && writes.heldUntil() === undefined) {
      // Set first: a failing pass is tried again in a minute, not on every tick.
      lastErasure = current;
      try {
        const erased = await outbox.eraseDelivered(current - settings.eraseAfterMs, current);
        if (erased > 0) {
          metrics.erased += erased;
          log.info({ erased }, 'personal data of delivered enquiries erased');
        }
        const erasedDead = await outbox.eraseDead(current - settings.deadEraseAfterMs, current);
        if (erasedDead > 0) {
          metrics.erased += erasedDead;
          log.warn({ erased: erasedDead }, 'personal data of dead letters erased: they were never replayed and can no longer be');
        }
        writes.succeeded();
      } catch (error) {
        writes.failed(error);
        log.error({ err: error }, 'erasing personal data of old enquiries failed; will retry in a minute');
      }
    }
    if (current - lastMetricsLog >= metricsLogMs) {
      lastMetricsLog = current;
      // The outbox's counts come from the store: one that does not answer skips this line, not the pass.
      const snapshot = await metrics.snapshot().catch(() => undefined);
      if (!snapshot) return;
      const line = JSON.stringify(snapshot);
      if (line !== lastMetricsLine) {
        lastMetricsLine = line;
        log.info({ metrics: snapshot }, 'enquiry metrics');
      }
    }
  }

  function backoff(attempts: number): number {
    const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.max(0, attempts - 1));
    // Equal jitter: never sooner than half the step, so a retry storm cannot form.
    return ceiling / 2 + random() * (ceiling / 2);
  }

  function windowEnd(entry: OutboxEntry): number {
    return entry.windowStart + settings.maxAgeMs;
  }

  async function die(entry: OutboxEntry, reason: string): Promise<void> {
    if (await outbox.markDead(entry.originalId, shared(), reason)) {
      metrics.dead++;
      metrics.attempts.dead++;
      log.error({ originalId: entry.originalId, attempts: entry.attempts, reason }, 'enquiry dead-lettered');
    }
  }

  async function delivered(entry: OutboxEntry, crmEnquiryId: number | null, foundByReconcile: boolean): Promise<void> {
    const at = shared();
    if (!(await outbox.markDelivered(entry.originalId, at, crmEnquiryId, foundByReconcile))) return;
    const latencySeconds = (at - entry.acceptedAt) / 1000;
    metrics.delivered++;
    metrics.attempts[foundByReconcile ? 'reconciled' : 'delivered']++;
    metrics.observeDeliveryLatency(latencySeconds);
    log.info(
      { originalId: entry.originalId, crmEnquiryId, attempts: entry.attempts, latencyMs: Math.round(latencySeconds * 1000), foundByReconcile },
      'enquiry delivered',
    );
  }

  /**
   * A retryable failure: try again later, or dead-letter once the window is over. A POST with an
   * unknown outcome is always looked up once more before that; a failed look-up (`stage`
   * 'reconcile') past the window dead-letters with a note that the CRM may hold it.
   */
  async function retry(entry: OutboxEntry, error: unknown, outcomeUnknown: boolean, attempts: number, stage: 'resolve' | 'reconcile' | 'post'): Promise<void> {
    const current = shared();
    const failure = sink.failure(error);
    const reason = describe(error, failure);
    let nextAt = current + backoff(attempts);
    // The sink's time to come back is on this relay's clock.
    if (failure?.retryAt) nextAt = Math.max(nextAt, failure.retryAt + offset);
    if (failure?.reason === 'credentials') nextAt = Math.max(nextAt, current + CONFIG_RETRY_MS);
    // Not the sink's error: we cannot tell whether the request may still land, so wait as if it may.
    if (outcomeUnknown && (failure?.mayStillLand ?? true)) nextAt = Math.max(nextAt, current + settings.reconcileDelayMs);
    if (current >= windowEnd(entry) && !(outcomeUnknown && stage === 'post')) {
      const unsure = outcomeUnknown ? ' (an earlier attempt may have reached the CRM: check its holding area)' : '';
      await die(entry, `retry window over (${attempts} attempts)${unsure}; last error: ${reason}`);
      return;
    }
    // Past the window's end the next pick-up reconciles (if needed) and then dead-letters.
    await outbox.retryLater(entry.originalId, Math.min(nextAt, Math.max(windowEnd(entry), current)), reason, outcomeUnknown);
    metrics.attempts[outcomeUnknown ? 'unknown_outcome' : 'retry']++;
    const fields = { originalId: entry.originalId, attempts, reason, outcomeUnknown, retryInMs: Math.round(nextAt - current) };
    if (failure?.setting) log.error({ ...fields, setting: failure.setting }, 'enquiry delivery blocked by the CRM credentials');
    // An unresolved listing waits quietly: acceptance already warned, and the cache logs its own trouble.
    else if (stage === 'resolve') log.debug(fields, 'enquiry target not resolvable yet; will retry');
    else log.warn(fields, 'enquiry delivery failed; will retry');
  }

  async function resolveTarget(entry: OutboxEntry): Promise<LeadDestination | undefined | 'unknown'> {
    const payload = entry.payload!;
    const about = leadAbout(payload);
    if (entry.target !== null && sink.isComplete(entry.target, about)) return entry.target;
    // A lead to the office goes where the sink files such leads: nothing to look up.
    if (about === 'office') return sink.officeDestination();
    const target = await findTarget(targets, payload);
    if (target == null || !sink.isComplete(target, about)) return 'unknown';
    await outbox.resolveTarget(entry.originalId, target);
    return target;
  }

  function leadOf(entry: OutboxEntry, destination: LeadDestination): Lead {
    return { originalId: entry.originalId, enquiry: entry.payload!, acceptedAt: entry.acceptedAt, destination };
  }

  /**
   * What one delivery says about the CRM, for the circuit breaker: undefined when nothing reached
   * it (nothing to send yet, a cancel, the store failing).
   */
  function crmOutcome(error: unknown): BreakerOutcome | undefined {
    const failure = sink.failure(error);
    if (!failure || failure.reason === 'stopped') return undefined;
    if (failure.reason === 'credentials') return { ok: false, retryAt: now() + CONFIG_RETRY_MS };
    if (failure.retryable) return { ok: false, retryAt: failure.retryAt };
    // A definite refusal (400, 404, …) is the CRM answering: it is up.
    return { ok: true };
  }

  async function deliver(entry: OutboxEntry): Promise<BreakerOutcome | undefined> {
    if (!entry.payload) {
      await die(entry, 'no personal data left to send');
      return undefined;
    }
    const current = shared();
    let target: LeadDestination;
    try {
      const resolved = await resolveTarget(entry);
      if (resolved === 'unknown') {
        await die(entry, entry.agentId !== null ? `agent ${entry.agentId} not found (or not shown on the web)` : `listing ${entry.listingId} not found`);
        return undefined;
      }
      target = resolved!;
    } catch (error) {
      if (isStoreUnavailable(error)) throw error;
      await retry(entry, error, entry.sendingSince !== null, entry.attempts, 'resolve');
      return crmOutcome(error);
    }

    if (entry.sendingSince !== null) {
      // A POST left behind by an earlier process (a crash, a stop mid-request, a restore) may still
      // be on its way: give it time to land before looking. It left before this worker started.
      // A POST of this process that failed was given that time (or not, if the CRM answered) by retry().
      const startedAtShared = startedAt + offset;
      const lookAt = startedAtShared + settings.reconcileDelayMs;
      if (entry.sendingSince < startedAtShared && current < lookAt) {
        await outbox.retryLater(entry.originalId, lookAt, entry.lastError ?? 'outcome unknown', true);
        return undefined;
      }
      let found: number | null | undefined;
      try {
        found = await sink.findByOriginalId(leadOf(entry, target), { signal: abort.signal });
      } catch (error) {
        if (isStoreUnavailable(error)) throw error;
        await retry(entry, error, true, entry.attempts, 'reconcile');
        return crmOutcome(error);
      }
      if (found !== undefined) {
        metrics.reconciliations.found++;
        await delivered(entry, found, true);
        return { ok: true };
      }
      metrics.reconciliations.notFound++;
      log.info({ originalId: entry.originalId }, 'enquiry with an unknown outcome is not in the CRM; sending it again');
      await outbox.clearSending(entry.originalId);
    }

    if (current >= windowEnd(entry)) {
      await die(entry, `retry window over (${entry.attempts} attempts); last error: ${entry.lastError ?? 'none'}`);
      return undefined;
    }

    if (!(await outbox.startSending(entry.originalId, shared(), leaseMs))) {
      // This relay's claim lapsed (it stalled past the lease) and another relay holds the row now:
      // sending it too could make a second enquiry at the CRM.
      log.warn({ originalId: entry.originalId }, 'enquiry claim lapsed and was taken over by another relay; not sending it from here');
      return undefined;
    }
    writes.succeeded();
    const attempts = entry.attempts + 1;
    try {
      const stored = await sink.deliver(leadOf(entry, target), { signal: abort.signal });
      await delivered({ ...entry, attempts }, stored.id, false);
      return { ok: true };
    } catch (error) {
      // The store failing around the request (the CRM budget row, markDelivered): the row keeps
      // "sending", so it is looked up in the sink before any second delivery.
      if (isStoreUnavailable(error)) throw error;
      const failure = sink.failure(error);
      if (!failure) {
        // Not from the sink: we cannot tell whether anything was sent.
        await retry(entry, error, true, attempts, 'post');
        return undefined;
      }
      if (!failure.outcomeUnknown) await outbox.clearSending(entry.originalId);
      if (failure.reason === 'unreadable_answer') {
        // A success the sink's client could not read: the sink took it.
        await delivered({ ...entry, attempts }, null, false);
      } else if (failure.reason === 'stopped') {
        // Stopping. The row stays queued; "sending" stays set if the request may have left.
        await outbox.retryLater(entry.originalId, shared(), failure.description, failure.outcomeUnknown);
      } else if (failure.retryable || failure.reason === 'credentials') {
        await retry(entry, error, failure.outcomeUnknown, attempts, 'post');
      } else {
        // A definite refusal (the CRM's 400, …): sending it again will not change the answer.
        await die({ ...entry, attempts }, failure.refusal ?? failure.description);
      }
      return crmOutcome(error);
    }
  }

  return {
    name: 'enquiry-delivery',
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
      // A pass under way may still be starting deliveries: they are among those waited for below.
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
    get breakerState() {
      return breaker.state;
    },
    async drain() {
      // Repeats until nothing due is left: one delivery can make the next one due (backoff 0 in tests).
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

/** An error for the outbox and the log: the sink's description (codes, statuses, its message), never request data. */
function describe(error: unknown, failure: DeliveryFailure | undefined): string {
  if (failure) return failure.description;
  return error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 500) : 'unknown error';
}
