import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { EnquiryMetrics } from './metrics.ts';
import { EnquiryOutbox } from './outbox.ts';
import type { LeadSink } from './sink.ts';
import { withFallback, type EnquiryTargets } from './targets.ts';
import { createDeliveryWorker, type DeliverySettings, type DeliveryWorker } from './worker.ts';
import type { Clock } from '../clock.ts';

/** Everything the enquiry routes and the delivery worker share; built once by startRelay. */
export interface EnquiryService {
  outbox: EnquiryOutbox;
  metrics: EnquiryMetrics;
  targets: EnquiryTargets;
  worker: DeliveryWorker;
  settings: EnquirySettings;
  log: Logger;
  now: Clock;
}

export interface EnquirySettings extends DeliverySettings {
  rateLimitPerMinute: number;
  /** Per client (IP) per UTC day. */
  dailyLimitPerClient: number;
  /** All clients together, per UTC day. */
  dailyBudget: number;
  minFillMs: number;
}

export function enquirySettings(config: Config): EnquirySettings {
  return {
    source: config.ENQUIRY_SOURCE,
    maxAgeMs: config.ENQUIRY_MAX_AGE_HOURS * 60 * 60_000,
    eraseAfterMs: config.ENQUIRY_ERASE_AFTER_DAYS * 24 * 60 * 60_000,
    deadEraseAfterMs: config.ENQUIRY_DEAD_ERASE_AFTER_DAYS * 24 * 60 * 60_000,
    retryBaseMs: config.ENQUIRY_RETRY_BASE_MS,
    retryMaxMs: config.ENQUIRY_RETRY_MAX_MS,
    reconcileDelayMs: config.ENQUIRY_RECONCILE_DELAY_MS,
    concurrency: config.ENQUIRY_DELIVERY_CONCURRENCY,
    pollMs: config.ENQUIRY_POLL_MS,
    rateLimitPerMinute: config.ENQUIRY_RATE_LIMIT_PER_MINUTE,
    dailyLimitPerClient: config.ENQUIRY_DAILY_LIMIT_PER_CLIENT,
    dailyBudget: config.ENQUIRY_DAILY_BUDGET,
    minFillMs: config.ENQUIRY_MIN_FILL_MS,
  };
}

export interface EnquiryServiceOptions {
  config: Config;
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
  /** Overrides of the settings read from config (tests). */
  settings?: Partial<EnquirySettings>;
  now?: Clock;
  random?: () => number;
}

export function createEnquiryService(options: EnquiryServiceOptions): EnquiryService {
  const { store, sink, sinkTargets } = options;
  const log = options.log.child({ component: 'enquiries' });
  const settings = { ...enquirySettings(options.config), ...options.settings };
  const now = options.now ?? Date.now;
  const outbox = new EnquiryOutbox(store, sink.unresolved);
  const metrics = new EnquiryMetrics(outbox);
  // Acceptance asks only the given look-up (a 202 must not wait for the CRM); delivery may also
  // ask the CRM itself while that look-up cannot tell (a cold listing cache).
  // The worker names its own component: hand it the parent logger, or every line of its would
  // carry "component" twice.
  const targets = options.targets ?? sinkTargets;
  const deliveryTargets = options.targets ? withFallback(options.targets, sinkTargets) : targets;
  const worker = createDeliveryWorker({ outbox, sink, targets: deliveryTargets, metrics, log: options.log, settings, now, random: options.random });
  return { outbox, metrics, targets, worker, settings, log, now };
}
