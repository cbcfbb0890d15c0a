import { registerBuiltInTranslation } from '../shared/translations.ts';

/**
 * The words of `<estate-saved-search>` (section `savedSearch` of a Translation); the words it shares
 * with the enquiry form (name, e-mail, mobile, errors, sending…) are that form's section. `{search}`,
 * `{count}` and `{price}` are filled in.
 */
export interface SavedSearchStrings {
  heading: string;
  submit: string;
  consent: string;
  /** What the alerts are about; `{search}` is the search in words. */
  intro: string;
  /** The search in words when it has no filter. */
  anyHome: string;
  forSale: string;
  forLease: string;
  inSuburb: string;
  minPrice: string;
  maxPrice: string;
  minBeds: string;
  minBaths: string;
  minCars: string;
  success: string;
}

export const defaultSavedSearchStrings: SavedSearchStrings = {
  heading: 'Get alerts for this search',
  submit: 'Get alerts',
  consent: 'I agree to the agency e-mailing me new listings that match this search and contacting me about them.',
  intro: 'We will send you new listings that match: {search}.',
  anyHome: 'any home',
  forSale: 'for sale',
  forLease: 'for lease',
  inSuburb: 'in {suburb}',
  minPrice: 'from {price}',
  maxPrice: 'up to {price}',
  minBeds: '{count}+ bedrooms',
  minBaths: '{count}+ bathrooms',
  minCars: '{count}+ car spaces',
  success: 'Thank you. Your search is saved with the agency, and you will hear about new listings that match it.',
};

registerBuiltInTranslation<{ savedSearch: SavedSearchStrings }>({ $code: 'en-AU', savedSearch: defaultSavedSearchStrings });
