/**
 * What the visits module tells the rest of the relay (the seller's report above all): counts per
 * listing per day, in the agency's time zone, never a visitor. Days are `YYYY-MM-DD` strings.
 */

/** Where a view came from: the agency's own page kind (`page:buy`, `page:listing`), a campaign (`utm:<utm_source>`), or a shared link. */
export type VisitSource = `page:${string}` | `utm:${string}` | 'shared';

/** One listing's counts on one day. */
export interface ListingDay {
  day: string;
  /** Its detail shown (the listing element or its server-rendered page). */
  detail: number;
  /** Estimated unique visitors among those detail views (a salted daily hash; never a person). */
  visitors: number;
  /** Its card shown in a list. */
  card: number;
  /** Its card shown on the map. */
  mapCard: number;
  /** Its photos opened (the gallery's lightbox). */
  photos: number;
  /** Kept with a heart. */
  kept: number;
  /** An open home added to a calendar. */
  calendar: number;
  /** Shared (the share button, or a copied link). */
  shared: number;
}

/** Detail views by where they came from, one row per day and source. */
export interface ListingSourceDay {
  day: string;
  source: VisitSource;
  views: number;
}

export interface ListingVisits {
  /** Days with any count, oldest first; days without are absent. */
  days: ListingDay[];
  sources: ListingSourceDay[];
  /** Events the relay set aside unwritten for this agency in the range (a full buffer): the counts are at least this far short. */
  dropped: number;
}

/** A closed day range, both ends included. */
export interface DayRange {
  since: string;
  until: string;
}

/** The read side of the visits module (server/visits/): what the report may know. */
export interface VisitCounts {
  forListing(listingId: number, range: DayRange): Promise<ListingVisits>;
  /** Every listing's detail views by day in the range (rows only where detail > 0): the agency's typical listing is drawn from these. */
  dailyDetailViews(range: DayRange): Promise<Array<{ listingId: number; day: string; detail: number }>>;
}
