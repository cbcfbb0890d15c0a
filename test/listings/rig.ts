import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import type { SimListing } from '../../crm-sim/model.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { readJsonBody } from '../support/json-body.ts';

const PUBLIC_URL = 'https://relay.agency.test';

export interface ListingRig {
  sim: RunningSimulator;
  relay: RunningRelay;
  dataDir: string;
  /** The relay's PUBLIC_URL: absolute URLs in answers start with it. */
  publicUrl: string;
  /** An absolute URL from an answer, made to reach this relay (its PUBLIC_URL names no real host). */
  toRelay(url: string): string;
  /**
   * A second relay on the same simulator and store (as after a restart, or a second process); the
   * caller closes it. With DATABASE_URL it has a DATA_DIR of its own: a relay refuses to run beside
   * a live one with its id (DATA_DIR/relay-id), and what it shares with the first is in PostgreSQL.
   */
  startAnotherRelay(): Promise<RunningRelay>;
  /** GET on the relay (real HTTP), parsed JSON. */
  get<T = any>(path: string, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; body: T; text: string }>;
  /** Listings the simulator would show on the web right now, by list: their public listing ids. */
  expectedIds(kind: 'sale' | 'lease' | 'sold'): number[];
  /** The simulator's record behind a public listing id (one per sale or lease life). */
  simListing(listingId: number): SimListing;
  /** API requests the simulator has received so far (all endpoints). */
  crmRequests(): number;
  close(): Promise<void>;
}

/**
 * The CRM simulator (in-process, real HTTP on port 0) and a whole relay pointed at it as at a
 * real CRM, workers stopped so each test drives the sync itself. Fast settings: 2 photo widths and
 * a relaxed rate limit on both sides. The benchmarks use it too, with their own limits.
 */
export async function startListingRig(
  options: {
    listings?: number;
    env?: Record<string, string>;
    seed?: number;
    /** The simulator's rate limit, and the relay's CRM_REQUESTS_PER_SECOND. */
    requestsPerSecond?: number;
    /** The simulator's daily request limit (its own default when absent). */
    dailyLimit?: number;
    dataDirPrefix?: string;
    /** Accounts on the simulator's one key (default 1); the relay serves the first. */
    agencies?: number;
    /** Keep only the first N photos of each listing (the simulator's option; benches with thousands of listings). */
    photosPerListing?: number;
    /** Point GEOCODER_URL at the simulator (as demo mode does), so listings without CRM coordinates can be placed. */
    geocoder?: boolean;
  } = {},
): Promise<ListingRig> {
  const requestsPerSecond = options.requestsPerSecond ?? 200;
  const sim = await startSimulator({
    listings: options.listings ?? 24,
    seed: options.seed ?? 7,
    requestsPerSecond,
    ...(options.agencies === undefined ? {} : { agencies: options.agencies }),
    ...(options.dailyLimit === undefined ? {} : { dailyLimit: options.dailyLimit }),
    ...(options.photosPerListing === undefined ? {} : { photosPerListing: options.photosPerListing }),
  });
  const dataDir = mkdtempSync(join(tmpdir(), options.dataDirPrefix ?? 'estate-listings-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    CRM_BASE_URL: sim.baseUrl,
    CRM_API_KEY: sim.apiKey,
    CRM_ACCESS_TOKEN: sim.accessToken,
    CRM_REQUESTS_PER_SECOND: String(requestsPerSecond),
    PHOTO_WIDTHS: '240,480',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: PUBLIC_URL,
    // Alert confirmations go to the simulator's mail catcher, a real SMTP server on loopback (as in demo mode).
    SMTP_URL: sim.mail.url,
    MAIL_FROM: 'Rig Realty <alerts@rig.example>',
    ...(options.geocoder ? { GEOCODER_URL: sim.origin } : {}),
    ...options.env,
  });
  const startOne = (dir = dataDir) => startRelay({ ...config, dataDir: dir }, { log: silentLogger, workers: false, app: { demoDir: null } });
  const relay = await startOne();
  const otherDataDirs: string[] = [];
  const startAnotherRelay = () => {
    if (!config.databaseUrl) return startOne();
    const dir = mkdtempSync(join(tmpdir(), options.dataDirPrefix ?? 'estate-listings-'));
    otherDataDirs.push(dir);
    return startOne(dir);
  };

  return {
    sim,
    relay,
    dataDir,
    publicUrl: config.http.publicUrl!,
    startAnotherRelay,
    toRelay: (url) => (url.startsWith(config.http.publicUrl!) ? relay.url + url.slice(config.http.publicUrl!.length) : url),
    async get(path, headers = {}) {
      // A kept-alive socket the server closed while the test was busy elsewhere: try a fresh one once.
      const response = await fetch(`${relay.url}${path}`, { headers }).catch(() => fetch(`${relay.url}${path}`, { headers }));
      const { text, body } = await readJsonBody(response);
      return { status: response.status, headers: response.headers, body, text };
    },
    expectedIds(kind) {
      return sim.state.listings
        .filter((listing) => listing.propertyClass === 'residential' && listing.publishedToWeb !== null)
        .filter((listing) =>
          kind === 'sold'
            ? listing.market === 'sale' &&
              ['unconditional', 'settled'].includes(listing.status) &&
              listing.modified >= Date.now() - relay.config.listings.soldDays * 86_400_000
            : listing.market === kind && (kind === 'sale' ? ['listing', 'conditional'] : ['listing']).includes(listing.status),
        )
        .map(publicListingId)
        .sort((a, b) => a - b);
    },
    simListing(listingId) {
      const found = sim.state.listings.find((listing) => publicListingId(listing) === listingId);
      if (!found) throw new Error(`the simulator has no listing behind listing id ${listingId}`);
      return found;
    },
    crmRequests: () => sim.state.getCounters().totalRequests,
    async close() {
      await relay.close();
      await sim.close();
      for (const dir of [dataDir, ...otherDataDirs]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every listing id the API lists for a query (all pages). */
export async function allListingIds(rig: ListingRig, query = ''): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await rig.get(`/api/v1/listings?pageSize=100&page=${page}${query ? `&${query}` : ''}`);
    if (status !== 200) throw new Error(`listings answered ${status}`);
    ids.push(...body.items.map((item: { id: number }) => item.id));
    if (page * body.pageSize >= body.total) return ids.sort((a, b) => a - b);
  }
}

/** The relay's public id of a simulated listing: one per sale or lease life (server/crm/public-fields.ts listingId). */
export function publicListingId(listing: SimListing): number {
  return listing.lifeId * 2 + (listing.market === 'lease' ? 1 : 0);
}
