import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import request from 'supertest';
import type { Suburb } from '../../contract/relay-api.ts';
import type { SavedSearchFilters, SavedSearchRequest } from '../../contract/saved-search.ts';
import type { SimContact, SimRequirement } from '../../crm-sim/contacts.ts';
import { TYPES } from '../../crm-sim/seed-data.ts';
import { createCrmClient, type CrmClient } from '../../server/crm/client.ts';
import { crmAlertSink } from '../../server/crm/alert-sink.ts';
import { RequestLimiter } from '../../server/crm/limiter.ts';
import { createApp } from '../../server/http/app.ts';
import { publicOrigins } from '../../server/http/cors.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger, type Logger } from '../../server/runtime/log.ts';
import { savedSearchesFeature } from '../../server/saved-searches/feature.ts';
import { createSmtpMailer } from '../../server/mail/smtp-mailer.ts';
import type { Mailer } from '../../server/mail/mailer.ts';
import { createSavedSearchService, type SavedSearchConfirmationSettings, type SavedSearchService } from '../../server/saved-searches/service.ts';
import type { SavedSearchWorkerSettings } from '../../server/saved-searches/worker.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { clockAsDatabaseClock } from '../../server/store/shared-database.ts';
import { openStore, storeAnswers, type Store } from '../../server/store/store.ts';
import { freshDatabase } from '../support/postgres.ts';
import { startMailCatcher, type MailCatcher } from '../support/smtp.ts';
import type { MailCatcherOptions } from '../../crm-sim/mail-catcher.ts';

export function validSavedSearch(overrides: Partial<SavedSearchRequest> = {}): SavedSearchRequest {
  return {
    originalId: randomUUID(),
    fullName: 'Mary Jane Citizen',
    email: 'mary@example.com',
    mobile: '0412 345 678',
    consent: true,
    website: '',
    elapsedMs: 20_000,
    // No suburb: a whole relay refuses one its listings do not name (suburbs.ts), and small seeds may not list in any given one.
    search: { type: 'sale', minBeds: 3, maxPrice: 3_000_000, propertyType: 'House' },
    ...overrides,
  };
}

export interface SavedSearchHarness {
  app: Express;
  service: SavedSearchService;
  store: Store;
  crm: CrmClient;
  env: Record<string, string>;
  /** The real SMTP server on loopback the confirmation e-mails go to. */
  mail: MailCatcher;
  /**
   * Does what each address's owner does: the confirmation e-mails due are sent, and every link in
   * them not followed yet is followed and confirmed (the page's button: a POST). Returns how many.
   */
  confirmAll(): Promise<number>;
  /** confirmAll, then the worker drained: what a test of the delivery itself does after each post. */
  deliver(): Promise<void>;
  close(): Promise<void>;
}

/** Where the harness's links point: the app is reached through supertest, the path is what counts. */
const HARNESS_RELAY = 'http://relay.test';

/** A harness's confirmation settings: e-mail confirmation, sent through `mailer` (a real SMTP client to the harness's catcher). */
export function harnessConfirmation(mailer: Mailer | undefined, overrides: Partial<SavedSearchConfirmationSettings> = {}): SavedSearchConfirmationSettings {
  return {
    mode: 'email',
    mailer,
    validDays: 7,
    agencyName: 'Harness Realty',
    timeZone: 'Australia/Melbourne',
    language: 'en-AU',
    relayBase: () => HARNESS_RELAY,
    ...overrides,
  };
}

/** A real SMTP client to `catcher`. */
export function catcherMailer(catcher: MailCatcher): Mailer {
  return createSmtpMailer({ url: catcher.url, from: { address: 'alerts@harness.example', name: 'Harness Realty' }, log: silentLogger });
}

export interface SavedSearchHarnessOptions {
  crm: { baseUrl: string; apiKey: string; accessToken: string };
  env?: Record<string, string>;
  settings?: Partial<SavedSearchWorkerSettings>;
  postgresServer?: string;
  databaseUrl?: string;
  log?: Logger;
  crmTimeoutMs?: number;
  /** Who claims rows: two relays on one database need two. */
  owner?: string;
  /** The relay's clock (the worker's and the route's; on PostgreSQL the queue's statements read it too). */
  now?: () => number;
  /** The suburbs the agency's listings name (a whole relay: its listing cache); none: no suburb is refused at the form. */
  knownSuburbs?: () => readonly Suburb[];
  /** The catcher's options (a recipient refused, …). */
  mail?: MailCatcherOptions;
  /** Confirmation settings over the harness's (e-mail, through its catcher). */
  confirmation?: Partial<SavedSearchConfirmationSettings>;
}

/**
 * createApp with the saved-search feature on a real SQLite file (and PostgreSQL when given), its
 * sink the CRM adapter over real HTTP to the simulator. The worker is not started: tests drain it.
 */
export async function savedSearchHarness(options: SavedSearchHarnessOptions): Promise<SavedSearchHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-saved-'));
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else if (options.postgresServer) env.DATABASE_URL = await freshDatabase(options.postgresServer, 'estate_saved');
  const config = loadConfig({ ...env, ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000', ENQUIRY_DAILY_LIMIT_PER_CLIENT: '100000', ...options.env });
  const store = openStore(dataDir);
  if (env.DATABASE_URL) await attachPostgres(store, env.DATABASE_URL);
  const log = options.log ?? silentLogger;
  const mail = await startMailCatcher(options.mail);
  const mailer = catcherMailer(mail);
  const crm = createCrmClient({
    ...options.crm,
    limiter: new RequestLimiter({ store, requestsPerSecond: 10, dailyLimit: 100_000 }),
    log,
    timeoutMs: options.crmTimeoutMs ?? 2000,
    backoffBaseMs: 20,
  });
  const service = createSavedSearchService({
    store,
    log,
    sink: crmAlertSink(crm, {
      categoryIds: config.savedSearches.categoryIds,
      holdingEnquiry: config.savedSearches.holdingEnquiry,
      source: config.enquiries.source,
      classes: config.listings.classes,
      log,
    }),
    settings: { ...config.enquiries, retryBaseMs: 10, retryMaxMs: 50, reconcileDelayMs: 0, ...options.settings },
    owner: options.owner,
    now: options.now,
    databaseClock: options.now ? clockAsDatabaseClock(options.now) : undefined,
    confirmation: harnessConfirmation(mailer, options.confirmation),
  });
  const followed = new Set<string>();
  const app = createApp({
    config,
    storeAnswers: () => storeAnswers(store),
    log,
    features: [
      savedSearchesFeature(service, {
        allowedOrigins: config.http.allowedOrigins,
        ownOrigins: publicOrigins(config),
        limits: { ...config.enquiries, dailyBudget: config.savedSearches.dailyBudget },
        log,
        now: options.now,
        knownSuburbs: options.knownSuburbs,
        // The worker is driven by hand here: the page has nothing to wait for.
        confirmSettleMs: 0,
      }),
    ],
    demoDir: null,
  });
  return {
    app,
    service,
    store,
    crm,
    env,
    mail,
    confirmAll,
    async deliver() {
      await confirmAll();
      await service.worker.drain();
    },
    async close() {
      crm.close();
      store.close();
      await mailer.close();
      await mail.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };

  async function confirmAll(): Promise<number> {
    await service.confirmer.drain();
    let confirmed = 0;
    for (const message of mail.messages()) {
      for (const link of message.links) {
        if (followed.has(link) || !link.startsWith(`${HARNESS_RELAY}/alerts/confirm/`)) continue;
        followed.add(link);
        const path = link.slice(HARNESS_RELAY.length);
        const answer = await request(app).post(path);
        if (answer.status !== 303) throw new Error(`confirming ${path} answered ${answer.status}`);
        confirmed++;
      }
    }
    return confirmed;
  }
}

/**
 * Whether a requirement the simulator holds says what the search says: written from the CRM's
 * side (the simulator's records), not from the relay's mapping, so a wrong mapping fails it.
 */
export function requirementMatchesSearch(requirement: SimRequirement, search: SavedSearchFilters): boolean {
  const orNull = (value: number | undefined) => value ?? null;
  return (
    requirement.type === (search.type ?? 'saleOrLease') &&
    requirement.minimumPrice === orNull(search.minPrice) &&
    requirement.maximumPrice === orNull(search.maxPrice) &&
    requirement.minimumBed === orNull(search.minBeds) &&
    requirement.minimumBath === orNull(search.minBaths) &&
    requirement.minimumCar === orNull(search.minCars) &&
    (search.suburb === undefined
      ? requirement.suburbs.length === 0
      : requirement.suburbs.length === 1 && requirement.suburbs[0]!.name.toLowerCase() === search.suburb.toLowerCase()) &&
    (search.propertyType === undefined
      ? requirement.propertyTypes.length === 0
      : requirement.propertyTypes.length === 1 && TYPES[requirement.propertyTypes[0]!].name.toLowerCase() === search.propertyType.toLowerCase()) &&
    requirement.active
  );
}

/** Saved searches still on their way: waiting for their owner's confirmation, or queued for the CRM. */
export async function stillToSave(store: Pick<SavedSearchService['store'], 'counts'>): Promise<boolean> {
  const counts = await store.counts();
  return counts.queued + counts.unconfirmed > 0;
}

/** The simulator's contacts by lower-cased e-mail address. */
export function contactsByAddress(contacts: SimContact[]): Map<string, SimContact[]> {
  const found = new Map<string, SimContact[]>();
  for (const contact of contacts) {
    for (const email of contact.emails) {
      const key = email.toLowerCase();
      found.set(key, [...(found.get(key) ?? []), contact]);
    }
  }
  return found;
}
