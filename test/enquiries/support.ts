import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { QuestionRequest } from '../../contract/relay-api.ts';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../crm-sim/simulator.ts';
import { createApp } from '../../server/http/app.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { createCrmClient, type CrmClient } from '../../server/crm/client.ts';
import { RequestLimiter } from '../../server/crm/limiter.ts';
import { createEnquiryService, type EnquiryService, type EnquirySettings } from '../../server/enquiries/service.ts';
import type { DeliverySettings } from '../../server/enquiries/worker.ts';
import { staticEnquiryTargets, type EnquiryTargets } from '../../server/enquiries/targets.ts';
import { crmEnquiryTargets } from '../../server/crm/enquiry-targets.ts';
import { crmLeadSink } from '../../server/crm/lead-sink.ts';
import { decodeDestination, listingDestination, userDestination, type CrmDestination } from '../../server/crm/lead-destination.ts';
import type { LeadDestination } from '../../server/enquiries/sink.ts';
import { publicOrigins } from '../../server/http/cors.ts';
import { enquiriesFeature } from '../../server/enquiries/feature.ts';
import { silentLogger, type Logger } from '../../server/runtime/log.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { clockAsDatabaseClock, type DatabaseClock } from '../../server/store/shared-database.ts';
import { openStore, storeAnswers, type Store } from '../../server/store/store.ts';
import { runCli } from '../../server/cli.ts';
import type { CrmProperty } from '../../server/crm/schemas.ts';
import { freshDatabase } from '../support/postgres.ts';
import type { StoreVariant } from '../support/store-variants.ts';
import { asDate, runningClock } from '../support/test-clock.ts';

/**
 * Listings and agents the fixed look-up knows (ids as GET /api/v1/listings and /agents give them),
 * with the destinations the CRM adapter makes for them (decoded: see `destinationOf`): listing 101
 * is sale life 5101, 102 lease life 7102, agent 7 CRM user 7.
 */
export const LISTINGS = {
  101: { destination: listingDestination('sale', { saleLifeId: 5101, referenceID: 'REF-101' }) },
  102: { destination: listingDestination('lease', { leaseLifeId: 7102, referenceID: 'L-102' }) },
};
export const AGENTS = { 7: { destination: userDestination(7) } };

/** What an outbox row's destination token says, as the CRM lead sink reads it (tests only look inside). */
export function destinationOf(token: LeadDestination | null | undefined): CrmDestination {
  return decodeDestination(token);
}

let enquiriesMade = 0;

/**
 * A question about listing 101. Each call's message is its own (numbered): the relay takes the
 * same person's same message about the same listing once a day (one lead per intent), and most
 * tests mean distinct leads; a test of that rule sends one body's content again itself.
 */
export function validEnquiry(overrides: Partial<QuestionRequest> = {}): QuestionRequest {
  enquiriesMade += 1;
  return {
    originalId: randomUUID(),
    listingId: 101,
    fullName: 'Jane Citizen',
    email: 'jane@example.com',
    mobile: '0412 345 678',
    message: `Is the house still available for inspection on Saturday? (${enquiriesMade})`,
    consent: true,
    website: '',
    elapsedMs: 25_000,
    ...overrides,
  };
}

export interface EnquiryHarness {
  app: Express;
  service: EnquiryService;
  store: Store;
  crm: CrmClient;
  dataDir: string;
  /** The relay's clock (HarnessOptions.now), when the test gave one. */
  now?: () => number;
  /** DATA_DIR, and DATABASE_URL when the outbox is in PostgreSQL: what a CLI run against this harness needs. */
  env: Record<string, string>;
  close(): void;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** The CRM the worker talks to; default: nothing listens there (tests that never deliver). */
  crm?: { baseUrl: string; apiKey: string; accessToken: string };
  /** Listing and agent look-ups; 'crm' asks the CRM (cached lists), as a relay without a listing cache does. */
  targets?: EnquiryTargets | 'crm';
  /** Overrides of config.enquiries (delivery and acceptance alike). */
  settings?: Partial<EnquirySettings & DeliverySettings>;
  /** The relay's clock (the worker's and the routes'). */
  now?: () => number;
  /**
   * PostgreSQL: the clock the outbox's statements read. Default: `now` when given (a test moving
   * time by hand moves the database's with it), else the database's own. Relays with skewed
   * clocks pass `databaseClock` (the real one).
   */
  databaseClock?: DatabaseClock;
  log?: Logger;
  crmTimeoutMs?: number;
  /**
   * A PostgreSQL server (postgres://… of the test run's, test/support/pg-global-setup.ts): the
   * outbox goes to a fresh database on it. Unset: the SQLite store alone.
   */
  postgresServer?: string;
  /** A PostgreSQL database to share with other harnesses (two relays on one outbox); wins over postgresServer. */
  databaseUrl?: string;
}

/**
 * createApp with a real enquiry service on a real SQLite file in a temp folder. The delivery
 * worker is not started: tests call `service.worker.drain()` to deliver.
 */
export async function enquiryHarness(options: HarnessOptions = {}): Promise<EnquiryHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-enquiries-'));
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  else if (options.postgresServer) env.DATABASE_URL = await freshDatabase(options.postgresServer, 'estate_enquiries');
  const config = loadConfig({ ...env, ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000', ENQUIRY_DAILY_LIMIT_PER_CLIENT: '100000', ...options.env });
  const store = openStore(dataDir);
  if (env.DATABASE_URL) await attachPostgres(store, env.DATABASE_URL);
  const log = options.log ?? silentLogger;
  const crmTarget = options.crm ?? { baseUrl: 'http://127.0.0.1:9/api/v1.3', apiKey: 'unused', accessToken: 'unused' };
  const crm = createCrmClient({
    ...crmTarget,
    limiter: new RequestLimiter({ store, requestsPerSecond: 10, dailyLimit: 10_000 }),
    log,
    timeoutMs: options.crmTimeoutMs ?? 2000,
    backoffBaseMs: 20,
  });
  const service = createEnquiryService({
    store,
    log,
    sink: crmLeadSink(crm, {
      source: options.settings?.source ?? config.enquiries.source,
      sellerCategories: config.enquiries.sellerCategories,
      timeZone: config.site.timeZone,
    }),
    sinkTargets: crmEnquiryTargets(crm, { log }),
    targets: options.targets === 'crm' ? crmEnquiryTargets(crm, { log }) : (options.targets ?? staticEnquiryTargets(LISTINGS, AGENTS)),
    settings: { ...config.enquiries, ...options.settings },
    now: options.now,
    databaseClock: options.databaseClock ?? (options.now ? clockAsDatabaseClock(options.now) : undefined),
  });
  const app = createApp({
    config,
    storeAnswers: () => storeAnswers(store),
    log,
    features: [
      enquiriesFeature(service, {
        allowedOrigins: config.http.allowedOrigins,
        ownOrigins: publicOrigins(config),
        limits: { ...config.enquiries, ...options.settings },
        log,
        now: options.now,
      }),
    ],
    demoDir: null,
  });
  return {
    app,
    service,
    store,
    crm,
    dataDir,
    now: options.now,
    env,
    close() {
      crm.close();
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface SimulatedCrm {
  /** The file's CRM simulator (started by the suite's beforeAll). */
  readonly sim: RunningSimulator;
  /** An enquiry harness delivering to the simulator, its look-ups asking it too (closed after the test). */
  harness(options?: HarnessOptions): Promise<EnquiryHarness>;
}

/**
 * Call at a suite's top level: one CRM simulator over HTTP for the file and the harnesses its
 * tests set up on it; after each test the harnesses close and the simulator forgets everything.
 */
export function simulatedCrm(simulatorOptions: SimulatorOptions): SimulatedCrm {
  let sim: RunningSimulator | undefined;
  const harnesses: EnquiryHarness[] = [];
  beforeAll(async () => {
    sim = await startSimulator(simulatorOptions);
  });
  afterAll(async () => {
    await sim?.close();
  });
  afterEach(() => {
    for (const harness of harnesses.splice(0)) harness.close();
    sim?.state.reset();
  });
  const started = (): RunningSimulator => {
    if (!sim) throw new Error('The CRM simulator starts in beforeAll: use it inside a test or hook.');
    return sim;
  };
  return {
    get sim() {
      return started();
    },
    async harness(options = {}) {
      const { baseUrl, apiKey, accessToken } = started();
      const harness = await enquiryHarness({ crm: { baseUrl, apiKey, accessToken }, targets: 'crm', ...options });
      harnesses.push(harness);
      return harness;
    },
  };
}

/**
 * A suite's clock that the test moves by hand (past retry backoffs, intent windows, erasure):
 * `runningClock()` from QUIET_DAY_NOON, so no outcome depends on the day the suite runs, plus what
 * the test has advanced. `restart` puts it back at its start: each test begins on the same day.
 */
export interface SuiteClock {
  (): number;
  advance(ms: number): void;
  restart(): void;
}

export function suiteClock(): SuiteClock {
  let running = runningClock();
  let advanced = 0;
  return Object.assign(() => running() + advanced, {
    advance(ms: number) {
      advanced += ms;
    },
    restart() {
      running = runningClock();
      advanced = 0;
    },
  });
}

/** Delivery settings that let a suite drain through CRM faults in a few rounds of its clock. */
const QUICK_RETRIES = { retryBaseMs: 1_000, retryMaxMs: 4_000, reconcileDelayMs: 0, concurrency: 2 };

export interface ClockedRelays {
  /** The CRM simulator, on the suite's clock. */
  readonly crm: SimulatedCrm;
  /** The relays' and the simulator's now (ms). */
  now: SuiteClock;
  advance(ms: number): void;
  /** Call in a store variant's describe block: its tests' `setup` makes relays on that store. */
  useStore(variant: StoreVariant): void;
  /** A relay on the simulator and the store in use, its clock back at its start, retries quick; `options` over the suite's defaults. */
  setup(options?: HarnessOptions): Promise<EnquiryHarness>;
  /** Drains the worker, moving the clock past every backoff, until nothing is queued (at most `rounds` rounds). */
  deliverAll(harness: EnquiryHarness, rounds?: number): Promise<void>;
}

/**
 * Call at a suite's top level: a CRM simulator (simulatedCrm) and the suite's relays on one clock
 * the tests move (suiteClock), on the store variant each describe block names.
 */
export function clockedRelays(simulatorOptions: SimulatorOptions, defaults: HarnessOptions = {}): ClockedRelays {
  const now = suiteClock();
  const crm = simulatedCrm({ ...simulatorOptions, now: asDate(now) });
  let store: StoreVariant = { name: 'SQLite' };
  return {
    crm,
    now,
    advance: now.advance,
    useStore(variant) {
      beforeAll(() => {
        store = variant;
      });
    },
    setup(options = {}) {
      now.restart();
      return crm.harness({
        postgresServer: store.postgresServer,
        now,
        ...defaults,
        ...options,
        env: { ...defaults.env, ...options.env },
        settings: { ...QUICK_RETRIES, ...defaults.settings, ...options.settings },
      });
    },
    async deliverAll(harness, rounds = 20) {
      for (let round = 0; round < rounds; round++) {
        await harness.service.worker.drain();
        if ((await harness.service.outbox.counts()).queued === 0) return;
        now.advance(5_000);
      }
      throw new Error(`leads still queued after ${rounds} rounds`);
    },
  };
}

/** A listing for sale the simulator's CRM lists (its CRM record). */
export async function saleListing(harness: EnquiryHarness): Promise<CrmProperty> {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
  const listing = page.items.find((item) => item.saleLifeId != null)!;
  expect(listing).toBeDefined();
  return listing;
}

/**
 * `npm run relay -- <args>` against the harness's store (its DATA_DIR, and DATABASE_URL on
 * PostgreSQL), in-process, on the harness's clock (a release is dated as the relay reads time).
 */
export async function relayCli(harness: EnquiryHarness, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { env: harness.env, now: harness.now, out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
