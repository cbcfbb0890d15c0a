import type { Clock } from '../runtime/clock.ts';
import type { Feature } from '../runtime/feature.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import type { ListingsService } from '../listings/index.ts';
import type { VisitCounts } from '../visits/counts.ts';
import { listingLeadCounts } from '../enquiries/report-counts.ts';
import { addDays, dayOf, daysBetween } from './days.ts';
import { ReportLinks } from './links.ts';
import { renderReport, type RenderedReport } from './page.ts';
import { buildReportModel } from './report-data.ts';
import { reportRouter } from './router.ts';
import { typicalListing } from './typical.ts';

/** The longest a report looks back: a year of days is as many as its charts can draw legibly. */
export const MAX_REPORT_DAYS = 365;
/** Where a listing the CRM gave no listed date starts its report. */
const UNDATED_REPORT_DAYS = 30;

/** What the composition root hands every agency's report (tests: a VisitCounts over a fixture, and their clock). */
export interface ReportsWiring {
  visits?: (agency: { slug: string | undefined; store: Store }) => VisitCounts;
  now?: Clock;
}

export interface ReportsFeatureOptions {
  store: Store;
  listings: Pick<ListingsService, 'publicListings' | 'cache'>;
  visits: VisitCounts;
  timeZone: string;
  agencyName: string;
  /** The agency's colour (#rrggbb); darkened where needed to meet WCAG AA. */
  accent?: string;
  /** Origins of the listing's photo URLs besides the relay's own (PUBLIC_URL's). */
  photoOrigins: string[];
  log: Logger;
  now?: Clock;
}

/** The seller's campaign report (issue 32): GET /reports/<token>, the page of the one listing its link was made for. */
export function reportsFeature(options: ReportsFeatureOptions): Feature {
  const now = options.now ?? Date.now;
  const links = new ReportLinks(options.store);
  return {
    name: 'reports',
    router: reportRouter({
      links,
      render: (listingId) => renderListingReport(options, listingId, now()),
      photoOrigins: options.photoOrigins,
      log: options.log,
      now,
    }),
    workers: [],
    readiness: {},
  };
}

/** One listing's report as of `at`; undefined when the listing is no longer in the cache. */
export async function renderListingReport(options: ReportsFeatureOptions, listingId: number, at: number): Promise<RenderedReport | undefined> {
  const { publicListings, cache } = options.listings;
  const listing = publicListings.detail(listingId);
  // An old CRM property id resolves to a listing too; a link is made for the listing's own id only.
  if (!listing || listing.id !== listingId) return undefined;
  const { timeZone } = options;
  const today = dayOf(at, timeZone);
  const earliest = addDays(today, -(MAX_REPORT_DAYS - 1));
  // A listed date after today (a clock set wrong somewhere) is taken as today.
  const listedOn = listedDayOf(listing.inserted, timeZone);
  const listedDay = listedOn !== null && listedOn > today ? today : listedOn;
  const start = listedDay ?? addDays(today, -(UNDATED_REPORT_DAYS - 1));
  const since = start < earliest ? earliest : start > today ? today : start;
  const [visits, leads, views] = await Promise.all([
    options.visits.forListing(listingId, { since, until: today }),
    listingLeadCounts(options.store, listingId, { since, until: today }, timeZone),
    options.visits.dailyDetailViews({ since: earliest, until: today }),
  ]);
  // The agency's listings of the same kind (sale or lease) and when each was listed.
  const comparable = new Map<number, string>();
  for (const entry of publicListings.index()) {
    if (entry.type !== listing.type) continue;
    const day = listedDayOf(cache.getListing(entry.id)?.fields.inserted ?? null, timeZone);
    if (day) comparable.set(entry.id, day);
  }
  const typical = typicalListing({ listed: comparable, views, countedSince: earliest, today, days: daysBetween(listedDay ?? since, today) });
  const model = buildReportModel({ agencyName: options.agencyName, timeZone, listing, listedDay, since, today, visits, leads, typical });
  return renderReport(model, { accent: options.accent });
}

function listedDayOf(inserted: string | null, timeZone: string): string | null {
  const at = inserted === null ? NaN : Date.parse(inserted);
  return Number.isFinite(at) ? dayOf(at, timeZone) : null;
}
