/**
 * What the elements tell a page's analytics: a stable set of DOM events (bubbling, composed, with
 * ids and public facts only) and, where the page or an element asks for it with
 * `analytics="datalayer"`, the same moments pushed to `window.dataLayer` as Google Analytics 4
 * recommended events, for Google Tag Manager or any tag manager that reads it.
 *
 * Nothing a visitor typed goes into either: no name, e-mail, phone or message (a lead is told by
 * its type and ids), and no price the agency withholds. docs/analytics.md is the reference.
 */
import type { ListingFilters } from '../../contract/listing-filters.ts';
import type { ListingStatus, ListingType } from '../../contract/relay-api.ts';
import { inheritedAttribute } from './inherited-attribute.ts';

/** A listing as analytics may see it: its id and what its page shows anyway. Absent: unknown or not shown. */
export interface ListingFacts {
  listingId: number;
  listingType: ListingType;
  status: ListingStatus;
  /** The address as the agency shows it (it may leave the street number out), else its heading. */
  title?: string;
  propertyType?: string;
  suburb?: string;
  /**
   * The price, only when the agency's price text is one amount ("$1,350,000", "$650 per week"):
   * absent for words, a range or a withheld price ("Contact Agent", "Offers over $850,000").
   */
  price?: number;
  /** ISO 4217 code of the price (the element's `currency`, else its locale's). */
  currency: string;
}

/** `estate-listing-view`: a listing's detail was shown. */
export type ListingViewDetail = ListingFacts;

/**
 * `estate-shortlist-add`: a visitor kept a home with a heart (on a card or a listing's detail). What
 * the heart knows, and the shortlist keeps: the listing's id and its address as shown.
 */
export interface ShortlistAddDetail {
  listingId: number;
  title: string;
}

/**
 * `estate-listing-share`: a visitor shared a listing from its detail, through the device's share
 * sheet (`share`) or by copying its link (`copy`). What the button knows: the id and the address as shown.
 */
export interface ListingShareDetail {
  listingId: number;
  title: string;
  method: 'share' | 'copy';
}

/** `estate-search`: a visitor searched (applied or reset the filter bar). */
export interface SearchDetail {
  /** The filters searched with, by name (contract/listing-filters.ts); unset ones are absent. */
  filters: ListingFilters;
}

/** The kinds of lead the elements send. */
export type LeadType = 'enquiry' | 'appraisal' | 'open-home' | 'inspection' | 'saved-search';

/** `estate-lead-sent`: the relay accepted a lead (it is queued for the CRM). */
export interface LeadSentDetail {
  leadType: LeadType;
  /** The lead's own id (a UUID the element made), the same as its `estate-enquiry-success`. */
  originalId: string;
  listingId?: number;
  agentId?: number;
}

/** One entry of the dataLayer. */
export type DataLayerEntry = Record<string, unknown>;

/**
 * Whether events from this element go to the dataLayer: the nearest `analytics` attribute on it or
 * on an element around it (across shadow roots) decides, else the page's
 * `<meta name="estate-analytics" content="datalayer">`. Only the value `datalayer` turns it on, so
 * `analytics="off"` keeps one element out of a page that turned it on.
 */
export function bridgedFrom(element: Element): boolean {
  const value = inheritedAttribute(element, 'analytics') ?? document.querySelector<HTMLMetaElement>('meta[name="estate-analytics"]')?.content;
  return value === 'datalayer';
}

/**
 * Dispatches one of the analytics events from the element and, when the bridge is on for it,
 * pushes the event's GA4 form to `window.dataLayer` (made when missing).
 */
export function dispatchAnalytics<T>(element: Element, name: `estate-${string}`, detail: T, dataLayer: DataLayerEntry[]): void {
  element.dispatchEvent(new CustomEvent<T>(name, { detail, bubbles: true, composed: true }));
  if (!bridgedFrom(element)) return;
  try {
    ((window as { dataLayer?: unknown[] }).dataLayer ??= []).push(...dataLayer);
  } catch {
    // A page whose dataLayer is not a list has no tag manager reading it: nothing to tell.
  }
}

declare global {
  interface GlobalEventHandlersEventMap {
    'estate-listing-view': CustomEvent<ListingViewDetail>;
    'estate-shortlist-add': CustomEvent<ShortlistAddDetail>;
    'estate-search': CustomEvent<SearchDetail>;
    'estate-listing-share': CustomEvent<ListingShareDetail>;
    'estate-lead-sent': CustomEvent<LeadSentDetail>;
  }
}
