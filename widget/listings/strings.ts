import type { PluralForms } from '../shared/format.ts';
import listingsLoaders from '../i18n/sections/listings.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';
import type { ListingSort } from '../../contract/relay-api.ts';

/**
 * Every word `<estate-listings>` shows. Hosts override any of them with the `strings` property or
 * a JSON `strings` attribute; `{name}` placeholders are filled in, plural forms go through
 * Intl.PluralRules for the element's locale.
 */
export interface ListingsStrings {
  bedrooms: PluralForms;
  bathrooms: PluralForms;
  carSpaces: PluralForms;
  badgeUnderOffer: string;
  badgeSold: string;
  badgeLeased: string;
  /** Shown when the agency left the price empty. */
  priceFallback: string;
  auction: string;
  resultCount: PluralForms;
  loading: string;
  /** While a freshly started relay loads the listings from the CRM for the first time. */
  filling: string;
  emptyTitle: string;
  emptyHint: string;
  clearFilters: string;
  errorTitle: string;
  errorRetryLater: string;
  retry: string;
  pagination: string;
  previousPage: string;
  nextPage: string;
  pageLabel: string;
  filtersLabel: string;
  type: string;
  typeSale: string;
  typeLease: string;
  suburb: string;
  /** The suburb field's checkbox (`surrounding`). */
  surrounding: string;
  /** A chosen suburb's remove button. */
  removeSuburb: string;
  /** Announced as a suburb is chosen or removed, and how many suggestions came. */
  suburbAdded: string;
  suburbRemoved: string;
  suburbSuggestions: PluralForms;
  /** Said when the words name no suburb the agency lists in. */
  noSuburbs: string;
  propertyType: string;
  minLand: string;
  /** A land size choice: "{area} m²". */
  landAtLeast: string;
  keywords: string;
  any: string;
  minPrice: string;
  maxPrice: string;
  perWeek: string;
  minBeds: string;
  minBaths: string;
  minCars: string;
  atLeast: string;
  sort: string;
  sortOptions: Record<ListingSort, string>;
  search: string;
  reset: string;
  /** The filter bar's button opening the saved-search form (`<estate-saved-search>`). */
  getAlerts: string;
  backToResults: string;
  /** The accessible name of a card's heart (a toggle button: pressed while the home is kept). */
  keep: string;
}

/** The filter bar's words: filter-bar.strings.ts registers them, so only a page with a bar downloads them. */
export type FilterBarWord =
  | 'filtersLabel'
  | 'type'
  | 'typeSale'
  | 'typeLease'
  | 'suburb'
  | 'surrounding'
  | 'removeSuburb'
  | 'suburbAdded'
  | 'suburbRemoved'
  | 'suburbSuggestions'
  | 'noSuburbs'
  | 'propertyType'
  | 'minLand'
  | 'landAtLeast'
  | 'keywords'
  | 'any'
  | 'minPrice'
  | 'maxPrice'
  | 'perWeek'
  | 'minBeds'
  | 'minBaths'
  | 'minCars'
  | 'atLeast'
  | 'sort'
  | 'sortOptions'
  | 'search'
  | 'reset'
  | 'getAlerts';

export const defaultListingsStrings: Omit<ListingsStrings, FilterBarWord> = {
  bedrooms: { one: '{count} bedroom', other: '{count} bedrooms' },
  bathrooms: { one: '{count} bathroom', other: '{count} bathrooms' },
  carSpaces: { one: '{count} car space', other: '{count} car spaces' },
  badgeUnderOffer: 'Under offer',
  badgeSold: 'Sold',
  badgeLeased: 'Leased',
  priceFallback: 'Contact agent',
  auction: 'Auction {date}',
  resultCount: { one: '{count} property', other: '{count} properties' },
  loading: 'Loading properties…',
  filling: 'The listings are on their way: the agency’s properties are being loaded. This page updates by itself.',
  emptyTitle: 'No properties match your search.',
  emptyHint: 'Try a wider price range, fewer bedrooms or another suburb.',
  clearFilters: 'Clear filters',
  errorTitle: 'We could not load the properties.',
  errorRetryLater: 'Please try again in a moment.',
  retry: 'Try again',
  pagination: 'Pages of results',
  previousPage: 'Previous',
  nextPage: 'Next',
  pageLabel: 'Page {page}',
  backToResults: 'Back to results',
  keep: 'Keep {address}',
};

registerBuiltInTranslation<{ listings: ListingsStrings }>(
  { $code: 'en-AU', listings: defaultListingsStrings },
  // New Zealand writes as Australia does; only the placeholder text of a search differs.
  { $code: 'en-NZ', listings: { emptyHint: 'Try a wider price range, fewer bedrooms or another suburb or town.' } },
  {
    $code: 'en-GB',
    listings: {
      carSpaces: { one: '{count} parking space', other: '{count} parking spaces' },
      badgeLeased: 'Let',
      emptyHint: 'Try a wider price range, fewer bedrooms or another area.',
    },
  },
);

registerSectionLoaders('listings', listingsLoaders);
