import type { Clock } from '../runtime/clock.ts';
import type { VisitSettings } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';
import type { Store } from '../store/store.ts';
import { sourceOf, type VisitEvent } from './beacon.ts';
import { VisitBuffer } from './buffer.ts';
import type { VisitCounts } from './counts.ts';
import { dayIn, daysBefore } from './days.ts';
import { VisitMetrics } from './metrics.ts';
import { VisitRepository } from './repository.ts';
import { newSalt, visitorHash } from './visitors.ts';
import { visitsWorker } from './worker.ts';

/** Who sent a beacon, as far as the hash of the day's visitors needs it: used at once, never kept. */
export interface BeaconClient {
  address: string;
  userAgent: string;
}

export interface VisitService {
  /** Takes a beacon's events (already checked); never waits on the store. */
  record(events: readonly VisitEvent[], client: BeaconClient): { counted: number; refused: number; dropped: number };
  /** The read side, for the seller's report. */
  counts: VisitCounts;
  /** Flush, rollover and retention. */
  worker: Worker;
  metrics: VisitMetrics;
  /** One pass of the worker now (tests, and the worker's own tick). */
  tick(): Promise<void>;
}

export interface VisitServiceOptions {
  store: Store;
  settings: VisitSettings;
  /** The agency's time zone (SITE_TIME_ZONE): its days and its midnight. */
  timeZone: string;
  /** The agency's slug (undefined: the one agency of the relay): one of the visitor hash's parts. */
  agency: string | undefined;
  /** Whether the agency's listing cache knows the listing. */
  knownListing: (listingId: number) => boolean;
  log: Logger;
  now?: Clock;
}

/**
 * Counting what happens to the agency's listings without tracking anyone (issue #32,
 * docs/visits.md): beacons' events are summed in a bounded buffer, written every VISIT_FLUSH_MS,
 * and at the agency's midnight the day's visitor hashes become a count and the salt is replaced.
 */
export function createVisitService(options: VisitServiceOptions): VisitService {
  const { settings, timeZone, log } = options;
  const now = options.now ?? Date.now;
  const repository = new VisitRepository(options.store);
  const metrics = new VisitMetrics();
  const buffer = new VisitBuffer(settings.bufferEvents);
  const agency = options.agency ?? '';
  // The salts of today and tomorrow as this process holds them: made here, until the store's are read (stored: another relay's win).
  const salts = new Map<string, { value: Buffer; stored: boolean }>();
  let rolledDay: string | undefined;

  const saltOf = (day: string): Buffer => {
    let salt = salts.get(day);
    if (!salt) salts.set(day, (salt = { value: newSalt(), stored: false }));
    return salt.value;
  };

  function record(events: readonly VisitEvent[], client: BeaconClient) {
    const day = dayIn(timeZone, now());
    let visitor: string | undefined;
    const outcome = { counted: 0, refused: 0, dropped: 0 };
    for (const event of events) {
      if (!options.knownListing(event.listingId)) {
        outcome.refused += 1;
        continue;
      }
      if (event.kind === 'detail') visitor ??= visitorHash(saltOf(day), client.address, client.userAgent, agency);
      const held = buffer.add({ day, listingId: event.listingId, kind: event.kind, source: sourceOf(event) }, event.kind === 'detail' ? visitor : undefined);
      if (held) outcome.counted += 1;
      else outcome.dropped += 1;
    }
    metrics.counted += outcome.counted;
    metrics.refused += outcome.refused;
    metrics.dropped += outcome.dropped;
    return outcome;
  }

  async function flush(): Promise<void> {
    const batch = buffer.take();
    if (batch.counts.length === 0 && batch.dropped.size === 0) return;
    try {
      await repository.write(batch);
      metrics.flushes += 1;
    } catch (error) {
      // Counted as dropped rather than held: a store that does not answer must not make the buffer grow.
      metrics.flushFailures += 1;
      const lost = batch.counts.reduce((sum, row) => sum + row.count, 0);
      metrics.dropped += lost;
      metrics.counted -= lost;
      for (const row of batch.counts) buffer.addDropped(row.day, row.count);
      for (const [day, count] of batch.dropped) buffer.addDropped(day, count);
      throw error;
    }
  }

  async function tick(): Promise<void> {
    const today = dayIn(timeZone, now());
    await flush();
    if (rolledDay !== today) {
      // The agency's midnight (or this process's start): yesterday's visitors become a count, its salt goes.
      const reduced = await repository.reduceVisitorsBefore(today);
      const swept = await repository.deleteBefore(daysBefore(today, settings.retentionDays));
      rolledDay = today;
      if (reduced > 0 || swept > 0) log.info({ day: today, visitorHashesReduced: reduced, rowsSwept: swept }, 'visits: the day turned');
    }
    const tomorrow = daysBefore(today, -1);
    if (!salts.get(today)?.stored || !salts.get(tomorrow)?.stored) {
      const stored = await repository.saltsOf([today, tomorrow], [saltOf(today), saltOf(tomorrow)]);
      salts.clear();
      salts.set(today, { value: stored[0], stored: true });
      salts.set(tomorrow, { value: stored[1], stored: true });
    }
  }

  return {
    record,
    metrics,
    tick,
    counts: {
      forListing: (listingId, range) => repository.forListing(listingId, range),
      dailyDetailViews: (range) => repository.dailyDetailViews(range),
    },
    worker: visitsWorker({ everyMs: settings.flushMs, tick, log }),
  };
}
