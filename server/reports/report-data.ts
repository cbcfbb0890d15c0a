import type { ListingDetail, OpenHome } from '../../contract/relay-api.ts';
import type { ListingLeadCounts } from '../enquiries/report-counts.ts';
import type { ListingVisits, VisitSource } from '../visits/counts.ts';
import { daySpan, daysBetween } from './days.ts';
import type { TypicalPoint } from './typical.ts';

/** One day of the report, every count the charts draw (0 where nothing was counted). */
export interface ReportDay {
  day: string;
  views: number;
  visitors: number;
  kept: number;
  shared: number;
  enquiries: number;
  registrations: number;
  inspections: number;
  /** Leads of that day whose details were erased after delivery (kind no longer known). */
  erasedLeads: number;
}

export interface ReportOpenHome {
  id: number;
  start: string | null;
  end: string | null;
  registrations: number;
}

/** Everything the report page shows, already counted: the page only draws and words it. */
export interface ReportModel {
  agencyName: string;
  timeZone: string;
  address: string;
  /** The price as the agency shows it (never a withheld one: the public listing has none). */
  price: string | null;
  photo: { url: string; width: number; height: number; alt: string } | null;
  /** The listed day, or null when the CRM gave none (the counts then start at the first counted day). */
  listedDay: string | null;
  today: string;
  daysOnMarket: number | null;
  days: ReportDay[];
  /** Views by where they came from, most first. */
  sources: Array<{ source: VisitSource; label: string; views: number }>;
  openHomes: ReportOpenHome[];
  /** This listing's running total of views, by days on the market, beside the agency's typical listing. */
  typical: Array<{ day: number; listing: number; typical: number | null; listings: number }>;
  /** Events the relay set aside unwritten in the range: the counts may be this far short. */
  dropped: number;
}

/** What a view's source is called on the report. */
export function sourceLabel(source: VisitSource): string {
  if (source === 'shared') return 'Shared links';
  if (source.startsWith('utm:')) return `Campaign: ${source.slice(4)}`;
  const kind = source.slice(5);
  const names: Record<string, string> = {
    listing: 'Listing page',
    buy: 'Buy page',
    rent: 'Rent page',
    sold: 'Sold page',
    map: 'Map',
    home: 'Home page',
    shortlist: 'Shortlist',
    similar: 'Similar homes',
    recent: 'Recently viewed',
    agent: "Agent's page",
  };
  return `Agency site: ${names[kind] ?? `${kind} page`}`;
}

export function buildReportModel(input: {
  agencyName: string;
  timeZone: string;
  listing: ListingDetail;
  listedDay: string | null;
  since: string;
  today: string;
  visits: ListingVisits;
  leads: ListingLeadCounts;
  typical: TypicalPoint[];
}): ReportModel {
  const { listing, visits, leads, since, today } = input;
  const visitDays = new Map(visits.days.map((day) => [day.day, day]));
  const leadDays = new Map(leads.days.map((day) => [day.day, day]));
  const erasedDays = new Map(leads.erased.map((day) => [day.day, day.leads]));
  const days = daySpan(since, today).map((day): ReportDay => {
    const visit = visitDays.get(day);
    const lead = leadDays.get(day);
    return {
      day,
      views: visit?.detail ?? 0,
      visitors: visit?.visitors ?? 0,
      kept: visit?.kept ?? 0,
      shared: visit?.shared ?? 0,
      enquiries: lead?.enquiry ?? 0,
      registrations: lead?.['open-home'] ?? 0,
      inspections: lead?.inspection ?? 0,
      erasedLeads: erasedDays.get(day) ?? 0,
    };
  });

  const bySource = new Map<VisitSource, number>();
  for (const row of visits.sources) if (row.day >= since && row.day <= today) bySource.set(row.source, (bySource.get(row.source) ?? 0) + row.views);
  const sources = [...bySource]
    .filter(([, views]) => views > 0)
    .map(([source, views]) => ({ source, label: sourceLabel(source), views }))
    .sort((a, b) => b.views - a.views || a.label.localeCompare(b.label));

  const photo = listing.photos[0] ?? listing.photo;
  const address = listing.address.display ?? listing.heading ?? `Listing ${listing.id}`;

  // The listing's running total by days on the market, beside the typical listing's at each age (none without a listed day).
  const start = input.listedDay;
  const typical: ReportModel['typical'] = [];
  let running = 0;
  for (const day of days) {
    if (start === null || day.day < start) continue;
    running += day.views;
    const age = daysBetween(start, day.day);
    const point = input.typical[age];
    typical.push({ day: age, listing: running, typical: point?.median ?? null, listings: point?.listings ?? 0 });
  }

  return {
    agencyName: input.agencyName,
    timeZone: input.timeZone,
    address,
    price: listing.displayPrice,
    photo: photo ? { url: photo.url, width: photo.width, height: photo.height, alt: photo.caption ?? `Photo of ${address}` } : null,
    listedDay: input.listedDay,
    today,
    daysOnMarket: input.listedDay ? daysBetween(input.listedDay, today) : null,
    days,
    sources,
    openHomes: mergeOpenHomes(listing.openHomes, leads),
    typical,
    dropped: visits.dropped,
  };
}

/** The listing's open homes still listed, and those past that took registrations, oldest first. */
function mergeOpenHomes(listed: OpenHome[], leads: ListingLeadCounts): ReportOpenHome[] {
  const merged = new Map<number, ReportOpenHome>();
  for (const openHome of leads.openHomes)
    merged.set(openHome.openHomeId, { id: openHome.openHomeId, start: openHome.start, end: openHome.end, registrations: openHome.registrations });
  for (const openHome of listed) {
    const known = merged.get(openHome.id);
    merged.set(openHome.id, { id: openHome.id, start: openHome.start, end: openHome.end, registrations: known?.registrations ?? 0 });
  }
  return [...merged.values()].sort((a, b) => (a.start ?? '').localeCompare(b.start ?? '') || a.id - b.id);
}
