import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger, type Logger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay, type StartRelayOptions } from '../../server/compose/relay.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import type { Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { readJsonBody } from '../support/json-body.ts';

export const PUBLIC_URL = 'https://relay.integrator.test';

export interface AgencyFileEntry {
  slug: string;
  name: string;
  accessToken: string;
  allowedOrigins?: string[];
  siteUrl?: string;
  hosts?: string[];
  wrapperUrl?: string;
  timeZone?: string;
  listingPath?: string;
  smtpUrl?: string;
  mailFrom?: string;
  alertConfirmation?: 'email' | 'agent';
  phone?: string;
  teamOrder?: number[];
  teamHidden?: number[];
  agentDirectContact?: boolean;
}

export interface AgenciesRig {
  sim: RunningSimulator;
  relay: RunningRelay;
  dataDir: string;
  /** The AGENCIES_FILE the relay reads (mode 0600). */
  file: string;
  /** The simulator's accounts, in the order the file first lists them (slugs a, b, c, …). */
  accounts: SimulatorState[];
  /** The agencies the file lists now. */
  entries: AgencyFileEntry[];
  /** Rewrites AGENCIES_FILE (0600). */
  writeAgencies(entries: AgencyFileEntry[]): void;
  /** Real HTTP to the relay; parsed JSON when it is. */
  request<T = any>(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: T; text: string }>;
  /** Runs a full sync of every served agency (workers are off unless asked). */
  syncAll(): Promise<void>;
  /** Closes the relay and starts another on the same settings and DATA_DIR (a restart); `relay` is the new one. */
  restart(): Promise<RunningRelay>;
  close(): Promise<void>;
}

/**
 * The CRM simulator with several accounts on its one key (in-process, real HTTP) and one relay
 * serving each account as an agency of AGENCIES_FILE under /a/<slug>/, with real SQLite files in
 * a temporary DATA_DIR. Workers stay off unless `workers` is true: tests drive syncs themselves.
 */
export async function startAgenciesRig(
  options: {
    agencies?: number;
    listings?: number;
    env?: Record<string, string>;
    workers?: boolean;
    origins?: (slug: string) => string[];
    log?: Logger;
    /** A built widget bundle to serve (default dist/widget). */
    widgetDir?: string;
    /** The simulator's per-key limit and the relay's CRM_REQUESTS_PER_SECOND (default 200: fast tests). */
    requestsPerSecond?: number;
    /** PUBLIC_URL the relay's own address (a free port chosen first), so a browser can load its photos. */
    reachablePublicUrl?: boolean;
    /** Each agency's entry as first written (default: slug, name, token, its origins and siteUrl https://<slug>.example). */
    entry?: (entry: AgencyFileEntry, index: number) => AgencyFileEntry;
    /** URLs per sitemap file before an agency's sitemap becomes an index. */
    maxUrlsPerSitemap?: number;
    /** The sellers' reports' visit counts and clock (server/reports/feature.ts). */
    reports?: StartRelayOptions['reports'];
  } = {},
): Promise<AgenciesRig> {
  const count = options.agencies ?? 2;
  const sim = await startSimulator({ listings: options.listings ?? 10, seed: 11, requestsPerSecond: options.requestsPerSecond ?? 200, agencies: count });
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-agencies-'));
  const file = join(dataDir, 'agencies.json');
  const accounts = [...sim.key.accounts] as SimulatorState[];
  const slugs = 'abcdefghijklmnopqrstuvwxyz'.split('');
  const writeAgencies = (entries: AgencyFileEntry[]) => {
    writeFileSync(file, JSON.stringify({ agencies: entries }, null, 2), { mode: 0o600 });
    chmodSync(file, 0o600);
    rig.entries = entries;
  };
  const entries = accounts.map((account, index) => {
    const entry: AgencyFileEntry = {
      slug: `agency-${slugs[index]}`,
      name: account.agency.name,
      accessToken: account.options.accessToken,
      allowedOrigins: options.origins?.(`agency-${slugs[index]}`) ?? [`https://agency-${slugs[index]}.example`],
      siteUrl: `https://agency-${slugs[index]}.example`,
    };
    return options.entry ? options.entry(entry, index) : entry;
  });
  const rig = { entries } as AgenciesRig;
  writeAgencies(entries);
  const port = options.reachablePublicUrl ? await freePort() : 0;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    CRM_BASE_URL: sim.baseUrl,
    CRM_API_KEY: sim.apiKey,
    CRM_REQUESTS_PER_SECOND: String(options.requestsPerSecond ?? 200),
    AGENCIES_FILE: file,
    PHOTO_WIDTHS: '240',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: options.reachablePublicUrl ? `http://127.0.0.1:${port}` : PUBLIC_URL,
    ...options.env,
  });
  const start = () =>
    startRelay(config, {
      log: options.log ?? silentLogger,
      workers: options.workers ?? false,
      maxUrlsPerSitemap: options.maxUrlsPerSitemap,
      reports: options.reports,
      app: { demoDir: null, ...(options.widgetDir ? { widgetDir: options.widgetDir } : {}) },
    });
  const relay = await start();
  return Object.assign(rig, {
    sim,
    relay,
    async restart() {
      await rig.relay.close();
      rig.relay = await start();
      return rig.relay;
    },
    dataDir,
    file,
    accounts,
    writeAgencies,
    async request(path: string, init?: RequestInit) {
      const response = await fetch(`${rig.relay.url}${path}`, init);
      const { text, body } = await readJsonBody(response);
      return { status: response.status, headers: response.headers, body, text };
    },
    async syncAll() {
      for (const running of rig.relay.agencies!.list()) {
        const report = await running.agency.listings.sync.run('full');
        if (report.error) throw new Error(`sync of ${running.entry.slug} failed: ${report.error}`);
      }
    },
    async close() {
      await rig.relay.close();
      await sim.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  }) as AgenciesRig;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until `probe` passes `done` (or the time is up) and returns its last value. */
/** The images an agency's store holds (by hash). */
/**
 * A suite's rig, every agency synced once: started before the suite's tests, closed after them.
 * Call inside `describe`; the returned function gives the rig to the tests.
 */
export function syncedAgenciesRig(options: Parameters<typeof startAgenciesRig>[0]): () => AgenciesRig {
  let rig: AgenciesRig | undefined;
  beforeAll(async () => {
    rig = await startAgenciesRig(options);
    await rig.syncAll();
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });
  return () => rig!;
}

export const photoHashesOf = (store: Store) => new Set(tablesOf(store).prepare('SELECT hash FROM photo_files').pluck().all() as string[]);

export async function until<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
