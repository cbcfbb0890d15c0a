import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { formatBoundingBox, parseBoundingBox, type BoundingBox } from '../../contract/listing-filters.ts';
import type {
  ListingMap,
  ListingMapFeature,
  ListingPosition,
  ListingsQuery,
  MapClusterProperties,
  MapConfig,
  MapListingProperties,
} from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { fill } from '../shared/fill.ts';
import { formatNumber, plural, resolveLocale } from '../shared/format.ts';
import { bathIcon, bedIcon, carIcon, chevronLeft, chevronRight, closeIcon, expandIcon } from '../shared/icons.ts';
import { renderFeature } from '../shared/listing-parts.ts';
import { LISTING_HIGHLIGHT, listenForHighlights, type ListingHighlightDetail } from '../shared/listing-highlight.ts';
import { fetchJson, relayUrl } from '../shared/relay.ts';
import { loadElement } from '../shared/load-element.ts';
import { ShortlistController, renderKeep } from '../shared/shortlist.ts';
import { UrlQueryController, type QueryChanges } from '../shared/url-query.ts';
import { buildQuery, cleanCount, cleanValue, QUERY_KEYS, toSearchParams, type QueryKey } from '../listings/query.ts';
// The drawn-area rule for its query helpers (its own copy of both: vite.config.ts COPIES).
import '../listings/area-rule.ts';
import { MapDataController } from './map-data.ts';
import { DrawAreaController, drawAreaStyles } from './draw-area.ts';
import { MapGestures, type GestureHint } from './gestures.ts';
import { formatPlace, parsePlace, placeOf, viewOfPlace, type MapPlace } from './map-place.ts';
import { pinPrice, type PinPriceWords } from './pin-price.ts';
import { fitBox, fromScreen, intersectBoxes, tileUrl, toScreen, viewAt, viewBox, zoomOf, type Insets, type Size, type View } from './projection.ts';
import { TileLayer } from './tile-layer.ts';
import { PhoneLayout, type PhoneShow } from './phone-layout.ts';
import { FullscreenHistory } from './fullscreen-history.ts';
import { styles } from './map.styles.ts';
import { type MapStrings } from './strings.ts';
import './strings.ts';
import { countVisit } from '../shared/visits.ts';

export interface MapSelectDetail {
  id: number;
  listing: MapListingProperties;
  /** The listing's page when `detail-href` is set; null when it opens in place (`?listing=<id>`). */
  href: string | null;
}

export interface MapAreaDetail {
  /** The box applied as the filter (`west,south,east,north`), or null when it was cleared. */
  bbox: string | null;
}

export interface MapLoadedDetail {
  features: ListingMapFeature[];
  /** Listings in view, clusters counted by their size. */
  inView: number;
  unplaced: number;
  zoom: number;
}

/** The filters the map reads: every listing filter but the order, which a map has no use for. */
type MapFilter = Exclude<QueryKey, 'sort'>;
export const MAP_FILTERS: readonly MapFilter[] = QUERY_KEYS.filter((name): name is MapFilter => name !== 'sort');

/** Where a map with no listings placed yet starts: Australia. */
const FALLBACK_BOX: BoundingBox = { west: 112.9, south: -43.7, east: 153.7, north: -10.6 };
/** A listing's small map: how close each precision allows. */
const LOCATION_ZOOM: Record<ListingPosition['precision'], number> = { crm: 15, address: 15, suburb: 13 };
/** Pixels an arrow key moves the map. */
const PAN_STEP = 96;
/** Listings the "list of properties on the map" shows at most. */
const LIST_LIMIT = 100;
/** Zoom of the map answer at which nothing is clustered (the relay clusters to 16). */
const UNCLUSTERED_ZOOM = 20;
const HINT_MS = 1600;
/** How far above each other price pins of one spot are drawn: a pin's height and a gap. */
const PIN_STACK_PX = 30;
/** How long the view must rest before the map writes it in the URL (in place: panning adds no history entry). */
const VIEW_WRITE_DELAY_MS = 300;
/** A fit moves the map only when it would move it more than this (pixels, or a tenth of a zoom level). */
const FIT_TOLERANCE_PX = 8;
/** A price pin's tail under its label (map.styles.ts). */
const PIN_TAIL_PX = 7;
/** The room kept between an open card's pin and the card or a control. */
const PIN_CLEARANCE_PX = 4;
/** How far a finger moves sideways on a map card for the next or previous pin. */
const SWIPE_PX = 48;

/**
 * Listings on a map from the agency's relay: price pins and clusters, a card for a pin, a list
 * beside it that follows the map (or "search this area" when following is off), and a list of
 * what is in view for those who would rather not use a map. Where it looks is in the page URL
 * (`view=lat,lng,zoom` under the query prefix), written in place as the buyer pans and as a new
 * history entry at a deliberate step (a cluster zoomed into, a card opened, "search this area", a
 * new search), so Back and Forward show each view again; a new search fits the map to its results. Tiles come from
 * the relay's own origin (no CSP source to add). Reads its filters from the page URL, as a list
 * with a filter bar writes them, so `<estate-map>` and `<estate-listings>` under one
 * `query-prefix` show the same listings: changing the list's filters moves the map's pins, and
 * "search this area" filters the list. With `lat` and `lng` it shows one place instead (the
 * listing detail's small location map).
 *
 * On a phone (under 40rem wide) beside an `<estate-listings>` of the same `query-prefix`, the map
 * shows a map/list switch fixed at the bottom of the screen and shows one of the two at a time
 * (`show=map|list` in the page URL; the map at first), itself filling the visible viewport less the
 * page above it; a page needs no CSS of its own. A card is a strip along the bottom of the map,
 * and the map pans its pin clear of it and of the controls; a sideways swipe on it, or its
 * arrows, step to the next pin in view, west to east. Full screen keeps the centre, offers
 * the list's filters ("Filters"), and the phone's Back leaves it.
 *
 * @summary A map of the agency's listings: pins, clusters, cards, search this area.
 *
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr type - `sale` or `lease`. Default: both. (As `<estate-listings>`: give the map the same fixed filters as the list beside it.)
 * @attr status - `available` (default), `sold` or `leased`.
 * @attr suburb - Only these suburbs (one, or several separated by commas).
 * @attr surrounding - `true`: the suburbs around the chosen ones too.
 * @attr min-land - Land of at least this many square metres.
 * @attr keywords - Words each found in the heading, description or highlights.
 * @attr min-price - Lowest price.
 * @attr max-price - Highest price.
 * @attr min-beds - At least this many bedrooms.
 * @attr min-baths - At least this many bathrooms.
 * @attr min-cars - At least this many car spaces.
 * @attr property-type - House, Unit, Apartment, …
 * @attr agent-id - Only this agent's listings.
 * @attr bbox - Only listings inside this box, `west,south,east,north` in degrees; the map starts there. While the list follows the map, the map writes its view's box here (in the page URL); otherwise "Search this area" sets it.
 * @attr area - Only listings inside this drawn outline, `lat,lng;lat,lng;…` (3 to 100 corners); drawn on the map ("Draw an area"), kept in the page URL as `area`, and shown over the map.
 * @attr no-follow - The list beside the map does not follow the map at first ("Search this area" instead); the buyer's "Search as I move the map" switch changes it (kept in the page URL as `follow`).
 * @attr query-prefix - Prefix of the URL parameters it reads and writes: the same as the `<estate-listings>` it goes with.
 * @attr detail-href - URL template for a card's link, `{id}` (and `{slug}`) replaced. Without it the link is `?listing=<id>`, which an `<estate-listings>` on the page opens in place.
 * @attr lat - With `lng`: show this one place (a listing's location) instead of the listings.
 * @attr lng - Longitude of that place.
 * @attr precision - How exact the place is: `crm` or `address` (a pin), `suburb` (an area, no pin).
 * @attr place - The place's name for an area (`suburb` precision): "Approximate location, Kew".
 * @attr fullscreen - Present while the map fills the screen (the full-screen button, or set it).
 * @attr locale - BCP 47 locale for numbers (default en-AU).
 * @attr strings - JSON object overriding any of the element's words (see MapStrings), over those of its language.
 * @attr alerts-consent-text - Label of the consent box of "Get alerts for this search" (`<estate-saved-search>`). Default: that form's words.
 *
 * @csspart base - The map's box.
 * @csspart stage - The map itself (focusable: arrow keys pan, + and - zoom).
 * @csspart tiles - The layer of map tiles.
 * @csspart label-tiles - The place names' tiles, above the pins (when the relay has a labels layer: MAP_LABEL_TILE_URL); they take no pointer events.
 * @csspart label - A suburb's name, on a map without tiles.
 * @csspart pin - A listing's marker, with its short price ("$2.15m", "$650 pw"; words when the price shown has no amount); also `pin-highlighted` while its card is pointed at in a list, `pin-open` while its card is open.
 * @csspart cluster - A group of listings (shows its count).
 * @csspart area - The circle of an approximate location.
 * @csspart controls - The zoom and full-screen buttons' group.
 * @csspart button - Every button.
 * @csspart zoom-in - The zoom-in button.
 * @csspart zoom-out - The zoom-out button.
 * @csspart fullscreen-button - The full-screen toggle.
 * @csspart search-area - The "search this area" button (while the list does not follow the map).
 * @csspart follow - The "Search as I move the map" switch (a checkbox and its label).
 * @csspart clear-area - The "clear area" button.
 * @csspart draw-controls - The group of the drawing's buttons.
 * @csspart draw-area - The "Draw an area" button: then a drag (mouse, pen or one finger) draws an outline, or the keyboard's cross-hair places its corners.
 * @csspart draw-finish - "Finish": closes the corners placed so far (at least 3).
 * @csspart draw-cancel - "Cancel": leaves drawing, nothing applied.
 * @csspart remove-area - "Remove area": removes the drawn area.
 * @csspart draw-surface - The surface over the map while drawing (it takes the pointer and the keys).
 * @csspart drawn-area - The drawn outline (an SVG polygon).
 * @csspart card - A listing's card over the map.
 * @csspart card-image - Its photo.
 * @csspart price - Its price text, as the agency wrote it.
 * @csspart card-link - Its link to the listing.
 * @csspart features - Its beds, baths and cars.
 * @csspart feature - One of them.
 * @csspart card-previous - The card's step to the pin west of its own (a swipe to the right does the same); right to left, east (the map is not mirrored, the order of reading is).
 * @csspart card-next - The card's step to the pin east of its own (a swipe to the left does the same); right to left, west.
 * @csspart close-button - The card's close button.
 * @csspart keep-button - The card's heart, which keeps the home in the visitor's shortlist (`aria-pressed` tells whether it is kept).
 * @csspart attribution - The tile provider's credit (always shown with tiles).
 * @csspart hint - The "use two fingers" hint.
 * @csspart status - The loading or error line.
 * @csspart list-toggle - The button that shows the list of properties on the map.
 * @csspart list - That list.
 * @csspart alerts-button - "Get alerts for this search": a saved search of the map's filters, as a contact with buying requirements in the CRM. Not shown while an `<estate-listings>` with a filter bar (`filters`) under the same `query-prefix` is on the page: one page, one button, the bar's, beside the filters the alerts keep. An area applied with "Search this area" (`bbox`) is followed as the suburbs it covers, named in the form before sending.
 * @csspart alerts - Its form (`<estate-saved-search>`; its code is fetched on the first click).
 * @csspart caption - A location map's caption ("Approximate location, Kew").
 * @csspart phone-switch - On a phone beside a list: the map/list switch (a group of two buttons, `aria-pressed` telling which shows).
 * @csspart phone-map - Its "Map" button.
 * @csspart phone-list - Its "List" button.
 * @csspart filters-button - "Filters", in full screen beside a list with a filter bar: leaves full screen for that bar, its first field focused.
 *
 * @cssprop --estate-map-height - Height of the map (default 28rem; a location map 14rem).
 * @cssprop --estate-map-background - Ground colour without tiles, and while they load.
 * @cssprop --estate-map-pin - Pin colour (default the accent colour).
 * @cssprop --estate-map-pin-highlight - A highlighted or open pin's colour.
 * @cssprop --estate-map-cluster - Cluster colour.
 *
 * @fires {CustomEvent<MapLoadedDetail>} estate-map-loaded - The pins and clusters for the view arrived.
 * @fires {CustomEvent<MapAreaDetail>} estate-map-area - "Search this area" applied the view as the filter, or "clear area" removed it (not at each move of a map the list follows: the URL says those).
 * @fires {CustomEvent<MapSelectDetail>} estate-map-select - A card's link was followed; cancelable (cancel to handle navigation yourself).
 * @fires {CustomEvent<ListingHighlightDetail>} estate-listing-highlight - A pin is pointed at or focused (`id`), or no longer (`null`); an `<estate-listings>` lights up that card.
 */
export class EstateMap extends EstateElement {
  static override localizedSections: Section[] = ['map'];
  static override styles = [styles, drawAreaStyles];

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
    noFollow: { type: Boolean, attribute: 'no-follow' },
    queryPrefix: { type: String, attribute: 'query-prefix' },
    detailHref: { type: String, attribute: 'detail-href' },
    lat: { type: Number },
    lng: { type: Number },
    precision: { type: String },
    place: { type: String },
    fullscreen: { type: Boolean, reflect: true },
    locale: { type: String },
    strings: { type: Object },
    alertsConsentText: { attribute: 'alerts-consent-text' },
    alertsOpen: { state: true },
    config: { state: true },
    configFailed: { state: true },
    openListing: { state: true },
    highlightId: { state: true },
    moved: { state: true },
    listOpen: { state: true },
    hint: { state: true },
    announcement: { state: true },
    following: { state: true },
  };

  declare type: ListingsQuery['type'] | null;
  declare status: ListingsQuery['status'] | null;
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
  declare noFollow: boolean;
  declare queryPrefix: string;
  declare detailHref: string | null;
  declare lat: number | null;
  declare lng: number | null;
  declare precision: ListingPosition['precision'] | null;
  declare place: string | null;
  declare fullscreen: boolean;
  declare locale: string | null;
  /** Overrides for any of the element's words. */
  declare strings: Partial<MapStrings> | null;
  declare alertsConsentText: string | undefined;
  /** The saved-search form under the map is open. */
  declare protected alertsOpen: boolean;
  declare protected config: MapConfig | null;
  declare protected configFailed: boolean;
  /** The listing whose card is open. */
  declare protected openListing: { feature: ListingMapFeature; properties: MapListingProperties } | null;
  /** The listing another element points at. */
  declare protected highlightId: number | null;
  /** The visitor moved the map since the area was last applied: offer "search this area". */
  declare protected moved: boolean;
  declare protected listOpen: boolean;
  declare protected hint: GestureHint | null;
  declare protected announcement: string;
  /** The list follows the map: each rested view is the `bbox` filter. */
  declare protected following: boolean;

  /** The filters as the page's attributes set them, before the URL changed them. */
  #baseFilters: Partial<Record<MapFilter, unknown>> | null = null;
  #view: View | null = null;
  #size: Size = { width: 0, height: 0 };
  #gestures: MapGestures | undefined;
  #tiles: TileLayer | undefined;
  /** The relay's labels-only layer, above the markers (a pin never hides a suburb's name). */
  #labelTiles: TileLayer | undefined;
  #resizeObserver: ResizeObserver | undefined;
  #stopHighlights: (() => void) | undefined;
  #hintTimer: ReturnType<typeof setTimeout> | undefined;
  #announceNext = false;
  /** After a cluster zooms in: the place whose nearest marker takes the focus once the answer is in. */
  #focusNear: [number, number] | null = null;
  #frame = 0;
  #restoreOverflow: string | null = null;
  /** A view write waits for the view to rest. */
  #writeTimer: ReturnType<typeof setTimeout> | undefined;
  /** The next view written is a new history entry (a deliberate step), not a change in place. */
  #pushNext = false;
  /** The view is moving to one from the URL: nothing to write. */
  #restoring = false;
  /** The view came from fitting the results, not from the buyer: a following list shows them all (no box). */
  #fitted = false;
  /**
   * The view is the fit to the results that a URL naming no view stands for (the start, or such an
   * entry shown again): nothing to write, until the buyer moves the map or takes a step.
   */
  #quiet = false;
  /** Fit the view to the next answer's `bounds` (the filters changed). */
  #fitPending = false;
  /** The place to show once the map has a size. */
  #startPlace: MapPlace | null = null;
  /** The listing whose card the URL opens, once an answer has it. */
  #cardWanted: number | null = null;

  readonly #data = new MapDataController(this, (answer) => void this.#afterAnswer(answer));
  /** The unclustered answer for the list of what is in view (asked only while the list is open). */
  readonly #listData = new MapDataController(this, () => undefined);
  readonly #shortlist = new ShortlistController(this);
  /** "Draw an area": the outline is the `area` filter, in the URL like the others. */
  readonly #drawing = new DrawAreaController(this, {
    view: () => (this.#view && this.#size.width ? { view: this.#view, size: this.#size } : null),
    area: () => (this.area && this.area !== cleanValue('area', this.#baseFilters?.area) ? this.area : null),
    apply: (area) => this.#applyDrawnArea(area),
    announce: (message) => (this.announcement = message),
    words: () => this.text,
  });
  /** Said before the next count of properties on the map (after an area is drawn or removed). */
  #announcePrefix = '';

  readonly #urlQuery = new UrlQueryController(this, {
    prefix: () => this.queryPrefix ?? '',
    onNavigate: (byHistory) => this.#readUrl(true, byHistory),
  });
  /** On a phone, beside a list: the map/list switch. */
  readonly #phone = new PhoneLayout(this, this.#urlQuery);
  /** The phone's Back leaves full screen. */
  readonly #fullscreenHistory = new FullscreenHistory(this, () => {
    if (this.fullscreen) this.#toggleFullscreen();
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
    this.noFollow = false;
    this.following = true;
    this.queryPrefix = '';
    this.detailHref = null;
    this.lat = null;
    this.lng = null;
    this.precision = null;
    this.place = null;
    this.fullscreen = false;
    this.locale = null;
    this.strings = null;
    this.config = null;
    this.configFailed = false;
    this.openListing = null;
    this.highlightId = null;
    this.moved = false;
    this.listOpen = false;
    this.alertsOpen = false;
    this.hint = null;
    this.announcement = '';
  }

  /** The pins and clusters shown now (the last answer for the view). */
  get features(): ListingMapFeature[] {
    return this.#data.answer?.features ?? [];
  }

  /** The current view: its box (`west,south,east,north`) and zoom; null before the map has a size. */
  get view(): { bbox: string; zoom: number } | null {
    return this.#view ? { bbox: formatBoundingBox(viewBox(this.#view, this.#size)), zoom: zoomOf(this.#view.k) } : null;
  }

  /** True for the listing detail's map of one place. */
  get #isLocation(): boolean {
    return Number.isFinite(this.lat) && Number.isFinite(this.lng) && this.lat !== null && this.lng !== null;
  }

  private get text(): MapStrings {
    return this.localize.words('map', this.strings);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#baseFilters ??= this.#filterValues();
    if (!this.#isLocation) {
      this.#readUrl(false);
      this.#stopHighlights = listenForHighlights(this, (id) => (this.highlightId = id));
    }
    if (!this.config) void this.#loadConfig();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#stopHighlights?.();
    this.#resizeObserver?.disconnect();
    this.#gestures?.destroy();
    this.#gestures = undefined;
    this.#setFullscreen(false);
    cancelAnimationFrame(this.#frame);
    clearTimeout(this.#writeTimer);
  }

  /** Moves the map to show `bbox` (`west,south,east,north`), or to the agency's listings without it. */
  showBox(bbox?: string | null): void {
    const box = bbox ? parseBoundingBox(bbox) : null;
    const target = box && typeof box !== 'string' ? box : (this.config?.bounds ?? FALLBACK_BOX);
    if (this.#size.width && this.#gestures) this.#gestures.moveTo(this.#fitView(target));
  }

  // ---- filters and the URL ----------------------------------------------------------------

  #filterValues(): Partial<Record<MapFilter, unknown>> {
    return Object.fromEntries(MAP_FILTERS.map((name) => [name, this[name]]));
  }

  /** The filters but the box, as one string: what a new search changes. */
  #searchKey(): string {
    return this.#filterParams().toString();
  }

  /**
   * The page URL's filters (under the prefix) over the attributes', whether the list follows, and
   * (after Back or Forward, or another element's change) the view and the card it says.
   */
  #readUrl(navigated: boolean, byHistory = false): void {
    if (this.#isLocation) return;
    const before = { box: this.bbox, search: this.#searchKey() };
    const self = this as unknown as Record<MapFilter, unknown>;
    for (const name of MAP_FILTERS) {
      const fromUrl = this.#urlQuery.get(name);
      self[name] = cleanValue(name as QueryKey, fromUrl !== null ? fromUrl : this.#baseFilters?.[name]) ?? null;
    }
    const follow = this.#urlQuery.get('follow');
    this.following = follow === 'on' ? true : follow === 'off' ? false : !this.noFollow;
    if (!navigated) return;
    this.#phone.apply();
    this.#announceNext = true;
    if (byHistory) {
      // An entry shown again: exactly its view (and card), never a pan the buyer had not finished writing.
      clearTimeout(this.#writeTimer);
      this.#pushNext = false;
      const place = parsePlace(this.#urlQuery.get('view'));
      // Back out of full screen: the map keeps what it shows (its size changes about the same centre).
      const leavingFullscreen = this.fullscreen && this.#fullscreenHistory.leaving;
      if (leavingFullscreen) this.#fitPending = false;
      else if (place) this.#restore(place);
      else if (this.bbox && !this.following) this.showBox(this.bbox);
      else this.#fitToResults(false);
      this.#readCard();
    } else if (this.#searchKey() !== before.search) {
      // A new search (the list's filter bar): show its results.
      this.#fitToResults(true);
    } else if (this.bbox !== before.box && !this.following) {
      // Another element's area (or none, after a reset): show it.
      if (this.bbox) this.showBox(this.bbox);
      else this.#fitToResults(true);
    }
    this.#ask();
  }

  /** Moves to a place from the URL (at once, and without writing it back). */
  #restore(place: MapPlace): void {
    if (!this.#size.width || !this.#gestures) {
      this.#startPlace = place;
      return;
    }
    this.#fitPending = false;
    this.#fitted = false;
    this.#quiet = false;
    this.#restoring = true;
    try {
      this.#gestures.moveTo(viewOfPlace(place, this.#size));
    } finally {
      this.#restoring = false;
    }
  }

  /** Fits the view to the filters' results once the relay's answer says where they are (`written`: in the URL, in place). */
  #fitToResults(written: boolean): void {
    this.#fitPending = true;
    this.#quiet = !written;
    this.#ask(true);
    // The view's answer may be in already (asked again, it is not answered again): it says where the results are.
    const data = this.#data;
    if (this.#fitPending && data.answer && data.state === 'done' && data.answerUrl === data.wanted) void this.#afterAnswer(data.answer);
  }

  /** The card the URL names: open once an answer has its listing, closed when it names none. */
  #readCard(): void {
    const id = cleanCount(this.#urlQuery.get('card')) ?? null;
    this.#cardWanted = id;
    if (!id) {
      if (this.openListing) this.openListing = null;
      return;
    }
    this.#openWantedCard();
  }

  #openWantedCard(): void {
    const id = this.#cardWanted;
    if (!id) return;
    const feature = this.features.find((found) => !('cluster' in found.properties) && found.properties.id === id);
    if (!feature) return;
    this.#cardWanted = null;
    this.openListing = { feature, properties: feature.properties as MapListingProperties };
  }

  /** Writes the rested view in the URL: in place, or as a new entry after a deliberate step; a following list gets its box. */
  #writeView(): void {
    clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
    if (!this.#view || !this.#size.width || this.#isLocation) return;
    if (this.#quiet) {
      this.#pushNext = false;
      return;
    }
    const changes: QueryChanges = {};
    const place = formatPlace(placeOf(this.#view, this.#size));
    if (place !== this.#urlQuery.get('view')) changes.view = place;
    if (this.following) {
      const bbox = this.#fitted ? null : formatBoundingBox(viewBox(this.#view, this.#size));
      this.bbox = bbox ?? (cleanValue('bbox', this.#baseFilters?.bbox) as string | null) ?? null;
      if (bbox !== this.#urlQuery.get('bbox')) Object.assign(changes, { bbox, page: null });
    }
    const push = this.#pushNext;
    this.#pushNext = false;
    if (!Object.keys(changes).length) return;
    if (push) this.#urlQuery.push(changes);
    else this.#urlQuery.replace(changes);
  }

  /** Before a deliberate step: the view so far is written in place, and the step's view will be a new entry. */
  #step(): void {
    this.#quiet = false;
    if (this.#writeTimer !== undefined) this.#writeView();
    this.#pushNext = true;
  }

  /** The relay query of the filters, without the box (the map asks for its view). */
  #filterParams(): URLSearchParams {
    const query = buildQuery(this.#filterValues(), 1, 1) as Record<string, unknown>;
    delete query.page;
    delete query.pageSize;
    delete query.bbox;
    return toSearchParams(query as ListingsQuery);
  }

  /** The view's box within the filter's box (the view alone while the list follows it); null when they do not meet. */
  #askedBox(): BoundingBox | null {
    if (!this.#view) return null;
    const view = viewBox(this.#view, this.#size);
    const filter = this.bbox && !this.following ? parseBoundingBox(this.bbox) : null;
    return filter && typeof filter !== 'string' ? intersectBoxes(view, filter) : view;
  }

  /** The relay's zoom for the view's: one less, as it clusters in 512-pixel tiles (about 60 px here); none past the deepest zoom. */
  #answerZoom(): number {
    const zoom = Math.round(zoomOf(this.#view!.k));
    return zoom >= (this.config?.maxZoom ?? 17) ? UNCLUSTERED_ZOOM : Math.max(0, zoom - 1);
  }

  #mapUrl(box: BoundingBox, zoom: number): string {
    const params = this.#filterParams();
    params.set('bbox', formatBoundingBox(box));
    params.set('zoom', String(zoom));
    return `${relayUrl(this.relay, 'api/v1/listings/map')}?${params.toString()}`;
  }

  /** Asks for the view's pins (once the view rests). */
  #ask(now = false): void {
    if (this.#isLocation || !this.#view || !this.config) return;
    const box = this.#askedBox();
    if (!box) {
      this.#data.answer = { type: 'FeatureCollection', features: [], unplaced: 0, bounds: null };
      this.#data.state = 'done';
      void this.#afterAnswer(this.#data.answer);
      return;
    }
    this.#data.want(this.#mapUrl(box, this.#answerZoom()), now);
    if (this.listOpen) this.#listData.want(this.#mapUrl(box, UNCLUSTERED_ZOOM), now);
  }

  async #loadConfig(): Promise<void> {
    try {
      this.config = await fetchJson<MapConfig>(relayUrl(this.relay, 'api/v1/map/config'));
      this.configFailed = false;
      this.#gestures?.setZoomBounds(this.config.minZoom, this.config.maxZoom);
      this.#startView();
    } catch (error) {
      console.error('<estate-map> could not load the map settings:', error);
      this.configFailed = true;
    }
  }

  // ---- the view ---------------------------------------------------------------------------

  protected override firstUpdated(): void {
    const stage = this.renderRoot.querySelector<HTMLElement>('.stage')!;
    this.#tiles = new TileLayer(this.renderRoot.querySelector<HTMLElement>('.tiles')!);
    this.#labelTiles = new TileLayer(this.renderRoot.querySelector<HTMLElement>('.label-tiles')!, 'label-tile');
    if (!this.#isLocation) {
      this.#gestures = new MapGestures(stage, {
        onView: (view, byVisitor) => this.#onView(view, byVisitor),
        owned: () => this.fullscreen,
        onHint: (hint) => this.#showHint(hint),
      });
      if (this.config) this.#gestures.setZoomBounds(this.config.minZoom, this.config.maxZoom);
    }
    this.#resizeObserver = new ResizeObserver(() => {
      const size = { width: stage.clientWidth, height: stage.clientHeight };
      if (size.width === this.#size.width && size.height === this.#size.height) return;
      // Hidden (a phone showing the list): the view stays as it was, for when the map shows again.
      if (!size.width || !size.height) return;
      const first = !this.#size.width;
      const centre = this.#view && !first ? placeOf(this.#view, this.#size) : null;
      this.#size = size;
      if (first || this.#isLocation) this.#startView();
      else if (centre && this.#gestures) {
        // A new size (full screen, a phone turned) keeps the same centre and zoom, not the top-left corner.
        this.#gestures.moveTo(viewOfPlace(centre, size));
        if (this.openListing) void this.updateComplete.then(() => this.#keepPinClear());
      } else this.#draw();
      this.#ask();
    });
    this.#resizeObserver.observe(stage);
  }

  /** The first view, once both the settings and the size are known: the filter's box, else the listings'. */
  #startView(): void {
    if (!this.config || !this.#size.width) return;
    if (this.#isLocation) {
      this.#view = viewAt(this.lng!, this.lat!, Math.min(this.config.maxZoom, LOCATION_ZOOM[this.precision ?? 'address'] ?? 15), this.#size);
      this.#draw();
      return;
    }
    if (this.#view) return;
    const place = this.#startPlace ?? parsePlace(this.#urlQuery.get('view'));
    this.#startPlace = null;
    if (place) {
      this.#restore(place);
      this.#readCard();
      // A link naming a view but no box (written by hand): a following list shows that view too.
      if (this.following && this.#urlQuery.get('bbox') === null) this.#writeView();
      return;
    }
    this.#quiet = true;
    this.showBox(this.bbox);
    // Without a box, the relay's first answer says where the results are (the settings' bounds are every listing's).
    if (!this.bbox) this.#fitToResults(false);
    this.#readCard();
  }

  #fitView(box: BoundingBox): View {
    return fitBox(box, this.#size, { padding: this.#clearOfControls(), minZoom: this.config?.minZoom ?? 0, maxZoom: Math.min(this.config?.maxZoom ?? 17, 16) });
  }

  /** 32 px on each side, more under the top bar and beside the zoom buttons: a fitted result is never under a control (a phone's narrow map). */
  #clearOfControls(): Insets {
    const padding = { top: 32, right: 32, bottom: 32, left: 32 };
    const stage = this.#stage?.getBoundingClientRect();
    if (!stage?.width) return padding;
    const top = this.renderRoot.querySelector('.top')?.getBoundingClientRect();
    const controls = this.renderRoot.querySelector('.controls')?.getBoundingClientRect();
    if (top?.height) padding.top = Math.max(padding.top, top.bottom - stage.top + 16);
    if (controls?.width) padding.right = Math.max(padding.right, stage.right - controls.left + 16);
    // Never more than a third of the map either way: a short map still shows its results.
    padding.top = Math.min(padding.top, stage.height / 3);
    padding.right = Math.min(padding.right, stage.width / 3);
    return padding;
  }

  #onView(view: View, byVisitor: boolean): void {
    const first = !this.#view;
    this.#view = view;
    if (byVisitor) this.#visitorMoved();
    if (first) this.#announceNext = true;
    this.#draw();
    this.#ask();
    if (!this.#restoring && !this.#isLocation) {
      clearTimeout(this.#writeTimer);
      this.#writeTimer = setTimeout(() => this.#writeView(), VIEW_WRITE_DELAY_MS);
    }
  }

  #visitorMoved(): void {
    this.moved = true;
    this.#announceNext = true;
    this.#fitted = false;
    this.#quiet = false;
    this.#fitPending = false;
  }

  /** After a new search: the view that shows its results (within an applied area), if it is not nearly the view already. */
  #fitToAnswer(answer: ListingMap): boolean {
    this.#fitPending = false;
    const area = this.bbox && !this.following ? parseBoundingBox(this.bbox) : null;
    const bounds = answer.bounds && area && typeof area !== 'string' ? intersectBoxes(answer.bounds, area) : answer.bounds;
    if (!bounds || !this.#view || !this.#gestures) return false;
    const target = this.#fitView(bounds);
    this.#fitted = true;
    // A new search moves the map only if it would show another place (a following list then shows
    // every result). So does the start: its first view, fitted to every listing, is most often
    // within a pixel of its results' fit, and moving would ask the relay for the same pins again.
    if (this.#nearly(this.#view, target)) {
      this.#writeView();
      return false;
    }
    // The start's fit at once (the first pins are for it); a new search's as a move the buyer sees.
    if (!this.#quiet) {
      this.#gestures.moveTo(target, this.#motion);
      return true;
    }
    const asked = this.#data.answerUrl;
    this.#gestures.moveTo(target);
    // Moved so little that it asks the same: this answer is the view's.
    return this.#data.wanted !== asked;
  }

  /** Whether two views show nearly the same (centres within FIT_TOLERANCE_PX, zooms within a tenth). */
  #nearly(a: View, b: View): boolean {
    if (Math.abs(zoomOf(a.k) - zoomOf(b.k)) >= 0.1) return false;
    const [middleX, middleY] = [this.#size.width / 2, this.#size.height / 2];
    const [x, y] = toScreen(a, ...fromScreen(b, middleX, middleY));
    return Math.hypot(x - middleX, y - middleY) < FIT_TOLERANCE_PX;
  }

  /** Tiles at once, markers in the next render (Lit batches a gesture's frames). */
  #draw(): void {
    if (!this.#view) return;
    cancelAnimationFrame(this.#frame);
    const config = this.config;
    const dense = highDensityScreen();
    // Filled in before it is resolved: a URL would escape the template's braces.
    const urlOf = (template: string | null | undefined) =>
      template ? (tile: { x: number; y: number; z: number }) => relayUrl(this.relay, tileUrl(template, tile)) : null;
    const ground = urlOf(dense ? (config?.tiles2x ?? config?.tiles) : config?.tiles);
    // The names above the markers, only over a ground (a relay before labels layers says nothing: none).
    const names = ground ? urlOf(dense ? (config?.labels2x ?? config?.labels) : config?.labels) : null;
    const maxZoom = config?.maxZoom ?? 17;
    const bounds = config?.bounds ?? null;
    this.#frame = requestAnimationFrame(() => {
      this.#tiles?.draw(ground, this.#view!, this.#size, maxZoom, bounds);
      this.#labelTiles?.draw(names, this.#view!, this.#size, maxZoom, bounds);
    });
    this.requestUpdate();
  }

  async #afterAnswer(answer: ListingMap): Promise<void> {
    // A fit moves the view: the answer for the new one follows (this one is not the view's).
    if (this.#fitPending && this.#fitToAnswer(answer)) return;
    this.#openWantedCard();
    await this.updateComplete;
    const inView = answer.features.reduce((sum, feature) => sum + ('cluster' in feature.properties ? feature.properties.count : 1), 0);
    if (this.#announceNext) {
      this.#announceNext = false;
      const text = this.text;
      const count = inView ? plural(this.#locale, inView, text.inView) : text.noneInView;
      this.announcement = this.#announcePrefix ? `${this.#announcePrefix} ${count}` : count;
      this.#announcePrefix = '';
    }
    if (this.#focusNear) {
      const [x, y] = this.#focusNear;
      this.#focusNear = null;
      let nearest: HTMLElement | null = null;
      let best = Infinity;
      for (const marker of this.renderRoot.querySelectorAll<HTMLElement>('.marker')) {
        const distance = Math.hypot(Number(marker.dataset.x) - x, Number(marker.dataset.y) - y);
        if (distance < best) [nearest, best] = [marker, distance];
      }
      (nearest ?? this.#stage)?.focus();
    }
    // An answer for a view already left (asked again from the URL while a zoom ran): the view's own follows and says loaded.
    const box = this.#askedBox();
    if (box && answer === this.#data.answer && this.#data.answerUrl !== this.#mapUrl(box, this.#answerZoom())) return;
    this.emit<MapLoadedDetail>('estate-map-loaded', {
      features: answer.features,
      inView,
      unplaced: answer.unplaced,
      zoom: zoomOf(this.#view?.k ?? 256),
    });
  }

  get #stage(): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>('.stage');
  }

  get #locale(): string {
    return resolveLocale(this.locale, this.localize.lang);
  }

  get #motion(): number {
    // Hidden (a phone showing the list), d3-zoom would animate over a 0 × 0 extent: NaN views.
    if (!this.#stage?.clientWidth) return 0;
    return matchMedia('(prefers-reduced-motion: reduce)').matches ? 0 : 250;
  }

  // ---- visitor actions --------------------------------------------------------------------

  #zoom(levels: number): void {
    this.#visitorMoved();
    this.#gestures?.zoomBy(levels, this.#motion);
  }

  #onStageKeydown(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const pans: Record<string, [number, number]> = { ArrowLeft: [PAN_STEP, 0], ArrowRight: [-PAN_STEP, 0], ArrowUp: [0, PAN_STEP], ArrowDown: [0, -PAN_STEP] };
    const pan = pans[event.key];
    if (pan) {
      event.preventDefault();
      this.#visitorMoved();
      this.#gestures?.panBy(pan[0], pan[1]);
    } else if (event.key === '+' || event.key === '=') {
      event.preventDefault();
      this.#zoom(1);
    } else if (event.key === '-' || event.key === '_') {
      event.preventDefault();
      this.#zoom(-1);
    }
  }

  #onBaseKeydown(event: KeyboardEvent): void {
    if (event.key === 'Tab' && this.fullscreen) this.#trapTab(event);
    if (event.key !== 'Escape') return;
    if (this.openListing) {
      event.stopPropagation();
      this.#closeCard();
    } else if (this.fullscreen) {
      event.stopPropagation();
      this.#toggleFullscreen();
    }
  }

  /** In full screen, Tab and Shift+Tab go round the map's own controls, pins and card. */
  #trapTab(event: KeyboardEvent): void {
    const focusable = [...this.renderRoot.querySelectorAll<HTMLElement>('button, a[href], [tabindex="0"], [tabindex="-1"][part~="card"]')].filter(
      (element) => element.getClientRects().length > 0,
    );
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    const active = (this.renderRoot as ShadowRoot).activeElement;
    if (event.shiftKey ? active === first : active === last) {
      event.preventDefault();
      (event.shiftKey ? last : first)?.focus();
    }
  }

  /** In full screen, focus stays on the map: if it leaves anyway, it comes back to the close button. */
  #onFocusOut(event: FocusEvent): void {
    if (!this.fullscreen) return;
    const next = event.relatedTarget as Node | null;
    if (!next || this.contains(next) || this.renderRoot.contains(next)) return;
    this.renderRoot.querySelector<HTMLElement>('[part~="fullscreen-button"]')?.focus();
  }

  #onCluster(feature: ListingMapFeature, cluster: MapClusterProperties): void {
    const [lng, lat] = feature.geometry.coordinates;
    const maxZoom = this.config?.maxZoom ?? 17;
    // The relay's zoom is one less than the map's (see #answerZoom).
    const zoom = Math.min(maxZoom, Math.max(cluster.expansionZoom + 1, Math.floor(zoomOf(this.#view!.k)) + 1));
    this.#visitorMoved();
    this.#step();
    this.#focusNear = [this.#size.width / 2, this.#size.height / 2];
    this.#gestures?.moveTo(viewAt(lng, lat, zoom, this.#size), this.#motion);
  }

  #openCard(feature: ListingMapFeature, properties: MapListingProperties): void {
    // A step of its own in the history: Back closes it, and shows the view it was opened in.
    this.#step();
    this.#pushNext = false;
    this.#urlQuery.push({ card: String(properties.id) });
    this.openListing = { feature, properties };
    countVisit(this, 'map-card', properties.id);
    void this.updateComplete.then(() => {
      this.renderRoot.querySelector<HTMLElement>('[part~="card"]')?.focus();
      this.#keepPinClear();
    });
  }

  /**
   * The card is a strip along the bottom of the map: when its pin is under it or under a control,
   * the map pans the pin to the middle of the room between the controls and the card.
   */
  #keepPinClear(): void {
    const card = this.renderRoot.querySelector<HTMLElement>('[part~="card"]');
    const pin = this.renderRoot.querySelector<HTMLElement>(`[part~="pin"][data-id="${this.openListing?.properties.id}"]`);
    const frame = this.renderRoot.querySelector<HTMLElement>('.frame');
    if (!card || !pin || !frame || !this.#gestures) return;
    const pinBox = withTail(pin.getBoundingClientRect());
    const cardBox = card.getBoundingClientRect();
    const controls = [...this.renderRoot.querySelectorAll<HTMLElement>('.top > *, .controls')].map((control) => control.getBoundingClientRect());
    if (![cardBox, ...controls].some((box) => overlaps(pinBox, box, PIN_CLEARANCE_PX))) return;
    const frameBox = frame.getBoundingClientRect();
    const roomTop = Math.max(frameBox.top, ...controls.map((box) => box.bottom));
    const roomBottom = cardBox.top;
    const dx = frameBox.left + frameBox.width / 2 - (pinBox.left + pinBox.width / 2);
    const dy = (roomTop + roomBottom) / 2 - (pinBox.top + pinBox.height / 2);
    this.#gestures.panBy(dx, dy, this.#motion);
  }

  /**
   * The pins in view from west to east, the way a swipe reads them: the card steps to the one
   * beside the open one (round from the last to the first, so the pressed button never vanishes).
   */
  #pinsAcross(): Array<{ feature: ListingMapFeature; properties: MapListingProperties }> {
    return this.#placed()
      .filter(
        (item): item is { feature: ListingMapFeature & { properties: MapListingProperties }; x: number; y: number } => !('cluster' in item.feature.properties),
      )
      .sort((a, b) => a.x - b.x || a.y - b.y)
      .map(({ feature }) => ({ feature, properties: feature.properties }));
  }

  #stepCard(by: 1 | -1): void {
    const pins = this.#pinsAcross();
    const at = pins.findIndex(({ properties }) => properties.id === this.openListing?.properties.id);
    const next = pins[(at + by + pins.length) % pins.length];
    if (!next || pins.length < 2) return;
    this.openListing = next;
    this.#urlQuery.replace({ card: String(next.properties.id) });
    const { properties } = next;
    this.announcement = [properties.price?.trim() || this.text.priceFallback, properties.title].filter(Boolean).join(', ');
    void this.updateComplete.then(() => this.#keepPinClear());
  }

  /** A finger's sideways swipe on the card steps to the next pin, as portals' map cards do. */
  #swipeFrom: { x: number; y: number; id: number } | null = null;

  #onCardPointerDown(event: PointerEvent): void {
    this.#swipeFrom = event.isPrimary ? { x: event.clientX, y: event.clientY, id: event.pointerId } : null;
  }

  #onCardPointerUp(event: PointerEvent): void {
    const from = this.#swipeFrom;
    this.#swipeFrom = null;
    if (!from || from.id !== event.pointerId) return;
    const dx = event.clientX - from.x;
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) < 2 * Math.abs(event.clientY - from.y)) return;
    this.#stepCard(dx < 0 ? 1 : -1);
  }

  #closeCard(): void {
    const id = this.openListing?.properties.id;
    this.openListing = null;
    if (this.#urlQuery.get('card') !== null) this.#urlQuery.replace({ card: null });
    void this.updateComplete.then(() => (this.renderRoot.querySelector<HTMLElement>(`[part~="pin"][data-id="${id}"]`) ?? this.#stage)?.focus());
  }

  #highlight(id: number | null): void {
    this.emit<ListingHighlightDetail>(LISTING_HIGHLIGHT, { id });
  }

  #detailLink(listing: MapListingProperties): string {
    if (this.detailHref) {
      return this.detailHref.replace(/\{id\}/g, encodeURIComponent(String(listing.id))).replace(/\{slug\}/g, addressSlug(listing.title));
    }
    return this.#urlQuery.url({ listing: String(listing.id) });
  }

  #onCardLink(event: MouseEvent, listing: MapListingProperties): void {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const href = this.detailHref ? this.#detailLink(listing) : null;
    if (!this.emit<MapSelectDetail>('estate-map-select', { id: listing.id, listing, href }, true)) {
      event.preventDefault();
      return;
    }
    if (href) return;
    // In place: an <estate-listings> on the page (same prefix) opens the detail from the URL.
    event.preventDefault();
    this.#urlQuery.push({ listing: String(listing.id) });
  }

  #searchArea(): void {
    if (!this.#view) return;
    const bbox = formatBoundingBox(viewBox(this.#view, this.#size));
    this.#applyArea(bbox, this.text.areaApplied);
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[part~="clear-area"]')?.focus());
  }

  #clearArea(): void {
    this.#applyArea(null, this.text.areaCleared);
    void this.updateComplete.then(() => this.#stage?.focus());
  }

  #applyArea(bbox: string | null, message: string): void {
    this.bbox = (bbox ?? cleanValue('bbox', this.#baseFilters?.bbox) ?? null) as string | null;
    this.moved = false;
    this.announcement = message;
    if (this.#writeTimer !== undefined) this.#writeView();
    this.#urlQuery.push({ bbox, page: null, ...(this.#view ? { view: formatPlace(placeOf(this.#view, this.#size)) } : {}) });
    this.emit<MapAreaDetail>('estate-map-area', { bbox });
    this.#ask(true);
  }

  /** An outline drawn (a history entry; the map fits its results) or removed (the view stays; a following list shows it). */
  #applyDrawnArea(area: string | null): void {
    this.area = (area ?? cleanValue('area', this.#baseFilters?.area) ?? null) as string | null;
    this.#announcePrefix = area ? this.text.areaDrawn : this.text.areaRemoved;
    this.#announceNext = true;
    if (this.#writeTimer !== undefined) this.#writeView();
    const changes: QueryChanges = { area, page: null, ...(this.#view ? { view: formatPlace(placeOf(this.#view, this.#size)) } : {}) };
    if (!area && this.following && this.#view) {
      this.#fitted = false;
      this.bbox = formatBoundingBox(viewBox(this.#view, this.#size));
      changes.bbox = this.bbox;
    }
    this.#urlQuery.push(changes);
    if (area) this.#fitToResults(true);
    else this.#ask(true);
  }

  #toggleFullscreen(): void {
    this.#setFullscreen(!this.fullscreen);
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[part~="fullscreen-button"]')?.focus());
  }

  #setFullscreen(on: boolean): void {
    this.fullscreen = on;
    // The page under a full-screen map does not scroll (CSSOM: allowed by a strict CSP).
    const root = document.documentElement.style;
    if (on && this.#restoreOverflow === null) {
      this.#restoreOverflow = root.overflow;
      root.overflow = 'hidden';
      this.#fullscreenHistory.entered();
    } else if (!on && this.#restoreOverflow !== null) {
      root.overflow = this.#restoreOverflow;
      this.#restoreOverflow = null;
    }
  }

  /** Opens or closes "Get alerts for this search"; the form's code is fetched on the first open. */
  #toggleAlerts(): void {
    this.alertsOpen = !this.alertsOpen;
    loadElement('estate-saved-search', () => import('../saved-search/define.ts')).catch((error: unknown) => console.error(error));
  }

  /** "Search as I move the map": on, the list shows the view (now, and at each rest); off, the last view stays the area, and "search this area" is offered after a move. */
  #toggleFollow(event: Event): void {
    this.following = (event.target as HTMLInputElement).checked;
    this.moved = false;
    const follow = this.following === !this.noFollow ? null : this.following ? 'on' : 'off';
    this.#urlQuery.replace({ follow });
    if (this.following) {
      this.#fitted = false;
      this.#quiet = false;
      this.#writeView();
    }
    this.#ask(true);
  }

  #toggleList(): void {
    this.listOpen = !this.listOpen;
    if (this.listOpen) this.#ask(true);
  }

  #showHint(hint: GestureHint): void {
    this.hint = hint;
    clearTimeout(this.#hintTimer);
    this.#hintTimer = setTimeout(() => (this.hint = null), HINT_MS);
  }

  protected override updated(changed: PropertyValues<this>): void {
    // Markers and labels are placed through the CSSOM: a style attribute (even Lit's styleMap, on
    // its first render) is inline style, which a strict CSP refuses. By the `translate` property,
    // not `transform`: a lit pin's `scale` applies before `transform` and would scale its place
    // too, moving it from under the pointer that lit it (a click then missed it).
    for (const placed of this.renderRoot.querySelectorAll<HTMLElement>('[data-x]')) {
      placed.style.translate = `${placed.dataset.x}px ${placed.dataset.y}px`;
    }
    // A change of the filters by the host (attributes, properties) asks again.
    if (MAP_FILTERS.some((name) => changed.has(name)) || changed.has('relay')) this.#ask();
    if (changed.has('fullscreen') && changed.get('fullscreen') !== undefined) this.#setFullscreen(this.fullscreen);
    if ((changed.has('lat') || changed.has('lng') || changed.has('precision')) && this.#isLocation && this.#view) this.#startView();
  }

  // ---- rendering --------------------------------------------------------------------------

  override render(): TemplateResult {
    return this.#isLocation ? this.#renderLocation() : this.#renderSearch();
  }

  #renderLocation(): TemplateResult {
    const text = this.text;
    const area = this.precision === 'suburb';
    const caption = area && this.place ? fill(text.approximateLocation, { place: this.place }) : null;
    const at = this.#view ? toScreen(this.#view, this.lng!, this.lat!) : null;
    return html`<figure part="base" class="base location">
      <div part="stage" class="stage" role="img" aria-label=${caption ?? text.locationLabel}>
        <div part="tiles" class="tiles"></div>
        ${
          at
            ? area
              ? html`<div part="area" class="area" data-x=${at[0]} data-y=${at[1]}></div>`
              : html`<div part="pin" class="marker pin location-pin" data-x=${at[0]} data-y=${at[1]}></div>`
            : nothing
        }
        <div part="label-tiles" class="label-tiles" aria-hidden="true"></div>
      </div>
      ${caption ? html`<figcaption part="caption" class="caption">${caption}</figcaption>` : nothing} ${this.#renderAttribution()}
    </figure>`;
  }

  #renderSearch(): TemplateResult {
    const text = this.text;
    const locale = this.#locale;
    const applied = !this.following && Boolean(this.bbox) && this.bbox !== cleanValue('bbox', this.#baseFilters?.bbox);
    const state = this.configFailed ? 'error' : this.#data.state;
    const alerts = !this.#listOffersAlerts();
    return html`<div part="base" class="base" @keydown=${this.#onBaseKeydown} @focusout=${this.#onFocusOut}>
        <div class="frame">
          <div class="top">
            <label part="follow" class="follow"
              ><input type="checkbox" .checked=${this.following} @change=${this.#toggleFollow} /><span>${text.follow}</span></label
            >
            ${
              this.fullscreen && !alerts
                ? html`<button type="button" part="button filters-button" class="action secondary" @click=${this.#openFilters}>${text.filters}</button>`
                : nothing
            }
            ${
              this.following
                ? nothing
                : this.moved
                  ? html`<button type="button" part="button search-area" class="action" @click=${this.#searchArea}>${text.searchArea}</button>`
                  : applied
                    ? html`<button type="button" part="button clear-area" class="action secondary" @click=${this.#clearArea}>${text.clearArea}</button>`
                    : nothing
            }
            ${this.#drawing.renderControls()}
          </div>
          <div part="controls" class="controls">
            <button type="button" part="button zoom-in" class="control" aria-label=${text.zoomIn} @click=${() => this.#zoom(1)}>
              <span aria-hidden="true">+</span>
            </button>
            <button type="button" part="button zoom-out" class="control" aria-label=${text.zoomOut} @click=${() => this.#zoom(-1)}>
              <span aria-hidden="true">−</span>
            </button>
            <button
              type="button"
              part="button fullscreen-button"
              class="control"
              aria-label=${this.fullscreen ? text.exitFullscreen : text.fullscreen}
              aria-pressed=${this.fullscreen ? 'true' : 'false'}
              @click=${this.#toggleFullscreen}
            >
              <svg viewBox="0 0 24 24" class="icon" aria-hidden="true">${this.fullscreen ? closeIcon : expandIcon}</svg>
            </button>
          </div>
          <div
            part="stage"
            class=${this.config && !this.config.tiles ? 'stage plain' : 'stage'}
            tabindex="0"
            role="region"
            aria-roledescription="map"
            aria-label=${text.mapLabel}
            aria-describedby="instructions"
            @keydown=${this.#onStageKeydown}
          >
            <div part="tiles" class="tiles"></div>
            ${this.config && !this.config.tiles ? this.#renderLabels() : nothing} ${this.#drawing.renderOverlay()}
            <div class="markers">${this.#renderMarkers()}</div>
            <div part="label-tiles" class="label-tiles" aria-hidden="true"></div>
          </div>
          <p id="instructions" class="visually-hidden">${text.instructions}</p>
          ${this.hint ? html`<p part="hint" class="hint" aria-hidden="true">${this.#hintText(this.hint)}</p>` : nothing}
          ${
            state === 'error'
              ? html`<div part="status" class="state error" role="alert">
                  ${text.error}
                  <button type="button" part="button" class="action" @click=${this.#retry}>${text.retry}</button>
                </div>`
              : state === 'loading' || state === 'filling' || !this.config
                ? html`<p part="status" class="state" aria-hidden="true">${state === 'filling' ? text.filling : text.loading}</p>`
                : nothing
          }
          ${this.openListing ? this.#renderCard(this.openListing.properties) : nothing} ${this.#renderAttribution()}
        </div>
        <p class="visually-hidden" role="status">${this.announcement}</p>
        <button
          type="button"
          part="button list-toggle"
          class="list-toggle"
          aria-expanded=${this.listOpen ? 'true' : 'false'}
          aria-controls="view-list"
          @click=${this.#toggleList}
        >
          ${this.listOpen ? text.hideList : text.showList}
        </button>
        ${
          alerts
            ? html`<button
                type="button"
                part="button alerts-button"
                class="list-toggle"
                aria-expanded=${this.alertsOpen ? 'true' : 'false'}
                aria-controls="alerts"
                @click=${this.#toggleAlerts}
              >
                ${text.getAlerts}
              </button>`
            : nothing
        }
        <div id="view-list" ?hidden=${!this.listOpen}>${this.listOpen ? this.#renderList(locale) : nothing}</div>
        ${
          alerts && this.alertsOpen
            ? html`<estate-saved-search
                id="alerts"
                part="alerts"
                relay=${ifDefined(this.relay ?? undefined)}
                consent-text=${ifDefined(this.alertsConsentText)}
                locale=${locale}
                .search=${buildQuery(this.#filterValues(), 1, 1)}
              ></estate-saved-search>`
            : nothing
        }
      </div>
      ${this.#phone.active ? this.#renderPhoneSwitch() : nothing}`;
  }

  /** The phone's map/list switch: two pressed-or-not buttons, fixed at the bottom of the screen. */
  #renderPhoneSwitch(): TemplateResult {
    const text = this.text;
    const show = this.#phone.show;
    const option = (value: PhoneShow, label: string) =>
      html`<button type="button" part="button phone-${value}" aria-pressed=${show === value ? 'true' : 'false'} @click=${() => this.#phone.select(value)}>
        ${label}
      </button>`;
    return html`<div part="phone-switch" class="phone-switch" role="group" aria-label=${text.phoneSwitch}>
      ${option('map', text.phoneMap)}${option('list', text.phoneList)}
    </div>`;
  }

  /** "Filters" in full screen: back to the page, to the list's filter bar (on a phone, the list shown), its first field focused. */
  #openFilters(): void {
    this.#toggleFullscreen();
    if (this.#phone.active) this.#phone.select('list');
    const prefix = this.queryPrefix ?? '';
    const list = [...document.querySelectorAll('estate-listings')].find((found) => (found.getAttribute('query-prefix') ?? '') === prefix);
    requestAnimationFrame(() => {
      const bar = list?.shadowRoot?.querySelector<HTMLElement>('[part~="filters"]');
      if (!bar) return;
      bar.scrollIntoView({ block: 'start' });
      bar.querySelector<HTMLElement>('input, select, button')?.focus();
    });
  }

  /**
   * Whether a list with a filter bar shows the same search on this page (an `<estate-listings
   * filters>` under the same query prefix): then its bar's "Get alerts for this search" is the
   * page's only one. A buyer sets the search in that bar, beside its Search button, and the alerts
   * keep exactly those filters (an applied area as the suburbs it covers); the map's button would
   * seem to promise alerts for the area in view, which is kept only once applied. Looked up at each
   * render (the map renders at every move), so a list added or removed later is seen.
   */
  #listOffersAlerts(): boolean {
    const prefix = this.queryPrefix ?? '';
    const roots = new Set<Document | ShadowRoot>([document, this.getRootNode() as Document | ShadowRoot]);
    for (const root of roots) {
      if (typeof root.querySelectorAll !== 'function') continue;
      for (const list of root.querySelectorAll('estate-listings')) {
        const bar = list.hasAttribute('filters') || ((list as { filters?: string | null }).filters ?? null) !== null;
        const listPrefix = (list as { queryPrefix?: string }).queryPrefix ?? list.getAttribute('query-prefix') ?? '';
        if (bar && listPrefix === prefix) return true;
      }
    }
    return false;
  }

  #retry(): void {
    if (this.configFailed) void this.#loadConfig();
    else this.#data.retry();
  }

  #hintText(hint: GestureHint): string {
    const text = this.text;
    if (hint === 'touch') return text.hintTouch;
    return /Mac|iPhone|iPad/.test(navigator.platform) ? text.hintWheelMac : text.hintWheel;
  }

  #renderAttribution(): TemplateResult | typeof nothing {
    const config = this.config;
    if (!config) return nothing;
    const words = config.tiles ? config.attribution : this.text.noTiles;
    return words ? html`<p part="attribution" class="attribution">${words}</p>` : nothing;
  }

  /** Screen positions of the answer's features, top to bottom then left to right (the Tab order). */
  #placed(): Array<{ feature: ListingMapFeature; x: number; y: number }> {
    const view = this.#view;
    if (!view) return [];
    // Only markers whose point is in view: one clipped at the edge would take the focus unseen.
    const placed = this.features
      .map((feature) => {
        const [x, y] = toScreen(view, feature.geometry.coordinates[0], feature.geometry.coordinates[1]);
        return { feature, x, y };
      })
      .filter(({ x, y }) => x >= 0 && y >= 0 && x <= this.#size.width && y <= this.#size.height)
      // Rows of 24 px, so pins side by side are read left to right.
      .sort((a, b) => Math.floor(a.y / 24) - Math.floor(b.y / 24) || a.x - b.x);
    // Listings at one spot (a sale and a lease of one home, units of one building) one above the other (a price pin is wide).
    const seen = new Map<string, number>();
    for (const item of placed) {
      const spot = `${Math.round(item.x / 4)},${Math.round(item.y / 4)}`;
      const count = seen.get(spot) ?? 0;
      seen.set(spot, count + 1);
      item.y -= count * PIN_STACK_PX;
    }
    return placed;
  }

  #renderMarkers(): TemplateResult[] {
    const text = this.text;
    const locale = this.#locale;
    const openId = this.openListing?.properties.id;
    return this.#placed().map(({ feature, x, y }) => {
      const properties = feature.properties;
      if ('cluster' in properties) {
        const size = properties.count < 10 ? 'small' : properties.count < 100 ? 'medium' : 'large';
        return html`<button
          type="button"
          part="cluster"
          class="marker cluster ${size}"
          data-x=${x}
          data-y=${y}
          aria-label=${plural(locale, properties.count, text.clusterLabel)}
          @click=${() => this.#onCluster(feature, properties)}
        >
          <span aria-hidden="true">${formatNumber(locale, properties.count)}</span>
        </button>`;
      }
      const open = properties.id === openId;
      const lit = properties.id === this.highlightId;
      const price = properties.price?.trim() || text.priceFallback;
      const short = pinPrice(properties.price, locale, this.#pinWords());
      return html`<button
        type="button"
        part=${`pin${lit ? ' pin-highlighted' : ''}${open ? ' pin-open' : ''}`}
        class="marker pin${lit ? ' highlighted' : ''}${open ? ' open' : ''}"
        data-id=${properties.id}
        data-x=${x}
        data-y=${y}
        aria-label=${
          // The short price first (what a voice-control user reads on the pin: WCAG's label in name), then the price in full.
          [short, price === short ? null : price, properties.title].filter(Boolean).join(', ')
        }
        aria-expanded=${open ? 'true' : 'false'}
        aria-controls=${ifDefined(open ? 'card' : undefined)}
        @click=${() => (open ? this.#closeCard() : this.#openCard(feature, properties))}
        @pointerenter=${() => this.#highlight(properties.id)}
        @pointerleave=${() => this.#highlight(null)}
        @focus=${() => this.#highlight(properties.id)}
        @blur=${() => this.#highlight(null)}
      >
        <span aria-hidden="true">${short}</span>
      </button>`;
    });
  }

  #pinWords(): PinPriceWords {
    const text = this.text;
    return { withheld: text.priceFallback, millions: text.pinMillions, thousands: text.pinThousands, perWeek: text.pinPerWeek, from: text.pinFrom };
  }

  /** Without tiles: the suburbs' names, where their listings in view are. */
  #renderLabels(): TemplateResult | typeof nothing {
    const view = this.#view;
    if (!view) return nothing;
    const suburbs = new Map<string, { x: number; y: number; count: number }>();
    for (const feature of this.features) {
      if ('cluster' in feature.properties) continue;
      const name = suburbOf(feature.properties.title);
      if (!name) continue;
      const [x, y] = toScreen(view, feature.geometry.coordinates[0], feature.geometry.coordinates[1]);
      const known = suburbs.get(name) ?? { x: 0, y: 0, count: 0 };
      suburbs.set(name, { x: known.x + x, y: known.y + y, count: known.count + 1 });
    }
    return html`<div class="labels" aria-hidden="true">
      ${[...suburbs].map(([name, { x, y, count }]) => html`<span part="label" class="label" data-x=${x / count} data-y=${y / count + 22}>${name}</span>`)}
    </div>`;
  }

  #renderCard(listing: MapListingProperties): TemplateResult {
    const text = this.text;
    const locale = this.#locale;
    const price = listing.price?.trim() || text.priceFallback;
    return html`<div
      part="card"
      id="card"
      class="card"
      role="dialog"
      aria-modal="false"
      aria-labelledby="card-title"
      aria-describedby="card-price"
      tabindex="-1"
      @pointerenter=${() => this.#highlight(listing.id)}
      @pointerleave=${() => this.#highlight(null)}
      @pointerdown=${this.#onCardPointerDown}
      @pointerup=${this.#onCardPointerUp}
      @pointercancel=${() => (this.#swipeFrom = null)}
    >
      ${listing.thumbnail ? html`<img part="card-image" class="card-image" src=${photoUrl(this.relay, listing.thumbnail)} alt="" width="120" height="80" />` : nothing}
      <div class="card-body">
        <p part="price" class="price" id="card-price">${price}</p>
        <p class="card-title" id="card-title">
          <a part="card-link" class="card-link" href=${this.#detailLink(listing)} @click=${(event: MouseEvent) => this.#onCardLink(event, listing)}
            >${listing.title || text.viewListing}</a
          >
        </p>
        <ul part="features" class="features">
          ${renderFeature(locale, listing.bed, text.bedrooms, bedIcon)} ${renderFeature(locale, listing.bath, text.bathrooms, bathIcon)}
          ${renderFeature(locale, listing.cars, text.carSpaces, carIcon)}
        </ul>
        ${
          this.#pinsAcross().length > 1
            ? html`<div class="card-steps">
                <button
                  type="button"
                  part="button card-previous"
                  class="step"
                  aria-label=${text.previousCard}
                  @click=${() => this.#stepCard(this.matches(':dir(rtl)') ? 1 : -1)}
                >
                  <svg viewBox="0 0 24 24" class="icon" aria-hidden="true">${chevronLeft}</svg>
                </button>
                <button
                  type="button"
                  part="button card-next"
                  class="step"
                  aria-label=${text.nextCard}
                  @click=${() => this.#stepCard(this.matches(':dir(rtl)') ? -1 : 1)}
                >
                  <svg viewBox="0 0 24 24" class="icon" aria-hidden="true">${chevronRight}</svg>
                </button>
              </div>`
            : nothing
        }
      </div>
      ${renderKeep(this.#shortlist.has(listing.id), fill(text.keep, { address: listing.title || text.viewListing }), () =>
        this.#shortlist.toggle({ id: listing.id, address: listing.title ?? '' }),
      )}
      <button type="button" part="button close-button" class="close" aria-label=${text.closeCard} @click=${this.#closeCard}>
        <svg viewBox="0 0 24 24" class="icon" aria-hidden="true">${closeIcon}</svg>
      </button>
    </div>`;
  }

  #renderList(locale: string): TemplateResult {
    const text = this.text;
    const answer = this.#listData.answer;
    if (!answer || this.#listData.state === 'loading') return html`<p part="status" class="list-state">${text.loading}</p>`;
    const listings = answer.features
      .filter((feature): feature is ListingMapFeature & { properties: MapListingProperties } => !('cluster' in feature.properties))
      .sort((a, b) => b.geometry.coordinates[1] - a.geometry.coordinates[1]);
    const shown = listings.slice(0, LIST_LIMIT);
    return html`<section part="list" class="view-list" aria-labelledby="list-heading">
      <p id="list-heading" class="list-heading">${plural(locale, listings.length, text.listHeading)}</p>
      <ul>
        ${shown.map(
          ({ properties }) =>
            html`<li>
              <a href=${this.#detailLink(properties)} @click=${(event: MouseEvent) => this.#onCardLink(event, properties)}
                >${properties.title || text.viewListing}</a
              >
              <span class="list-price">${properties.price?.trim() || text.priceFallback}</span>
            </li>`,
        )}
      </ul>
      ${listings.length > shown.length ? html`<p>${fill(text.listMore, { shown: formatNumber(locale, shown.length), count: formatNumber(locale, listings.length) })}</p>` : nothing}
      ${answer.unplaced ? html`<p>${plural(locale, answer.unplaced, text.unplaced)}</p>` : nothing}
    </section>`;
  }
}

/** A pin's box with its tail (the ::after under it, which points at the place). */
function withTail(box: DOMRect): DOMRect {
  return new DOMRect(box.x, box.y, box.width, box.height + PIN_TAIL_PX);
}

/** Whether two boxes come within `gap` pixels of each other. */
function overlaps(a: DOMRect, b: DOMRect, gap: number): boolean {
  return a.left < b.right + gap && b.left < a.right + gap && a.top < b.bottom + gap && b.top < a.bottom + gap;
}

/** The suburb of a card's title as the relay writes it ("33 Example Street, Kew VIC 3101" → "Kew"). */
export function suburbOf(title: string | null): string | null {
  const last = title?.split(',').pop()?.trim();
  if (!last) return null;
  const name = last.replace(/\s+\d{4}$/, '').replace(/\s+(ACT|NSW|NT|QLD|SA|TAS|VIC|WA)$/i, '');
  return name && !/\d/.test(name) ? name : null;
}

/**
 * Whether the screen has at least 1.5 device pixels to a CSS pixel, where 256 px tiles look soft:
 * such screens get the relay's 512 px tiles (four times the bytes, so not for the 1.25 of some
 * laptops, where 1x tiles still look sharp enough).
 */
function highDensityScreen(): boolean {
  return (globalThis.devicePixelRatio ?? 1) >= 1.5;
}

function photoUrl(relay: string | null, url: string): string {
  return /^(https?:)?\/\//i.test(url) ? url : relayUrl(relay, url);
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-map': EstateMap;
  }
  interface GlobalEventHandlersEventMap {
    'estate-map-loaded': CustomEvent<MapLoadedDetail>;
    'estate-map-area': CustomEvent<MapAreaDetail>;
    'estate-map-select': CustomEvent<MapSelectDetail>;
  }
}
