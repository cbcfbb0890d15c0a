import type { SavedSearchConfirmation } from '../../contract/saved-search.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { DatabaseClock } from '../store/shared-database.ts';
import type { Store } from '../store/store.ts';
import { createConfirmationWorker, type ConfirmationWorker } from './confirmation.ts';
import { SavedSearchMetrics } from './metrics.ts';
import type { AlertSink } from './sink.ts';
import { SavedSearchStore } from './store.ts';
import { createSavedSearchWorker, type SavedSearchWorker, type SavedSearchWorkerSettings } from './worker.ts';

/** What the saved-search routes and worker share; built once per agency by the composition root. */
export interface SavedSearchService {
  store: SavedSearchStore;
  metrics: SavedSearchMetrics;
  worker: SavedSearchWorker;
  /** How new saved searches are confirmed. */
  confirmation: SavedSearchConfirmationSettings;
  /** Mails the confirmation links and erases searches nobody confirmed in time (confirmation.ts). */
  confirmer: ConfirmationWorker;
}

/** How new saved searches are confirmed before anything reaches the CRM (the composition root's, from SAVED_SEARCH_CONFIRMATION and the mail settings). */
export interface SavedSearchConfirmationSettings {
  /** SAVED_SEARCH_CONFIRMATION, or the agency's `alertConfirmation`. */
  mode: SavedSearchConfirmation;
  /** The agency's SMTP mailer (SMTP_URL and MAIL_FROM, or its own); undefined: none, so with mode 'email' alerts are not offered. */
  mailer?: Mailer;
  /** SAVED_SEARCH_CONFIRM_DAYS: how long the e-mailed link works; an unconfirmed search is erased after it. */
  validDays: number;
  /** The e-mail's and its page's words: the agency as visitors know it (SITE_NAME, its `name`), its time zone. */
  agencyName: string;
  timeZone: string;
  /** SITE_LANGUAGE, or the agency's `language`: the e-mail's and its page's when the form named none the relay speaks. */
  language: string;
  /** Where the agency's relay answers from outside (PUBLIC_URL, and /a/<slug> with AGENCIES_FILE): the link's base. Read when a link is made (the relay's own address is known once it listens). */
  relayBase: () => string;
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
  confirmation: SavedSearchConfirmationSettings;
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
  const confirmer = createConfirmationWorker({
    store,
    metrics,
    mailer: options.confirmation.mode === 'email' ? options.confirmation.mailer : undefined,
    log: options.log,
    now: options.now,
    agencyName: options.confirmation.agencyName,
    relayBase: options.confirmation.relayBase,
    timeZone: options.confirmation.timeZone,
    language: options.confirmation.language,
  });
  return { store, metrics, worker, confirmation: options.confirmation, confirmer };
}
