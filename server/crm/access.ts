import { z } from 'zod';
import type { Feature } from '../runtime/feature.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import type { CrmClient, PropertyClass } from './client.ts';
import { isCrmError } from './client.ts';
import type { Clock } from '../runtime/clock.ts';
import { CALLS_PREFIX } from './limiter.ts';

/**
 * What the relay's API key and access token allow, found out rather than guessed. The CRM does not
 * publish its scope names (nor which endpoint needs which), so `GET /scopes` cannot tell what is
 * missing: the relay logs what it grants as it is at a full check (the first with these
 * credentials, and after a refusal), and proves each capability it needs by a call that uses it.
 * A real call that succeeded within the day is that proof: the daily check makes only the proof
 * calls nothing else made (a day of sweeps proves listings and staff; an enquiry sent or looked up
 * proves enquiries), usually one request instead of four. A refusal (401/403) of any call forgets
 * those proofs and brings a full check forward; it marks the capability missing, loudly: a log
 * line, /readyz and `npm run relay -- status` name what the agency must grant, instead of a
 * visitor's enquiry failing later.
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
  /** When proven by a call the relay made for its own work (no proof call spent), that call. */
  provedBy?: { call: string; at: string };
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
  /**
   * When the next check is due (ISO). After a first check it falls at a random point of the next
   * 12 to 24 hours, then a day after each check: agencies started together do not all check at once.
   */
  nextCheckAt?: string | null;
  /** The client's credentialsId the check was made with: another token (a changed agency) is checked again. */
  credentials?: string;
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

/**
 * A successful check is trusted this long: a restart within it proves nothing again (200 agencies
 * would otherwise spend about 1,000 requests at every restart). A refusal (401/403) of any call
 * brings the check forward.
 */
export const ACCESS_CHECK_MAX_AGE_MS = 24 * 3600_000;

/**
 * The capability a successful call proves, or undefined. Reads of properties (lists, records,
 * photos) prove listings; the staff list proves staff; creating, listing or reading enquiries proves
 * enquiries (the relay's proof is the list; delivery posts and looks up).
 */
export function capabilityProvedBy(method: string, path: string): Capability | undefined {
  if (method === 'GET' && path.startsWith('/properties/')) return 'listings';
  if (method === 'GET' && path === '/account/users') return 'staff';
  if ((method === 'GET' || method === 'POST') && (path === '/enquiries' || path.startsWith('/enquiries/'))) return 'enquiries';
  return undefined;
}
/** A check that proved everything but is older than a day is made again within this after start, at random: not all agencies at once. */
export const STALE_CHECK_SPREAD_MS = 3600_000;
/** A check that did not prove everything (a refusal, or the CRM out of reach) is repeated after this. */
const UNPROVEN_RECHECK_MS = 3600_000;
/** A refusal brings the check forward, but not more often than this (the check itself may be refused). */
const RECHECK_AFTER_REFUSAL_MIN_MS = 60_000;

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
  /** 0-1: where in the spread the first re-check falls (default random). */
  spread?: () => number;
}

/** The access check's table: written by the relay holding the agency's sync, copied to the others on one database. */
export const ACCESS_TABLES = [{ name: 'crm_access', rows: (row: string) => `${row}key NOT LIKE '${CALLS_PREFIX}%'` }] as const;

/** Reads what the key allows and how much of it is spent; keeps the answer in the store for /readyz and the status CLI. */
export class CrmAccess {
  readonly name = 'crm-access';
  private readonly log: Logger;
  private readonly now: Clock;
  private timer: NodeJS.Timeout | undefined;
  private abort = new AbortController();
  private running: Promise<unknown> = Promise.resolve();
  private rechecking: Promise<unknown> = Promise.resolve();
  private checkTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private checking = false;
  private lastRefusalCheck = -Infinity;
  private nextCheckInMs: number | undefined;
  private stopped = true;
  /** The last successful call proving each capability (in memory: a restart's first sweep proves again). */
  private readonly provedByCalls = new Map<Capability, { call: string; at: number }>();
  /** A call was refused since the last full check: the next check proves everything and reads GET /scopes. */
  private refusedSinceFullCheck = false;
  private unsubscribeSuccess: (() => void) | undefined;

  constructor(private readonly options: CrmAccessOptions) {
    this.log = options.log.child({ component: 'crm-access' });
    this.now = options.now ?? Date.now;
    this.listenToCalls();
  }

  /** Notes the relay's successful calls (proofs for the next check) and refusals (which forget them). */
  private listenToCalls(): void {
    this.unsubscribeSuccess ??= this.options.client.onCallSucceeded((call) => {
      const capability = capabilityProvedBy(call.method, call.path);
      if (capability) this.provedByCalls.set(capability, { call: `${call.method} ${call.path}`, at: this.now() });
    });
    this.unsubscribe ??= this.options.client.onAccessRefused(() => {
      // What the token allows may have changed: no earlier success stands for it.
      this.provedByCalls.clear();
      this.refusedSinceFullCheck = true;
      this.recheckAfterRefusal();
    });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    this.listenToCalls();
    // A check that proved everything stands at start: the next at its due time, or (older than a day)
    // at a random point of the next hour, so a relay of many agencies does not check them all at once.
    const proved = this.lastCheckProved();
    const due = this.checkDueInMs();
    const first = proved ? Promise.resolve() : this.checkAccess().then(() => undefined);
    this.running = first
      .then(() => this.checkUsageIfDue())
      .finally(() => {
        this.scheduleUsage();
        this.scheduleCheck(proved ? (due > 0 ? due : (this.options.spread ?? Math.random)() * STALE_CHECK_SPREAD_MS) : undefined);
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.checkTimer);
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unsubscribeSuccess?.();
    this.unsubscribeSuccess = undefined;
    this.abort.abort();
    await Promise.all([this.running.catch(() => undefined), this.rechecking.catch(() => undefined)]);
  }

  /** Whether the last check proved every capability. */
  private lastCheckProved(): boolean {
    const access = this.current();
    return (
      access.checkedAt !== null &&
      access.credentials === this.options.client.credentialsId &&
      (Object.keys(CAPABILITIES) as Capability[]).every((capability) => access.capabilities[capability].available === true)
    );
  }

  /**
   * Milliseconds until the access check is due; 0 when due now: never checked, the check older than
   * ACCESS_CHECK_MAX_AGE_MS (an hour when it did not prove everything), or its time come.
   */
  checkDueInMs(): number {
    const access = this.current();
    if (!access.checkedAt || access.credentials !== this.options.client.credentialsId) return 0;
    const now = this.now();
    const checkedAt = Date.parse(access.checkedAt);
    // A check dated in the future (a clock set back) is not trusted.
    if (!(checkedAt <= now)) return 0;
    const due = this.lastCheckProved()
      ? Math.min(checkedAt + ACCESS_CHECK_MAX_AGE_MS, access.nextCheckAt ? Date.parse(access.nextCheckAt) : Infinity)
      : checkedAt + UNPROVEN_RECHECK_MS;
    return Math.max(0, due - now);
  }

  /** The next check in `inMs` (default: when due, at least a minute away: a check that keeps failing is not repeated in a loop). */
  private scheduleCheck(inMs?: number): void {
    if (this.stopped) return;
    clearTimeout(this.checkTimer);
    let dueInMs = 0;
    try {
      dueInMs = this.checkDueInMs();
    } catch {
      // The store unreadable: the next check in a minute rather than none at all.
    }
    this.nextCheckInMs = inMs ?? Math.max(RECHECK_AFTER_REFUSAL_MIN_MS, dueInMs);
    this.checkTimer = setTimeout(() => {
      this.rechecking = this.checkAccess().finally(() => this.scheduleCheck());
    }, this.nextCheckInMs);
    this.checkTimer.unref();
  }

  /** Milliseconds from the last scheduling to the next check (undefined: none scheduled yet). */
  scheduledCheckInMs(): number | undefined {
    return this.nextCheckInMs;
  }

  /**
   * A call was refused (401/403) after a check that proved everything: what the token allows has
   * changed, so the check runs again (at most once a minute). Refusals already known wait for the hourly check.
   */
  private recheckAfterRefusal(): void {
    if (this.stopped || this.checking || !this.lastCheckProved() || this.now() - this.lastRefusalCheck < RECHECK_AFTER_REFUSAL_MIN_MS) return;
    this.lastRefusalCheck = this.now();
    this.log.info('the CRM refused a call (401/403): checking what the access token allows again');
    this.rechecking = this.checkAccess().finally(() => this.scheduleCheck());
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

  /**
   * Proves each capability: by a successful call of the relay's own within the day when there is one,
   * else by one cheap call. A full check (the first with these credentials, after a refusal, or
   * `full`) reads GET /scopes and makes every proof call. Never throws: what it could not tell stays unknown.
   */
  async checkAccess(options: { full?: boolean } = {}): Promise<KeyAccess> {
    this.checking = true;
    try {
      return await this.checkAccessNow(options.full ?? false);
    } catch (error) {
      // The store failing (full disk, closed): logged and tried again at the next check; a rejection here would end the relay from its timer.
      this.log.error({ error: describe(error) }, 'the CRM access check could not be completed or recorded; it runs again at the next check');
      try {
        return this.current();
      } catch {
        return emptyAccess();
      }
    } finally {
      this.checking = false;
    }
  }

  private async checkAccessNow(forceFull: boolean): Promise<KeyAccess> {
    const { client } = this.options;
    const signal = this.abort.signal;
    const access = this.current();
    const firstCheck = access.checkedAt === null;
    const full = forceFull || firstCheck || access.credentials !== client.credentialsId || this.refusedSinceFullCheck;
    if (full) {
      this.refusedSinceFullCheck = false;
      this.provedByCalls.clear();
      try {
        access.scopes = await client.request({ path: '/scopes', schema: scopesSchema, signal });
        this.log.info(
          { scopes: access.scopes },
          `the CRM access token grants these scopes: ${access.scopes.length ? access.scopes.join(', ') : '(none listed)'}`,
        );
      } catch (error) {
        access.scopes = null;
        this.log.warn({ error: describe(error) }, 'could not read GET /scopes; proving each capability by its own call');
      }
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
    const dayAgo = this.now() - ACCESS_CHECK_MAX_AGE_MS;
    const provedByCalls: Capability[] = [];
    for (const capability of Object.keys(proofs) as Capability[]) {
      const success = full ? undefined : this.provedByCalls.get(capability);
      if (success && success.at > dayAgo) {
        access.capabilities[capability] = {
          available: true,
          status: 200,
          detail: 'ok',
          provedBy: { call: success.call, at: new Date(success.at).toISOString() },
        };
        provedByCalls.push(capability);
      } else {
        const before = this.now();
        access.capabilities[capability] = await prove(proofs[capability]);
        // The check's own proof is no proof for the next check: that one must call again, or a scope
        // taken away would go unseen on a day no real call used it.
        if ((this.provedByCalls.get(capability)?.at ?? -Infinity) >= before) this.provedByCalls.delete(capability);
      }
    }
    if (provedByCalls.length > 0)
      this.log.info({ provedByCalls }, `proved by the relay's own calls within the day, no proof call made: ${provedByCalls.join(', ')}`);
    if (signal.aborted) return access;
    const now = this.now();
    access.checkedAt = new Date(now).toISOString();
    access.credentials = this.options.client.credentialsId;
    // The first re-check anywhere in the second half of the day: agencies that started together spread out.
    const spread = this.options.spread ?? Math.random;
    access.nextCheckAt = new Date(now + (firstCheck ? ACCESS_CHECK_MAX_AGE_MS * (0.5 + 0.5 * spread()) : ACCESS_CHECK_MAX_AGE_MS)).toISOString();
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
      this.log.warn(
        line,
        `the CRM API key is shared: other tools spent ${others} of today's requests; the daily budget counts them (${budget.used} of ${budget.limit} used)`,
      );
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
  tablesOf(store)
    .prepare('INSERT INTO crm_access (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
    .run(STATE_KEY, JSON.stringify(access));
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
      return missing.length === 0
        ? {}
        : { missing: missing.map((gap) => `${gap.capability}: ask the agency to grant ${gap.grant} (needed for ${gap.serves})`) };
    },
  };
}
