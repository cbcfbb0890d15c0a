// Issue 24, item 4: price filters are moved to the price edges of the cache, so equivalent queries
// share one cache entry, and the move never changes which listings match (brute force against the
// clauses' own rule, on random ranges: shown prices to the cent and withheld ones as bands).
import { describe, expect, it } from 'vitest';
import { SALE_PRICE_STEPS } from '../../contract/price-bands.ts';
import { priceRange } from '../../server/listings/price-range.ts';
import { parseListingsQuery, queryKey, snapPriceFilters, type PriceEdges } from '../../server/listings/query.ts';

interface Range {
  low: number | null;
  high: number | null;
}

/** The SQL clauses of query.ts, in cents: minPrice keeps high ≥ it (or open), maxPrice keeps low ≤ it; no price never matches. */
function matches(range: Range, min: number | undefined, max: number | undefined): boolean {
  if (min !== undefined && (range.low === null || (range.high !== null && range.high < Math.round(min * 100)))) return false;
  if (max !== undefined && (range.low === null || range.low > Math.round(max * 100))) return false;
  return true;
}

function edgesOf(ranges: Range[]): PriceEdges {
  const sorted = (values: Array<number | null>) => [...new Set(values.filter((value): value is number => value !== null))].sort((a, b) => a - b);
  return { lows: sorted(ranges.map((range) => range.low)), highs: sorted(ranges.map((range) => range.high)) };
}

function randomRanges(count: number, random: () => number): Range[] {
  return Array.from({ length: count }, () => {
    const price = Math.round(random() * 12_000_000 * 100) / 100;
    const kind = random();
    if (kind < 0.1) return { low: null, high: null };
    const range = priceRange(price, kind < 0.55 ? `$${price}` : 'Contact Agent', 'sale');
    return { low: range!.lowCents, high: range!.highCents };
  });
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

describe('snapPriceFilters', () => {
  it('never changes which listings match (random listings and filters, edges and their neighbours)', () => {
    const random = seeded(24);
    for (let round = 0; round < 30; round++) {
      const ranges = randomRanges(round === 0 ? 0 : 1 + Math.floor(random() * 60), random);
      const edges = edgesOf(ranges);
      const candidates = [
        0,
        0.01,
        ...SALE_PRICE_STEPS,
        ...edges.lows.flatMap((cents) => [cents - 1, cents, cents + 1].map((value) => value / 100)),
        ...edges.highs.flatMap((cents) => [cents - 1, cents, cents + 1].map((value) => value / 100)),
        ...Array.from({ length: 20 }, () => Math.round(random() * 13_000_000 * 100) / 100),
      ].filter((value) => value >= 0);
      for (let i = 0; i < 200; i++) {
        const pick = () => (random() < 0.3 ? undefined : candidates[Math.floor(random() * candidates.length)]);
        let min = pick();
        let max = pick();
        if (min !== undefined && max !== undefined && min > max) [min, max] = [max, min];
        const query = parseListingsQuery({ ...(min !== undefined ? { minPrice: String(min) } : {}), ...(max !== undefined ? { maxPrice: String(max) } : {}) });
        const snapped = snapPriceFilters(query, edges);
        for (const range of ranges) expect(matches(range, snapped.minPrice, snapped.maxPrice)).toBe(matches(range, query.minPrice, query.maxPrice));
      }
    }
  });

  it('gives minPrice=0 and minPrice=0.01 one key when no listing is priced at $0, and every minPrice up to the lowest price', () => {
    const ranges: Range[] = [
      { low: 65_000_000, high: 65_000_000 }, // $650,000 shown
      { low: 80_000_000, high: 89_999_999 }, // withheld, in the $800k band
      { low: null, high: null },
    ];
    const edges = edgesOf(ranges);
    const key = (minPrice: string) => queryKey(snapPriceFilters(parseListingsQuery({ minPrice }), edges));
    expect(key('0.01')).toBe(key('0'));
    expect(key('649999.99')).toBe(key('0'));
    expect(key('650000')).toBe(key('0'));
    expect(key('650000.01')).not.toBe(key('0'));
    expect(key('650000.01')).toBe(key('899999.99'));
    expect(key('900000')).toBe(key('12000000'));
    // A listing shown at $0: then 0 and 0.01 differ, and their keys do too.
    const withZero = edgesOf([...ranges, { low: 0, high: 0 }]);
    expect(queryKey(snapPriceFilters(parseListingsQuery({ minPrice: '0.01' }), withZero))).not.toBe(
      queryKey(snapPriceFilters(parseListingsQuery({ minPrice: '0' }), withZero)),
    );
  });
});
