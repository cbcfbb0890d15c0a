import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
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
 * - the key's usage (GET /integrator/usage) is read every CRM_USAGE_CHECK_MINUTES (and what the
 *   key allows is checked once per start: four requests, not a daily cost).
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
    { what: `up to ${settings.listings.webhookDailyRefreshes} webhook-triggered requests`, perDay: settings.listings.webhookDailyRefreshes, setting: 'WEBHOOK_DAILY_REFRESHES' },
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
  const sharedKey =
    shared && shared.othersToday > 0
      ? { othersToday: shared.othersToday, othersPerDay: Math.ceil(shared.othersToday / Math.min(1, Math.max(shared.dayElapsed, 1 / 24))) }
      : undefined;
  const allowed = Math.max(
    0,
    Math.min(Math.floor(settings.crm.dailyLimit * settings.crm.budgetShare), settings.crm.dailyLimit - (sharedKey?.othersPerDay ?? 0)),
  );
  const base = {
    perDay,
    allowed,
    lines,
    ...(sharedKey ? { sharedKey } : {}),
    eventStreamReads: streamReads,
    eventStreamIntervalMinutes: settings.listings.syncIntervalMinutes,
    // Lost webhook: the next stream read, plus time to apply what it names (a minute, or one more interval when shorter).
    freshness: { withWebhooksSeconds: WEBHOOK_FRESHNESS_SECONDS, withoutWebhooksSeconds: Math.round(settings.listings.syncIntervalMinutes * 60 + Math.min(60, settings.listings.syncIntervalMinutes * 60)) },
  };
  if (perDay <= allowed) return { ...base, fits: true };

  // Name the biggest spender, and for an interval the smallest value that fits.
  const biggest = [...lines].sort((a, b) => b.perDay - a.perDay)[0]!;
  let advice = `raise ${biggest.setting} (now ${String(settings[biggest.setting as keyof BudgetSettings])})`;
  const others = (setting: string) => lines.filter((line) => line.setting !== setting || line === streamChangeLine).reduce((sum, line) => sum + line.perDay, 0);
  if (biggest.setting === 'SYNC_INTERVAL_MINUTES') {
    const left = allowed - others('SYNC_INTERVAL_MINUTES');
    if (left > 0) advice = `raise SYNC_INTERVAL_MINUTES to at least ${Math.ceil(((24 * 60) / left) * 100) / 100} (now ${settings.listings.syncIntervalMinutes})`;
  } else if (biggest.setting === 'LIST_POLL_MINUTES') {
    const left = allowed - others('LIST_POLL_MINUTES');
    const affordableRuns = Math.floor(left / incrementalCost) + sweepsPerDay;
    if (left > 0 && affordableRuns > 0) advice = `raise LIST_POLL_MINUTES to at least ${Math.ceil((24 * 60) / affordableRuns)} (now ${settings.listings.listPollMinutes})`;
  } else if (biggest.setting === 'WEBHOOK_DAILY_REFRESHES') {
    advice = `lower WEBHOOK_DAILY_REFRESHES (now ${settings.listings.webhookDailyRefreshes})`;
  }
  advice += `, sync fewer LISTING_CLASSES, or raise CRM_BUDGET_SHARE (now ${settings.crm.budgetShare})`;
  if (sharedKey) advice += `; other tools on the same API key spend about ${sharedKey.othersPerDay} a day: give this relay a key of its own, or ask them to spend less`;
  return { ...base, fits: false, setting: biggest.setting, advice };
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
