import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { silentLogger } from '../../server/log.ts';
import { startRelay, type RunningRelay } from '../../server/relay.ts';
import type { SimListing } from '../../server/sim/model.ts';
import { startSimulator, type RunningSimulator, type SimulatorState } from '../../server/sim/simulator.ts';

/**
 * An integrator's set-up, for the integrator bench and its small variant in `npm test`: the CRM
 * simulator with many agency accounts on one API key (in-process, real HTTP on port 0), and one
 * relay serving all of them from an AGENCIES_FILE (written 0600 to a temp folder), started through
 * startRelay with its workers running, as main.ts starts it. The simulator's webhooks for every
 * account go to the relay's one POST /hooks/crm.
 */

export interface RigAgency {
  slug: string;
  /** The simulator's account behind it (its data, events, enquiries). */
  account: SimulatorState;
  /** http://relay/a/<slug>/api/v1 */
  api: string;
  /** Its site's origin (in its allowedOrigins): what its pages' requests carry. */
  origin: string;
}

export interface IntegratorRig {
  sim: RunningSimulator;
  relay: RunningRelay;
  agencies: RigAgency[];
  agencyOfAccount(accountId: number): RigAgency;
  /** How long the simulator took to build its accounts, in seconds. */
  simulatorStartSeconds: number;
  close(): Promise<void>;
}

export interface IntegratorRigOptions {
  agencies: number;
  listings: number;
  /** The simulator's per-key limits (the CRM's: 10 a second, 10,000 a day). */
  requestsPerSecond?: number;
  dailyLimit?: number;
  /** More relay settings (CRM_DAILY_LIMIT, SYNC_INTERVAL_MINUTES...). */
  env?: Record<string, string>;
  dataDirPrefix?: string;
}

/** The relay's public id of a simulated listing: one per sale or lease life (server/crm/public-fields.ts listingId). */
export function publicListingId(listing: Pick<SimListing, 'lifeId' | 'market'>): number {
  return listing.lifeId * 2 + (listing.market === 'lease' ? 1 : 0);
}

/** Residential listings currently on the web for sale: what `/listings?type=sale` of the agency should count once filled. */
export function expectedSaleListings(account: SimulatorState): number {
  return account.listings.filter((listing) => listing.propertyClass === 'residential' && listing.market === 'sale' && listing.publishedToWeb !== null && ['listing', 'conditional'].includes(listing.status))
    .length;
}

export async function startIntegratorRig(options: IntegratorRigOptions): Promise<IntegratorRig> {
  const startedAt = performance.now();
  const sim = await startSimulator({
    agencies: options.agencies,
    listings: options.listings,
    photosPerListing: 1,
    seed: 11,
    requestsPerSecond: options.requestsPerSecond ?? 10,
    dailyLimit: options.dailyLimit ?? 10_000,
  });
  const simulatorStartSeconds = (performance.now() - startedAt) / 1000;
  const folder = mkdtempSync(join(tmpdir(), options.dataDirPrefix ?? 'estate-integrator-'));
  const agenciesFile = join(folder, 'agencies.json');
  const entries = sim.key.accounts.map((account, index) => ({
    slug: `agency-${String(index + 1).padStart(3, '0')}`,
    name: account.agency.name,
    accessToken: account.options.accessToken,
    allowedOrigins: [`https://agency-${index + 1}.example`],
    siteUrl: `https://agency-${index + 1}.example`,
  }));
  // The file holds every agency's token: the relay refuses it unless only its owner may read it.
  writeFileSync(agenciesFile, JSON.stringify({ agencies: entries }, null, 2), { mode: 0o600 });
  chmodSync(agenciesFile, 0o600);

  let relay: RunningRelay;
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: join(folder, 'data'),
      CRM_BASE_URL: sim.baseUrl,
      CRM_API_KEY: sim.apiKey,
      AGENCIES_FILE: agenciesFile,
      CRM_REQUESTS_PER_SECOND: String(options.requestsPerSecond ?? 10),
      CRM_DAILY_LIMIT: String(options.dailyLimit ?? 10_000),
      PHOTO_WIDTHS: '480',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'https://relay.integrator.test',
      ...options.env,
    });
    if (!('agenciesFile' in config)) throw new ConfigError(['AGENCIES_FILE: not read by this relay']);
    relay = await startRelay(config, { log: silentLogger, app: { demoDir: null } });
  } catch (error) {
    await sim.close();
    rmSync(folder, { recursive: true, force: true });
    if (error instanceof ConfigError && error.message.includes('CRM_ACCESS_TOKEN')) {
      throw new Error(`this relay does not serve many agencies from AGENCIES_FILE yet (issue #11's multi-agency relay): ${error.message}`);
    }
    throw error;
  }
  sim.key.webhooks.configure({ url: `${relay.url}/hooks/crm` });
  const agencies = entries.map((entry, index) => ({
    slug: entry.slug,
    account: sim.key.accounts[index]!,
    api: `${relay.url}/a/${entry.slug}/api/v1`,
    origin: entry.allowedOrigins[0]!,
  }));
  const byAccount = new Map(agencies.map((agency) => [agency.account.accountId, agency]));
  return {
    sim,
    relay,
    agencies,
    simulatorStartSeconds,
    agencyOfAccount(accountId) {
      const agency = byAccount.get(accountId);
      if (!agency) throw new Error(`no agency for account ${accountId}`);
      return agency;
    },
    async close() {
      sim.key.driver.stop();
      await relay.close();
      await sim.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** GET as JSON; a kept-alive socket the server closed meanwhile is tried once more on a fresh one. */
export async function getJson<T = any>(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { headers }).catch(() => fetch(url, { headers }));
  const text = await response.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, body };
}

/** How many listings an agency's API lists for `type` (0 before its first sync, or while it answers 503). */
export async function listedCount(agency: RigAgency, type: 'sale' | 'lease' = 'sale'): Promise<number> {
  const { status, body } = await getJson<{ total?: number }>(`${agency.api}/listings?type=${type}&pageSize=1`);
  return status === 200 ? (body.total ?? 0) : 0;
}

/** Posts an enquiry about one of the agency's listings, as its site's widget would; resolves to the originalId. */
export async function postEnquiry(agency: RigAgency, listing: SimListing, marker: string): Promise<{ status: number; originalId: string }> {
  const originalId = crypto.randomUUID();
  const response = await fetch(`${agency.api}/enquiries`, {
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
  await response.arrayBuffer();
  return { status: response.status, originalId };
}

/** Whether the account's CRM has received an enquiry carrying `marker`. */
export function crmReceived(account: SimulatorState, marker: string): boolean {
  return account.postedEnquiries().some((enquiry) => JSON.stringify(enquiry).includes(marker));
}
