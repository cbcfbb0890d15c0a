import type { Config } from '../runtime/config.ts';
import { ConfigError } from '../runtime/config.ts';
import type { ListingSource } from './source.ts';

/** What the plan needs of the listing source: its lists and how many records a page holds. */
export type BudgetedLists = Pick<ListingSource, 'lists' | 'pageSize'>;

export type BudgetSettings = Pick<Config, 'listings' | 'crm'>;

export interface BudgetLine {
  what: string;
  perDay: number;
  /** The setting that scales this line. */
  setting: string;
}

export interface BudgetPlan {
  perDay: number;
  /** CRM_BUDGET_SHARE × CRM_DAILY_LIMIT, or less when other tools on the same API key leave less. */
  allowed: number;
  /** When other tools spend requests with the same API key (from GET /integrator/usage). */
  sharedKey?: { othersToday: number; othersPerDay: number };
  lines: BudgetLine[];
  /** Event-stream reads a day (each one request). */
  eventStreamReads: number;
  /** The catch-up interval: how often the event stream is read (SYNC_INTERVAL_MINUTES). */
  eventStreamIntervalMinutes: number;
  /** Freshness promised: a change reaches the listing API within this many seconds. */
  freshness: { withWebhooksSeconds: number; withoutWebhooksSeconds: number };
  fits: boolean;
  /** When it does not fit: the setting spending most, and what to change. */
  setting?: string;
  advice?: string;
}

export interface KnownSizes {
  /** Listings per CRM list (from the cache; unknown lists count as one page). */
  listingsBySource: ReadonlyMap<string, number>;
  agents: number;
  openHomes: number;
}

/** A delivered webhook is applied within seconds: stored, then the pushed record written (or one list read). */
export const WEBHOOK_FRESHNESS_SECONDS = 5;
/** Planned share of listings changing in a day, for the requests the stream's notices cost. */
const DAILY_CHANGE_SHARE = 0.1;

/** What other tools spent today with the same API key, and how much of the UTC day had passed then (0-1). */
export interface SharedKeyUsage {
  othersToday: number;
  dayElapsed: number;
}

/**
 * How many CRM requests a day the listing sync will spend with these settings:
 * - the event stream is read every SYNC_INTERVAL_MINUTES (one request, one page on a normal day);
 *   each change it names that no webhook applied costs a modifiedSince read of the property's lists;
 * - every LIST_POLL_MINUTES one page of every list (modifiedSince), the net under the stream;
 * - each full sweep reads every page of every list and of the staff;
 * - open homes (every page) are read hourly and with each sweep;
 * - webhook-triggered requests, at most WEBHOOK_DAILY_REFRESHES a day (a pushed record costs none);
 * - the key's usage (GET /integrator/usage) is read every CRM_USAGE_CHECK_MINUTES (what the token
 *   allows is confirmed once a day, by the day's own calls but one proof of enquiries: left out
 *   here; planAgencies counts it, as it adds up over hundreds of agencies).
 * Photo files come from the file host and do not count. Page views cost nothing (served from the cache).
 * Other tools spending with the same API key (`shared`) leave less of the key's daily limit.
 */
export function planBudget(settings: BudgetSettings, source: BudgetedLists, sizes: KnownSizes, shared?: SharedKeyUsage): BudgetPlan {
  const specs = source.lists;
  const pages = (items: number) => Math.max(1, Math.ceil(items / source.pageSize));
  const sweepsPerDay = Math.ceil(24 / settings.listings.fullSweepHours);
  const streamReads = Math.ceil((24 * 60) / settings.listings.syncIntervalMinutes);
  const listRuns = Math.ceil((24 * 60) / settings.listings.listPollMinutes);
  const incrementalRuns = Math.max(0, listRuns - sweepsPerDay);
  const incrementalCost = specs.length;
  const sweepCost = specs.reduce((sum, spec) => sum + pages(sizes.listingsBySource.get(spec.source) ?? 0), 0) + pages(sizes.agents);
  // Hourly, and with each sweep; never more than once per list run.
  const openHomeReads = Math.min(listRuns, 24 + sweepsPerDay);
  const listings = [...sizes.listingsBySource.values()].reduce((sum, count) => sum + count, 0);
  const streamChanges = Math.max(10, Math.ceil(listings * DAILY_CHANGE_SHARE));
  // A notice without its record: one page of each list of the property's group (its class: sale and lease).
  const groups = [...new Set(specs.map((spec) => spec.group))];
  const requestsPerStreamChange = Math.max(...groups.map((group) => specs.filter((spec) => spec.group === group).length));
  const usageReads = Math.ceil((24 * 60) / settings.crm.usageCheckMinutes);

  const streamReadLine: BudgetLine = {
    what: `${streamReads} event-stream reads (every ${settings.listings.syncIntervalMinutes} min) × 1 request`,
    perDay: streamReads,
    setting: 'SYNC_INTERVAL_MINUTES',
  };
  // Scales with how much changes, not with the interval: left out when the interval is advised.
  const streamChangeLine: BudgetLine = {
    what: `~${streamChanges} changes named by the stream alone (webhook lost) × ${requestsPerStreamChange} requests`,
    perDay: streamChanges * requestsPerStreamChange,
    setting: 'SYNC_INTERVAL_MINUTES',
  };
  const lines: BudgetLine[] = [
    streamReadLine,
    { what: `${sweepsPerDay} full sweeps × ${sweepCost} requests (every page, and the staff)`, perDay: sweepsPerDay * sweepCost, setting: 'FULL_SWEEP_HOURS' },
    { what: `${openHomeReads} open-home reads × ${pages(sizes.openHomes)} pages`, perDay: openHomeReads * pages(sizes.openHomes), setting: 'CRM_BUDGET_SHARE' },
    {
      what: `up to ${settings.listings.webhookDailyRefreshes} webhook-triggered requests`,
      perDay: settings.listings.webhookDailyRefreshes,
      setting: 'WEBHOOK_DAILY_REFRESHES',
    },
    {
      what: `${incrementalRuns} list polls (every ${settings.listings.listPollMinutes} min) × ${incrementalCost} requests (one page of each list)`,
      perDay: incrementalRuns * incrementalCost,
      setting: 'LIST_POLL_MINUTES',
    },
    streamChangeLine,
    { what: `${usageReads} reads of the key's usage (GET /integrator/usage)`, perDay: usageReads, setting: 'CRM_USAGE_CHECK_MINUTES' },
  ];
  const perDay = lines.reduce((sum, line) => sum + line.perDay, 0);
  // The daily limit is the key's, whoever spends it: what other tools spend at today's pace is not ours to plan.
  const { sharedKey, allowed } = allowedPerDay(settings, shared);
  const base = {
    perDay,
    allowed,
    lines,
    ...(sharedKey ? { sharedKey } : {}),
    eventStreamReads: streamReads,
    eventStreamIntervalMinutes: settings.listings.syncIntervalMinutes,
    // Lost webhook: the next stream read, plus time to apply what it names (a minute, or one more interval when shorter).
    freshness: {
      withWebhooksSeconds: WEBHOOK_FRESHNESS_SECONDS,
      withoutWebhooksSeconds: Math.round(settings.listings.syncIntervalMinutes * 60 + Math.min(60, settings.listings.syncIntervalMinutes * 60)),
    },
  };
  if (perDay <= allowed) return { ...base, fits: true };

  // Name the biggest spender, and for an interval the smallest value that fits.
  const biggest = [...lines].sort((a, b) => b.perDay - a.perDay)[0]!;
  let advice = `raise ${biggest.setting} (now ${String(settings[biggest.setting as keyof BudgetSettings])})`;
  const others = (setting: string) => lines.filter((line) => line.setting !== setting || line === streamChangeLine).reduce((sum, line) => sum + line.perDay, 0);
  if (biggest.setting === 'SYNC_INTERVAL_MINUTES') {
    const left = allowed - others('SYNC_INTERVAL_MINUTES');
    if (left > 0)
      advice = `raise SYNC_INTERVAL_MINUTES to at least ${Math.ceil(((24 * 60) / left) * 100) / 100} (now ${settings.listings.syncIntervalMinutes})`;
  } else if (biggest.setting === 'LIST_POLL_MINUTES') {
    const left = allowed - others('LIST_POLL_MINUTES');
    const affordableRuns = Math.floor(left / incrementalCost) + sweepsPerDay;
    if (left > 0 && affordableRuns > 0)
      advice = `raise LIST_POLL_MINUTES to at least ${Math.ceil((24 * 60) / affordableRuns)} (now ${settings.listings.listPollMinutes})`;
  } else if (biggest.setting === 'WEBHOOK_DAILY_REFRESHES') {
    advice = `lower WEBHOOK_DAILY_REFRESHES (now ${settings.listings.webhookDailyRefreshes})`;
  }
  advice += `, sync fewer LISTING_CLASSES, or raise CRM_BUDGET_SHARE (now ${settings.crm.budgetShare})`;
  if (sharedKey)
    advice += `; other tools on the same API key spend about ${sharedKey.othersPerDay} a day: give this relay a key of its own, or ask them to spend less`;
  return { ...base, fits: false, setting: biggest.setting, advice };
}

/**
 * What the relay may spend a day: CRM_BUDGET_SHARE × CRM_DAILY_LIMIT, or less when other tools on
 * the same key spend more than the rest (at today's pace: what they spent so far over the part of
 * the day gone, counted as at least an hour).
 */
function allowedPerDay(settings: BudgetSettings, shared?: SharedKeyUsage): { allowed: number; sharedKey?: { othersToday: number; othersPerDay: number } } {
  // The daily limit is the key's, whoever spends it: what other tools spend at today's pace is not ours to plan.
  const sharedKey =
    shared && shared.othersToday > 0
      ? { othersToday: shared.othersToday, othersPerDay: Math.ceil(shared.othersToday / Math.min(1, Math.max(shared.dayElapsed, 1 / 24))) }
      : undefined;
  const allowed = Math.max(
    0,
    Math.min(Math.floor(settings.crm.dailyLimit * settings.crm.budgetShare), settings.crm.dailyLimit - (sharedKey?.othersPerDay ?? 0)),
  );
  return sharedKey ? { allowed, sharedKey } : { allowed };
}

/** The relay refuses to start on settings that would spend more than its share of the CRM's daily limit. */
export class BudgetRefusedError extends ConfigError {
  constructor(readonly plan: BudgetPlan) {
    super([
      `${plan.setting}: the listing sync would use about ${plan.perDay} CRM requests a day, more than ` +
        `CRM_BUDGET_SHARE × CRM_DAILY_LIMIT = ${plan.allowed}; ${plan.advice}.`,
    ]);
    this.name = 'BudgetRefusedError';
  }
}

export function assertBudget(plan: BudgetPlan): void {
  if (!plan.fits) throw new BudgetRefusedError(plan);
}

// Many agencies on one key -------------------------------------------------------------------------

/** One agency to plan for: its name in the plan and what its cache knows of its size. */
export interface AgencyToPlan {
  slug: string;
  sizes: KnownSizes;
  /** Never swept: its sizes are unknown and counted as one page a list (replanned after its first sweep). */
  estimated?: boolean;
}

export interface AgencyPlan {
  slug: string;
  /** Its sizes are a guess (never swept): one page a list. */
  estimated: boolean;
  /** Its daily sweep: every page of every list and of the staff, and its open homes. */
  sweepRequests: number;
  /** Its daily access check (ACCESS_CHECK_REQUESTS_PER_DAY). */
  accessRequests: number;
  /** Event-stream reads a day (one request each). */
  catchUpReads: number;
  /** List reads when the stream names changes no webhook carried (worst case: every webhook lost). */
  refreshRequests: number;
  perDay: number;
  /** Minutes between event-stream reads; null: none (only the daily sweep fits). */
  catchUpIntervalMinutes: number | null;
  freshness: { withWebhooksSeconds: number; withoutWebhooksSeconds: number };
}

export interface AgenciesPlan {
  agencies: AgencyPlan[];
  /** Requests for the whole key, whatever the number of agencies (its usage reads). */
  keyRequests: number;
  perDay: number;
  allowed: number;
  sharedKey?: { othersToday: number; othersPerDay: number };
  /** One daily sweep per agency plus the key's own requests: below this nothing is served fresh. */
  floorPerDay: number;
  /** The catch-up interval every agency gets (the same for all: the freshness promise is per relay); null when none fits. */
  catchUpIntervalMinutes: number | null;
  fits: boolean;
  /** When the floor does not fit: how many agencies would (the smallest first). */
  agenciesThatFit?: number;
  advice?: string;
}

const DAY_MINUTES = 24 * 60;
const DAY_SECONDS = 24 * 3600;
/**
 * Each agency's daily confirmation of what its token allows. A real call that succeeded within the
 * day proves what it uses, and the daily sweep (the floor) reads the listings and the staff: what
 * is left is the proof of enquiries on a day no enquiry was sent or looked up. GET /scopes is read
 * only at the first check and after a refusal (its names map to no capability the CRM documents),
 * and the account a token names is looked up once per token: neither is a daily cost.
 */
export const ACCESS_CHECK_REQUESTS_PER_DAY = 1;

/**
 * The day's CRM requests for every agency on one API key, against CRM_BUDGET_SHARE of the key's
 * daily limit minus what other tools spend (GET /integrator/usage). A pure function.
 *
 * The floor is one full sweep a day per agency (every page of its lists, its staff and open
 * homes) and the key's usage reads: what the relay must spend to serve anything at all. What is
 * left goes to catching up from each agency's event stream, at one interval for all of them (an
 * agency with 5,000 listings gets the same promise as one with 50; its sweep is what costs more).
 * A stream read is one request; a read that names changes no webhook carried costs one page of
 * each list of the changed class, planned for the worst case (every webhook lost, a read for each
 * change up to the agency's daily changes), so the promise without webhooks holds within budget.
 * Delivered webhooks carry their records and cost nothing. List polls are left out: the stream
 * and the daily sweep are the net. The interval is the shortest that fits, never below
 * SYNC_INTERVAL_MINUTES.
 */
export function planAgencies(settings: BudgetSettings, source: BudgetedLists, agencies: readonly AgencyToPlan[], shared?: SharedKeyUsage): AgenciesPlan {
  const specs = source.lists;
  const pages = (items: number) => Math.max(1, Math.ceil(items / source.pageSize));
  const groups = [...new Set(specs.map((spec) => spec.group))];
  const requestsPerRefresh = Math.max(1, ...groups.map((group) => specs.filter((spec) => spec.group === group).length));
  const keyRequests = Math.ceil(DAY_MINUTES / settings.crm.usageCheckMinutes);
  const { allowed, sharedKey } = allowedPerDay(settings, shared);

  const costs = agencies.map(({ slug, sizes, estimated }) => {
    const listings = [...sizes.listingsBySource.values()].reduce((sum, count) => sum + count, 0);
    const sweepRequests =
      specs.reduce((sum, spec) => sum + pages(sizes.listingsBySource.get(spec.source) ?? 0), 0) + pages(sizes.agents) + pages(sizes.openHomes);
    return { slug, estimated: estimated ?? false, sweepRequests, dailyChanges: Math.max(1, Math.ceil(listings * DAILY_CHANGE_SHARE)) };
  });
  const floorPerDay = keyRequests + costs.reduce((sum, cost) => sum + cost.sweepRequests + ACCESS_CHECK_REQUESTS_PER_DAY, 0);
  const withReads = (reads: number) => {
    const lines = costs.map((cost): AgencyPlan => {
      const refreshRequests = Math.min(reads, cost.dailyChanges) * requestsPerRefresh;
      const interval = reads > 0 ? Math.ceil(DAY_MINUTES / reads) : null;
      return {
        slug: cost.slug,
        estimated: cost.estimated,
        sweepRequests: cost.sweepRequests,
        accessRequests: ACCESS_CHECK_REQUESTS_PER_DAY,
        catchUpReads: reads,
        refreshRequests,
        perDay: cost.sweepRequests + ACCESS_CHECK_REQUESTS_PER_DAY + reads + refreshRequests,
        catchUpIntervalMinutes: interval,
        // Lost webhook: the next stream read plus a minute to apply it; with no reads, the next daily sweep.
        freshness: { withWebhooksSeconds: WEBHOOK_FRESHNESS_SECONDS, withoutWebhooksSeconds: interval === null ? DAY_SECONDS + 60 : interval * 60 + 60 },
      };
    });
    return { lines, perDay: keyRequests + lines.reduce((sum, line) => sum + line.perDay, 0) };
  };
  const base = { keyRequests, allowed, ...(sharedKey ? { sharedKey } : {}), floorPerDay };

  if (floorPerDay > allowed) {
    // The most agencies whose floors fit: the smallest first.
    const sorted = costs.map((cost) => cost.sweepRequests + ACCESS_CHECK_REQUESTS_PER_DAY).sort((a, b) => a - b);
    let agenciesThatFit = 0;
    for (let spent = keyRequests; agenciesThatFit < sorted.length && spent + sorted[agenciesThatFit]! <= allowed; agenciesThatFit++)
      spent += sorted[agenciesThatFit]!;
    const { lines, perDay } = withReads(0);
    let advice =
      `${agencies.length} agencies need at least ${floorPerDay} CRM requests a day (one full sweep and access check each), more than the ${allowed} allowed ` +
      `(CRM_BUDGET_SHARE ${settings.crm.budgetShare} × CRM_DAILY_LIMIT ${settings.crm.dailyLimit}` +
      `${sharedKey ? `, less about ${sharedKey.othersPerDay} a day other tools on the key spend` : ''}); ` +
      `${agenciesThatFit} of them would fit: remove agencies, raise CRM_BUDGET_SHARE, or give some agencies another API key`;
    if (sharedKey) advice += ', or ask the other tools on the key to spend less';
    return { ...base, agencies: lines, perDay, catchUpIntervalMinutes: null, fits: false, agenciesThatFit, advice };
  }
  // The most reads a day that fit, at most one per SYNC_INTERVAL_MINUTES.
  let reads = Math.ceil(DAY_MINUTES / settings.listings.syncIntervalMinutes);
  while (reads > 0 && withReads(reads).perDay > allowed) reads--;
  const { lines, perDay } = withReads(reads);
  return {
    ...base,
    agencies: lines,
    perDay,
    catchUpIntervalMinutes: lines[0]?.catchUpIntervalMinutes ?? (reads > 0 ? Math.ceil(DAY_MINUTES / reads) : null),
    fits: true,
  };
}

/** The plan as the operator reads it at start and on reload: totals, then one line per agency. */
export function describeAgenciesPlan(plan: AgenciesPlan): string[] {
  const minutes = (value: number | null) =>
    value === null ? 'none (daily sweep only)' : value >= 120 ? `every ${Math.round((value / 60) * 10) / 10} h` : `every ${value} min`;
  const promise = (seconds: number) =>
    seconds >= 7200 ? `${Math.round((seconds / 3600) * 10) / 10} h` : seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
  const head = plan.fits
    ? `CRM budget for ${plan.agencies.length} agencies: about ${plan.perDay} requests a day of ${plan.allowed} allowed (floor ${plan.floorPerDay}); catch-up ${minutes(plan.catchUpIntervalMinutes)}`
    : `CRM budget REFUSED: ${plan.advice}`;
  const shared = plan.sharedKey ? [`the API key is shared: other tools spend about ${plan.sharedKey.othersPerDay} a day`] : [];
  const guessed = plan.agencies.filter((agency) => agency.estimated).length;
  const estimate = guessed
    ? [
        `ESTIMATE: ${guessed} of ${plan.agencies.length} agencies never synced are counted at one page a list; the plan is made again after each one's first sweep`,
      ]
    : [];
  return [
    head,
    ...estimate,
    ...shared,
    ...plan.agencies.map(
      (agency) =>
        `  ${agency.slug}: ${agency.perDay}/day (sweep ${agency.sweepRequests}, access check ${agency.accessRequests}, stream reads ${agency.catchUpReads}, refreshes ≤ ${agency.refreshRequests}); ` +
        `fresh within ${promise(agency.freshness.withWebhooksSeconds)} with webhooks, ${promise(agency.freshness.withoutWebhooksSeconds)} without` +
        (agency.estimated ? ' (estimate: never synced)' : ''),
    ),
  ];
}

/** The relay refuses to start (or to reload) on an agencies file whose floor does not fit the key's budget. */
export class AgenciesBudgetRefusedError extends ConfigError {
  constructor(readonly plan: AgenciesPlan) {
    super([`AGENCIES_FILE: ${plan.advice}.`]);
    this.name = 'AgenciesBudgetRefusedError';
  }
}

export function assertAgenciesBudget(plan: AgenciesPlan): void {
  if (!plan.fits) throw new AgenciesBudgetRefusedError(plan);
}
