import { z } from 'zod';
import type { ListingSort, ListingsQuery } from '../../contract/relay-api.ts';
import { HttpError } from '../errors.ts';

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
const text = z.string().trim().min(1, 'must not be empty').max(80, 'must be at most 80 characters');

/** GET /api/v1/listings query: every parameter a single string; unknown parameters refused. */
export const listingsQuerySchema = z
  .strictObject({
    type: z.enum(['sale', 'lease']).optional(),
    status: z.enum(['available', 'sold', 'leased']).default('available'),
    suburb: text.optional(),
    minPrice: money.optional(),
    maxPrice: money.optional(),
    minBeds: wholeNumber(50).optional(),
    minBaths: wholeNumber(50).optional(),
    minCars: wholeNumber(50).optional(),
    propertyType: text.optional(),
    agentId: wholeNumber(Number.MAX_SAFE_INTEGER).optional(),
    sort: z.enum(['price', '-price', 'newest', 'suburb', 'landArea'] satisfies ListingSort[]).default('newest'),
    page: wholeNumber(100_000).pipe(z.number().min(1, 'must be 1 or more')).default(1),
    pageSize: wholeNumber(MAX_PAGE_SIZE).pipe(z.number().min(1, 'must be 1 or more')).default(DEFAULT_PAGE_SIZE),
  })
  .refine((query) => query.minPrice === undefined || query.maxPrice === undefined || query.minPrice <= query.maxPrice, {
    message: 'must not be below minPrice',
    path: ['maxPrice'],
  });

export type ParsedListingsQuery = z.infer<typeof listingsQuerySchema> & Required<Pick<ListingsQuery, 'status' | 'sort' | 'page' | 'pageSize'>>;

/** Parses `req.query`; a bad or unknown parameter is a 400 naming each one. */
export function parseListingsQuery(query: Record<string, unknown>): ParsedListingsQuery {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') fields[name] = 'must be given once, as a plain value';
  }
  if (Object.keys(fields).length === 0) {
    const result = listingsQuerySchema.safeParse(query);
    if (result.success) return result.data;
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

/** The SQL of a parsed query: placeholders only, never interpolated input. */
export function listingsSql(query: ParsedListingsQuery): { where: string; params: unknown[]; orderBy: string } {
  const clauses = ['status = ?'];
  const params: unknown[] = [query.status];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    params.push(value);
  };
  if (query.type) add('type = ?', query.type);
  if (query.suburb) add('suburb = ?', query.suburb);
  if (query.propertyType) add('property_type = ?', query.propertyType);
  // A listing matches when its price, or any part of its band, lies in [minPrice, maxPrice].
  if (query.minPrice !== undefined) add('price_low_cents IS NOT NULL AND (price_high_cents IS NULL OR price_high_cents >= ?)', cents(query.minPrice));
  if (query.maxPrice !== undefined) add('price_low_cents <= ?', cents(query.maxPrice));
  if (query.minBeds !== undefined) add('bed >= ?', query.minBeds);
  if (query.minBaths !== undefined) add('bath >= ?', query.minBaths);
  if (query.minCars !== undefined) add('cars >= ?', query.minCars);
  if (query.agentId !== undefined) add('id IN (SELECT listing_id FROM listing_agents WHERE agent_id = ?)', query.agentId);
  return { where: clauses.join(' AND '), params, orderBy: ORDER_BY[query.sort] };
}

function cents(dollars: number): number {
  return Math.round(dollars * 100);
}

/** A stable key of a parsed query (the response cache's key). */
export function queryKey(query: ParsedListingsQuery): string {
  return JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)));
}
