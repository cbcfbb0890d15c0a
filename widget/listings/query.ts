import {
  formatBoundingBox,
  isNumericFilter,
  listItems,
  LISTING_FILTER_NAMES,
  LISTING_FILTERS,
  parseBoundingBox,
  type FilterSpec,
  type ListingFilterName,
} from '../../contract/listing-filters.ts';
import type { ListingSort, ListingsQuery } from '../../contract/relay-api.ts';

/**
 * The listings query in its three shapes: element properties (from attributes), the relay's
 * query string, and the host page's URL (so a filtered, paged view is a link that works and the
 * back button restores it). Everything is validated here, by the relay's own filter table
 * (contract/listing-filters.ts); a hand-edited URL cannot make the element send nonsense to the relay.
 */

/**
 * The drawn-area rule (contract/drawn-area.ts canonicalArea), once area-rule.ts has run: a list
 * without a drawn area never downloads it. Until then an area is kept as given, and a list does
 * not send it (listings.ts waits for the rule).
 */
let areaRule: ((text: string) => string | undefined) | undefined;

/** Called by area-rule.ts (and the map, which carries the rule) as it runs. */
export function useAreaRule(rule: (text: string) => string | undefined): void {
  areaRule = rule;
}

/** True until the drawn-area rule has come: an area is not yet checked. */
export function areaRuleMissing(): boolean {
  return !areaRule;
}

export const SORTS: readonly ListingSort[] = LISTING_FILTERS.sort.values;

/** Filters a visitor can set in the filter bar, in the bar's order. */
export const BAR_FILTERS = [
  'type',
  'suburb',
  'propertyType',
  'minPrice',
  'maxPrice',
  'minBeds',
  'minBaths',
  'minCars',
  'minLand',
  'keywords',
  'sort',
] as const satisfies readonly QueryKey[];
export type BarFilter = (typeof BAR_FILTERS)[number];
/** What an empty `filters` attribute shows: the page usually fixes buy or rent. */
export const DEFAULT_BAR_FILTERS: readonly BarFilter[] = BAR_FILTERS.filter((name) => name !== 'type');

/** A filter's name: the relay's query key, the element's property and (under a prefix) the URL parameter. */
export type QueryKey = ListingFilterName;
export const QUERY_KEYS: readonly QueryKey[] = LISTING_FILTER_NAMES;

/** The element's filter properties: each filter's value, null when unset. */
export type FilterProperties = { [Name in QueryKey]: NonNullable<ListingsQuery[Name]> | null };

/** Parses the `filters` attribute: empty means the default set; names may be camelCase or kebab-case. */
export function parseBarFilters(attribute: string | null | undefined): BarFilter[] {
  if (attribute === null || attribute === undefined) return [];
  const tokens = attribute
    .split(/[\s,]+/)
    .map((token) => token.trim().replace(/-([a-z])/g, (_whole, letter: string) => letter.toUpperCase()))
    .filter(Boolean);
  if (tokens.length === 0 || tokens.includes('all')) return [...DEFAULT_BAR_FILTERS];
  return BAR_FILTERS.filter((name) => tokens.includes(name));
}

/** A whole number ≥ 0, or undefined for anything else (NaN, negatives, "abc", ""). */
export function cleanCount(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(number) && number >= 0 ? Math.floor(number) : undefined;
}

/** One query value, cleaned: undefined when it is not valid for that key. */
export function cleanValue(key: QueryKey, value: unknown): string | number | undefined {
  if (isNumericFilter(key)) {
    const number = cleanCount(value);
    // A zero minimum is "any"; an agent id of 0 does not exist.
    return number ? number : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (!text) return undefined;
  const spec: FilterSpec = LISTING_FILTERS[key];
  if (spec.kind === 'choice') return spec.values.includes(text) ? text : undefined;
  if (spec.kind === 'bbox') {
    const box = parseBoundingBox(text);
    return typeof box === 'string' ? undefined : formatBoundingBox(box);
  }
  // Kept as given until its rule comes; never sent so (areaRuleMissing).
  if (spec.kind === 'area') return areaRule ? areaRule(text) : text;
  if (spec.kind === 'list') {
    const items = listItems(text)
      .map((item) => item.slice(0, spec.maxLength))
      .slice(0, spec.maxItems);
    return items.length ? items.join(',') : undefined;
  }
  return spec.kind === 'text' ? text.slice(0, spec.maxLength) : undefined;
}

/** The relay query from loose values (element properties), with only valid entries. */
export function buildQuery(values: Partial<Record<QueryKey, unknown>>, page: unknown, pageSize: unknown): ListingsQuery {
  const query: Record<string, string | number> = {};
  for (const key of QUERY_KEYS) {
    const value = cleanValue(key, values[key]);
    if (value !== undefined) query[key] = value;
  }
  query.page = Math.max(1, cleanCount(page) ?? 1);
  query.pageSize = Math.min(100, Math.max(1, cleanCount(pageSize) ?? 12));
  return query as ListingsQuery;
}

export function toSearchParams(query: ListingsQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  return params;
}
