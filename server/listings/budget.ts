import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
import { listSpecs } from './lists.ts';

export const CRM_PAGE_SIZE = 100;

export type BudgetSettings = Pick<
  Config,
  | 'SYNC_INTERVAL_MINUTES'
  | 'FULL_SWEEP_HOURS'
  | 'LISTING_CLASSES'
  | 'SOLD_DAYS'
  | 'WEBHOOK_SECRET'
  | 'WEBHOOK_DAILY_REFRESHES'
  | 'CRM_DAILY_LIMIT'
  | 'CRM_BUDGET_SHARE'
  | 'CRM_USAGE_CHECK_MINUTES'
>;

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

/**
 * How many CRM requests a day the listing sync will spend with these settings:
 * - each incremental sync reads one page of every list (modifiedSince keeps it short);
 * - each full sweep reads every page of every list and of the staff;
 * - open homes (every page) are read hourly and with each sweep;
 * - each webhook refresh reads one record and its photos, up to WEBHOOK_DAILY_REFRESHES a day;
 * - the key's usage (GET /integrator/usage) is read every CRM_USAGE_CHECK_MINUTES (and what the
 *   key allows is checked once per start: four requests, not a daily cost).
 * Photo files come from the file host and do not count. Page views cost nothing (served from the cache).
 */
/** What other tools spent today with the same API key, and how much of the UTC day had passed then (0-1). */
export interface SharedKeyUsage {
  othersToday: number;
  dayElapsed: number;
}

export function planBudget(settings: BudgetSettings, sizes: KnownSizes, shared?: SharedKeyUsage): BudgetPlan {
  const specs = listSpecs(settings);
  const sweepsPerDay = Math.ceil(24 / settings.FULL_SWEEP_HOURS);
  const runsPerDay = Math.ceil((24 * 60) / settings.SYNC_INTERVAL_MINUTES);
  const incrementalRuns = Math.max(0, runsPerDay - sweepsPerDay);
  const incrementalCost = specs.length;
  const sweepCost = specs.reduce((sum, spec) => sum + pages(sizes.listingsBySource.get(spec.source) ?? 0), 0) + pages(sizes.agents);
  // Hourly, and with each sweep; never more than once per run.
  const openHomeReads = Math.min(runsPerDay, 24 + sweepsPerDay);
  // A refresh reads the record and its entry in the published list (photos inline).
  const webhookCost = settings.WEBHOOK_SECRET ? settings.WEBHOOK_DAILY_REFRESHES * 2 : 0;
  const usageReads = Math.ceil((24 * 60) / settings.CRM_USAGE_CHECK_MINUTES);

  const lines: BudgetLine[] = [
    {
      what: `${incrementalRuns} incremental syncs × ${incrementalCost} requests (one page of each list)`,
      perDay: incrementalRuns * incrementalCost,
      setting: 'SYNC_INTERVAL_MINUTES',
    },
    { what: `${sweepsPerDay} full sweeps × ${sweepCost} requests (every page, and the staff)`, perDay: sweepsPerDay * sweepCost, setting: 'FULL_SWEEP_HOURS' },
    { what: `${openHomeReads} open-home reads × ${pages(sizes.openHomes)} pages`, perDay: openHomeReads * pages(sizes.openHomes), setting: 'CRM_BUDGET_SHARE' },
    { what: `up to ${settings.WEBHOOK_SECRET ? settings.WEBHOOK_DAILY_REFRESHES : 0} webhook refreshes × 2 requests (record, its published list entry with photos)`, perDay: webhookCost, setting: 'WEBHOOK_DAILY_REFRESHES' },
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
    Math.min(Math.floor(settings.CRM_DAILY_LIMIT * settings.CRM_BUDGET_SHARE), settings.CRM_DAILY_LIMIT - (sharedKey?.othersPerDay ?? 0)),
  );
  if (perDay <= allowed) return { perDay, allowed, lines, fits: true, ...(sharedKey ? { sharedKey } : {}) };

  // Name the biggest spender, and for the sync interval the smallest value that fits.
  const biggest = [...lines].sort((a, b) => b.perDay - a.perDay)[0];
  let advice = `raise ${biggest.setting} (now ${String(settings[biggest.setting as keyof BudgetSettings])})`;
  if (biggest.setting === 'SYNC_INTERVAL_MINUTES') {
    const left = allowed - lines.slice(1).reduce((sum, line) => sum + line.perDay, 0);
    const affordableRuns = Math.floor(left / incrementalCost) + sweepsPerDay;
    if (left > 0 && affordableRuns > 0) advice = `raise SYNC_INTERVAL_MINUTES to at least ${Math.ceil((24 * 60) / affordableRuns)} (now ${settings.SYNC_INTERVAL_MINUTES})`;
  } else if (biggest.setting === 'WEBHOOK_DAILY_REFRESHES') {
    advice = `lower WEBHOOK_DAILY_REFRESHES (now ${settings.WEBHOOK_DAILY_REFRESHES})`;
  }
  advice += `, sync fewer LISTING_CLASSES, or raise CRM_BUDGET_SHARE (now ${settings.CRM_BUDGET_SHARE})`;
  if (sharedKey) advice += `; other tools on the same API key spend about ${sharedKey.othersPerDay} a day: give this relay a key of its own, or ask them to spend less`;
  return { perDay, allowed, lines, fits: false, setting: biggest.setting, advice, ...(sharedKey ? { sharedKey } : {}) };
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
