import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
import { listSpecs } from './lists.ts';

export const CRM_PAGE_SIZE = 100;

export type BudgetSettings = Pick<
  Config,
  | 'SYNC_INTERVAL_MINUTES'
  | 'LIST_POLL_MINUTES'
  | 'FULL_SWEEP_HOURS'
  | 'LISTING_CLASSES'
  | 'SOLD_DAYS'
  | 'WEBHOOK_DAILY_REFRESHES'
  | 'CRM_DAILY_LIMIT'
  | 'CRM_BUDGET_SHARE'
>;

export interface BudgetLine {
  what: string;
  perDay: number;
  /** The setting that scales this line. */
  setting: string;
}

export interface BudgetPlan {
  perDay: number;
  /** CRM_BUDGET_SHARE × CRM_DAILY_LIMIT. */
  allowed: number;
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

const pages = (items: number) => Math.max(1, Math.ceil(items / CRM_PAGE_SIZE));

/** A delivered webhook is applied within seconds: stored, then the pushed record written (or one list read). */
export const WEBHOOK_FRESHNESS_SECONDS = 5;
/** Planned share of listings changing in a day, for the requests the stream's notices cost. */
const DAILY_CHANGE_SHARE = 0.1;

/**
 * How many CRM requests a day the listing sync will spend with these settings:
 * - the event stream is read every SYNC_INTERVAL_MINUTES (one request, one page on a normal day);
 *   each change it names that no webhook applied costs a modifiedSince read of the listing's lists;
 * - every LIST_POLL_MINUTES one page of every list (modifiedSince), the net under the stream;
 * - each full sweep reads every page of every list and of the staff;
 * - open homes (every page) are read hourly and with each sweep;
 * - webhook-triggered requests, at most WEBHOOK_DAILY_REFRESHES a day (a pushed record costs none).
 * Photo files come from the file host and do not count. Page views cost nothing (served from the cache).
 */
export function planBudget(settings: BudgetSettings, sizes: KnownSizes): BudgetPlan {
  const specs = listSpecs(settings);
  const sweepsPerDay = Math.ceil(24 / settings.FULL_SWEEP_HOURS);
  const streamReads = Math.ceil((24 * 60) / settings.SYNC_INTERVAL_MINUTES);
  const listRuns = Math.ceil((24 * 60) / settings.LIST_POLL_MINUTES);
  const incrementalRuns = Math.max(0, listRuns - sweepsPerDay);
  const incrementalCost = specs.length;
  const sweepCost = specs.reduce((sum, spec) => sum + pages(sizes.listingsBySource.get(spec.source) ?? 0), 0) + pages(sizes.agents);
  // Hourly, and with each sweep; never more than once per list run.
  const openHomeReads = Math.min(listRuns, 24 + sweepsPerDay);
  const listings = [...sizes.listingsBySource.values()].reduce((sum, count) => sum + count, 0);
  const streamChanges = Math.max(10, Math.ceil(listings * DAILY_CHANGE_SHARE));
  // A notice without its record: one page of each list of the listing's class (sale and lease).
  const requestsPerStreamChange = Math.max(...settings.LISTING_CLASSES.map((propertyClass) => specs.filter((spec) => spec.propertyClass === propertyClass).length));

  const lines: BudgetLine[] = [
    {
      what: `${streamReads} event-stream reads (every ${settings.SYNC_INTERVAL_MINUTES} min) × 1 request`,
      perDay: streamReads,
      setting: 'SYNC_INTERVAL_MINUTES',
    },
    { what: `${sweepsPerDay} full sweeps × ${sweepCost} requests (every page, and the staff)`, perDay: sweepsPerDay * sweepCost, setting: 'FULL_SWEEP_HOURS' },
    { what: `${openHomeReads} open-home reads × ${pages(sizes.openHomes)} pages`, perDay: openHomeReads * pages(sizes.openHomes), setting: 'CRM_BUDGET_SHARE' },
    { what: `up to ${settings.WEBHOOK_DAILY_REFRESHES} webhook-triggered requests`, perDay: settings.WEBHOOK_DAILY_REFRESHES, setting: 'WEBHOOK_DAILY_REFRESHES' },
    {
      what: `${incrementalRuns} list polls (every ${settings.LIST_POLL_MINUTES} min) × ${incrementalCost} requests (one page of each list)`,
      perDay: incrementalRuns * incrementalCost,
      setting: 'LIST_POLL_MINUTES',
    },
    {
      what: `~${streamChanges} changes named by the stream alone (webhook lost) × ${requestsPerStreamChange} requests`,
      perDay: streamChanges * requestsPerStreamChange,
      setting: 'SYNC_INTERVAL_MINUTES',
    },
  ];
  const perDay = lines.reduce((sum, line) => sum + line.perDay, 0);
  const allowed = Math.floor(settings.CRM_DAILY_LIMIT * settings.CRM_BUDGET_SHARE);
  const base = {
    perDay,
    allowed,
    lines,
    eventStreamReads: streamReads,
    eventStreamIntervalMinutes: settings.SYNC_INTERVAL_MINUTES,
    // Lost webhook: the next stream read, plus time to apply what it names (a minute, or one more interval when shorter).
    freshness: { withWebhooksSeconds: WEBHOOK_FRESHNESS_SECONDS, withoutWebhooksSeconds: Math.round(settings.SYNC_INTERVAL_MINUTES * 60 + Math.min(60, settings.SYNC_INTERVAL_MINUTES * 60)) },
  };
  if (perDay <= allowed) return { ...base, fits: true };

  // Name the biggest spender, and for an interval the smallest value that fits.
  const biggest = [...lines].sort((a, b) => b.perDay - a.perDay)[0]!;
  let advice = `raise ${biggest.setting} (now ${String(settings[biggest.setting as keyof BudgetSettings])})`;
  const others = (setting: string) => lines.filter((line) => line.setting !== setting || line === lines[5]).reduce((sum, line) => sum + line.perDay, 0);
  if (biggest.setting === 'SYNC_INTERVAL_MINUTES') {
    const left = allowed - others('SYNC_INTERVAL_MINUTES');
    if (left > 0) advice = `raise SYNC_INTERVAL_MINUTES to at least ${Math.ceil(((24 * 60) / left) * 100) / 100} (now ${settings.SYNC_INTERVAL_MINUTES})`;
  } else if (biggest.setting === 'LIST_POLL_MINUTES') {
    const left = allowed - others('LIST_POLL_MINUTES');
    const affordableRuns = Math.floor(left / incrementalCost) + sweepsPerDay;
    if (left > 0 && affordableRuns > 0) advice = `raise LIST_POLL_MINUTES to at least ${Math.ceil((24 * 60) / affordableRuns)} (now ${settings.LIST_POLL_MINUTES})`;
  } else if (biggest.setting === 'WEBHOOK_DAILY_REFRESHES') {
    advice = `lower WEBHOOK_DAILY_REFRESHES (now ${settings.WEBHOOK_DAILY_REFRESHES})`;
  }
  advice += `, sync fewer LISTING_CLASSES, or raise CRM_BUDGET_SHARE (now ${settings.CRM_BUDGET_SHARE})`;
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
