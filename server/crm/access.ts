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
 * those proofs and brings a full check forward; it marks the capability refused, loudly: a log
 * line, /readyz and `npm run relay -- status` name who must fix it, instead of a visitor's enquiry
 * failing later. Who that is comes from what the CRM answered (see RefusalCause): the integrator's
 * API key, the agency's access token, or a grant the agency has not given.
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

/**
 * Who must act on a refusal. The CRM answers 403 to a bad or missing API key and 401 to a bad
 * token (reference README); a call the token's scopes do not cover is refused too (403 in the
 * simulator; the real body is not documented). So a 403 is the key's only when GET /scopes, which
 * needs no scope, is refused as well: when /scopes or another proof succeeds, key and token are
 * good and the 403 is a grant the agency has not given.
 */
export type RefusalCause = 'key' | 'token' | 'grant';

export interface CapabilityState {
  /** true: proven; false: refused (401/403); null: could not tell (network, 5xx, budget). */
  available: boolean | null;
  status: number | null;
  detail: string;
  /** When refused: whose fault (missing in checks recorded before this was kept: told by the status). */
  refusedBy?: RefusalCause;
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
  /** Whose refusal: the API key, the access token, or a grant not given. */
  cause: RefusalCause;
}

/** One refusal as the operator reads it: the capabilities refused for one cause, a headline, and the fix. */
export interface AccessProblem {
  cause: RefusalCause;
  capabilities: Capability[];
  status: number | null;
  /** One line for /readyz, the agencies table and the start-up table. */
  reason: string;
  /** The log line's first words, in capitals so it stands out: CRM API KEY REFUSED, CRM ACCESS TOKEN REFUSED, CRM ACCESS MISSING. */
  headline: string;
  /** What cannot work and what to do (the log line after its headline, and `status`). */
  message: string;
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

  /** Capabilities the CRM refused, each with whose refusal it is. */
  missing(): MissingCapability[] {
    return missingCapabilities(this.current());
  }

  /** The refusals grouped by cause, with what to do (see accessProblems). */
  problems(): AccessProblem[] {
    return accessProblems(this.current(), this.options.client.tokenSetting);
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
    // What GET /scopes answered in this check: 'ok', the refusal's status, or null (not asked, or could not tell).
    let scopesAnswer: ScopesAnswer = null;
    const readScopes = async () => {
      try {
        access.scopes = await readScopesOf(client, signal);
        scopesAnswer = 'ok';
        this.log.info(
          { scopes: access.scopes },
          `the CRM access token grants these scopes: ${access.scopes.length ? access.scopes.join(', ') : '(none listed)'}`,
        );
      } catch (error) {
        access.scopes = null;
        scopesAnswer = refusalStatus(error);
        this.log.warn({ error: describe(error) }, 'could not read GET /scopes; proving each capability by its own call');
      }
    };
    if (full) {
      this.refusedSinceFullCheck = false;
      this.provedByCalls.clear();
      await readScopes();
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
    let provedNow = false;
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
        if (access.capabilities[capability].available === true) provedNow = true;
        // The check's own proof is no proof for the next check: that one must call again, or a scope
        // taken away would go unseen on a day no real call used it.
        if ((this.provedByCalls.get(capability)?.at ?? -Infinity) >= before) this.provedByCalls.delete(capability);
      }
    }
    if (provedByCalls.length > 0)
      this.log.info({ provedByCalls }, `proved by the relay's own calls within the day, no proof call made: ${provedByCalls.join(', ')}`);
    // A 403 is the key's or a grant's: a call that succeeded now (or GET /scopes) tells which; else /scopes is asked (one request, only on a refusal).
    const refused = (Object.keys(access.capabilities) as Capability[]).filter((capability) => access.capabilities[capability].available === false);
    if (refused.some((capability) => access.capabilities[capability].status === 403) && scopesAnswer === null && !provedNow && !signal.aborted)
      await readScopes();
    for (const capability of refused) {
      const state = access.capabilities[capability];
      state.refusedBy = refusalCause(state.status, provedNow ? 'ok' : scopesAnswer);
    }
    if (signal.aborted) return access;
    const now = this.now();
    access.checkedAt = new Date(now).toISOString();
    access.credentials = this.options.client.credentialsId;
    // The first re-check anywhere in the second half of the day: agencies that started together spread out.
    const spread = this.options.spread ?? Math.random;
    access.nextCheckAt = new Date(now + (firstCheck ? ACCESS_CHECK_MAX_AGE_MS * (0.5 + 0.5 * spread()) : ACCESS_CHECK_MAX_AGE_MS)).toISOString();
    writeKeyAccess(this.options.store, access);

    // One line per cause: a refused key or token is one fault, however many capabilities it takes down.
    const problems = accessProblems(access, client.tokenSetting);
    for (const problem of problems) {
      this.log.error(
        {
          refusedBy: problem.cause,
          capabilities: problem.capabilities,
          status: problem.status,
          ...(problem.capabilities.length === 1 ? { capability: problem.capabilities[0] } : {}),
        },
        `${problem.headline}: ${problem.message}`,
      );
    }
    const unknown = (Object.keys(access.capabilities) as Capability[]).filter((capability) => access.capabilities[capability].available === null);
    if (unknown.length > 0) this.log.warn({ unknown }, `could not tell whether the CRM allows ${unknown.join(', ')} right now; will show at first use`);
    if (problems.length === 0 && unknown.length === 0) this.log.info('the CRM access token allows everything the relay needs (listings, staff, enquiries)');
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

/** GET /scopes as given (strings; anything else shown as JSON). Needs no scope: a refusal is the key's (403) or the token's (401). */
export function readScopesOf(client: CrmClient, signal?: AbortSignal): Promise<string[]> {
  return client.request({ path: '/scopes', schema: scopesSchema, signal });
}

/** GET /scopes in one check: answered, refused with this status, or null (not asked, or the CRM could not tell). */
export type ScopesAnswer = 'ok' | 401 | 403 | null;

/** The status of a refusal (401/403), else null. */
export function refusalStatus(error: unknown): 401 | 403 | null {
  return isCrmError(error) && (error.status === 401 || error.status === 403) ? error.status : null;
}

/**
 * Whose fault a refusal of `status` is, given what GET /scopes (or any proof call) answered in the
 * same check: a 401 is the token's; a 403 the key's when /scopes was refused alike, a grant's when
 * key and token were accepted. Unknown (the CRM out of reach meanwhile): the key's, the cause that
 * refuses every call.
 */
export function refusalCause(status: number | null, scopes: ScopesAnswer): RefusalCause {
  if (status === 401 || scopes === 401) return 'token';
  return scopes === 'ok' ? 'grant' : 'key';
}

/** Proves one capability by its call (never throws). */
export async function prove(call: () => Promise<unknown>): Promise<CapabilityState> {
  try {
    await call();
    return { available: true, status: 200, detail: 'ok' };
  } catch (error) {
    if (isCrmError(error) && (error.status === 401 || error.status === 403)) {
      return { available: false, status: error.status, detail: error.message };
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

/** Whose a stored refusal is (a check recorded before causes were kept: 401 the token's, 403 taken as a grant, as it was then). */
function causeOf(state: CapabilityState): RefusalCause {
  return state.refusedBy ?? (state.status === 401 ? 'token' : 'grant');
}

/**
 * What the last check found for a capability, in the operator's words (the per-agency metric, the
 * dashboard, the alerting rules): proven; refused, by whose fault as the check recorded it (the
 * key, the agency's token, a grant not given); or not told yet. Never the CRM's status codes: a 403
 * is the key's or a grant's, and only the check (GET /scopes beside it) can tell which.
 */
export const ACCESS_STATES = ['allowed', 'refused_key', 'refused_token', 'refused_grant', 'unknown'] as const;
export type AccessState = (typeof ACCESS_STATES)[number];

export function accessStateOf(state: CapabilityState): AccessState {
  if (state.available === true) return 'allowed';
  if (state.available === false) return `refused_${causeOf(state)}`;
  return 'unknown';
}

export function missingCapabilities(access: KeyAccess): MissingCapability[] {
  return (Object.keys(CAPABILITIES) as Capability[])
    .filter((capability) => access.capabilities[capability]?.available === false)
    .map((capability) => ({
      capability,
      serves: CAPABILITIES[capability].serves,
      grant: CAPABILITIES[capability].grant,
      cause: causeOf(access.capabilities[capability]),
    }));
}

/**
 * The refusals of a check, one problem per cause (and per capability not granted), each naming who
 * fixes it: the integrator (CRM_API_KEY), the token's setting (`tokenSetting`: CRM_ACCESS_TOKEN, or
 * the agency's entry in AGENCIES_FILE), or the agency (a grant). Never "ask the agency" for the key.
 */
export function accessProblems(access: KeyAccess, tokenSetting = 'CRM_ACCESS_TOKEN'): AccessProblem[] {
  const missing = missingCapabilities(access);
  const problems: AccessProblem[] = [];
  const statusOf = (capability: Capability) => access.capabilities[capability].status;
  const serving = (gaps: MissingCapability[]) => gaps.map((gap) => gap.serves).join(', ');
  const byKey = missing.filter((gap) => gap.cause === 'key');
  if (byKey.length > 0) {
    problems.push({
      cause: 'key',
      capabilities: byKey.map((gap) => gap.capability),
      status: statusOf(byKey[0]!.capability),
      reason: "the CRM refuses the integrator's API key (403): check CRM_API_KEY (the integrator's own key; the agency cannot fix this)",
      headline: 'CRM API KEY REFUSED',
      message:
        `the CRM refuses the integrator's API key (403, GET /scopes too), so ${serving(byKey)} cannot work, for every agency on this key. ` +
        'Check CRM_API_KEY: it must be the key the CRM issued to this integration (the agency cannot fix this), then restart the relay.',
    });
  }
  const byToken = missing.filter((gap) => gap.cause === 'token');
  if (byToken.length > 0) {
    problems.push({
      cause: 'token',
      capabilities: byToken.map((gap) => gap.capability),
      status: statusOf(byToken[0]!.capability),
      reason: `the CRM refuses the agency's access token (401): check ${tokenSetting}`,
      headline: 'CRM ACCESS TOKEN REFUSED',
      message:
        `the CRM refuses the access token (401), so ${serving(byToken)} cannot work. ` +
        `Check ${tokenSetting}: it must be a current token of the agency's account (a token the agency revoked needs a new one from them).`,
    });
  }
  for (const gap of missing.filter((candidate) => candidate.cause === 'grant')) {
    problems.push({
      cause: 'grant',
      capabilities: [gap.capability],
      status: statusOf(gap.capability),
      reason: `${gap.capability} not granted: ask the agency to grant ${gap.grant} (needed for ${gap.serves})`,
      headline: 'CRM ACCESS MISSING',
      message:
        `the access token may not be used for ${gap.capability} (${CAPABILITIES[gap.capability].proof} was refused, while the key and token were accepted), so ${gap.serves} cannot work. ` +
        `Ask the agency to grant this integration ${gap.grant}, then restart the relay.`,
    });
  }
  return problems;
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
      // A refused key or token in `refused` (one line, whose fix); grants the agency has not given in `missing`.
      const problems = access.problems();
      const refused = problems.filter((problem) => problem.cause !== 'grant');
      const missing = problems.filter((problem) => problem.cause === 'grant');
      return {
        ...(refused.length ? { refused: refused.map((problem) => problem.reason).join('; ') } : {}),
        ...(missing.length
          ? {
              missing: missing.map(
                (problem) =>
                  `${problem.capabilities[0]}: ask the agency to grant ${CAPABILITIES[problem.capabilities[0]!].grant} (needed for ${CAPABILITIES[problem.capabilities[0]!].serves})`,
              ),
            }
          : {}),
      };
    },
  };
}
