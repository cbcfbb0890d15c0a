import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { EnquiryMetrics } from './metrics.ts';
import { EnquiryOutbox } from './outbox.ts';
import type { LeadSink } from './sink.ts';
import { withFallback, type EnquiryTargets } from './targets.ts';
import { createDeliveryWorker, type DeliverySettings, type DeliveryWorker } from './worker.ts';
import type { Clock } from '../runtime/clock.ts';
import type { DatabaseClock } from '../store/shared-database.ts';

/** Everything the enquiry routes and the delivery worker share; built once by startRelay. */
export interface EnquiryService {
  outbox: EnquiryOutbox;
  metrics: EnquiryMetrics;
  targets: EnquiryTargets;
  worker: DeliveryWorker;
}

export type { EnquirySettings } from '../runtime/config.ts';

export interface EnquiryServiceOptions {
  /** How leads are delivered (config.enquiries; tests override parts). */
  settings: DeliverySettings;
  store: Store;
  log: Logger;
  /** Where leads go (the composition root makes it: crmLeadSink for the CRM). */
  sink: LeadSink;
  /**
   * Look-ups that ask the sink's system itself (crmEnquiryTargets): the look-up when `targets` is
   * not given, and delivery's fallback while `targets` cannot tell (a cold listing cache).
   */
  sinkTargets: EnquiryTargets;
  /** Listing and agent look-ups for acceptance (the listing cache's); default: `sinkTargets`. */
  targets?: EnquiryTargets;
  now?: Clock;
  /** PostgreSQL: the clock the outbox's statements read (default the database's; tests that move time pass theirs). */
  databaseClock?: DatabaseClock;
  random?: () => number;
  /** Who claims the outbox's rows (OutboxOptions.owner): with DATABASE_URL, the relay's registry id. */
  owner?: string;
}

export function createEnquiryService(options: EnquiryServiceOptions): EnquiryService {
  const { store, sink, sinkTargets } = options;
  const { settings } = options;
  const now = options.now ?? Date.now;
  const outbox = new EnquiryOutbox(store, { clock: options.databaseClock, owner: options.owner });
  const metrics = new EnquiryMetrics(outbox);
  // Acceptance asks only the given look-up (a 202 must not wait for the CRM); delivery may also
  // ask the CRM itself while that look-up cannot tell (a cold listing cache).
  // The worker names its own component: hand it the parent logger, or every line of its would
  // carry "component" twice.
  const targets = options.targets ?? sinkTargets;
  const deliveryTargets = options.targets ? withFallback(options.targets, sinkTargets) : targets;
  const worker = createDeliveryWorker({ outbox, sink, targets: deliveryTargets, metrics, log: options.log, settings, now, random: options.random });
  return { outbox, metrics, targets, worker };
}
