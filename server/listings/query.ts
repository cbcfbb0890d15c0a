import { z } from 'zod';
import {
  formatBoundingBox,
  listItems,
  LISTING_FILTERS,
  LISTING_FILTER_NAMES,
  parseBoundingBox,
  type BoundingBox,
  type FilterSpec,
  type ListingFilterName,
} from '../../contract/listing-filters.ts';
import type { ListingSort, ListingsQuery } from '../../contract/relay-api.ts';
import { formatArea, parseArea, type AreaPoint } from '../../contract/drawn-area.ts';
import { HttpError } from '../http/errors.ts';
import { keywordClause } from './keywords.ts';

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
/** `west,south,east,north`, checked (contract/listing-filters.ts) and spelled canonically. */
const boundingBox = z
  .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be given once, as a plain value') })
  .transform((value, context) => {
    const box = parseBoundingBox(value);
    if (typeof box !== 'string') return formatBoundingBox(box);
    context.addIssue({ code: 'custom', message: box });
    return z.NEVER;
  });
/** `lat,lng;…`, checked (contract/drawn-area.ts) and spelled canonically. */
const drawnArea = z.string().transform((value, context) => {
  const area = parseArea(value);
  if (typeof area !== 'string') return formatArea(area);
  context.addIssue({ code: 'custom', message: area });
  return z.NEVER;
});
const text = (maxLength: number) => z.string().trim().min(1, 'must not be empty').max(maxLength, `must be at most ${maxLength} characters`);
/** Names separated by commas, each checked, spelled canonically: none twice, in the order given. */
const list = (maxItems: number, maxLength: number) =>
  z.string().transform((value, context) => {
    const items = listItems(value);
    const problem =
      items.length === 0
        ? 'must name at least one'
        : items.length > maxItems
          ? `must name at most ${maxItems}`
          : items.some((item) => item.length > maxLength)
            ? `must be names of at most ${maxLength} characters each`
            : undefined;
    if (problem === undefined) return items.join(',');
    context.addIssue({ code: 'custom', message: problem });
    return z.NEVER;
  });

/** The query-string schema of one filter of the table (contract/listing-filters.ts). */
function filterSchema(spec: FilterSpec): z.ZodType<unknown, string | undefined> {
  switch (spec.kind) {
    case 'choice': {
      const choice = z.enum(spec.values as [string, ...string[]]);
      return spec.fallback === undefined ? choice.optional() : choice.default(spec.fallback);
    }
    case 'text':
      return text(spec.maxLength).optional();
    case 'list':
      return list(spec.maxItems, spec.maxLength).optional();
    case 'whole':
      return wholeNumber(spec.max).optional();
    case 'money':
      return money.optional();
    case 'bbox':
      return boundingBox.optional();
    case 'area':
      return drawnArea.optional();
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
  // The table made the schema, so its output is the table's values (filterSchema's cases).
  return parseQuery(listingsQuerySchema, query, 'listing') as ParsedListingsQuery;
}

/** Whole zoom levels a map asks at (web maps' usual 0-20; the clusters stop changing past MAP_MAX_ZOOM + 1). */
export const MAP_ZOOM_MAX = 20;

/** GET /api/v1/listings/map query: the listing filters, bbox and zoom required; no paging. */
export const mapQuerySchema = z.strictObject({
  ...filterSchemas,
  bbox: boundingBox,
  zoom: z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be given once, as a plain value') }).pipe(wholeNumber(MAP_ZOOM_MAX)),
});

export interface ParsedMapQuery {
  /** The filters (bbox not among them: the map is clustered over all of them, then cut to the box). */
  filters: ParsedListingsQuery;
  box: BoundingBox;
  zoom: number;
}

/** Parses the map's `req.query` (a 400 names each bad or unknown parameter, and a missing bbox or zoom). */
export function parseMapQuery(query: Record<string, unknown>): ParsedMapQuery {
  const { bbox, zoom, sort: _sort, ...filters } = parseQuery(mapQuerySchema, query, 'map') as ParsedListingsQuery & { bbox: string; zoom: number };
  // The map has no order and no pages: one spelling of the filters whatever sort was asked.
  return { filters: { ...filters, sort: 'newest', page: 1, pageSize: DEFAULT_PAGE_SIZE }, box: boxOf(bbox), zoom };
}

function parseQuery(schema: z.ZodType<unknown, unknown>, query: Record<string, unknown>, what: string): unknown {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') fields[name] = 'must be given once, as a plain value';
  }
  if (Object.keys(fields).length === 0) {
    const result = schema.safeParse(query);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) fields[key] = `is not a ${what} filter`;
      } else {
        const name = String(issue.path[0] ?? 'query');
        fields[name] ??= issue.code === 'invalid_value' ? `must be one of ${issue.values.map(String).join(', ')}` : issue.message;
      }
    }
  }
  throw new HttpError(400, 'invalid_query', `Invalid ${what} query: ${Object.keys(fields).join(', ')}.`, fields);
}

/*
 * Prices. Filters: price_low_cents/price_high_cents hold a shown price exactly and a withheld one as
 * its band (price-range.ts); filtering on band overlap makes every answer a function of the band
 * alone, the band being no finer than the filter bar's own steps (docs/api.md).
 *
 * Sorting: by shown_price_cents, the price as the card shows it (price-range.ts, shownPriceCents: a
 * range by its lower bound), never by the CRM's search price or its band. A listing whose card shows
 * no amount ("Contact agent", "Auction") goes last whichever way the list runs, among the others by
 * id, which says nothing about price: the order then tells no more than the cards do.
 */
const ORDER_BY: Record<ListingSort, string> = {
  // Listings without a shown price (or area) go last whichever way the list runs.
  price: 'shown_price_cents IS NULL, shown_price_cents ASC, id',
  '-price': 'shown_price_cents IS NULL, shown_price_cents DESC, id',
  newest: 'inserted_at IS NULL, inserted_at DESC, id DESC',
  suburb: 'suburb IS NULL, suburb ASC, shown_price_cents IS NULL, shown_price_cents ASC, id',
  landArea: 'land_area_sqm IS NULL, land_area_sqm DESC, id',
};

type FilterWithClause = Exclude<ListingFilterName, 'sort'>;

/** What a filter's SQL may ask beyond the listing cache: which listings are placed where (the places module, through its port). */
export interface FilterContext {
  /** Ids of the listings placed inside a box (none when nothing places listings). */
  placedWithin(box: BoundingBox): readonly number[];
  /** Ids of the listings whose shown position is inside a drawn outline (none when nothing places listings). */
  placedInArea(area: readonly AreaPoint[]): readonly number[];
  /** The suburbs around these (surrounding.ts), theirs not among them; none when nothing places suburbs. */
  surroundingSuburbs?(suburbs: readonly string[]): readonly string[];
}

/** A box spelled as the filter's canonical value ("west,south,east,north"), or EMPTY_BOX. */
function boxOf(value: string): BoundingBox {
  const [west, south, east, north] = value.split(',').map(Number) as [number, number, number, number];
  return { west, south, east, north };
}
/** A bbox that holds no placed listing, whatever it was (snapBoxFilter): all such share one cache entry. */
export const EMPTY_BOX = 'empty';

/**
 * Each filter's SQL (sort is ORDER_BY's): one entry per filter of the table, no more, no less, or
 * the compiler refuses. Placeholders only, never interpolated input.
 */
const FILTER_CLAUSES: {
  [Name in FilterWithClause]: (
    value: NonNullable<ParsedListingsQuery[Name]>,
    context: FilterContext,
    query: ParsedListingsQuery,
  ) => [clause: string, ...params: unknown[]];
} = {
  status: (status) => ['status = ?', status],
  type: (type) => ['type = ?', type],
  // Any of the suburbs (the column's NOCASE collation applies to IN), and with `surrounding` the ones around them.
  suburb: (suburb, context, query) => {
    const named = suburb.split(',');
    const around = query.surrounding === 'true' ? (context.surroundingSuburbs?.(named) ?? []) : [];
    return ['suburb IN (SELECT value FROM json_each(?))', JSON.stringify([...named, ...around])];
  },
  // Read by the suburb clause; alone (no suburb named) it selects every listing.
  surrounding: () => ['1 = 1'],
  propertyType: (propertyType) => ['property_type = ?', propertyType],
  // Unknown land areas (null) never match a minimum.
  minLand: (minLand) => ['land_area_sqm >= ?', minLand],
  // Each word somewhere in the heading, description or highlights, letter case ignored (keywords.ts).
  keywords: (keywords) => keywordClause(keywords),
  // A listing matches when its price, or any part of its band, lies in [minPrice, maxPrice].
  minPrice: (minPrice) => ['price_low_cents IS NOT NULL AND (price_high_cents IS NULL OR price_high_cents >= ?)', cents(minPrice)],
  maxPrice: (maxPrice) => ['price_low_cents <= ?', cents(maxPrice)],
  minBeds: (minBeds) => ['bed >= ?', minBeds],
  minBaths: (minBaths) => ['bath >= ?', minBaths],
  minCars: (minCars) => ['cars >= ?', minCars],
  agentId: (agentId) => ['id IN (SELECT listing_id FROM listing_agents WHERE agent_id = ?)', agentId],
  // Positions are the places module's (its tables are its own): the ids it places inside the box.
  bbox: (bbox, context) => ['id IN (SELECT value FROM json_each(?))', JSON.stringify(bbox === EMPTY_BOX ? [] : context.placedWithin(boxOf(bbox)))],
  // Likewise a drawn outline: by the position the card shows (a withheld address's is its suburb's), never a hidden one.
  area: (area, context) => ['id IN (SELECT value FROM json_each(?))', JSON.stringify(context.placedInArea(parseArea(area) as AreaPoint[]))],
};

/** The SQL of a parsed query: placeholders only, never interpolated input. */
export function listingsSql(query: ParsedListingsQuery, context: FilterContext): { where: string; params: unknown[]; orderBy: string } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const name of Object.keys(FILTER_CLAUSES) as FilterWithClause[]) {
    const value = query[name];
    if (value === undefined) continue;
    const [clause, ...values] = (FILTER_CLAUSES[name] as (value: unknown, context: FilterContext, query: ParsedListingsQuery) => [string, ...unknown[]])(
      value,
      context,
      query,
    );
    clauses.push(clause);
    params.push(...values);
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

/** The distinct latitudes and longitudes of the placed listings, ascending (ListingPlacements.edges). */
export interface PlaceEdges {
  lats: readonly number[];
  lngs: readonly number[];
}

/**
 * The query with its bbox moved to the placed listings' own coordinates, so that boxes that hold
 * the same listings share one cache entry (a map panned by a pixel asks a new box each time). As
 * for prices: each edge keeps the listings on one side of it, so it may move up to the nearest
 * coordinate of a placed listing (west and south up to the smallest at or above them, east and
 * north down to the largest at or below them) without changing which listings each edge keeps, nor
 * so the box. A box that holds none becomes EMPTY_BOX. A box across the antimeridian (west above
 * east) keeps what lies east of west or west of east: each side snaps alone, an empty side to the
 * edge of the world (180, or -180, which hold no listing then).
 */
export function snapBoxFilter(query: ParsedListingsQuery, edges: PlaceEdges): ParsedListingsQuery {
  if (query.bbox === undefined || query.bbox === EMPTY_BOX) return query;
  const box = boxOf(query.bbox);
  const south = atOrAbove(edges.lats, box.south);
  const north = atOrBelow(edges.lats, box.north);
  const west = atOrAbove(edges.lngs, box.west);
  const east = atOrBelow(edges.lngs, box.east);
  const empty = { ...query, bbox: EMPTY_BOX };
  if (south === undefined || north === undefined || south > north) return empty;
  if (box.west <= box.east) {
    if (west === undefined || east === undefined || west > east) return empty;
    return { ...query, bbox: formatBoundingBox({ west, south, east, north }) };
  }
  if (west === undefined && east === undefined) return empty;
  return { ...query, bbox: formatBoundingBox({ west: west ?? 180, south, east: east ?? -180, north }) };
}

function atOrAbove(sorted: readonly number[], value: number): number | undefined {
  return sorted[firstAtOrAbove(sorted, value)];
}

function atOrBelow(sorted: readonly number[], value: number): number | undefined {
  const index = firstAbove(sorted, value) - 1;
  return index >= 0 ? sorted[index] : undefined;
}

/** The index of the first value above `value` in an ascending list (its length when none is). */
function firstAbove(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A stable key of a parsed query (the response cache's key). */
export function queryKey(query: ParsedListingsQuery): string {
  return JSON.stringify(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)));
}
