import { addDays } from './days.ts';

/** The agency's typical listing at one number of days on the market. */
export interface TypicalPoint {
  /** Days on the market (0: the day it was listed). */
  day: number;
  /** The median of the comparable listings' cumulative detail views by then; null while none is that old. */
  median: number | null;
  /** How many listings the median is of. */
  listings: number;
}

/**
 * The agency's typical listing (issue 32): for each number of days on the market from 0 to `days`,
 * the median of every comparable listing's cumulative detail views at that age. A listing counts at
 * an age only once it has reached it and when its whole life since listing lies within the counts
 * (listed on or after `countedSince`), so a listing whose early days were never counted does not
 * pull the median down. Listings without any view count as 0: the typical listing is not only the
 * ones that were seen.
 */
export function typicalListing(options: {
  /** Each comparable listing's listed day (its agency's day). */
  listed: ReadonlyMap<number, string>;
  /** Every listing's detail views by day (rows only where detail > 0). */
  views: ReadonlyArray<{ listingId: number; day: string; detail: number }>;
  countedSince: string;
  today: string;
  days: number;
}): TypicalPoint[] {
  const byListing = new Map<number, Map<string, number>>();
  for (const row of options.views) {
    if (!options.listed.has(row.listingId)) continue;
    let days = byListing.get(row.listingId);
    if (!days) byListing.set(row.listingId, (days = new Map()));
    days.set(row.day, (days.get(row.day) ?? 0) + row.detail);
  }
  // Each listing's running total, day by day from its listing to today (or to the ages asked).
  const totals: number[][] = [];
  for (const [listingId, listedDay] of options.listed) {
    if (listedDay < options.countedSince || listedDay > options.today) continue;
    const views = byListing.get(listingId);
    const running: number[] = [];
    let total = 0;
    for (let age = 0; age <= options.days; age++) {
      const day = addDays(listedDay, age);
      if (day > options.today) break;
      total += views?.get(day) ?? 0;
      running.push(total);
    }
    totals.push(running);
  }
  const points: TypicalPoint[] = [];
  for (let age = 0; age <= options.days; age++) {
    const values = totals.filter((running) => running.length > age).map((running) => running[age]!);
    points.push({ day: age, median: median(values), listings: values.length });
  }
  return points;
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
