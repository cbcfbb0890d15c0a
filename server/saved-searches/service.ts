import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { DatabaseClock } from '../store/shared-database.ts';
import type { Store } from '../store/store.ts';
import { SavedSearchMetrics } from './metrics.ts';
import type { AlertSink } from './sink.ts';
import { SavedSearchStore } from './store.ts';
import { createSavedSearchWorker, type SavedSearchWorker, type SavedSearchWorkerSettings } from './worker.ts';

/** What the saved-search routes and worker share; built once per agency by the composition root. */
export interface SavedSearchService {
  store: SavedSearchStore;
  metrics: SavedSearchMetrics;
  worker: SavedSearchWorker;
}

export interface SavedSearchServiceOptions {
  store: Store;
  /** Where saved searches go (crmAlertSink for the CRM). */
  sink: AlertSink;
  /** Retries, look-up delay, erasure, concurrency: the enquiry delivery's settings (config.enquiries). */
  settings: SavedSearchWorkerSettings;
  log: Logger;
  now?: Clock;
  databaseClock?: DatabaseClock;
  random?: () => number;
  /** Who claims rows (with DATABASE_URL, the relay's registry id). */
  owner?: string;
}

export function createSavedSearchService(options: SavedSearchServiceOptions): SavedSearchService {
  const store = new SavedSearchStore(options.store, { owner: options.owner, clock: options.databaseClock });
  const metrics = new SavedSearchMetrics(store);
  const worker = createSavedSearchWorker({
    store,
    sink: options.sink,
    metrics,
    log: options.log,
    settings: options.settings,
    now: options.now,
    random: options.random,
  });
  return { store, metrics, worker };
}
