import type { Config } from '../config.ts';
import type { CrmClient } from '../crm/client.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { EnquiryMetrics } from './metrics.ts';
import { EnquiryOutbox } from './outbox.ts';
import { crmEnquiryTargets, withFallback, type EnquiryTargets } from './targets.ts';
import { createDeliveryWorker, type DeliverySettings, type DeliveryWorker } from './worker.ts';

/** Everything the enquiry routes and the delivery worker share; built once by startRelay. */
export interface EnquiryService {
  outbox: EnquiryOutbox;
  metrics: EnquiryMetrics;
  targets: EnquiryTargets;
  worker: DeliveryWorker;
  settings: EnquirySettings;
  log: Logger;
  now: () => number;
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
  crm: CrmClient;
  /** Listing and agent look-ups; default: cached lists from the CRM (see targets.ts). */
  targets?: EnquiryTargets;
  /** Overrides of the settings read from config (tests). */
  settings?: Partial<EnquirySettings>;
  now?: () => number;
  random?: () => number;
}

export function createEnquiryService(options: EnquiryServiceOptions): EnquiryService {
  const { store, crm } = options;
  const log = options.log.child({ component: 'enquiries' });
  const settings = { ...enquirySettings(options.config), ...options.settings };
  const now = options.now ?? Date.now;
  const outbox = new EnquiryOutbox(store);
  const metrics = new EnquiryMetrics(outbox);
  // Acceptance asks only the given look-up (a 202 must not wait for the CRM); delivery may also
  // ask the CRM itself while that look-up cannot tell (a cold listing cache).
  // The worker and the look-ups name their own component: hand them the parent logger, or every
  // line of theirs would carry "component" twice.
  const targets = options.targets ?? crmEnquiryTargets(crm, { log: options.log });
  const deliveryTargets = options.targets ? withFallback(options.targets, crmEnquiryTargets(crm, { log: options.log })) : targets;
  const worker = createDeliveryWorker({ outbox, crm, targets: deliveryTargets, metrics, log: options.log, settings, now, random: options.random });
  return { outbox, metrics, targets, worker, settings, log, now };
}
