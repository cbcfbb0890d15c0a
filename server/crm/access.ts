import { z } from 'zod';
import type { Feature } from '../feature.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import type { CrmClient, PropertyClass } from './client.ts';
import { isCrmError } from './client.ts';
import type { Clock } from '../clock.ts';

/**
 * What the relay's API key and access token allow, found out rather than guessed. The CRM does not
 * publish its scope names, so the relay logs what `GET /scopes` grants as it is, and proves each
 * capability it needs with the cheapest call that uses it. A refusal (401/403) marks that
 * capability missing, loudly: a log line, /readyz and `npm run relay -- status` name what the
 * agency must grant, instead of a visitor's enquiry failing later.
 *
 * It also reads `GET /integrator/usage` at start and every CRM_USAGE_CHECK_MINUTES: the daily
 * limit belongs to the API key, so requests other tools make with the same key count too. The
 * day's budget is raised to what the CRM reports, and what others spent is kept for the planner.
 */

export type Capability = 'listings' | 'staff' | 'enquiries';

/** What each capability serves, the call that proves it, and what to ask the agency for. */
export const CAPABILITIES: Record<Capability, { serves: string; proof: string; grant: string }> = {
  listings: {
    serves: 'the listing pages',
    proof: 'GET /properties/{class}/sale/available (one listing)',
    grant: 'read access to properties (listings, photos, open homes)',
  },
  staff: {
    serves: 'agents and contact-me forms',
    proof: 'GET /account/users (one page)',
    grant: 'read access to users (staff)',
  },
  enquiries: {
    serves: 'enquiry delivery (each enquiry is looked up before it is sent again)',
    proof: 'GET /enquiries (one page)',
    grant: 'access to enquiries (the holding area: read and create)',
  },
};

export interface CapabilityState {
  /** true: proven; false: refused (401/403); null: could not tell (network, 5xx, budget). */
  available: boolean | null;
  status: number | null;
  detail: string;
}

export interface KeyUsage {
  /** The day's use of the API key as the CRM counts it (every tool using the key). */
  used: number;
  remaining: number | null;
  /** Of `used`, what this relay spent. */
  ours: number;
  /** What other tools on the same key spent today, as far as we can tell (never negative). */
  others: number;
  checkedAt: string;
}

export interface KeyAccess {
  /** What GET /scopes answered, as given; null when it could not be read. */
  scopes: string[] | null;
  capabilities: Record<Capability, CapabilityState>;
  checkedAt: string | null;
  usage: KeyUsage | null;
}

export interface MissingCapability {
  capability: Capability;
  serves: string;
  grant: string;
}

const scopesSchema = z.array(z.unknown()).transform((items) => items.map((item) => (typeof item === 'string' ? item : JSON.stringify(item))));
const anyItem = z.unknown();

const STATE_KEY = 'key-access';

export interface CrmAccessOptions {
  client: CrmClient;
  store: Store;
  log: Logger;
  /** The property class whose list proves listing access (the first synced one). */
  listingClass: PropertyClass;
  /** Minutes between reads of GET /integrator/usage (each costs one request). */
  usageCheckMinutes: number;
  /** Called after each usage read (the listing budget is planned again with what others spend). */
  onUsage?: (usage: KeyUsage) => void;
  now?: Clock;
}

/** Reads what the key allows and how much of it is spent; keeps the answer in the store for /readyz and the status CLI. */
export class CrmAccess {
  readonly name = 'crm-access';
  private readonly log: Logger;
  private readonly now: Clock;
  private timer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;

  constructor(private readonly options: CrmAccessOptions) {
    this.log = options.log.child({ component: 'crm-access' });
    this.now = options.now ?? Date.now;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.running = this.checkAccess()
      .then(() => this.checkUsageIfDue())
      .finally(() => this.scheduleUsage());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running.catch(() => undefined);
  }

  private scheduleUsage(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.checkUsageIfDue().finally(() => this.scheduleUsage());
    }, this.options.usageCheckMinutes * 60_000);
    this.timer.unref();
  }

  /** The last answer (from the store: it survives a restart, and the status CLI reads the same). */
  current(): KeyAccess {
    return readKeyAccess(this.options.store) ?? emptyAccess();
  }

  /** Capabilities the CRM refused, with what to ask the agency for. */
  missing(): MissingCapability[] {
    return missingCapabilities(this.current());
  }

  /** GET /scopes, then one cheap call per capability. Never throws: what it could not tell stays unknown. */
  async checkAccess(): Promise<KeyAccess> {
    const { client } = this.options;
    const signal = this.abort.signal;
    const access = this.current();
    try {
      access.scopes = await client.request({ path: '/scopes', schema: scopesSchema, signal });
      this.log.info({ scopes: access.scopes }, `the CRM access token grants these scopes: ${access.scopes.length ? access.scopes.join(', ') : '(none listed)'}`);
    } catch (error) {
      access.scopes = null;
      this.log.warn({ error: describe(error) }, 'could not read GET /scopes; proving each capability by its own call');
    }
    const proofs: Record<Capability, () => Promise<unknown>> = {
      listings: () =>
        client.requestList(anyItem, {
          path: `/properties/${this.options.listingClass}/sale/available`,
          query: { published: true, page: 1, pagesize: 1 },
          signal,
        }),
      staff: () => client.listUsers({ page: 1, pageSize: 1 }, { signal }),
      enquiries: () => client.listEnquiries({ page: 1, pageSize: 1 }, { signal }),
    };
    for (const capability of Object.keys(proofs) as Capability[]) {
      access.capabilities[capability] = await prove(proofs[capability]);
    }
    access.checkedAt = new Date(this.now()).toISOString();
    writeKeyAccess(this.options.store, access);

    const missing = missingCapabilities(access);
    for (const gap of missing) {
      this.log.error(
        { capability: gap.capability, status: access.capabilities[gap.capability].status },
        `CRM ACCESS MISSING: the access token may not be used for ${gap.capability} (${CAPABILITIES[gap.capability].proof} was refused), so ${gap.serves} cannot work. ` +
          `Ask the agency to grant this integration ${gap.grant}, then restart the relay.`,
      );
    }
    const unknown = (Object.keys(access.capabilities) as Capability[]).filter((capability) => access.capabilities[capability].available === null);
    if (unknown.length > 0) this.log.warn({ unknown }, `could not tell whether the CRM allows ${unknown.join(', ')} right now; will show at first use`);
    if (missing.length === 0 && unknown.length === 0) this.log.info('the CRM access token allows everything the relay needs (listings, staff, enquiries)');
    return access;
  }

  /**
   * The scheduled read: the usage is the API key's, so when several agencies' clients share the
   * key only one of them reads it per CRM_USAGE_CHECK_MINUTES (the day's count they all raise is
   * the key's one budget, in the store).
   */
  private async checkUsageIfDue(): Promise<KeyUsage | null> {
    // A little under the interval: timers of agencies started together must not skip each other's turn.
    if (!this.options.client.claimKeyUsageRead(this.options.usageCheckMinutes * 60_000 * 0.9)) return this.current().usage;
    return this.checkUsage();
  }

  /** GET /integrator/usage: raises the day's budget to the CRM's count, and notes what other tools spent. */
  async checkUsage(): Promise<KeyUsage | null> {
    const { client } = this.options;
    let answer: { used?: number | null; remaining?: number | null };
    try {
      answer = await client.getUsage({ signal: this.abort.signal });
    } catch (error) {
      this.log.warn({ error: describe(error) }, 'could not read GET /integrator/usage; the daily budget counts only this relay');
      return null;
    }
    if (typeof answer.used !== 'number') return null;
    // Our count read after the answer: a request of ours still on its way is then never taken for another tool's.
    const ours = client.budget().used;
    // Our count is raised to the CRM's at each read, so what exceeds it now was spent since the last
    // read: added to what others had spent earlier the same UTC day.
    const access = this.current();
    const checkedAt = new Date(this.now()).toISOString();
    const earlier = access.usage && access.usage.checkedAt.slice(0, 10) === checkedAt.slice(0, 10) ? access.usage.others : 0;
    const others = earlier + Math.max(0, answer.used - ours);
    const budget = client.recordKeyUsage(answer.used);
    const usage: KeyUsage = { used: answer.used, remaining: answer.remaining ?? null, ours: Math.max(0, answer.used - others), others, checkedAt };
    access.usage = usage;
    writeKeyAccess(this.options.store, access);
    this.options.onUsage?.(usage);
    const line = { crmUsed: usage.used, crmRemaining: usage.remaining, ours: usage.ours, others, budgetUsed: budget.used };
    if (others > 0) {
      this.log.warn(line, `the CRM API key is shared: other tools spent ${others} of today's requests; the daily budget counts them (${budget.used} of ${budget.limit} used)`);
    } else {
      this.log.info(line, `CRM usage today: ${usage.used} requests${usage.remaining === null ? '' : `, ${usage.remaining} left`}`);
    }
    return usage;
  }
}

async function prove(call: () => Promise<unknown>): Promise<CapabilityState> {
  try {
    await call();
    return { available: true, status: 200, detail: 'ok' };
  } catch (error) {
    if (isCrmError(error) && (error.status === 401 || error.status === 403)) {
      return { available: false, status: error.status, detail: error.crmMessage ?? error.message };
    }
    return { available: null, status: isCrmError(error) ? (error.status ?? null) : null, detail: describe(error) };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function emptyAccess(): KeyAccess {
  const unknown = (): CapabilityState => ({ available: null, status: null, detail: 'not checked yet' });
  return { scopes: null, capabilities: { listings: unknown(), staff: unknown(), enquiries: unknown() }, checkedAt: null, usage: null };
}

export function missingCapabilities(access: KeyAccess): MissingCapability[] {
  return (Object.keys(CAPABILITIES) as Capability[])
    .filter((capability) => access.capabilities[capability]?.available === false)
    .map((capability) => ({ capability, serves: CAPABILITIES[capability].serves, grant: CAPABILITIES[capability].grant }));
}

/** The last stored answer; undefined when never checked (or the table is not there, for a read-only status). */
export function readKeyAccess(store: Store): KeyAccess | undefined {
  const table = hasTable(store, 'crm_access');
  const db = tablesOf(store);
  if (!table) return undefined;
  const value = db.prepare('SELECT value FROM crm_access WHERE key = ?').pluck().get(STATE_KEY) as string | undefined;
  if (!value) return undefined;
  const stored = JSON.parse(value) as KeyAccess;
  return { ...emptyAccess(), ...stored, capabilities: { ...emptyAccess().capabilities, ...stored.capabilities } };
}

function writeKeyAccess(store: Store, access: KeyAccess): void {
  tablesOf(store).prepare('INSERT INTO crm_access (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(STATE_KEY, JSON.stringify(access));
}

/**
 * What the CRM key and token allow, as a feature: its check is a worker; the relay is unready while
 * listings are refused (it cannot serve its pages). Other refused capabilities are named in
 * /readyz's `missing` but keep it ready: pulling it from a load balancer would take the pages down too.
 */
export function crmAccessFeature(access: CrmAccess): Feature {
  return {
    name: 'crm-access',
    workers: [access],
    readiness: { crmListings: () => !access.missing().some((gap) => gap.capability === 'listings') },
    readinessDetail: () => {
      const missing = access.missing();
      return missing.length === 0 ? {} : { missing: missing.map((gap) => `${gap.capability}: ask the agency to grant ${gap.grant} (needed for ${gap.serves})`) };
    },
  };
}
