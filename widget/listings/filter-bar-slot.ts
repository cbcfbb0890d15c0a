/**
 * Where `<estate-listings>` finds its filter bar. The bar (filter-bar.ts) is a module of its own,
 * fetched only for an element with `filters`, that puts its template here as it runs: apart from
 * both, so that neither imports the other (listings.ts fetches the bar; the bar needs nothing of
 * the element but what it is given).
 */
import type { TemplateResult } from 'lit';
import type { ListingsQuery } from '../../contract/relay-api.ts';
import type { BarFilter, QueryKey } from './query.ts';
import type { ListingsStrings } from './strings.ts';

/** What the bar is given to render and to search with. */
export interface FilterBarHost {
  text: ListingsStrings;
  locale: string;
  currency: string | null;
  propertyTypes: string | null;
  query: ListingsQuery;
  barFilters: BarFilter[];
  applyFilters(values: Partial<Record<QueryKey, unknown>>): void;
  resetFilters(): void;
  /** The relay attribute, for the "Get alerts for this search" form. */
  relay: string | null;
  /** The consent words of that form (`alerts-consent-text`). */
  alertsConsentText: string | undefined;
  /** That form is open (under the bar). */
  alertsOpen: boolean;
  toggleAlerts(): void;
  /** The element's first listings have been shown: the bar may ask the relay whether it offers alerts. */
  listed: boolean;
  /** Renders the element again (an answer came). */
  refresh(): void;
  /** Where the bar renders (the element's shadow root): the suburb combobox adds its styles there. */
  renderRoot: HTMLElement | DocumentFragment;
}

export type FilterBar = (host: FilterBarHost) => TemplateResult;

let provided: FilterBar | undefined;

/** Called by filter-bar.ts as it runs. */
export function provideFilterBar(bar: FilterBar): void {
  provided = bar;
}

/** The bar's template once its module has run, else undefined. */
export function filterBar(): FilterBar | undefined {
  return provided;
}
