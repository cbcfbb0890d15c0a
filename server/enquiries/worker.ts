import type { BreakerOutcome, BreakerState } from '../lead-queue/breaker.ts';
import { ClaimLapsed, describeFailure } from '../lead-queue/failure.ts';
import { DEFAULT_QUARANTINE_MS } from '../lead-queue/table.ts';
import { leadQueueLoop, type LeadQueueWorkerSettings } from '../lead-queue/worker-loop.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';
import { isStoreUnavailable } from '../store/store.ts';
import type { EnquiryMetrics } from './metrics.ts';
import type { EnquiryOutbox, OutboxEntry } from './outbox.ts';
import type { Lead, LeadDestination, LeadSink } from './sink.ts';
import { findTarget, type EnquiryTargets } from './targets.ts';
import { leadAbout } from './schema.ts';

/**
 * The delivery worker's settings: the lead queue's (lead-queue/worker-loop.ts: those read from the
 * environment, the stop grace, the breaker's thresholds, the claims' lease), and the metrics line.
 */
export interface DeliverySettings extends LeadQueueWorkerSettings {
  /** How often a metrics summary goes to the log (only when something changed). Default 60 s. */
  metricsLogMs?: number;
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

/**
 * Delivers queued enquiries to the lead sink (the CRM), oldest first, in the lead queue's loop
 * (lead-queue/worker-loop.ts: claims, concurrency, the circuit breaker, the store failing, times).
 *
 * - Before a POST the row is marked "sending" (committed); once the outcome is known the mark is
 *   cleared. A row still marked when picked up (a timeout, a dropped connection, a 5xx, or a
 *   kill -9 mid-request) is first looked up in GET /enquiries by its originalId, and posted again
 *   only if the CRM does not hold it: the CRM does not deduplicate.
 * - 429, 5xx, timeouts: that enquiry alone is retried, with exponential backoff and jitter, until
 *   the retry window (ENQUIRY_MAX_AGE_HOURS) is over, then dead-lettered; the others keep flowing.
 * - A 400 from the CRM dead-letters at once, with the CRM's message.
 * - Relays sharing one outbox (PostgreSQL) each claim the rows they deliver for a lease, renewed
 *   while the delivery runs; a relay that dies leaves claims that lapse, and another relay takes
 *   the rows over (reconciling first: they are marked "sending"). A relay whose claim lapsed and
 *   was taken over sends nothing more for that row (startSending is fenced by the claim).
 */
export function createDeliveryWorker(deps: DeliveryWorkerDeps): DeliveryWorker {
  const { outbox, sink, targets, metrics, settings } = deps;
  const log = deps.log.child({ component: 'enquiry-delivery' });
  const now = deps.now ?? Date.now;
  const metricsLogMs = settings.metricsLogMs ?? 60_000;
  let lastMetricsLog = 0;
  let lastMetricsLine = '';
  const writes = outbox.store.writes;
  const loop = leadQueueLoop<OutboxEntry>({
    name: 'enquiry-delivery',
    // Leads go before any sync at the CRM's gate.
    workClass: 'enquiry',
    queue: outbox,
    log,
    settings,
    now,
    random: deps.random ?? Math.random,
    work: (entry) => deliver(entry),
    erase: async (current) => {
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
      const erasedQuarantined = await outbox.eraseQuarantined(current - (settings.quarantineMs ?? DEFAULT_QUARANTINE_MS), current);
      if (erasedQuarantined > 0) {
        metrics.erased += erasedQuarantined;
        metrics.quarantineErased += erasedQuarantined;
        log.warn({ erased: erasedQuarantined }, 'quarantined enquiries erased unreleased after LEAD_QUARANTINE_DAYS: they can no longer be released');
      }
      writes.succeeded();
    },
    report: async (current) => {
      if (current - lastMetricsLog < metricsLogMs) return;
      lastMetricsLog = current;
      // The outbox's counts come from the store: one that does not answer skips this line, not the pass.
      const snapshot = await metrics.snapshot().catch(() => undefined);
      if (!snapshot) return;
      const line = JSON.stringify(snapshot);
      if (line !== lastMetricsLine) {
        lastMetricsLine = line;
        log.info({ metrics: snapshot }, 'enquiry metrics');
      }
    },
    onBreakerChange: (change) => {
      if (change.state === 'open' && !metrics.circuitOpen) metrics.circuitOpenings++;
      metrics.circuitOpen = change.state !== 'closed';
      const fields = { breaker: change.state, reason: change.reason, ...(change.until ? { retryInMs: Math.round(change.until - now()) } : {}) };
      if (change.state === 'open') log.warn(fields, 'CRM looks down: enquiry deliveries paused');
      else log.info(fields, change.state === 'closed' ? 'CRM back: enquiry deliveries resumed' : 'probing the CRM with one enquiry');
    },
    mayBeInCrm: (entry) => entry.sendingSince !== null,
    words: {
      unreadable: 'enquiry worker could not read its queue; will retry',
      erasureFailed: 'erasing personal data of old enquiries failed; will retry in a minute',
      storeFailed: 'enquiry delivery could not write to the store; will retry',
      unexpected: 'enquiry delivery failed unexpectedly',
    },
  });
  const { shared, windowEnd } = loop;

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
    const reason = describeFailure(error, failure);
    const nextAt = loop.nextAttemptAt(failure, attempts, outcomeUnknown, current);
    if (current >= windowEnd(entry) && !(outcomeUnknown && stage === 'post')) {
      const unsure = outcomeUnknown ? ' (an earlier attempt may have reached the CRM: check its holding area)' : '';
      await die(entry, `retry window over (${attempts} attempts)${unsure}; last error: ${reason}`);
      return;
    }
    // Past the window's end the next pick-up reconciles (if needed) and then dead-letters.
    // A POST that failed moves its mark to since when nothing more of it can land; a failed look-up tells nothing of the POST.
    const markAt = outcomeUnknown && stage === 'post' ? loop.markAfterFailure(entry.originalId, failure, current) : undefined;
    await outbox.retryLater(entry.originalId, Math.min(nextAt, Math.max(windowEnd(entry), current)), reason, outcomeUnknown, markAt);
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
    // A lead to the office goes where the sink files such leads: nothing to look up.
    if (about === 'office') return sink.officeDestination();
    // An agent who has left since the lead was accepted (or whom the agency now hides) takes no more
    // leads, and the CRM would refuse their id: the office takes it, never a dead letter. Looked up
    // on every attempt (the cache, no CRM request), whatever was resolved at acceptance.
    if (about === 'agent' && (await findTarget(targets, payload)) == null) return sink.officeDestination();
    if (entry.target !== null && sink.isComplete(entry.target, about)) return entry.target;
    const target = await findTarget(targets, payload);
    if (target == null || !sink.isComplete(target, about)) return 'unknown';
    await outbox.resolveTarget(entry.originalId, target);
    return target;
  }

  function leadOf(entry: OutboxEntry, destination: LeadDestination): Lead {
    const signal = entry.spamReason === 'repeat_registration' ? null : entry.spamReason;
    return { originalId: entry.originalId, enquiry: entry.payload!, acceptedAt: entry.acceptedAt, destination, ...(signal && { spamSignal: signal }) };
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
      return loop.crmOutcome(sink.failure(error));
    }

    if (entry.sendingSince !== null) {
      // A POST left behind by an earlier process (a crash, a stop mid-request, a restore) may still be on its way: give it time to land before looking.
      const lookAt = loop.lookAfter(entry.sendingSince, current);
      if (lookAt !== undefined) {
        await outbox.retryLater(entry.originalId, lookAt, entry.lastError ?? 'outcome unknown', true);
        return undefined;
      }
      let found: number | null | undefined;
      try {
        found = await sink.findByOriginalId(leadOf(entry, target), { signal: loop.signal });
      } catch (error) {
        if (isStoreUnavailable(error)) throw error;
        await retry(entry, error, true, entry.attempts, 'reconcile');
        return loop.crmOutcome(sink.failure(error));
      }
      if (found !== undefined) {
        metrics.reconciliations.found++;
        await delivered(entry, found, true);
        return { ok: true };
      }
      // Not found by an early look-up: the POST may still land; looked up again once that is believed.
      const believedAt = loop.lookupBelievedAt(entry.originalId, entry.sendingSince, shared());
      if (believedAt !== undefined) {
        await outbox.retryLater(entry.originalId, believedAt, entry.lastError ?? 'outcome unknown', true);
        log.info(
          { originalId: entry.originalId, reason: 'not found yet', retryInMs: Math.round(believedAt - shared()) },
          'enquiry with an unknown outcome not in the CRM yet; will look again before sending it again',
        );
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

    const attempts = entry.attempts + 1;
    // Marked "sending" once the CRM's rate limit lets the POST go, just before it leaves: a POST
    // still waiting there when the relay dies is known never to have left (no look-up after the restart).
    let marked = false;
    const beforeSend = async () => {
      if (!(await outbox.startSending(entry.originalId, shared(), loop.leaseMs))) throw new ClaimLapsed();
      marked = true;
      writes.succeeded();
    };
    try {
      const stored = await sink.deliver(leadOf(entry, target), { signal: loop.signal, beforeSend });
      await delivered({ ...entry, attempts }, stored.id, false);
      return { ok: true };
    } catch (error) {
      if (error instanceof ClaimLapsed) {
        // This relay's claim lapsed (it stalled past the lease) and another relay holds the row now:
        // sending it too could make a second enquiry at the CRM.
        log.warn({ originalId: entry.originalId }, 'enquiry claim lapsed and was taken over by another relay; not sending it from here');
        return undefined;
      }
      // The store failing around the request (the CRM budget row, markDelivered): the row keeps
      // "sending", so it is looked up in the sink before any second delivery.
      if (isStoreUnavailable(error)) throw error;
      const sinkFailure = sink.failure(error);
      // Stopped before it left (at the rate limit, or refused there): nothing can be in the CRM.
      const failure = sinkFailure && !marked ? { ...sinkFailure, outcomeUnknown: false } : sinkFailure;
      if (!failure) {
        // Not from the sink: we cannot tell whether anything was sent.
        await retry(entry, error, marked, attempts, 'post');
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
      return loop.crmOutcome(sink.failure(error));
    }
  }

  return {
    name: loop.name,
    start: loop.start,
    stop: loop.stop,
    wake: loop.wake,
    drain: loop.drain,
    get breakerState() {
      return loop.breaker.state;
    },
  };
}
