import type { BreakerOutcome } from '../lead-queue/breaker.ts';
import { ClaimLapsed, describeFailure, type CallOptions } from '../lead-queue/failure.ts';
import { DEFAULT_QUARANTINE_MS } from '../lead-queue/table.ts';
import { leadQueueLoop, type LeadQueueWorkerSettings } from '../lead-queue/worker-loop.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';
import { isStoreUnavailable } from '../store/store.ts';
import type { SavedSearchMetrics } from './metrics.ts';
import type { AlertSink, SavedSearchLead } from './sink.ts';
import type { SavedSearchEntry, SavedSearchStore, StepResult } from './store.ts';

/** The worker's settings: the enquiry delivery's (retry window, backoff, look-up delay, erasure), and a few only tests set (lead-queue/worker-loop.ts). */
export type SavedSearchWorkerSettings = LeadQueueWorkerSettings;

export interface SavedSearchWorker extends Worker {
  wake(): void;
  /** Works everything due now and waits for it (tests drive the worker with this). */
  drain(): Promise<void>;
}

export interface SavedSearchWorkerDeps {
  store: SavedSearchStore;
  sink: AlertSink;
  metrics: SavedSearchMetrics;
  log: Logger;
  settings: SavedSearchWorkerSettings;
  now?: Clock;
  random?: () => number;
}

/** How soon a saved search whose address another one holds is looked at again, at the latest. */
const ADDRESS_WAIT_MS = 1_000;

/** A step's creating write failed after it was marked: whether it may have reached the CRM is in the failure. */
class WriteFailed extends Error {
  constructor(readonly failure: unknown) {
    super('write failed');
  }
}

/**
 * Takes saved searches into the CRM, one step at a time, each step committed (store.ts STEPS):
 *
 * 1. person: look the address up; add the person only when the CRM holds none;
 * 2. search: add the standing search (a requirement) to the person;
 * 3. lists: put the person on the agency's alert lists (when it names any);
 * 4. note: leave a holding-area note for an agent (when it asks for one).
 *
 * Exactly once, as enquiries: before each creating write the row is marked (committed); a write
 * whose outcome is unknown (a dropped answer, a 5xx, a timeout, a kill -9) is looked for before it
 * is sent again: the person by address, the search among the person's requirements (one equal to
 * it that no other saved search of ours recorded), the note by its originalId. A saved search holds
 * its e-mail address while it is worked, and while a write of unknown outcome waits to be looked
 * up (store.ts claimAddress), so two saved searches of one address, on one relay or two, never add
 * the person twice or take each other's requirement. Retries back off with jitter until the retry
 * window (ENQUIRY_MAX_AGE_HOURS) is over, a circuit breaker pauses everything during an outage, a
 * definite refusal dead-letters. Requests run as the 'saved-search' work class: after enquiries,
 * before syncs at the CRM's gate.
 */
export function createSavedSearchWorker(deps: SavedSearchWorkerDeps): SavedSearchWorker {
  const { store, sink, metrics, settings } = deps;
  const log = deps.log.child({ component: 'saved-searches' });
  const loop = leadQueueLoop<SavedSearchEntry>({
    name: 'saved-searches',
    // After enquiries, before syncs at the CRM's gate.
    workClass: 'saved-search',
    queue: store,
    log,
    settings,
    now: deps.now ?? Date.now,
    random: deps.random ?? Math.random,
    work: (entry) => work(entry),
    erase: async (current) => {
      const erased =
        (await store.eraseSaved(current - settings.eraseAfterMs, current)) +
        (await store.eraseUnsubscribed(current - settings.eraseAfterMs, current)) +
        (await store.eraseDead(current - settings.deadEraseAfterMs, current));
      if (erased > 0) {
        metrics.erased += erased;
        log.info({ erased }, 'personal data of saved searches erased');
      }
      const erasedQuarantined = await store.eraseQuarantined(current - (settings.quarantineMs ?? DEFAULT_QUARANTINE_MS), current);
      if (erasedQuarantined > 0) {
        metrics.erased += erasedQuarantined;
        metrics.quarantineErased += erasedQuarantined;
        log.warn({ erased: erasedQuarantined }, 'quarantined saved searches erased unreleased after LEAD_QUARANTINE_DAYS: they can no longer be released');
      }
    },
    onBreakerChange: (change) => {
      if (change.state === 'open') log.warn({ breaker: change.state, reason: change.reason }, 'CRM looks down: saved searches paused');
      else
        log.info(
          { breaker: change.state, reason: change.reason },
          change.state === 'closed' ? 'CRM back: saved searches resumed' : 'probing the CRM with one saved search',
        );
    },
    // Whether a write of a failed step may be in the CRM cannot be told from here: look before writing again.
    mayBeInCrm: () => true,
    words: {
      unreadable: 'saved-search worker could not read its queue; will retry',
      erasureFailed: 'erasing personal data of old saved searches failed; will retry in a minute',
      storeFailed: 'saved search could not write to the store; will retry',
      unexpected: 'saved search failed unexpectedly',
    },
  });
  const { shared, windowEnd, leaseMs } = loop;
  const writes = store.store.writes;

  async function die(entry: SavedSearchEntry, reason: string): Promise<void> {
    if (await store.markDead(entry.originalId, shared(), reason)) {
      metrics.dead++;
      log.error({ originalId: entry.originalId, step: entry.step, attempts: entry.attempts, reason }, 'saved search dead-lettered');
    }
    await store.releaseAddress(entry.originalId);
  }

  /**
   * A retryable failure at `entry.step`: try again later (keeping the address while a write may be
   * in the CRM), or dead-letter past the window. `wrote`: the step's creating write failed (its
   * mark moves to since when nothing more of it can land); else a look-up or the lists did.
   */
  async function retry(entry: SavedSearchEntry, error: unknown, outcomeUnknown: boolean, wrote: boolean): Promise<void> {
    const current = shared();
    const failure = sink.failure(error);
    const reason = describeFailure(error, failure);
    // Failures in a row at this step: its writes so far (startWrite counted this one), or those and this look-up.
    const failures = wrote ? Math.max(1, entry.attempts) : entry.attempts + 1;
    const nextAt = loop.nextAttemptAt(failure, failures, outcomeUnknown, current);
    if (current >= windowEnd(entry) && !outcomeUnknown) {
      await die(entry, `retry window over (${entry.attempts} attempts) at step ${entry.step}; last error: ${reason}`);
      return;
    }
    const at = Math.min(nextAt, Math.max(windowEnd(entry), current));
    await store.retryLater(
      entry.originalId,
      at,
      reason,
      outcomeUnknown,
      outcomeUnknown && wrote ? loop.markAfterFailure(entry.originalId, failure, current) : undefined,
    );
    if (outcomeUnknown) await store.holdAddressUntil(entry.originalId, at + leaseMs);
    else await store.releaseAddress(entry.originalId);
    const fields = { originalId: entry.originalId, step: entry.step, attempts: entry.attempts, reason, outcomeUnknown, retryInMs: Math.round(at - current) };
    if (failure?.setting) log.error({ ...fields, setting: failure.setting }, 'saved search blocked by the CRM credentials');
    else log.warn(fields, 'saved search step failed; will retry');
  }

  /** One saved search, from the step it is at to the end or its first failure. Resolves with what it says of the CRM. */
  async function work(claimed: SavedSearchEntry): Promise<BreakerOutcome | undefined> {
    let entry = claimed;
    if (!entry.payload) {
      await die(entry, 'no personal data left to send');
      return undefined;
    }
    const address = await store.claimAddress(entry, shared(), leaseMs);
    if (!address.held) {
      // Another saved search of this address is being worked (here or on another relay): after it.
      await store.waitForAddress(entry.originalId, Math.min(address.until, shared() + ADDRESS_WAIT_MS));
      return undefined;
    }
    if (entry.writingSince !== null) {
      // A write left by an earlier process (a crash, a restore) may still be on its way: let it land before looking.
      const lookAt = loop.lookAfter(entry.writingSince, shared());
      if (lookAt !== undefined) {
        await store.retryLater(entry.originalId, lookAt, entry.lastError ?? 'outcome unknown', true);
        await store.holdAddressUntil(entry.originalId, lookAt + leaseMs);
        return undefined;
      }
    }
    const payload = entry.payload;
    const lead: SavedSearchLead = {
      originalId: entry.originalId,
      follower: { fullName: payload.fullName, email: payload.email, ...(payload.mobile === undefined ? {} : { mobile: payload.mobile }) },
      search: payload.search,
      acceptedAt: entry.acceptedAt,
      ...(entry.spamReason === 'too_fast' || entry.spamReason === 'honeypot' ? { spamSignal: entry.spamReason } : {}),
      confirmation: entry.confirmation === 'agent' ? 'agent' : 'email',
    };
    // Agent confirmation: the person is added unsubscribed, their requirement inactive, and the note asks an agent to confirm.
    const byAgent = entry.confirmation === 'agent';
    // The note is where an agent sees a spam signal's mark, or confirms: left for those even when the agency asks for none.
    const leavesNote = sink.leavesNote || lead.spamSignal !== undefined || byAgent;
    const options = { signal: loop.signal };
    /** Whether a CRM call of this pass answered: then a later failure is no sign of an outage (breaker). */
    let heard = false;
    const answered = <T>(value: T): T => {
      heard = true;
      return value;
    };
    /**
     * A look-up found nothing of the step's write: true when that is believed (the write may be sent
     * again); else the row waits for a look-up that is, keeping the address, and this pass ends.
     */
    const notFoundBelieved = async (): Promise<boolean> => {
      if (entry.writingSince === null) return true;
      const at = loop.lookupBelievedAt(entry.originalId, entry.writingSince, shared());
      if (at === undefined) return true;
      await store.retryLater(entry.originalId, at, entry.lastError ?? 'outcome unknown', true);
      await store.holdAddressUntil(entry.originalId, at + leaseMs);
      log.info(
        { originalId: entry.originalId, step: entry.step, reason: 'not found yet', retryInMs: Math.round(at - shared()) },
        'saved search write with an unknown outcome not in the CRM yet; will look again before writing it again',
      );
      return false;
    };

    /** Commits a step's result and moves `entry` on; false when the row is no longer this relay's to move. */
    const advance = async (result: StepResult): Promise<boolean> => {
      if (!(await store.advance(entry.originalId, result))) return false;
      entry = {
        ...entry,
        step: result.step,
        writingSince: null,
        personId: result.personId === undefined ? entry.personId : result.personId,
        searchId: result.searchId === undefined ? entry.searchId : result.searchId,
        noteId: result.noteId === undefined ? entry.noteId : result.noteId,
      };
      return true;
    };
    /**
     * Sends the step's creating write, marked as under way (committed) once the CRM's rate limit
     * lets it go, just before it leaves: a write still waiting there when the relay dies is known
     * never to have left. A failure after the mark is a WriteFailed (it may have landed); one before
     * it is thrown as it is (nothing was sent). Undefined: the row is no longer this relay's.
     */
    const write = async <T>(send: (writeOptions: CallOptions) => Promise<T>): Promise<T | undefined> => {
      let marked = false;
      const beforeSend = async () => {
        if (!(await store.startWrite(entry.originalId, shared(), leaseMs))) throw new ClaimLapsed();
        entry = { ...entry, writingSince: shared(), attempts: entry.attempts + 1 };
        marked = true;
        writes.succeeded();
      };
      try {
        return await send({ ...options, beforeSend });
      } catch (error) {
        if (error instanceof ClaimLapsed) return undefined;
        throw marked ? new WriteFailed(error) : error;
      }
    };
    const lapsed = () => {
      log.warn({ originalId: entry.originalId }, 'saved search claim lapsed and was taken over by another relay; leaving it to that relay');
      return undefined;
    };

    try {
      for (let guard = 0; guard < 16 && entry.step !== 'done'; guard++) {
        if (shared() >= windowEnd(entry) && entry.writingSince === null) {
          await die(entry, `retry window over (${entry.attempts} attempts) at step ${entry.step}; last error: ${entry.lastError ?? 'none'}`);
          return undefined;
        }
        switch (entry.step) {
          case 'person': {
            metrics.calls.findPerson++;
            const found = answered(await sink.findPerson(payload.email, options));
            const mayBeOurs = entry.writingSince !== null;
            if (mayBeOurs) metrics.lookups[found === undefined ? 'notFound' : 'found']++;
            // Unsubscribed from e-mail before (not by our own write of unknown outcome, which adds the
            // person unsubscribed under agent confirmation): never subscribed again.
            if (found?.emailUnsubscribed && !mayBeOurs) {
              if (!byAgent) return await unsubscribed(entry);
              // The agent is told, and nothing else is written.
              if (!(await advance({ step: 'note', personId: found.id }))) return lapsed();
              break;
            }
            if (found !== undefined) {
              if (!(await advance({ step: 'search', personId: found.id }))) return lapsed();
              break;
            }
            if (!(await notFoundBelieved())) return { ok: true };
            metrics.calls.addPerson++;
            const personId = answered(await write((writeOptions) => sink.addPerson(lead.follower, { subscribed: !byAgent }, writeOptions)));
            if (personId === undefined) return lapsed();
            if (!(await advance({ step: 'search', personId }))) return lapsed();
            break;
          }
          case 'search': {
            const personId = entry.personId!;
            if (entry.writingSince !== null) {
              metrics.calls.findSearches++;
              const held = answered(await sink.findSearches(personId, payload.search, options));
              if (held === undefined) {
                if (!(await advance({ step: 'person', personId: null }))) return lapsed();
                break;
              }
              const others = new Set(await store.searchIdsOfOthers(personId, entry.originalId));
              const ours = held.find((id) => !others.has(id));
              metrics.lookups[ours === undefined ? 'notFound' : 'found']++;
              if (ours !== undefined) {
                if (!(await advance({ step: 'lists', searchId: ours }))) return lapsed();
                searchHeld(entry);
                break;
              }
              if (!(await notFoundBelieved())) return { ok: true };
            }
            metrics.calls.addSearch++;
            let searchId: number | null | undefined;
            try {
              searchId = answered(await write((writeOptions) => sink.addSearch(personId, payload.search, { active: !byAgent }, writeOptions)));
            } catch (error) {
              if (error instanceof WriteFailed && sink.personGone(error.failure)) {
                // Merged or deleted in the CRM since it was found: find (or add) the person again.
                if (!(await advance({ step: 'person', personId: null }))) return lapsed();
                break;
              }
              throw error;
            }
            if (searchId === undefined) return lapsed();
            if (!(await advance({ step: 'lists', searchId }))) return lapsed();
            searchHeld(entry);
            break;
          }
          case 'lists': {
            // Under agent confirmation, the person joins the alert lists when an agent says so.
            if (sink.hasAlertLists && !byAgent) {
              metrics.calls.lists++;
              try {
                answered(await sink.addToAlertLists(entry.personId!, options));
              } catch (error) {
                if (!sink.personGone(error)) throw error;
                log.warn(
                  { originalId: entry.originalId },
                  'the person went from the CRM before joining the alert lists; their search went with them: adding both again',
                );
                if (!(await advance({ step: 'person', personId: null, searchId: null }))) return lapsed();
                break;
              }
            }
            if (!(await advance({ step: 'consent' }))) return lapsed();
            break;
          }
          case 'consent': {
            // The consent record, for a search its owner confirmed by e-mail (one accepted before double opt-in has none to record).
            if (entry.confirmation !== 'email' || entry.confirmedAt === null) {
              if (!(await advance({ step: 'note' }))) return lapsed();
              break;
            }
            const personId = entry.personId!;
            if (entry.writingSince !== null) {
              metrics.calls.findConsent++;
              const held = answered(await sink.findConsent(personId, entry.originalId, options));
              metrics.lookups[held === undefined ? 'notFound' : 'found']++;
              if (held !== undefined) {
                if (!(await advance({ step: 'note' }))) return lapsed();
                break;
              }
              if (!(await notFoundBelieved())) return { ok: true };
            }
            metrics.calls.consent++;
            const record = {
              originalId: entry.originalId,
              email: payload.email,
              search: payload.search,
              askedAt: entry.acceptedAt,
              page: entry.consent.page,
              words: entry.consent.words,
              confirmedAt: entry.confirmedAt,
            };
            try {
              if (answered(await write((writeOptions) => sink.recordConsent(personId, record, writeOptions))) === undefined) return lapsed();
            } catch (error) {
              if (error instanceof WriteFailed && sink.personGone(error.failure)) {
                log.warn({ originalId: entry.originalId }, 'the person went from the CRM before their consent was recorded: adding them again');
                if (!(await advance({ step: 'person', personId: null, searchId: null }))) return lapsed();
                break;
              }
              throw error;
            }
            if (!(await advance({ step: 'note' }))) return lapsed();
            break;
          }
          case 'note': {
            if (!leavesNote) {
              if (!(await advance({ step: 'done' }))) return lapsed();
              break;
            }
            if (entry.writingSince !== null) {
              metrics.calls.findNote++;
              const found = answered(await sink.findNote(lead, options));
              metrics.lookups[found === undefined ? 'notFound' : 'found']++;
              if (found !== undefined) {
                if (!(await advance({ step: 'done', noteId: found }))) return lapsed();
                break;
              }
              if (!(await notFoundBelieved())) return { ok: true };
            }
            metrics.calls.note++;
            // Under agent confirmation, a person found unsubscribed went straight here, with no search.
            const noteId = answered(await write((writeOptions) => sink.leaveNote({ ...lead, unsubscribed: byAgent && entry.searchId === null }, writeOptions)));
            if (noteId === undefined) return lapsed();
            if (!(await advance({ step: 'done', noteId }))) return lapsed();
            break;
          }
        }
      }
      if (entry.step !== 'done') throw new Error(`saved search stuck at step ${entry.step}`);
      if (byAgent && entry.searchId === null) return await unsubscribed(entry);
      if (await store.markSaved(entry.originalId, shared())) {
        metrics.saved++;
        log.info({ originalId: entry.originalId, attempts: entry.attempts, latencyMs: Math.round(shared() - entry.acceptedAt) }, 'saved search in the CRM');
      }
      await store.releaseAddress(entry.originalId);
      return { ok: true };
    } catch (thrown) {
      const wrote = thrown instanceof WriteFailed;
      const error = wrote ? thrown.failure : thrown;
      if (isStoreUnavailable(error)) throw error;
      const failure = sink.failure(error);
      if (!failure) {
        // Not from the sink: whether anything reached the CRM cannot be told.
        await retry(entry, error, wrote || entry.writingSince !== null, wrote);
        return undefined;
      }
      // A creating write's own outcome; a look or a list leaves the mark as it was.
      const outcomeUnknown = wrote ? failure.outcomeUnknown || failure.reason === 'unreadable_answer' : entry.writingSince !== null;
      if (wrote && !outcomeUnknown) await store.clearWrite(entry.originalId);
      if (failure.reason === 'stopped') {
        await store.retryLater(entry.originalId, shared(), failure.description, outcomeUnknown);
        if (outcomeUnknown) await store.holdAddressUntil(entry.originalId, shared() + settings.reconcileDelayMs + leaseMs);
        else await store.releaseAddress(entry.originalId);
      } else if (failure.retryable || failure.reason === 'credentials' || failure.reason === 'unreadable_answer') {
        await retry(entry, error, outcomeUnknown, wrote);
      } else {
        await die(entry, failure.refusal ?? failure.description);
      }
      // One pass makes several calls: one failing after others answered is a fault, not an outage
      // (the breaker would open at a fault rate the CRM still delivers through). A time the CRM named counts whatever came before.
      const outcome = loop.crmOutcome(failure);
      return heard && outcome && !outcome.ok && outcome.retryAt === undefined ? { ok: true } : outcome;
    }
  }

  /** The person had unsubscribed from e-mail: nothing more is written (the agent told under agent confirmation; the link's page tells its owner). */
  async function unsubscribed(entry: SavedSearchEntry): Promise<BreakerOutcome> {
    if (await store.markUnsubscribed(entry.originalId, shared())) {
      metrics.unsubscribed++;
      log.info(
        { originalId: entry.originalId },
        'saved search not written: the contact had unsubscribed from e-mail, and the relay never subscribes anyone again',
      );
    }
    await store.releaseAddress(entry.originalId);
    return { ok: true };
  }

  function searchHeld(entry: SavedSearchEntry): void {
    // From the owner's confirmation when there was one: the wait for their click is not the relay's.
    const seconds = (shared() - (entry.confirmedAt ?? entry.acceptedAt)) / 1000;
    metrics.observeLatency(seconds);
  }

  return { name: loop.name, start: loop.start, stop: loop.stop, wake: loop.wake, drain: loop.drain };
}
