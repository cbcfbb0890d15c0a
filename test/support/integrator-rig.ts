import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import { readJsonBody } from './json-body.ts';

/**
 * An integrator's set-up, for the integrator bench and its small variant in `npm test`: the CRM
 * simulator with many agency accounts on one API key, in a process of its own
 * (test/support/sim-process.ts: the relay's busy moments must not bunch the arrivals its
 * per-second counter sees), and one relay serving every account from an AGENCIES_FILE (written
 * 0600 to a temp folder), started through startRelay with its workers running, as main.ts starts
 * it. Everything between them is real HTTP; the simulator is read and steered through its control
 * surface (/__sim/). Its webhooks for every account go to the relay's one POST /hooks/crm.
 */

export interface RigAgency {
  slug: string;
  /** The CRM account behind it. */
  accountId: number;
  /** http://relay/a/<slug>/api/v1 */
  api: string;
  /** Its site's origin (in its allowedOrigins): what its pages' requests carry. */
  origin: string;
}

/** A listing as the simulator's control surface summarises it (GET /__sim/listings). */
export interface SimListingSummary {
  id: number;
  class: string;
  market: 'sale' | 'lease';
  lifeId: number;
  status: string;
  published: boolean;
}

export interface SimulatorControl {
  origin: string;
  baseUrl: string;
  /** JSON from /__sim/<path>; throws on a non-2xx answer. */
  control<T = any>(path: string, init?: { method?: string; body?: unknown }): Promise<T>;
  /** The key's counters: the peak arrivals in any second (refused ones included), refused, and spent today. */
  keyCounters(): Promise<{ peakRequestsPerSecond: number; refusedPerSecond: number; usedToday: number; requestsByEndpoint: Record<string, number> }>;
}

export interface IntegratorRig {
  sim: SimulatorControl;
  relay: RunningRelay;
  agencies: RigAgency[];
  agencyOfAccount(accountId: number): RigAgency;
  /** How long the simulator took to build its accounts, in seconds, and the heap they took. */
  simulatorStartSeconds: number;
  simulatorHeapMiB: number;
  close(): Promise<void>;
}

export interface IntegratorRigOptions {
  agencies: number;
  listings: number;
  /** Each account's listings, when they differ: one account per entry, in file order (`agencies` and `listings` are then unused). */
  listingsEach?: number[];
  /** Fill never-filled agencies one after another, the smallest first (the relay's default), or in turns (false). */
  firstFillOrder?: boolean;
  /** The simulator's per-key limits (the CRM's: 10 a second, 10,000 a day). */
  requestsPerSecond?: number;
  dailyLimit?: number;
  /** More relay settings (CRM_DAILY_LIMIT, SYNC_INTERVAL_MINUTES...). */
  env?: Record<string, string>;
  dataDirPrefix?: string;
  /** Give up waiting for the relay to close after this long (close() then throws RelayCloseTimeout); default: wait. */
  closeTimeoutMs?: number;
}

/** The relay did not finish closing in time: its data folder is left in place for a look. */
export class RelayCloseTimeout extends Error {
  constructor(
    readonly ms: number,
    readonly folder: string,
  ) {
    super(`the relay had not closed after ${ms / 1000} s (its data is left in ${folder})`);
  }
}

/** The relay's public id of a simulated listing: one per sale or lease life (server/crm/public-fields.ts listingId). */
/**
 * An AGENCIES_FILE for the simulator's accounts in `folder` (agency-001, …, each on its own site
 * origin), 0600: it holds every agency's token, and the relay refuses it unless only its owner may
 * read it. Returns its path and each agency's slug and site origin, in the accounts' order.
 */
export function writeAgenciesFile(
  folder: string,
  accounts: ReadonlyArray<{ name: string; accessToken: string }>,
): { file: string; agencies: Array<{ slug: string; origin: string }> } {
  const entries = accounts.map((account, index) => ({
    slug: `agency-${String(index + 1).padStart(3, '0')}`,
    name: account.name,
    accessToken: account.accessToken,
    allowedOrigins: [`https://agency-${index + 1}.example`],
    siteUrl: `https://agency-${index + 1}.example`,
  }));
  const file = join(folder, 'agencies.json');
  writeFileSync(file, JSON.stringify({ agencies: entries }, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return { file, agencies: entries.map((entry) => ({ slug: entry.slug, origin: entry.siteUrl })) };
}

export function publicListingId(listing: { lifeId: number; market: 'sale' | 'lease' }): number {
  return listing.lifeId * 2 + (listing.market === 'lease' ? 1 : 0);
}

/** Residential listings currently on the web for sale: what `/listings?type=sale` of the agency counts once filled. */
export function isOnSale(listing: SimListingSummary): boolean {
  return listing.class === 'residential' && listing.market === 'sale' && listing.published && ['listing', 'conditional'].includes(listing.status);
}

async function startSimulatorProcess(
  options: Record<string, unknown>,
): Promise<{ child: ChildProcess; origin: string; baseUrl: string; apiKey: string; startSeconds: number; heapMiB: number }> {
  const child = fork(join(import.meta.dirname, 'sim-process.ts'), [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`the simulator process exited (${code}) before it listened`))),
  ])) as [{ origin: string; baseUrl: string; apiKey: string; startSeconds: number; heapMiB: number }];
  return { child, ...ready };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.send('stop');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

export async function startIntegratorRig(options: IntegratorRigOptions): Promise<IntegratorRig> {
  const simProcess = await startSimulatorProcess({
    agencies: options.listingsEach ? 1 : options.agencies,
    listings: options.listingsEach?.[0] ?? options.listings,
    photosPerListing: 1,
    seed: 11,
    requestsPerSecond: options.requestsPerSecond ?? 10,
    dailyLimit: options.dailyLimit ?? 10_000,
  });
  const sim: SimulatorControl = {
    origin: simProcess.origin,
    baseUrl: simProcess.baseUrl,
    async control(path, init = {}) {
      const request = () =>
        fetch(`${simProcess.origin}/__sim${path}`, {
          method: init.method ?? 'GET',
          headers: init.body === undefined ? {} : { 'Content-Type': 'application/json' },
          body: init.body === undefined ? undefined : JSON.stringify(init.body),
        });
      // A kept-alive socket the simulator closed as it was reused: a read is asked once more on a fresh one.
      const response = await request().catch((error: unknown) => ((init.method ?? 'GET') === 'GET' ? request() : Promise.reject(error)));
      const text = await response.text();
      if (!response.ok) throw new Error(`${init.method ?? 'GET'} /__sim${path} answered ${response.status}: ${text}`);
      return JSON.parse(text);
    },
    async keyCounters() {
      const counters = await this.control<{
        perKey: Record<string, { peakRequestsPerSecond: number; refusedPerSecond: number; usedToday: number }>;
        requestsByEndpoint: Record<string, number>;
      }>('/counters');
      const perKey = Object.values(counters.perKey)[0] ?? { peakRequestsPerSecond: 0, refusedPerSecond: 0, usedToday: 0 };
      return { ...perKey, requestsByEndpoint: counters.requestsByEndpoint };
    },
  };
  const folder = mkdtempSync(join(tmpdir(), options.dataDirPrefix ?? 'estate-integrator-'));
  let relay: RunningRelay;
  let agencies: RigAgency[];
  try {
    // Accounts of their own sizes: the first is built with its size, the others added through the control surface.
    for (const listings of options.listingsEach?.slice(1) ?? []) await sim.control('/accounts', { method: 'POST', body: { listings, photosPerListing: 1 } });
    const accounts = (await sim.control<{ items: Array<{ id: number; name: string; accessToken: string }> }>('/accounts')).items;
    const written = writeAgenciesFile(folder, accounts);
    const agenciesFile = written.file;
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(folder, 'data'),
      CRM_BASE_URL: sim.baseUrl,
      CRM_API_KEY: simProcess.apiKey,
      AGENCIES_FILE: agenciesFile,
      CRM_REQUESTS_PER_SECOND: String(options.requestsPerSecond ?? 10),
      CRM_DAILY_LIMIT: String(options.dailyLimit ?? 10_000),
      PHOTO_WIDTHS: '480',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'https://relay.integrator.test',
      ...options.env,
    });
    relay = await startRelay(config, { log: silentLogger, app: { demoDir: null }, firstFillOrder: options.firstFillOrder });
    agencies = written.agencies.map(({ slug, origin }, index) => ({ slug, accountId: accounts[index]!.id, api: `${relay.url}/a/${slug}/api/v1`, origin }));
    await sim.control('/webhooks', { method: 'PUT', body: { url: `${relay.url}/hooks/crm`, dropRate: 0 } });
  } catch (error) {
    await stopProcess(simProcess.child);
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  const byAccount = new Map(agencies.map((agency) => [agency.accountId, agency]));
  return {
    sim,
    relay,
    agencies,
    simulatorStartSeconds: simProcess.startSeconds,
    simulatorHeapMiB: simProcess.heapMiB,
    agencyOfAccount(accountId) {
      const agency = byAccount.get(accountId);
      if (!agency) throw new Error(`no agency for account ${accountId}`);
      return agency;
    },
    async close() {
      // A bench must not hang on a slow shutdown (its process exits after the figures); a test waits for it.
      const closed = relay.close().then(() => true);
      const inTime =
        options.closeTimeoutMs === undefined
          ? await closed
          : await Promise.race([closed, new Promise<false>((resolve) => setTimeout(() => resolve(false), options.closeTimeoutMs).unref())]);
      await stopProcess(simProcess.child);
      if (!inTime) throw new RelayCloseTimeout(options.closeTimeoutMs!, folder);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** GET as JSON; a kept-alive socket the server closed meanwhile is tried once more on a fresh one. */
export async function getJson<T = any>(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { headers }).catch(() => fetch(url, { headers }));
  const { body } = await readJsonBody(response);
  return { status: response.status, body };
}

/** The agency's listings in the CRM (the simulator's summaries). */
export async function crmListings(rig: IntegratorRig, agency: RigAgency): Promise<SimListingSummary[]> {
  return (await rig.sim.control<{ items: SimListingSummary[] }>(`/listings?account=${agency.accountId}`)).items;
}

/** How many listings an agency's API lists for `type` (0 before its first sync, or while it answers 503). */
export async function listedCount(agency: RigAgency, type: 'sale' | 'lease' = 'sale'): Promise<number> {
  const { status, body } = await getJson<{ total?: number }>(`${agency.api}/listings?type=${type}&pageSize=1`);
  return status === 200 ? (body.total ?? 0) : 0;
}

/** Posts an enquiry about one of the agency's listings, as its site's widget would; resolves to the originalId. */
export async function postEnquiry(agency: RigAgency, listing: SimListingSummary, marker: string): Promise<{ status: number; originalId: string }> {
  const originalId = crypto.randomUUID();
  const post = () =>
    fetch(`${agency.api}/enquiries`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: agency.origin },
      body: JSON.stringify({
        originalId,
        listingId: publicListingId(listing),
        fullName: 'Bench Visitor',
        email: 'visitor@example.com',
        message: `Is it still available? ${marker}`,
        elapsedMs: 20_000,
      }),
    });
  // A kept-alive socket the relay closed as it was reused (seen on a busy machine): posted once more,
  // safely, as the relay takes an originalId once (a repeat is answered, not stored again).
  const response = await post().catch(post);
  await response.arrayBuffer();
  return { status: response.status, originalId };
}

/** The markers of the enquiries the account's CRM holds. */
export async function crmEnquiryTexts(rig: IntegratorRig, accountId: number): Promise<string> {
  return JSON.stringify((await rig.sim.control<{ items: unknown[] }>(`/enquiries?account=${accountId}`)).items);
}
