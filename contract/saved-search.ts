/**
 * `POST /api/v1/saved-searches`: a visitor follows a search ("Get alerts for this search"). Its body
 * is the enquiry form's, with `search` (the list's filters) in place of the listing. Types and one
 * table only, so the widget imports it at no cost.
 */

import type { ListingFilterName, ListingFilters } from './listing-filters.ts';

/**
 * Which listing filters a saved search keeps: every filter of contract/listing-filters.ts decides
 * here (the compiler refuses a filter added to the table without an entry). Kept filters are those
 * a buyer's standing wish can hold and the CRM's requirement expresses; the others are how a page
 * is shown (sort), which listings exist today (status: alerts are about homes coming on the
 * market), or no requirement field at all (one agent's listings; a box on a map is sent as the
 * suburbs it covers, `suburbs` below).
 * Where each kept filter lands in the CRM is server/crm/requirement.ts.
 */
export const SAVED_SEARCH_FILTERS = {
  type: true,
  status: false,
  suburb: true,
  // The requirement holds suburbs, not "and around": the form names the surrounding ones and sends them in `suburbs` (docs/saved-searches.md).
  surrounding: false,
  minPrice: true,
  maxPrice: true,
  minBeds: true,
  minBaths: true,
  minCars: true,
  propertyType: true,
  minLand: true,
  // The requirement has no words to match: an alert cannot keep them.
  keywords: false,
  agentId: false,
  bbox: false,
  // Sent as the suburbs it covers, as a box is.
  area: false,
  sort: false,
} as const satisfies Record<ListingFilterName, boolean>;

/** The names of the filters a saved search keeps. */
export type SavedSearchFilterName = { [Name in ListingFilterName]: (typeof SAVED_SEARCH_FILTERS)[Name] extends true ? Name : never }[ListingFilterName];

export const SAVED_SEARCH_FILTER_NAMES = (Object.keys(SAVED_SEARCH_FILTERS) as ListingFilterName[]).filter(
  (name): name is SavedSearchFilterName => SAVED_SEARCH_FILTERS[name],
);

/**
 * The search a visitor follows: the kept filters, each optional, values as the listing API takes
 * them; and, for a search of a map area (`bbox`, not kept as a box), the suburbs the area covers
 * as the form showed them (contract/saved-search-area.ts: at most AREA_SUBURBS_MAX, never beside
 * `suburb`).
 */
export type SavedSearchFilters = Pick<ListingFilters, SavedSearchFilterName> & { suburbs?: string[] };

/**
 * A 400 of `POST /api/v1/saved-searches` naming a suburb the agency's CRM cannot take
 * (`fields["search.suburb"]` or `fields["search.suburbs.<i>"]`): close names it knows, best first
 * (none when nothing is close), under the same field names.
 */
export interface SavedSearchRefusal {
  error: string;
  message: string;
  fields: Record<string, string>;
  suggestions?: Record<string, string[]>;
}

export interface SavedSearchRequest {
  /** The widget's UUID for this saved search: a repeat (lost answer) is recognised by it. */
  originalId: string;
  fullName: string;
  email: string;
  mobile?: string;
  /** The visitor ticked the agency's consent text: required (alerts are e-mail the visitor asked for). */
  consent: boolean;
  /** The consent box's words as the page showed them (relay-api.ts LeadContact.consentText): the consent record keeps them. */
  consentText?: string;
  /** The page the search was saved on: origin and path (relay-api.ts LeadContact.page); the consent record keeps it. */
  page?: string;
  /** The honeypot: left empty by people. */
  website?: string;
  /** Milliseconds the form was shown before it was sent. */
  elapsedMs: number;
  search: SavedSearchFilters;
  /**
   * The language the form was shown in (its `lang`, BCP 47): the confirmation e-mail and its page
   * are in it when the relay has its words (contract/languages.ts), else in the agency's language.
   */
  language?: string;
}

/**
 * How a new saved search is confirmed before anything reaches the CRM (SAVED_SEARCH_CONFIRMATION,
 * an agency's `alertConfirmation`): 'email', the address's owner follows a link the relay e-mails
 * them (double opt-in); 'agent', the contact is created unsubscribed and an agent confirms with the
 * person (a holding-area entry).
 */
export type SavedSearchConfirmation = 'email' | 'agent';

export interface SavedSearchAccepted {
  originalId: string;
  status: 'queued';
  /** What happens next, for the form's words: a link to follow in the e-mail sent, or an agent in touch. */
  confirmation: SavedSearchConfirmation;
}

/**
 * `GET /api/v1/saved-searches/options`: whether this relay offers "Get alerts" for the agency.
 * Not offered when e-mail confirmation is chosen and no SMTP server is configured (SMTP_URL and
 * MAIL_FROM, or the agency's `smtpUrl` and `mailFrom`): the elements then show no alerts form, and
 * `setup` tells the site's developer why (a POST answers 403 `alerts_not_offered`).
 */
export interface SavedSearchOptions {
  offered: boolean;
  /** When offered: how a new saved search is confirmed. */
  confirmation?: SavedSearchConfirmation;
  /** When not offered: what the relay's operator must set, for the site's developer (never personal data). */
  setup?: string;
}
