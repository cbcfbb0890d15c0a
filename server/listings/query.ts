import { z } from 'zod';
import { LISTING_FILTERS, LISTING_FILTER_NAMES, type FilterSpec, type ListingFilterName } from '../../contract/listing-filters.ts';
import type { ListingSort, ListingsQuery } from '../../contract/relay-api.ts';
import { HttpError } from '../http/errors.ts';

export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 24;

/** A query-string number: digits only (no "1e3", no "0x10", no blanks). */
const wholeNumber = (max: number) =>
  z
    .string()
    .regex(/^\d{1,12}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(max, `must be at most ${max}`));
const money = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be an amount such as 650000')
  .transform(Number);
const text = (maxLength: number) => z.string().trim().min(1, 'must not be empty').max(maxLength, `must be at most ${maxLength} characters`);

/** The query-string schema of one filter of the table (contract/listing-filters.ts). */
function filterSchema(spec: FilterSpec): z.ZodType<unknown, string | undefined> {
  switch (spec.kind) {
    case 'choice': {
      const choice = z.enum(spec.values as [string, ...string[]]);
      return spec.fallback === undefined ? choice.optional() : choice.default(spec.fallback);
    }
    case 'text':
      return text(spec.maxLength).optional();
    case 'whole':
      return wholeNumber(spec.max).optional();
    case 'money':
      return money.optional();
  }
}

const filterSchemas = Object.fromEntries(LISTING_FILTER_NAMES.map((name) => [name, filterSchema(LISTING_FILTERS[name])])) as Record<
  ListingFilterName,
  z.ZodType<unknown, string | undefined>
>;

/** GET /api/v1/listings query: every parameter a single string; unknown parameters refused. */
export const listingsQuerySchema = z
  .strictObject({
    ...filterSchemas,
    page: wholeNumber(100_000).pipe(z.number().min(1, 'must be 1 or more')).default(1),
    pageSize: wholeNumber(MAX_PAGE_SIZE).pipe(z.number().min(1, 'must be 1 or more')).default(DEFAULT_PAGE_SIZE),
  })
  .refine((query) => query.minPrice === undefined || query.maxPrice === undefined || (query.minPrice as number) <= (query.maxPrice as number), {
    message: 'must not be below minPrice',
    path: ['maxPrice'],
  });

/** A parsed query: the filters of the table as their values, the ones with a fallback always set. */
export type ParsedListingsQuery = ListingsQuery & Required<Pick<ListingsQuery, 'status' | 'sort' | 'page' | 'pageSize'>>;

/** Parses `req.query`; a bad or unknown parameter is a 400 naming each one. */
export function parseListingsQuery(query: Record<string, unknown>): ParsedListingsQuery {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') fields[name] = 'must be given once, as a plain value';
  }
  if (Object.keys(fields).length === 0) {
    const result = listingsQuerySchema.safeParse(query);
    // The table made the schema, so its output is the table's values (filterSchema's cases).
    if (result.success) return result.data as ParsedListingsQuery;
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) fields[key] = 'is not a listing filter';
      } else {
        const name = String(issue.path[0] ?? 'query');
        fields[name] ??= issue.code === 'invalid_value' ? `must be one of ${issue.values.map(String).join(', ')}` : issue.message;
      }
    }
  }
  throw new HttpError(400, 'invalid_query', `Invalid listing query: ${Object.keys(fields).join(', ')}.`, fields);
}

/*
 * Prices: price_low_cents/price_high_cents hold a shown price exactly and a withheld one as its band
 * (price-range.ts). Sorting by the band's low edge, then id (which says nothing about price), and
 * filtering on band overlap make every answer a function of the band alone.
 */
const ORDER_BY: Record<ListingSort, string> = {
  // Listings without a price (or area) go last whichever way the list runs.
  price: 'price_low_cents IS NULL, price_low_cents ASC, id',
  '-price': 'price_low_cents IS NULL, price_low_cents DESC, id',
  newest: 'inserted_at IS NULL, inserted_at DESC, id DESC',
  suburb: 'suburb IS NULL, suburb ASC, price_low_cents IS NULL, price_low_cents ASC, id',
  landArea: 'land_area_sqm IS NULL, land_area_sqm DESC, id',
};

type FilterWithClause = Exclude<ListingFilterName, 'sort'>;

/**
 * Each filter's SQL (sort is ORDER_BY's): one entry per filter of the table, no more, no less, or
 * the compiler refuses. Placeholders only, never interpolated input.
 */
const FILTER_CLAUSES: { [Name in FilterWithClause]: (value: NonNullable<ParsedListingsQuery[Name]>) => [clause: string, param: unknown] } = {
  status: (status) => ['status = ?', status],
  type: (type) => ['type = ?', type],
  suburb: (suburb) => ['suburb = ?', suburb],
  propertyType: (propertyType) => ['property_type = ?', propertyType],
  // A listing matches when its price, or any part of its band, lies in [minPrice, maxPrice].
  minPrice: (minPrice) => ['price_low_cents IS NOT NULL AND (price_high_cents IS NULL OR price_high_cents >= ?)', cents(minPrice)],
  maxPrice: (maxPrice) => ['price_low_cents <= ?', cents(maxPrice)],
  minBeds: (minBeds) => ['bed >= ?', minBeds],
  minBaths: (minBaths) => ['bath >= ?', minBaths],
  minCars: (minCars) => ['cars >= ?', minCars],
  agentId: (agentId) => ['id IN (SELECT listing_id FROM listing_agents WHERE agent_id = ?)', agentId],
};

/** The SQL of a parsed query: placeholders only, never interpolated input. */
export function listingsSql(query: ParsedListingsQuery): { where: string; params: unknown[]; orderBy: string } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const name of Object.keys(FILTER_CLAUSES) as FilterWithClause[]) {
    const value = query[name];
    if (value === undefined) continue;
    const [clause, param] = (FILTER_CLAUSES[name] as (value: unknown) => [string, unknown])(value);
    clauses.push(clause);
    params.push(param);
  }
  return { where: clauses.join(' AND ') || '1 = 1', params, orderBy: ORDER_BY[query.sort] };
}

function cents(dollars: number): number {
  return Math.round(dollars * 100);
}

/** The distinct price edges of the cached listings, in whole cents, ascending (ListingCache.priceEdges). */
export interface PriceEdges {
  lows: readonly number[];
  highs: readonly number[];
}

/**
 * The query with its price filters moved to the nearest edge that selects the same listings, so
 * that queries that can only give the same answer share one cache entry (minPrice=0.01 and
 * minPrice=0 when no listing is priced at $0; every minPrice between two listings' prices).
 *
 * The clauses above match a listing by its price range: minPrice keeps those whose high edge is
 * at or above it (or open), maxPrice those whose low edge is at or below it. A shown price is its
 * own edge (to the cent) and a withheld one its band's (price-range.ts), so the edges are not the
 * band grid but the values in the cache: between two consecutive high edges every minPrice keeps
 * the same listings, and likewise maxPrice between two low edges. So minPrice goes up to the
 * smallest high edge at or above it (past the largest: one above it), maxPrice down to the largest
 * low edge at or below it (below the smallest: -0.01, which nothing matches). Which listings match
 * does not change; the answer does not echo the filters, so its bytes do not either. The edges
 * come from the cache as it is now: the answers built on them are dropped with every change.
 */
export function snapPriceFilters(query: ParsedListingsQuery, edges: PriceEdges): ParsedListingsQuery {
  if (query.minPrice === undefined && query.maxPrice === undefined) return query;
  const snapped = { ...query };
  if (query.minPrice !== undefined) {
    const wanted = cents(query.minPrice);
    const index = firstAtOrAbove(edges.highs, wanted);
    const edge = index < edges.highs.length ? edges.highs[index]! : edges.highs.length ? edges.highs.at(-1)! + 1 : 0;
    snapped.minPrice = edge / 100;
  }
  if (query.maxPrice !== undefined) {
    const wanted = cents(query.maxPrice);
    const index = firstAtOrAbove(edges.lows, wanted + 1) - 1;
    snapped.maxPrice = (index >= 0 ? edges.lows[index]! : -1) / 100;
  }
  return snapped;
}

/** The index of the first value at or above `value` in an ascending list (its length when none is). */
function firstAtOrAbove(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A stable key of a parsed query (the response cache's key). */
export function queryKey(query: ParsedListingsQuery): string {
  return JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)));
}
