import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { Task } from '@lit/task';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { ListingSort, ListingSummary, ListingsQuery, ListingStatus, ListingType, Page } from '../../contract/relay-api.ts';
import { relayUrl, RelayError } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';
import { fill, formatNumber, plural, prepareFormatters, resolveLocale } from '../shared/format.ts';
import { styles } from './listings.styles.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { loadElement } from '../shared/load-element.ts';
import { UrlQueryController, type QueryChanges } from '../shared/url-query.ts';
import { LISTING_HIGHLIGHT, listenForHighlights, type ListingHighlightDetail } from '../shared/listing-highlight.ts';
import { cardHref, renderCardContent } from '../shared/listing-parts.ts';
import { countVisit } from '../shared/visits.ts';
import { type ListingsStrings } from './strings.ts';
import './strings.ts';
import {
  BAR_FILTERS,
  buildQuery,
  cleanCount,
  areaRuleMissing,
  cleanValue,
  parseBarFilters,
  QUERY_KEYS,
  toSearchParams,
  type BarFilter,
  type FilterProperties,
  type QueryKey,
} from './query.ts';
import { headingLevel } from '../shared/heading.ts';
import { chevronLeft, chevronRight } from '../shared/icons.ts';
import { ShortlistController } from '../shared/shortlist.ts';
import { filterBar } from './filter-bar-slot.ts';
import type { SearchDetail } from '../shared/analytics.ts';
import type { ListingFilters } from '../../contract/listing-filters.ts';

export interface ListingsLoadedDetail {
  items: ListingSummary[];
  total: number;
  page: number;
  pageSize: number;
  query: ListingsQuery;
}

export interface ListingsErrorDetail {
  status: number | null;
  message: string;
}

export interface ListingSelectDetail {
  id: number;
  listing: ListingSummary;
  /** The detail page URL when `detail-href` is set; null when the detail opens in place. */
  href: string | null;
}

export interface ListingsQueryChangeDetail {
  query: ListingsQuery;
}

/**
 * GA4's `search_term` for a search: the filters as "name: value". Text that could be a visitor's
 * e-mail address or phone number (an @, three digits in a row: the suburb box takes anything) is
 * left out, and so is a map box.
 */
function searchTerm(filters: ListingFilters): string {
  return Object.entries(filters)
    .filter(([, value]) => typeof value !== 'string' || !/@|\d{3}/.test(value))
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
}

let filterBarLoad: Promise<void> | undefined;
let filterBarFailed = false;

/**
 * Settles once the bar's code has run or could not be fetched (then the list shows without it).
 * widget.js fetches it with the element's code for a tag that has `filters` (its manifest key is
 * this selector), so this fetch is for a bar set later, or a bundler's lazy chunk.
 */
function filterBarLoaded(): Promise<void> {
  return (filterBarLoad ??= loadElement('estate-listings[filters]', () => import('./filter-bar.ts')).then(
    () => undefined,
    (error: unknown) => {
      filterBarFailed = true;
      console.error('<estate-listings> could not load its filter bar:', error);
    },
  ));
}
let areaRuleLoad: Promise<unknown> | undefined;

/**
 * The drawn-area rule (area-rule.ts), for a list given an area without a filter bar: it comes with
 * the bar's code (its manifest key), which a page without a drawn area never downloads. A failed
 * fetch is tried again on the next load (the error panel's retry).
 */
function areaRuleLoaded(): Promise<unknown> {
  return (areaRuleLoad ??= loadElement('estate-listings[filters]', () => import('./area-rule.ts')).catch((error: unknown) => {
    areaRuleLoad = undefined;
    throw error;
  }));
}

/** Cards at the top of the first page load eagerly; the rest wait until they near the viewport. */
const EAGER_CARDS = 3;

/**
 * A grid or list of an agency's listings from its relay, with an optional filter bar, paging and
 * either links to a detail page or the detail shown in place.
 *
 * @summary Property listings: cards, filters, paging, in-page or linked detail.
 *
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr type - `sale` or `lease`. Default: both.
 * @attr status - `available` (default), `sold` or `leased`.
 * @attr suburb - Only these suburbs: one name, or several separated by commas (`Kew,Hawthorn`).
 * @attr surrounding - `true`: the suburbs around the chosen ones too.
 * @attr min-land - Land of at least this many square metres (a listing whose land area is not known is left out).
 * @attr keywords - Words each found in the heading, description or highlights (`pool`, `north facing`).
 * @attr min-price - Lowest price (number; the relay filters on the agency's search price).
 * @attr max-price - Highest price.
 * @attr min-beds - At least this many bedrooms.
 * @attr min-baths - At least this many bathrooms.
 * @attr min-cars - At least this many car spaces.
 * @attr property-type - House, Unit, Apartment, …
 * @attr agent-id - Only this agent's listings.
 * @attr bbox - Only listings placed inside this map box: `west,south,east,north` in degrees. The page URL's `bbox` (under `query-prefix`), which an `<estate-map>`'s "search this area" writes, wins over it.
 * @attr area - Only listings placed inside this drawn outline: `lat,lng;lat,lng;…` (at least 3 corners, at most 100). The page URL's `area` (under `query-prefix`), which an `<estate-map>`'s "Draw an area" writes, wins over it.
 * @attr sort - `newest`, `price`, `-price`, `suburb` or `landArea`.
 * @attr page - Page number, from 1.
 * @attr page-size - Cards per page (1–100, default 12).
 * @attr layout - `grid` (default) or `list`.
 * @attr filters - Shows the filter bar. Empty for the usual set, or names: `suburb property-type min-price max-price min-beds min-baths min-cars min-land keywords sort type` (`suburb` takes several suburbs with suggestions as you type, and "include surrounding suburbs"). With a filter bar, the filters and page live in the page URL.
 * @attr detail-href - URL template for a card's link, `{id}` replaced by the listing id (`/listing.html?id={id}`). Without it the detail opens in place.
 * @attr query-prefix - Prefix for this element's URL parameters, when a page holds two of them.
 * @attr property-types - Comma-separated property types offered in the filter bar.
 * @attr sizes - `sizes` for card photos. Default suits the layout.
 * @attr heading-level - Level of each card's heading (default 3).
 * @attr locale - BCP 47 locale for numbers and dates (default en-AU).
 * @attr currency - ISO 4217 code for prices in the filter bar. Default: the locale's.
 * @attr time-zone - IANA zone for auction times. Default: the visitor's.
 * @attr alerts-consent-text - Label of the consent box of the filter bar's "Get alerts for this search" form (`<estate-saved-search>`). Default: that form's words.
 * @attr analytics - `datalayer`: also push its analytics events (and those of the detail it opens in place) to `window.dataLayer` as GA4 events; any other value keeps them out. Default: the page's `<meta name="estate-analytics">`.
 * @attr strings - JSON object overriding any of the element's words (see ListingsStrings), over those of its language (`lang` on it or above it, else the page's; see "Words and languages").
 *
 * @slot empty - Replaces the "no results" message.
 * @slot error - Replaces the error message (the retry button stays).
 *
 * @csspart base - The element's wrapper.
 * @csspart filters - The filter bar form.
 * @csspart filter-field - One label and control.
 * @csspart filter-label - A filter's label.
 * @csspart filter-control - A filter's input or select.
 * @csspart filter-actions - The search and reset buttons' row.
 * @csspart button - Every button.
 * @csspart button-primary - The search button.
 * @csspart alerts-button - The "Get alerts for this search" button (`aria-expanded` tells whether its form is open).
 * @csspart alerts - The saved-search form under the filter bar (`<estate-saved-search>`; its code is fetched on the first click).
 * @csspart status - The result count line (a live region).
 * @csspart list - The grid or list of cards.
 * @csspart card - One listing; also `card-highlighted` while its pin on an `<estate-map>` is pointed at.
 * @csspart skeleton - A placeholder card while loading.
 * @csspart card-media - The photo box.
 * @csspart card-image - The photo.
 * @csspart badge - A status badge; also `badge-under-offer`, `badge-sold`, `badge-leased`.
 * @csspart card-body - The text under the photo.
 * @csspart price - The price text, as the agency wrote it.
 * @csspart card-title - The address heading.
 * @csspart card-link - The link over the card.
 * @csspart meta - Property type and auction line.
 * @csspart features - Beds, baths and cars.
 * @csspart feature - One of them.
 * @csspart feature-icon - Its icon.
 * @csspart keep-button - The heart that keeps the home in the visitor's shortlist (`aria-pressed` tells whether it is kept; see `<estate-shortlist>`).
 * @csspart empty - The "no results" panel.
 * @csspart error - The error panel.
 * @csspart retry-button - The retry button.
 * @csspart footer - The row under the cards holding the pagination (its height is reserved while loading).
 * @csspart pagination - The pagination nav.
 * @csspart page-button - Previous, next and page number buttons; the current one also has `page-current`.
 * @csspart detail - The in-place detail view.
 * @csspart back-button - Its back control.
 *
 * @cssprop --estate-listings-min-card - Narrowest card in the grid (default 17rem).
 * @cssprop --estate-listings-gap - Space between cards (default 1.25rem).
 * @cssprop --estate-card-ratio - Photo aspect ratio (default 3 / 2).
 * @cssprop --estate-skeleton-color - Placeholder colour while loading.
 * @cssprop --estate-badge-color - Badge background.
 * @cssprop --estate-badge-text - Badge text colour.
 * @cssprop --estate-keep-color - The heart's colour while the home is kept (default the danger colour, `--estate-color-danger`).
 *
 * @fires {CustomEvent<ListingsLoadedDetail>} estate-listings-loaded - A page of listings rendered.
 * @fires {CustomEvent<ListingsErrorDetail>} estate-listings-error - Loading failed.
 * @fires {CustomEvent<ListingsQueryChangeDetail>} estate-listings-query-change - A visitor changed the filters or the page.
 * @fires {CustomEvent<ListingSelectDetail>} estate-listing-select - A card was chosen; cancelable (cancel to handle navigation yourself).
 * @fires {CustomEvent<ListingHighlightDetail>} estate-listing-highlight - A card is pointed at or focused (`id`), or no longer (`null`); an `<estate-map>` lights up its pin.
 * @fires {CustomEvent<SearchDetail>} estate-search - Analytics: a visitor searched with the filter bar (the filters searched with; see docs/analytics.md).
 * @fires {CustomEvent<ShortlistAddDetail>} estate-shortlist-add - Analytics: a visitor kept a home with its heart (its id and address as shown; see docs/analytics.md).
 */
export class EstateListings extends EstateElement {
  static override localizedSections: Section[] = ['listings'];
  static override styles = styles;

  // The filters' properties and attributes are the relay's table (contract/listing-filters.ts),
  // written out for the manifest's analyzer; the checks after the class and in the element test hold
  // them to the table.
  static override properties = {
    type: { type: String },
    status: { type: String },
    suburb: { type: String },
    surrounding: { type: String },
    minLand: { type: Number, attribute: 'min-land' },
    keywords: { type: String },
    minPrice: { type: Number, attribute: 'min-price' },
    maxPrice: { type: Number, attribute: 'max-price' },
    minBeds: { type: Number, attribute: 'min-beds' },
    minBaths: { type: Number, attribute: 'min-baths' },
    minCars: { type: Number, attribute: 'min-cars' },
    propertyType: { type: String, attribute: 'property-type' },
    agentId: { type: Number, attribute: 'agent-id' },
    bbox: { type: String },
    area: { type: String },
    sort: { type: String },
    page: { type: Number },
    pageSize: { type: Number, attribute: 'page-size' },
    layout: { type: String, reflect: true },
    filters: { type: String },
    detailHref: { type: String, attribute: 'detail-href' },
    queryPrefix: { type: String, attribute: 'query-prefix' },
    propertyTypes: { type: String, attribute: 'property-types' },
    sizes: { type: String },
    headingLevel: { type: Number, attribute: 'heading-level' },
    locale: { type: String },
    currency: { type: String },
    timeZone: { type: String, attribute: 'time-zone' },
    strings: { type: Object },
    alertsConsentText: { attribute: 'alerts-consent-text' },
    listings: { attribute: false },
    alertsOpen: { state: true },
    detailId: { state: true },
    filling: { state: true },
    highlightId: { state: true },
  };

  declare type: ListingType | null;
  declare status: ListingStatus | null;
  declare suburb: string | null;
  declare surrounding: 'true' | null;
  declare minLand: number | null;
  declare keywords: string | null;
  declare minPrice: number | null;
  declare maxPrice: number | null;
  declare minBeds: number | null;
  declare minBaths: number | null;
  declare minCars: number | null;
  declare propertyType: string | null;
  declare agentId: number | null;
  declare bbox: string | null;
  declare area: string | null;
  declare sort: ListingSort | null;
  declare page: number;
  declare pageSize: number;
  declare layout: 'grid' | 'list';
  declare filters: string | null;
  declare detailHref: string | null;
  declare queryPrefix: string;
  declare propertyTypes: string | null;
  declare sizes: string | null;
  declare headingLevel: number;
  declare locale: string | null;
  declare currency: string | null;
  declare timeZone: string | null;
  /** Overrides for any of the element's words. */
  declare strings: Partial<ListingsStrings> | null;
  declare alertsConsentText: string | undefined;
  /** The saved-search form under the filter bar is open. */
  declare protected alertsOpen: boolean;
  /**
   * Listings the host already has. When set, they are rendered as given (no request, no paging):
   * for pages that fetched the data themselves or render on the server.
   */
  declare listings: ListingSummary[] | null;
  declare protected detailId: number | null;
  /** The relay is filling its cache for the first time: the listings are on their way. */
  declare protected filling: boolean;
  /** The listing whose pin is pointed at on a map of the page. */
  declare protected highlightId: number | null;
  #stopHighlights: (() => void) | undefined;

  /** The filters as the page's attributes set them, before the URL or a visitor changed them. */
  #baseFilters: Partial<Record<QueryKey, unknown>> | null = null;
  #retryCount = 0;
  #focusResultsAfterLoad = false;
  /** True when we pushed the detail's history entry (so "back" can pop it). */
  #pushedDetailEntry = false;
  /** The homes the visitor keeps: each card's heart. */
  readonly #shortlist = new ShortlistController(this);
  /** The first listings have been shown (the filter bar may ask the relay more). */
  #listed = false;
  /** The cards set aside while hidden (#setAsideWhileHidden): asked for an idle moment, and that moment come. */
  #hiddenCardsAsked = false;
  #hiddenCardsDue = false;
  readonly #refresh = () => this.requestUpdate();
  /** The query string the last load sent (a drawn area spelled by its rule). */
  #sentQuery: string | undefined;

  readonly #listingsTask = new Task(this, {
    task: async ([relay, given, hostListings], { signal }) => {
      let queryString = given;
      if (hostListings) {
        return { items: hostListings, total: hostListings.length, page: 1, pageSize: hostListings.length } satisfies Page<ListingSummary>;
      }
      // A drawn area is checked by its rule before it is sent: the query is read again once it has come.
      if (this.area && areaRuleMissing()) {
        await areaRuleLoaded();
        queryString = toSearchParams(this.query).toString();
      }
      this.#sentQuery = queryString;
      const url = `${relayUrl(relay, 'api/v1/listings')}?${queryString}`;
      return fetchJsonOnceFilled<Page<ListingSummary>>(url, { signal, onFilling: (filling) => (this.filling = filling) });
    },
    args: () => [this.relay, toSearchParams(this.query).toString(), this.listings, this.#retryCount] as const,
    // The query the load sent is no new query: an area read again once its rule came (above) loads once.
    argsEqual: (before, now) => now.every((value, index) => value === before[index] || (index === 1 && value === this.#sentQuery)),
    onComplete: (page) => void this.#afterLoad(page),
    onError: (error) => void this.#afterError(error),
  });

  constructor() {
    super();
    this.type = null;
    this.status = null;
    this.suburb = null;
    this.surrounding = null;
    this.minLand = null;
    this.keywords = null;
    this.minPrice = null;
    this.maxPrice = null;
    this.minBeds = null;
    this.minBaths = null;
    this.minCars = null;
    this.propertyType = null;
    this.agentId = null;
    this.bbox = null;
    this.area = null;
    this.sort = null;
    this.page = 1;
    this.pageSize = 12;
    this.layout = 'grid';
    this.filters = null;
    this.detailHref = null;
    this.queryPrefix = '';
    this.propertyTypes = null;
    this.sizes = null;
    this.headingLevel = 3;
    this.locale = null;
    this.currency = null;
    this.timeZone = null;
    this.strings = null;
    this.listings = null;
    this.alertsOpen = false;
    this.detailId = null;
    this.filling = false;
    this.highlightId = null;
  }

  /** The relay query the element is showing (validated). */
  get query(): ListingsQuery {
    return buildQuery(this.#filterValues(), this.page, this.pageSize);
  }

  /**
   * Settles when the current load does (resolves with the page shown, rejects with its error).
   * For hosts and tests that need to wait for data without racing the loaded event.
   */
  get loadComplete(): Promise<Page<ListingSummary>> {
    return this.updateComplete.then(async () => {
      const page = await this.#listingsTask.taskComplete;
      await this.#barShown();
      return page;
    });
  }

  /** The bar waits for its code (render()): resolves once that render is done, at once without a bar. */
  async #barShown(): Promise<void> {
    if (!this.#barFilters.length || filterBar()) return;
    await filterBarLoaded();
    await this.updateComplete;
  }

  /** Loads the current query again (after an error, or to pick up fresh data). */
  reload(): void {
    this.#retryCount += 1;
    this.requestUpdate();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // The cards' formatters in a task of their own, while the listings are on their way (format.ts).
    if (!this.hasUpdated) setTimeout(() => prepareFormatters(this.#resolvedLocale, this.timeZone ?? undefined));
    this.#baseFilters ??= this.#filterValues();
    this.#readUrl();
    this.#stopHighlights = listenForHighlights(this, (id) => (this.highlightId = id));
    // A saved search still being sent when the page was left: open its form, which resends it.
    try {
      if (this.#syncsUrl && localStorage.getItem('estate-enquiry:pending:saved-search')) this.#toggleAlerts();
    } catch {
      // No storage: nothing was kept.
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopHighlights?.();
    this.#cardsSeen?.disconnect();
    this.#cardsSeen = undefined;
  }

  /** Listings whose card was shown on this page: each counted once (visits.ts). */
  readonly #shownCards = new Set<number>();
  #cardsSeen: IntersectionObserver | undefined;

  /** Watches the cards not yet counted: one half in view counts it as shown. */
  #watchCards(): void {
    this.#cardsSeen ??= new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const id = Number((entry.target as HTMLElement).dataset.id);
          if (!entry.isIntersecting || this.#shownCards.has(id)) continue;
          this.#shownCards.add(id);
          this.#cardsSeen?.unobserve(entry.target);
          countVisit(this, 'card', id);
        }
      },
      { threshold: 0.5 },
    );
    for (const card of this.renderRoot.querySelectorAll<HTMLElement>('li[data-id]'))
      if (!this.#shownCards.has(Number(card.dataset.id))) this.#cardsSeen.observe(card);
  }

  /** The filters, page and open detail in the address bar, under `query-prefix`. */
  readonly #urlQuery = new UrlQueryController(this, {
    prefix: () => this.queryPrefix ?? '',
    onNavigate: () => this.#onPopState(),
  });

  /** The words in use: defaults with the host's overrides, merged once per `strings` value. */
  get #text(): ListingsStrings {
    return this.localize.words('listings', this.strings);
  }

  get #resolvedLocale(): string {
    return resolveLocale(this.locale, this.localize.lang);
  }

  get #barFilters(): BarFilter[] {
    return parseBarFilters(this.filters);
  }

  /** The filters the bar keeps in the URL: its own, and with the suburb field its "include surrounding suburbs". */
  get #urlFilters(): QueryKey[] {
    const bar: QueryKey[] = this.#barFilters;
    return bar.includes('suburb') ? [...bar, 'surrounding'] : bar;
  }

  /** With a filter bar, the filters and page live in the page's URL. */
  get #syncsUrl(): boolean {
    return this.filters !== null && this.filters !== undefined;
  }

  #filterValues(): Partial<Record<QueryKey, unknown>> {
    return Object.fromEntries(QUERY_KEYS.map((name) => [name, this[name]]));
  }

  #setFilterValues(values: Partial<Record<QueryKey, unknown>>): void {
    const self = this as unknown as Record<QueryKey, unknown>;
    for (const key of Object.keys(values) as QueryKey[]) self[key] = cleanValue(key, values[key]) ?? null;
  }

  // ---- URL state -------------------------------------------------------------------------

  /** Applies the page URL: the bar's filters and page (when there is a bar) and an open detail. */
  #readUrl(): void {
    if (this.#syncsUrl) {
      const values: Partial<Record<QueryKey, unknown>> = {};
      for (const name of this.#urlFilters) {
        const fromUrl = this.#urlQuery.get(name);
        values[name] = fromUrl !== null ? fromUrl : this.#baseFilters?.[name];
      }
      this.#setFilterValues(values);
      this.page = Math.max(1, cleanCount(this.#urlQuery.get('page')) ?? 1);
    }
    // The map's areas ("search this area" and "Draw an area" on an <estate-map> write them): every list follows them.
    for (const name of MAP_AREAS) {
      const fromUrl = this.#urlQuery.get(name);
      const value = (cleanValue(name, fromUrl !== null ? fromUrl : this.#baseFilters?.[name]) ?? null) as string | null;
      if (value !== this[name]) {
        this[name] = value;
        if (!this.#syncsUrl) this.page = 1;
      }
    }
    if (!this.detailHref) {
      const id = cleanCount(this.#urlQuery.get('listing'));
      this.detailId = id ? id : null;
    }
  }

  /** The URL parameters for a change of filters (only those differing from the page's), page or detail. */
  #queryChanges(changes: { filters?: boolean; page?: number; listing?: number | null }): QueryChanges {
    const params: QueryChanges = {};
    if (changes.filters) {
      for (const name of [...BAR_FILTERS, 'surrounding'] as const) params[name] = null;
      const query = this.query;
      for (const name of this.#urlFilters) {
        const value = query[name];
        if (value !== undefined && value !== cleanValue(name, this.#baseFilters?.[name])) params[name] = String(value);
      }
    }
    if (changes.page !== undefined) params.page = changes.page > 1 ? String(changes.page) : null;
    if (changes.listing !== undefined) params.listing = changes.listing ? String(changes.listing) : null;
    return params;
  }

  #urlFor(changes: { filters?: boolean; page?: number; listing?: number | null }): string {
    return this.#urlQuery.url(this.#queryChanges(changes));
  }

  #onPopState(): void {
    const openBefore = this.detailId;
    this.#pushedDetailEntry = false;
    this.#readUrl();
    if (openBefore && !this.detailId) void this.#restoreCardFocus(openBefore);
  }

  // ---- loading outcomes ------------------------------------------------------------------

  async #afterLoad(page: Page<ListingSummary>): Promise<void> {
    await this.rendered();
    await this.#barShown();
    // The bar asks whether the relay offers alerts only now: never ahead of the listings themselves.
    if (!this.#listed) {
      this.#listed = true;
      if (this.#barFilters.length) this.requestUpdate();
    }
    if (this.#focusResultsAfterLoad) {
      this.#focusResultsAfterLoad = false;
      const status = this.renderRoot.querySelector<HTMLElement>('[part~="status"]');
      status?.focus({ preventScroll: true });
      this.scrollIntoView?.({ block: 'start', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
    }
    this.emit<ListingsLoadedDetail>('estate-listings-loaded', {
      items: page.items,
      total: page.total,
      page: page.page,
      pageSize: page.pageSize,
      query: this.query,
    });
  }

  async #afterError(error: unknown): Promise<void> {
    if (error instanceof DOMException && error.name === 'AbortError') return;
    await this.rendered();
    this.emit<ListingsErrorDetail>('estate-listings-error', {
      status: error instanceof RelayError ? error.status : null,
      message: error instanceof Error ? error.message : String(error),
    });
  }

  // ---- visitor actions -------------------------------------------------------------------

  #onFilterReset(): void {
    const values: Partial<Record<QueryKey, unknown>> = {};
    for (const name of [...this.#barFilters, ...MAP_AREAS] as const) values[name] = this.#baseFilters?.[name];
    this.#applyFilters(values);
  }

  #applyFilters(values: Partial<Record<QueryKey, unknown>>): void {
    const before = { bbox: this.bbox, area: this.area };
    this.#setFilterValues(values);
    this.page = 1;
    // A reset also leaves the map's areas (and tells the map, through the URL).
    const changes: QueryChanges = {};
    for (const name of MAP_AREAS) if (before[name] !== this[name]) Object.assign(changes, { [name]: null, page: null });
    if (this.#syncsUrl) this.#urlQuery.push({ ...this.#queryChanges({ filters: true, page: 1 }), ...changes });
    else if (Object.keys(changes).length) this.#urlQuery.push(changes);
    const { page, pageSize, ...filters } = this.query;
    this.emit<ListingsQueryChangeDetail>('estate-listings-query-change', { query: this.query });
    this.track<SearchDetail>('estate-search', { filters }, [{ event: 'search', search_term: searchTerm(filters) }]);
  }

  /** Opens or closes the saved-search form (the filter bar renders it and fetches its code). */
  #toggleAlerts(): void {
    this.alertsOpen = !this.alertsOpen;
  }

  #goToPage(page: number): void {
    this.page = page;
    this.#focusResultsAfterLoad = true;
    if (this.#syncsUrl) this.#urlQuery.push(this.#queryChanges({ page }));
    this.emit<ListingsQueryChangeDetail>('estate-listings-query-change', { query: this.query });
  }

  #detailLink(listing: ListingSummary): string {
    if (this.detailHref) return cardHref(this.detailHref, listing);
    return this.#urlFor({ listing: listing.id });
  }

  #onCardClick(event: MouseEvent, listing: ListingSummary): void {
    // Let the browser handle new-tab and download gestures.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const href = this.detailHref ? this.#detailLink(listing) : null;
    const proceed = this.emit<ListingSelectDetail>('estate-listing-select', { id: listing.id, listing, href }, true);
    if (!proceed) {
      event.preventDefault();
      return;
    }
    if (href) return;
    event.preventDefault();
    this.#openDetail(listing.id);
  }

  #openDetail(id: number): void {
    this.#urlQuery.push(this.#queryChanges({ listing: id }));
    this.#pushedDetailEntry = true;
    this.detailId = id;
    void this.updateComplete.then(() => {
      this.renderRoot.querySelector<HTMLElement>('[part~="back-button"]')?.focus();
      this.scrollIntoView?.({ block: 'start' });
    });
  }

  #closeDetail(): void {
    const id = this.detailId;
    if (this.#pushedDetailEntry) {
      // Our own entry: going back restores the results URL, and popstate closes the detail.
      history.back();
      return;
    }
    this.#urlQuery.replace(this.#queryChanges({ listing: null }));
    this.detailId = null;
    if (id) void this.#restoreCardFocus(id);
  }

  async #restoreCardFocus(id: number): Promise<void> {
    await this.updateComplete;
    const link = this.renderRoot.querySelector<HTMLElement>(`[part~="card-link"][data-id="${id}"]`);
    if (link) {
      link.focus({ preventScroll: true });
      link.scrollIntoView({ block: 'center' });
    }
  }

  // ---- rendering -------------------------------------------------------------------------

  protected override updated(changed: PropertyValues<this>): void {
    this.#watchCards();
    // The bar's controls show the query after every render, also one the visitor changed without
    // searching (what Lit's live directive did; a few lines here keep its bytes off every page).
    const query = this.query;
    // (Not the suburb combobox's words, which are no filter: they have no name.)
    for (const control of this.renderRoot.querySelectorAll<HTMLInputElement>('[part~="filter-control"][name]')) {
      const value = String(query[control.name as QueryKey] ?? (control.name === 'sort' ? 'newest' : ''));
      if (control.value !== value) control.value = value;
    }
    // The detail's code (with its gallery and enquiry form) is fetched when a detail first opens,
    // so a page that only lists pays for the list alone.
    if ((changed as Map<PropertyKey, unknown>).has('detailId') && this.detailId) {
      loadElement('estate-listing', () => import('../listing/define.ts')).catch((error: unknown) => {
        console.error('<estate-listings> could not load <estate-listing>:', error);
      });
    }
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('layout') && this.layout !== 'grid' && this.layout !== 'list') this.layout = 'grid';
    if (this.#barFilters.length && !filterBar()) void filterBarLoaded().then(() => this.requestUpdate());
  }

  override render(): TemplateResult | typeof nothing {
    if (this.detailId) return this.#renderDetail(this.detailId);
    const barFilters = this.#barFilters;
    // The bar's code on its way (filterBarLoaded): the bar and the results appear together, never
    // the bar pushing the cards down. Not fetched at all, the list shows without it.
    if (barFilters.length && !filterBar() && !filterBarFailed) return nothing;
    return html`<div part="base" class="base">
      ${
        barFilters.length && filterBar()
          ? filterBar()!({
              text: this.#text,
              locale: this.#resolvedLocale,
              currency: this.currency,
              propertyTypes: this.propertyTypes,
              query: this.query,
              barFilters,
              applyFilters: (values) => this.#applyFilters(values),
              resetFilters: () => this.#onFilterReset(),
              relay: this.relay,
              alertsConsentText: this.alertsConsentText,
              alertsOpen: this.alertsOpen,
              toggleAlerts: () => this.#toggleAlerts(),
              listed: this.#listed,
              refresh: this.#refresh,
              renderRoot: this.renderRoot,
            })
          : nothing
      }
      ${
        this.listings
          ? this.#renderGiven(this.listings)
          : this.#listingsTask.render({
              initial: () => this.#renderSkeleton(),
              pending: () => this.#renderSkeleton(),
              complete: (page) => (this.#setAsideWhileHidden() ? this.#renderSkeleton() : page.items.length ? this.#renderResults(page) : this.#renderEmpty()),
              error: () => this.#renderError(),
            })
      }
    </div>`;
  }

  /**
   * Cards the host gave (`.listings`), rendered at once rather than after the task settles: on the
   * server (where no task runs) and again, identically, when the browser renders over that markup.
   */
  #renderGiven(items: ListingSummary[]): TemplateResult {
    return items.length ? this.#renderResults({ items, total: items.length, page: 1, pageSize: items.length }) : this.#renderEmpty();
  }

  #renderDetail(id: number): TemplateResult {
    const text = this.#text;
    return html`<section part="detail" class="detail">
      <button type="button" part="button back-button" class="back" @click=${this.#closeDetail}>
        <svg viewBox="0 0 24 24" aria-hidden="true" class="icon">${chevronLeft}</svg>
        ${text.backToResults}
      </button>
      <estate-listing
        listing-id=${id}
        relay=${ifDefined(this.relay ?? undefined)}
        locale=${ifDefined(this.locale ?? undefined)}
        currency=${ifDefined(this.currency ?? undefined)}
        time-zone=${ifDefined(this.timeZone ?? undefined)}
        heading-level=${Math.max(1, headingLevel(this.headingLevel, 3) - 1)}
        exportparts="base: listing-base, title: listing-title, price: listing-price, gallery: listing-gallery"
      ></estate-listing>
    </section>`;
  }

  /**
   * Hidden (a phone's map shown instead, which hides the list it pairs with), the cards wait for the
   * browser's first idle moment: on a throttled phone their first render (and Intl's first formats)
   * held the map's pins back by a third of a second. Shown, or idle, they render as usual.
   */
  #setAsideWhileHidden(): boolean {
    if (!this.hidden || this.#hiddenCardsDue) return false;
    if (!this.#hiddenCardsAsked) {
      this.#hiddenCardsAsked = true;
      const due = () => {
        this.#hiddenCardsDue = true;
        this.requestUpdate();
      };
      if ('requestIdleCallback' in window) requestIdleCallback(due, { timeout: 2_000 });
      else setTimeout(due, 500);
    }
    return true;
  }

  #renderStatus(message: string, focusable = false): TemplateResult {
    return html`<p part="status" class="status" role="status" tabindex=${ifDefined(focusable ? '-1' : undefined)}>${message}</p>`;
  }

  #renderSkeleton(): TemplateResult {
    const text = this.#text;
    const count = this.query.pageSize ?? 12;
    return html`${this.#renderStatus(this.filling ? text.filling : text.loading)}
      <ul part="list" class="list layout-${this.layout}" aria-busy="true">
        ${Array.from(
          { length: count },
          () =>
            html`<li part="card skeleton" class="card skeleton" aria-hidden="true">
              <div part="card-media" class="media"></div>
              <div part="card-body" class="body">
                <span class="line price-line"><span class="bone"></span></span>
                <span class="line title-line"><span class="bone"></span><span class="bone"></span></span>
                <span class="line meta-line"><span class="bone"></span></span>
                <span class="line features-line"><span class="bone"></span></span>
              </div>
            </li>`,
        )}
      </ul>
      <div part="footer" class="footer" aria-hidden="true"></div>`;
  }

  #renderResults(page: Page<ListingSummary>): TemplateResult {
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const pages = Math.max(1, Math.ceil(page.total / Math.max(1, page.pageSize)));
    const sizes = this.sizes ?? (this.layout === 'list' ? '(min-width: 40rem) 18rem, 100vw' : '(min-width: 72rem) 22rem, (min-width: 40rem) 45vw, 100vw');
    return html`${this.#renderStatus(plural(locale, page.total, text.resultCount), true)}
      <ul part="list" class="list layout-${this.layout}">
        ${page.items.map((listing, index) => this.#renderCard(listing, index, page.page, sizes))}
      </ul>
      <div part="footer" class="footer">${pages > 1 && !this.listings ? this.#renderPagination(page.page, pages) : nothing}</div>`;
  }

  #renderCard(listing: ListingSummary, index: number, pageNumber: number, sizes: string): TemplateResult {
    const address = listing.address?.display || listing.heading || '';
    const lit = listing.id === this.highlightId;
    const point = (id: number | null) => () => this.emit<ListingHighlightDetail>(LISTING_HIGHLIGHT, { id });
    return html`<li
      part=${lit ? 'card card-highlighted' : 'card'}
      class=${lit ? 'card highlighted' : 'card'}
      data-id=${listing.id}
      @pointerenter=${point(listing.id)}
      @pointerleave=${point(null)}
      @focusin=${point(listing.id)}
      @focusout=${point(null)}
    >
      ${renderCardContent(listing, this.#text, {
        contentLang: this.contentLanguage,
        relay: this.relay,
        locale: this.#resolvedLocale,
        timeZone: this.timeZone,
        headingLevel: headingLevel(this.headingLevel, 3),
        sizes,
        href: this.#detailLink(listing),
        onLinkClick: (event) => this.#onCardClick(event, listing),
        // Hidden (a phone showing the map), its photos wait to be shown: they would take the map's bandwidth.
        eager: pageNumber === 1 && index < EAGER_CARDS && !this.hidden,
        fetchPriority: pageNumber === 1 && index === 0 && !this.hidden ? 'high' : 'auto',
        kept: this.#shortlist.has(listing.id),
        toggleKeep: () => this.#shortlist.toggle({ id: listing.id, address }),
      })}
    </li>`;
  }

  #renderPagination(current: number, pages: number): TemplateResult {
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const numbers = pageWindow(current, pages);
    return html`<nav part="pagination" class="pagination" aria-label=${text.pagination}>
      <ul>
        <li>
          <button type="button" part="button page-button page-previous" class="page-step" ?disabled=${current <= 1} @click=${() => this.#goToPage(current - 1)}>
            <svg viewBox="0 0 24 24" class="icon" aria-hidden="true">${chevronLeft}</svg>${text.previousPage}
          </button>
        </li>
        ${numbers.map((number) =>
          number === null
            ? html`<li class="gap" aria-hidden="true">…</li>`
            : html`<li>
                <button
                  type="button"
                  part=${number === current ? 'button page-button page-current' : 'button page-button'}
                  aria-label=${fill(text.pageLabel, { page: formatNumber(locale, number) })}
                  aria-current=${ifDefined(number === current ? 'page' : undefined)}
                  @click=${() => number !== current && this.#goToPage(number)}
                >
                  ${formatNumber(locale, number)}
                </button>
              </li>`,
        )}
        <li>
          <button type="button" part="button page-button page-next" class="page-step" ?disabled=${current >= pages} @click=${() => this.#goToPage(current + 1)}>
            ${text.nextPage}<svg viewBox="0 0 24 24" class="icon" aria-hidden="true">${chevronRight}</svg>
          </button>
        </li>
      </ul>
    </nav>`;
  }

  #renderEmpty(): TemplateResult {
    const text = this.#text;
    const filtered = [...this.#barFilters, ...MAP_AREAS].some(
      (name) => cleanValue(name, this.#filterValues()[name]) !== cleanValue(name, this.#baseFilters?.[name]),
    );
    return html`${this.#renderStatus(plural(this.#resolvedLocale, 0, text.resultCount))}
      <div part="empty" class="panel empty">
        <slot name="empty">
          <p class="panel-title">${text.emptyTitle}</p>
          <p>${text.emptyHint}</p>
        </slot>
        ${filtered ? html`<button type="button" part="button" class="secondary" @click=${this.#onFilterReset}>${text.clearFilters}</button>` : nothing}
      </div>`;
  }

  #renderError(): TemplateResult {
    const text = this.#text;
    return html`${this.#renderStatus('')}
      <div part="error" class="panel error" role="alert">
        <slot name="error">
          <p class="panel-title">${text.errorTitle}</p>
          <p>${text.errorRetryLater}</p>
        </slot>
        <button type="button" part="button retry-button" class="primary" @click=${this.reload}>${text.retry}</button>
      </div>`;
  }
}

/** The filters an `<estate-map>` writes in the page URL, which every list under its prefix follows: its box and a drawn area. */
const MAP_AREAS = ['bbox', 'area'] as const satisfies readonly QueryKey[];

/** The element declares a typed property for every filter of the table: a missing one fails here. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<Check extends true> = Check;
export type ListingsDeclaresEveryFilter = Holds<Same<Pick<EstateListings, QueryKey>, FilterProperties>> &
  Holds<QueryKey extends keyof typeof EstateListings.properties ? true : false>;

/** Page numbers to show: first, last, and one either side of the current one; null marks a gap. */
export function pageWindow(current: number, pages: number): Array<number | null> {
  const wanted = new Set([1, pages, current - 1, current, current + 1]);
  const numbers = [...wanted].filter((number) => number >= 1 && number <= pages).sort((a, b) => a - b);
  const result: Array<number | null> = [];
  for (const number of numbers) {
    const previous = result[result.length - 1];
    if (typeof previous === 'number' && number - previous === 2) result.push(previous + 1);
    else if (typeof previous === 'number' && number - previous > 2) result.push(null);
    result.push(number);
  }
  return result;
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-listings': EstateListings;
  }
  interface GlobalEventHandlersEventMap {
    'estate-listings-loaded': CustomEvent<ListingsLoadedDetail>;
    'estate-listings-error': CustomEvent<ListingsErrorDetail>;
    'estate-listings-query-change': CustomEvent<ListingsQueryChangeDetail>;
    'estate-listing-select': CustomEvent<ListingSelectDetail>;
  }
}
