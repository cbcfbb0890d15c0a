/**
 * The listing filters, once: each one's name (the relay's query key and the element's property),
 * kind, bounds and the element's attribute. The relay's query schema and SQL, the widget's query
 * keys, attributes and URL parameters are all made from this table, so a new filter is one entry
 * here, one SQL clause on the server (which the compiler asks for) and its words in the filter bar.
 *
 * Plain data, no validator library: the widget imports it at a few hundred bytes.
 */

interface FilterBase {
  /** The element's attribute (kebab-case of the name). */
  attribute: string;
}
/** One of a fixed list of words; `fallback` is what the relay uses when it is not given. */
export interface ChoiceFilter extends FilterBase {
  kind: 'choice';
  values: readonly string[];
  fallback?: string;
}
/** Free text (a suburb, a property type), trimmed, at most `maxLength` characters. */
export interface TextFilter extends FilterBase {
  kind: 'text';
  maxLength: number;
}
/**
 * Several names in one value, comma-separated ("Kew,Hawthorn"): each trimmed, at most `maxLength`
 * characters, at most `maxItems` of them. A listing matches when it is in any of them.
 */
export interface ListFilter extends FilterBase {
  kind: 'list';
  maxItems: number;
  maxLength: number;
}
/** A whole number from 0 to `max` (a count of bedrooms, an id). */
export interface WholeFilter extends FilterBase {
  kind: 'whole';
  max: number;
}
/** Dollars, whole or with cents. */
export interface MoneyFilter extends FilterBase {
  kind: 'money';
}
/**
 * A map's bounding box, `west,south,east,north` in degrees (longitudes −180..180, latitudes
 * −90..90, south below north; west above east crosses the antimeridian): placed listings inside it.
 */
export interface BoxFilter extends FilterBase {
  kind: 'bbox';
}
/** An area drawn on the map, `lat,lng;lat,lng;…` (contract/drawn-area.ts): placed listings inside its outline. */
export interface AreaFilter extends FilterBase {
  kind: 'area';
}
export type FilterSpec = ChoiceFilter | TextFilter | ListFilter | WholeFilter | MoneyFilter | BoxFilter | AreaFilter;

const COUNT_MAX = 50;
/** The most suburbs one search names (the saved-search requirement's list stays readable: AREA_SUBURBS_MAX). */
export const SUBURBS_MAX = 12;
/** Square metres: past any title (100 km²), small enough to stay exact. */
const LAND_MAX = 100_000_000;

export const LISTING_FILTERS = {
  type: { kind: 'choice', values: ['sale', 'lease'], attribute: 'type' },
  status: { kind: 'choice', values: ['available', 'sold', 'leased'], fallback: 'available', attribute: 'status' },
  suburb: { kind: 'list', maxItems: SUBURBS_MAX, maxLength: 80, attribute: 'suburb' },
  // With suburbs: theirs and the suburbs around them (server/listings/surrounding.ts).
  surrounding: { kind: 'choice', values: ['true'], attribute: 'surrounding' },
  minPrice: { kind: 'money', attribute: 'min-price' },
  maxPrice: { kind: 'money', attribute: 'max-price' },
  minBeds: { kind: 'whole', max: COUNT_MAX, attribute: 'min-beds' },
  minBaths: { kind: 'whole', max: COUNT_MAX, attribute: 'min-baths' },
  minCars: { kind: 'whole', max: COUNT_MAX, attribute: 'min-cars' },
  propertyType: { kind: 'text', maxLength: 80, attribute: 'property-type' },
  // Square metres of land at least: a listing whose land area is not known never matches.
  minLand: { kind: 'whole', max: LAND_MAX, attribute: 'min-land' },
  // Words each found in the heading, the description or the highlights ("pool", "north facing").
  keywords: { kind: 'text', maxLength: 100, attribute: 'keywords' },
  agentId: { kind: 'whole', max: Number.MAX_SAFE_INTEGER, attribute: 'agent-id' },
  bbox: { kind: 'bbox', attribute: 'bbox' },
  // An outline drawn on the map ("Draw an area"), by the position each listing's card shows.
  area: { kind: 'area', attribute: 'area' },
  sort: { kind: 'choice', values: ['newest', 'price', '-price', 'suburb', 'landArea'], fallback: 'newest', attribute: 'sort' },
} as const satisfies Record<string, FilterSpec>;

export type ListingFilterName = keyof typeof LISTING_FILTERS;
export const LISTING_FILTER_NAMES = Object.keys(LISTING_FILTERS) as ListingFilterName[];

/** The value a filter takes: its words for a choice, a string for text, a number otherwise. */
export type FilterValue<Spec extends FilterSpec> = Spec extends { kind: 'choice'; values: readonly (infer Word)[] }
  ? Word
  : Spec extends TextFilter | ListFilter | BoxFilter | AreaFilter
    ? string
    : number;

/** Every filter, optional: the filter part of `ListingsQuery`. */
export type ListingFilters = { -readonly [Name in ListingFilterName]?: FilterValue<(typeof LISTING_FILTERS)[Name]> };

/** The filters that are numbers (the element's `Number` properties). */
export function isNumericFilter(name: ListingFilterName): boolean {
  const { kind } = LISTING_FILTERS[name] as FilterSpec;
  return kind === 'whole' || kind === 'money';
}

/** A bounding box's edges, in degrees. */
export interface BoundingBox {
  west: number;
  south: number;
  east: number;
  north: number;
}

const DEGREES = /^-?\d{1,3}(\.\d{1,15})?$/;

/**
 * Reads `west,south,east,north`: the box, or what is wrong with it (the relay's 400 says it; the
 * widget drops the value). Plain decimals only (no exponents, no blanks inside).
 */
export function parseBoundingBox(text: string): BoundingBox | string {
  const parts = text.trim().split(',');
  if (parts.length !== 4 || !parts.every((part) => DEGREES.test(part.trim()))) return 'must be west,south,east,north in decimal degrees';
  const [west, south, east, north] = parts.map(Number) as [number, number, number, number];
  if (west < -180 || west > 180 || east < -180 || east > 180) return 'west and east must be from -180 to 180';
  if (south < -90 || south > 90 || north < -90 || north > 90) return 'south and north must be from -90 to 90';
  if (south >= north) return 'south must be below north';
  return { west, south, east, north };
}

/** A box written as the query parameter, numbers as JavaScript prints them (the canonical spelling). */
export function formatBoundingBox(box: BoundingBox): string {
  return `${box.west},${box.south},${box.east},${box.north}`;
}

/**
 * The names of a list filter's value ("Kew, Hawthorn ,kew" → ["Kew", "Hawthorn"]): trimmed, blanks
 * folded, none twice (letter case ignored), empty ones dropped. The relay refuses a value past the
 * spec's limits; the widget keeps the first ones.
 */
export function listItems(value: string): string[] {
  const seen = new Set<string>();
  const items: string[] = [];
  for (const part of value.split(',')) {
    const item = part.trim().replace(/\s+/g, ' ');
    const key = item.toLowerCase();
    if (!item || seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return items;
}
