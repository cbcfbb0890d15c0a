import { registerBuiltInTranslation } from '../shared/translations.ts';
import type { FilterBarWord, ListingsStrings } from './strings.ts';

/** The filter bar's words (ListingsStrings): registered with the bar's code, so a page without a bar does not download them. */
export const defaultFilterBarStrings: Pick<ListingsStrings, FilterBarWord> = {
  filtersLabel: 'Search properties',
  type: 'Buy or rent',
  typeSale: 'Buy',
  typeLease: 'Rent',
  suburb: 'Suburb',
  surrounding: 'Include surrounding suburbs',
  removeSuburb: 'Remove {suburb}',
  suburbAdded: '{suburb} added',
  suburbRemoved: '{suburb} removed',
  suburbSuggestions: { one: '{count} suburb suggested', other: '{count} suburbs suggested' },
  noSuburbs: 'No suburb matches',
  propertyType: 'Property type',
  minLand: 'Land size',
  landAtLeast: '{area}+',
  keywords: 'Keywords',
  any: 'Any',
  minPrice: 'Min price',
  maxPrice: 'Max price',
  perWeek: '{price} pw',
  minBeds: 'Bedrooms',
  minBaths: 'Bathrooms',
  minCars: 'Car spaces',
  atLeast: '{count}+',
  sort: 'Sort by',
  sortOptions: {
    newest: 'Newest',
    price: 'Price (low to high)',
    '-price': 'Price (high to low)',
    suburb: 'Suburb (A–Z)',
    landArea: 'Land size',
  },
  search: 'Search',
  reset: 'Reset',
  getAlerts: 'Get alerts for this search',
};

registerBuiltInTranslation<{ listings: ListingsStrings }>(
  { $code: 'en-AU', listings: defaultFilterBarStrings },
  {
    $code: 'en-GB',
    listings: {
      minCars: 'Parking spaces',
      suburb: 'Area',
      surrounding: 'Include surrounding areas',
      noSuburbs: 'No area matches',
      suburbSuggestions: { one: '{count} area suggested', other: '{count} areas suggested' },
      sortOptions: { newest: 'Newest', price: 'Price (low to high)', '-price': 'Price (high to low)', suburb: 'Area (A–Z)', landArea: 'Land size' },
    },
  },
);
