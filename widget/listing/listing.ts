import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { Task, initialState } from '@lit/task';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { Agent, ExternalLink, ListingDetail, OpenHome, Photo } from '../../contract/relay-api.ts';
import { relayUrl, RelayError } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';
import { fill, formatArea, formatDateTime, formatNumber, formatTimeRange, isoOrEmpty, plural, resolveCurrency, resolveLocale } from '../shared/format.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { badgeLabel, renderFeature } from '../shared/listing-parts.ts';
import { largestPhotoUrl, renderPicture } from '../shared/picture.ts';
import { heading, headingLevel } from '../shared/heading.ts';
import { bathIcon, bedIcon, calendarIcon, carIcon, expandIcon, mailIcon, phoneIcon, playIcon, shareIcon } from '../shared/icons.ts';
import { type ListingStrings } from './strings.ts';
import './strings.ts';
import { descriptionParagraphs, safeHttpUrl } from './text.ts';
import { jsonLdText, trustedJsonLd, listingJsonLd } from './json-ld.ts';
import { styles } from './listing.styles.ts';
import type { EstateLightbox } from '../lightbox/lightbox.ts';
import { loadElement } from '../shared/load-element.ts';
import { countVisit, startVisits } from '../shared/visits.ts';
import { idFrom } from '../shared/page-id.ts';
import { EstateEnquiry } from '../enquiry/enquiry.ts';
import { renderKeep, ShortlistController } from '../shared/shortlist.ts';
import { recordView } from '../shared/recently-viewed.ts';
import type { ListingShareDetail, ListingViewDetail } from '../shared/analytics.ts';
import { shareOrCopy, sharedLink } from './share.ts';
import { listingFacts, viewItem } from '../shared/listing-facts.ts';
import { initials, mailAddress, telHref, unbroken } from '../shared/person.ts';

export interface ListingLoadedDetail {
  listing: ListingDetail;
}

export interface ListingErrorDetail {
  status: number | null;
  message: string;
}

/** A listing id from the relay's 404, or none given at all. */
class MissingListing extends Error {
  constructor(readonly reason: 'not-found' | 'no-id') {
    super(reason);
  }
}

/**
 * One listing in full: photo gallery with a lightbox, description, details, floorplans, video
 * links, open homes with "add to calendar" and "Register", a private inspection request, auction,
 * agents, the enquiry form, and schema.org
 * JSON-LD for search engines, placed in the page's light DOM next to the element.
 *
 * @summary Full property detail with gallery, open homes, agents and enquiry form.
 *
 * @attr listing-id - The listing to show (an `id` from the listings API).
 * @attr listing-id-param - Read the id from this query parameter of the page URL instead (`listing.html?id=42` with `listing-id-param="id"`).
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr heading-level - Level of the address heading (default 2); section headings are one below.
 * @attr locale - BCP 47 locale for numbers, areas and dates (default en-AU).
 * @attr currency - ISO 4217 code for structured data. Default: the locale's.
 * @attr time-zone - IANA zone for open home and auction times. Default: the visitor's.
 * @attr no-enquiry - Leaves out the embedded enquiry form.
 * @attr no-json-ld - Leaves out the schema.org structured data.
 * @attr analytics - `datalayer`: also push its analytics events (and those of the enquiry form in it) to `window.dataLayer` as GA4 events; any other value keeps them out. Default: the page's `<meta name="estate-analytics">`.
 * @attr strings - JSON object overriding any of the element's words (see ListingStrings), over those of its language (`lang` on it or above it, else the page's; see "Words and languages").
 *
 * @slot after-description - Content after the description (a host's own note or map).
 *
 * @csspart base - The article.
 * @csspart header - Title, price and key facts.
 * @csspart badge - Status badge; also `badge-under-offer`, `badge-sold`, `badge-leased`.
 * @csspart title - The address heading.
 * @csspart price - The price as the agency wrote it.
 * @csspart tagline - The agency's heading for the listing.
 * @csspart features - Beds, baths and cars.
 * @csspart feature - One of them.
 * @csspart keep-button - The heart that keeps the home in the visitor's shortlist (`aria-pressed` tells whether it is kept; see `<estate-shortlist>`).
 * @csspart share-button - "Share": the device's share sheet with the listing's link, else the link copied (and said so).
 * @csspart share-link - The link to copy by hand, shown where neither sharing nor copying was possible.
 * @csspart gallery - The photo mosaic.
 * @csspart gallery-item - A photo button that opens the lightbox.
 * @csspart gallery-all - The "show all photos" button.
 * @csspart section - Each content section; also `description`, `facts`, `feature-list`, `floorplans`, `links`, `location`, `open-homes`, `auction`, `agents`, `enquiry`.
 * @csspart location-map - The small map of where the listing is (an `<estate-map>`, fetched when it scrolls into view; its parts are exported as `map-*`).
 * @csspart section-title - Each section's heading.
 * @csspart calendar-link - An open home's "add to calendar" link (to its calendar file, which the relay writes).
 * @csspart register-button - An open home's "Register" button: opens its `<estate-open-home-registration>` below it.
 * @csspart inspection-button - "Request a private inspection": opens an `<estate-inspection-request>` below it.
 * @csspart agent - One agent card; also `office`, the office's card shown instead when every agent of the listing has left the agency.
 * @csspart agent-photo - The agent's photo.
 * @csspart agent-name - The agent's name; also `office-name` on the office's card.
 * @csspart agent-phone - Call link; also `office-phone` on the office's card.
 * @csspart agent-email - Email link.
 * @csspart external-link - A video or tour link.
 * @csspart button - Every button and button-like link.
 * @csspart skeleton - The loading placeholder.
 * @csspart error - The error panel.
 * @csspart retry-button - Its retry button.
 * @csspart lightbox - The photo viewer dialog (and `lightbox-*` parts inside it).
 *
 * @cssprop --estate-listing-gallery-ratio - Shape of the gallery (default 3 / 2; 2 / 1 on wide screens).
 * @cssprop --estate-listing-gallery-max-height - The gallery's tallest (default `min(30rem, 55vh)`: the address and price stay in the first screen).
 * @cssprop --estate-skeleton-color - Placeholder colour while loading.
 * @cssprop --estate-keep-color - The heart's colour while the home is kept (default the danger colour, `--estate-color-danger`).
 * @cssprop --estate-lightbox-backdrop - Lightbox background.
 * @cssprop --estate-listing-reserve - Height the loading placeholder keeps (default 60rem), so a page's footer does not jump.
 *
 * @fires {CustomEvent<ListingLoadedDetail>} estate-listing-loaded - The listing rendered.
 * @fires {CustomEvent<ListingErrorDetail>} estate-listing-error - It could not be loaded.
 * @fires {CustomEvent<ListingViewDetail>} estate-listing-view - Analytics: the listing was shown (its id and public facts; see docs/analytics.md).
 * @fires {CustomEvent<ShortlistAddDetail>} estate-shortlist-add - Analytics: a visitor kept a home with its heart (its id and address as shown; see docs/analytics.md).
 * @fires {CustomEvent<ListingShareDetail>} estate-listing-share - Analytics: a visitor shared the listing, by the share sheet or a copied link (see docs/analytics.md).
 * @fires {CustomEvent<LightboxChangeDetail>} estate-lightbox-change - The lightbox opened, closed or moved (from the inner lightbox).
 */
export class EstateListing extends EstateElement {
  static override localizedSections: Section[] = ['listing'];
  static override styles = styles;
  /**
   * The elements it renders, registered with it (see define.ts). `<estate-lightbox>` is not one:
   * its code is fetched when a visitor first opens a photo.
   */
  static readonly dependencies = { 'estate-enquiry': EstateEnquiry };

  static override properties = {
    listingId: { type: Number, attribute: 'listing-id' },
    listingIdParam: { attribute: 'listing-id-param' },
    headingLevel: { type: Number, attribute: 'heading-level' },
    locale: {},
    currency: {},
    timeZone: { attribute: 'time-zone' },
    noEnquiry: { type: Boolean, attribute: 'no-enquiry' },
    noJsonLd: { type: Boolean, attribute: 'no-json-ld' },
    strings: { type: Object },
    listing: { attribute: false },
    filling: { state: true },
    visit: { state: true },
    locationShown: { state: true },
    shareNote: { state: true },
  };

  declare listingId: number | null;
  declare listingIdParam: string | null;
  declare headingLevel: number;
  declare locale: string | null;
  declare currency: string | null;
  declare timeZone: string | null;
  declare noEnquiry: boolean;
  declare noJsonLd: boolean;
  declare strings: Partial<ListingStrings> | null;
  /** A listing the host already has: rendered as given, no request made. */
  declare listing: ListingDetail | null;
  /** The relay is filling its cache for the first time: the listing is on its way. */
  declare protected filling: boolean;
  /** The visit form open under its button: an open home's id, or 0 for a private inspection; null: none. */
  declare protected visit: number | null;
  /** The location map's place came into view: its code and tiles are fetched now, not before. */
  declare protected locationShown: boolean;
  /** After "Share": `copied` (said), or the link to copy by hand where neither sharing nor copying worked; else empty. */
  declare protected shareNote: string;

  #retryCount = 0;
  #locationObserver: IntersectionObserver | undefined;
  #jsonLdScript: HTMLScriptElement | null = null;
  /** The homes the visitor keeps: the heart in the header. */
  readonly #shortlist = new ShortlistController(this);

  readonly #listingTask = new Task(this, {
    task: async ([relay, id, hostListing], { signal }) => {
      if (hostListing) return hostListing;
      // Neither an id nor a URL parameter to read one from: the host will set one (or `listing`).
      if (!id && !this.listingIdParam) return initialState;
      if (!id) throw new MissingListing('no-id');
      try {
        return await fetchJsonOnceFilled<ListingDetail>(relayUrl(relay, `api/v1/listings/${encodeURIComponent(String(id))}`), {
          signal,
          onFilling: (filling) => (this.filling = filling),
        });
      } catch (error) {
        if (error instanceof RelayError && error.status === 404) throw new MissingListing('not-found');
        throw error;
      }
    },
    args: () => [this.relay, this.effectiveId, this.listing, this.#retryCount] as const,
    onComplete: (listing) => void this.#afterLoad(listing),
    onError: (error) => void this.#afterError(error),
  });

  constructor() {
    super();
    this.listingId = null;
    this.listingIdParam = null;
    this.headingLevel = 2;
    this.locale = null;
    this.currency = null;
    this.timeZone = null;
    this.noEnquiry = false;
    this.noJsonLd = false;
    this.strings = null;
    this.listing = null;
    this.filling = false;
    this.visit = null;
    this.locationShown = false;
    this.shareNote = '';
  }

  /** The id shown: `listing-id`, else the page URL's `listing-id-param` parameter. */
  get effectiveId(): number | null {
    return idFrom(this.listingId, this.listingIdParam);
  }

  /** Settles when the current load does (resolves with the listing, rejects with its error). */
  get loadComplete(): Promise<ListingDetail> {
    return this.updateComplete.then(() => this.#listingTask.taskComplete);
  }

  reload(): void {
    this.#retryCount += 1;
    this.requestUpdate();
  }

  /** Moves focus to the listing's heading (for hosts that show the element after a click). */
  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('[part~="title"]')?.focus();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#removeJsonLd();
    this.#locationObserver?.disconnect();
    this.#locationObserver = undefined;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Re-attached (moved in the page): put the structured data back beside it.
    const listing = this.#listingTask.value;
    if (listing && this.hasUpdated) this.#placeJsonLd(listing);
  }

  protected override updated(changed: PropertyValues<this>): void {
    if (changed.has('noJsonLd') && this.noJsonLd) this.#removeJsonLd();
    this.#watchLocation();
  }

  /** Fetches the location map's code (and so its tiles) only once its place nears the viewport. */
  #watchLocation(): void {
    const place = this.renderRoot.querySelector('.location-map');
    if (!place || this.locationShown || this.#locationObserver) return;
    this.#locationObserver = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        this.#locationObserver?.disconnect();
        this.#locationObserver = undefined;
        this.locationShown = true;
        loadElement('estate-map', () => import('../map/define.ts')).catch((error: unknown) => {
          console.error('<estate-listing> could not load <estate-map>:', error);
        });
      },
      { rootMargin: '200px' },
    );
    this.#locationObserver.observe(place);
  }

  /** The words in use: defaults with the host's overrides, merged once per `strings` value. */
  get #text(): ListingStrings {
    return this.localize.words('listing', this.strings);
  }

  get #resolvedLocale(): string {
    return resolveLocale(this.locale, this.localize.lang);
  }

  get #zone(): string | undefined {
    return this.timeZone ?? undefined;
  }

  async #afterLoad(listing: ListingDetail): Promise<void> {
    // Shown in the browser (on a server no task runs): one of the homes this browser recently viewed.
    recordView(this.relay, listing);
    await this.rendered();
    this.#placeJsonLd(listing);
    this.emit<ListingLoadedDetail>('estate-listing-loaded', { listing });
    const facts = listingFacts(listing, resolveCurrency(this.#resolvedLocale, this.currency));
    // A detail seen is counted (visits.ts), as its photos opened are.
    startVisits(this.relay);
    this.track<ListingViewDetail>('estate-listing-view', facts, viewItem(facts));
  }

  async #afterError(error: unknown): Promise<void> {
    if (error instanceof DOMException && error.name === 'AbortError') return;
    this.#removeJsonLd();
    await this.rendered();
    this.emit<ListingErrorDetail>('estate-listing-error', {
      status: error instanceof RelayError ? error.status : error instanceof MissingListing && error.reason === 'not-found' ? 404 : null,
      message: error instanceof Error ? error.message : String(error),
    });
  }

  // ---- structured data -------------------------------------------------------------------

  /**
   * Search engines read JSON-LD from the document, not from shadow roots, so the script goes into
   * the light DOM right after the outermost host (this element, or the element whose shadow
   * root holds it). Set through textContent: the data is never parsed as HTML.
   */
  #placeJsonLd(listing: ListingDetail): void {
    if (this.noJsonLd || !this.isConnected) return;
    const locale = this.#resolvedLocale;
    const photos = galleryPhotos(listing);
    const data = listingJsonLd(listing, {
      pageUrl: window.location.href,
      currency: resolveCurrency(locale, this.currency),
      imageUrls: photos.slice(0, 6).map((photo) => largestPhotoUrl(this.relay, photo)),
    });
    const script = this.#jsonLdScript ?? document.createElement('script');
    script.type = 'application/ld+json';
    script.dataset.estateListing = String(listing.id);
    try {
      script.textContent = trustedJsonLd(jsonLdText(data));
    } catch {
      return; // Trusted Types enforced without our policy: leave the structured data out, keep the page working
    }
    const anchor = outermostHost(this);
    if (script.previousElementSibling !== anchor || !script.isConnected) anchor.after(script);
    this.#jsonLdScript = script;
  }

  #removeJsonLd(): void {
    this.#jsonLdScript?.remove();
    this.#jsonLdScript = null;
  }

  // ---- lightbox --------------------------------------------------------------------------

  async #openLightbox(photos: Photo[], index: number, event: Event, label: string): Promise<void> {
    const opener = event.currentTarget as HTMLElement;
    try {
      await loadElement('estate-lightbox', () => import('../lightbox/define.ts'));
    } catch (error) {
      console.error('<estate-listing> could not load <estate-lightbox>:', error);
      return;
    }
    const lightbox = this.renderRoot.querySelector<EstateLightbox>('estate-lightbox');
    // Gone from the page while its code was on its way (then it was never upgraded): nothing to show.
    if (!lightbox?.isConnected) return;
    lightbox.label = label;
    void lightbox.show(photos, index, opener);
    const id = this.effectiveId ?? this.listing?.id;
    if (id) countVisit(this, 'photos', id);
  }

  /**
   * Opens (or closes) a visit form under its button: an open home's registration, or (0) the
   * private inspection request. Their code is a chunk of its own, fetched on the first open.
   */
  #toggleVisit(visit: number): void {
    this.visit = this.visit === visit ? null : visit;
    const [tag, load] = visit
      ? ['estate-open-home-registration', () => import('../open-home-registration/define.ts')]
      : ['estate-inspection-request', () => import('../inspection-request/define.ts')];
    loadElement(tag, load).catch((error: unknown) => console.error(`<estate-listing> could not load <${tag}>:`, error));
  }

  // ---- rendering -------------------------------------------------------------------------

  override render(): TemplateResult {
    // A listing the host gave is rendered at once, not after the task settles: on the server
    // (where no task runs) and again, identically, when the browser renders over that markup.
    if (this.listing) return this.#renderListing(this.listing);
    return this.#listingTask.render({
      initial: () => this.#renderSkeleton(),
      pending: () => this.#renderSkeleton(),
      complete: (listing) => this.#renderListing(listing),
      error: (error) => this.#renderError(error),
    }) as TemplateResult;
  }

  #renderSkeleton(): TemplateResult {
    return html`<div part="skeleton" class="skeleton" aria-busy="true">
      <p class="visually-hidden" role="status">${this.filling ? this.#text.filling : this.#text.loading}</p>
      <div class="bone gallery"></div>
      <div class="bone title"></div>
      <div class="bone price"></div>
      <div class="bone text"></div>
      <div class="bone text"></div>
      <div class="bone text short"></div>
    </div>`;
  }

  #renderError(error: unknown): TemplateResult {
    const text = this.#text;
    const missing = error instanceof MissingListing;
    const message = missing ? (error.reason === 'no-id' ? text.noListingId : text.notFound) : text.errorTitle;
    return html`<div part="error" class="panel" role="alert">
      <p class="panel-title">${message}</p>
      ${
        missing
          ? nothing
          : html`<p>${text.errorRetryLater}</p>
              <button type="button" part="button retry-button" class="primary" @click=${this.reload}>${text.retry}</button>`
      }
    </div>`;
  }

  #renderListing(listing: ListingDetail): TemplateResult {
    const text = this.#text;
    const level = headingLevel(this.headingLevel, 2);
    const photos = galleryPhotos(listing);
    const address = listing.address?.display || listing.heading || '';
    return html`<article part="base" class="base">
        ${this.#renderGallery(photos, address)} ${this.#renderHeader(listing, level, address)}
        <div class="columns">
          <div class="main">
            ${this.#renderDescription(listing, level)} ${this.#renderFacts(listing, level)} ${this.#renderFeatureList(listing, level)}
            ${this.#renderFloorplans(listing, level, address)} ${this.#renderLinks(listing.links ?? [], level)} ${this.#renderLocation(listing, level)}
            <slot name="after-description"></slot>
          </div>
          <div class="side">
            ${this.#renderOpenHomes(listing, level)} ${this.#renderAuction(listing, level)} ${this.#renderAgents(listing, level, address)}
            ${
              this.noEnquiry
                ? nothing
                : html`<section part="section enquiry" class="section enquiry">
                    <estate-enquiry
                      listing-id=${listing.id}
                      relay=${ifDefined(this.relay ?? undefined)}
                      heading=${text.enquire}
                      heading-level=${Math.min(6, level + 1)}
                      subject=${address}
                    ></estate-enquiry>
                  </section>`
            }
          </div>
        </div>
      </article>
      <estate-lightbox
        relay=${ifDefined(this.relay ?? undefined)}
        locale=${this.#resolvedLocale}
        .strings=${text}
        exportparts="lightbox, lightbox-counter, lightbox-close, lightbox-stage, lightbox-image, lightbox-previous, lightbox-next"
      ></estate-lightbox>`;
  }

  #badge(listing: ListingDetail): TemplateResult | typeof nothing {
    const label = badgeLabel(listing.badge, this.#text);
    return label ? html`<span part="badge badge-${listing.badge}" class="badge">${label}</span>` : nothing;
  }

  #renderHeader(listing: ListingDetail, level: number, address: string): TemplateResult {
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const price = listing.displayPrice?.trim() ? listing.displayPrice : text.priceFallback;
    const feature = (count: number | null, forms: ListingStrings['bedrooms'], icon: typeof bedIcon) => renderFeature(locale, count, forms, icon);
    const land = formatArea(locale, listing.landArea);
    return html`<header part="header" class="header">
      ${this.#badge(listing)} ${heading(level, address, { part: 'title', className: 'title', focusable: true, lang: this.contentLanguage })}
      <p part="price" class="price" lang=${ifDefined(listing.displayPrice?.trim() ? this.contentLanguage : undefined)}>${price}</p>
      ${listing.heading && listing.heading !== address ? html`<p part="tagline" class="tagline" lang=${ifDefined(this.contentLanguage)}>${listing.heading}</p>` : nothing}
      <ul part="features" class="features">
        ${feature(listing.bed, text.bedrooms, bedIcon)} ${feature(listing.bath, text.bathrooms, bathIcon)} ${feature(listing.cars, text.carSpaces, carIcon)}
        ${land ? html`<li part="feature" class="feature"><span class="visually-hidden">${text.factLandArea}: </span>${land}</li>` : nothing}
      </ul>
      <div class="actions">
        ${renderKeep(this.#shortlist.has(listing.id), fill(text.keepName, { address }), () => this.#shortlist.toggle({ id: listing.id, address }), text.keep)}
        <button
          type="button"
          part="button share-button"
          class="share"
          aria-label=${fill(text.shareName, { address })}
          @click=${() => void this.#share(listing.id, address)}
        >
          <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${shareIcon}</svg>${text.share}
        </button>
        <span class="visually-hidden" role="status">${this.shareNote === 'copied' ? text.linkCopied : ''}</span>
      </div>
      ${
        this.shareNote && this.shareNote !== 'copied'
          ? html`<input
              part="share-link"
              class="share-link"
              readonly
              aria-label=${text.shareLink}
              .value=${this.shareNote}
              @focus=${(event: Event) => (event.target as HTMLInputElement).select()}
            />`
          : nothing
      }
    </header>`;
  }

  /** "Share": counted for the seller's report (the visits a shared link brings are counted by its `shared=1`) and told to analytics once it went. */
  async #share(id: number, title: string): Promise<void> {
    const url = sharedLink(location.href);
    const outcome = await shareOrCopy(title, url);
    if (outcome === 'cancelled') return;
    // Emptied first, so a second copy is said again.
    this.shareNote = '';
    await this.updateComplete;
    this.shareNote = outcome === 'failed' ? url : outcome === 'copied' ? outcome : '';
    if (outcome === 'failed') {
      await this.updateComplete;
      return this.renderRoot.querySelector<HTMLInputElement>('.share-link')?.focus();
    }
    countVisit(this, 'shared', id);
    const method = outcome === 'shared' ? 'share' : 'copy';
    this.track<ListingShareDetail>('estate-listing-share', { listingId: id, title, method }, [
      { event: 'share', method, content_type: 'listing', item_id: String(id) },
    ]);
  }

  #renderGallery(photos: Photo[], address: string): TemplateResult {
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const label = fill(text.lightboxLabel, { address });
    if (!photos.length) return html`<div part="gallery" class="gallery empty"><p>${text.noPhotos}</p></div>`;
    const mosaic = photos.length >= 5;
    const tile = (photo: Photo, index: number) =>
      html`<button
        type="button"
        part="gallery-item"
        class=${index === 0 ? 'tile main' : 'tile thumb'}
        aria-label=${fill(text.openPhoto, { index: formatNumber(locale, index + 1), total: formatNumber(locale, photos.length) }) + (photo.caption ? `: ${photo.caption}` : '')}
        @click=${(event: Event) => this.#openLightbox(photos, index, event, label)}
      >
        ${renderPicture(photo, {
          relay: this.relay,
          sizes: index === 0 ? '(min-width: 64rem) 44rem, 100vw' : '(min-width: 40rem) 22vw, 50vw',
          // The caption the agency wrote is the photo's text (image search, a photo that fails to load); the button's name says what it does.
          alt: photo.caption ?? fill(text.photoAlt, { index: formatNumber(locale, index + 1), address }),
          loading: index === 0 ? 'eager' : 'lazy',
          fetchPriority: index === 0 ? 'high' : 'auto',
        })}
      </button>`;
    return html`<section part="gallery" class=${mosaic ? 'gallery mosaic' : 'gallery'} aria-label=${text.photos}>
      ${(mosaic ? photos.slice(0, 5) : photos.slice(0, 1)).map(tile)}
      ${
        photos.length > 1
          ? html`<button type="button" part="button gallery-all" class="all" @click=${(event: Event) => this.#openLightbox(photos, 0, event, label)}>
              <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${expandIcon}</svg>${plural(locale, photos.length, text.showAllPhotos)}
            </button>`
          : nothing
      }
    </section>`;
  }

  /**
   * Where the listing is, as exactly as its address may be shown: a pin for an address, an area
   * for a suburb (a withheld address), nothing without a position. The map itself is rendered
   * once its place nears the viewport (the server renders the empty place).
   */
  #renderLocation(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    const position = listing.position;
    if (!position) return nothing;
    return this.#section(
      'location',
      level,
      this.#text.location,
      html`<div class="location-map">
        ${
          this.locationShown
            ? html`<estate-map
                part="location-map"
                lat=${position.lat}
                lng=${position.lng}
                precision=${position.precision}
                place=${ifDefined(listing.address?.suburb ?? undefined)}
                relay=${ifDefined(this.relay ?? undefined)}
                locale=${this.#resolvedLocale}
                exportparts="base: map-base, stage: map-stage, pin: map-pin, area: map-area, caption: map-caption, attribution: map-attribution"
              ></estate-map>`
            : nothing
        }
      </div>`,
    );
  }

  #section(kind: string, level: number, title: string, body: unknown): TemplateResult {
    return html`<section part="section ${kind}" class="section ${kind}">
      ${heading(Math.min(6, level + 1), title, { part: 'section-title', className: 'section-title' })} ${body}
    </section>`;
  }

  #renderDescription(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    const paragraphs = descriptionParagraphs(listing.description);
    if (!paragraphs.length) return nothing;
    // Each line is bound as text: Lit creates text nodes, so markup in the copy stays visible characters.
    return this.#section(
      'description',
      level,
      this.#text.description,
      html`<div class="prose" lang=${ifDefined(this.contentLanguage)}>
        ${paragraphs.map((lines) => html`<p>${lines.map((line, index) => html`${index ? html`<br />` : nothing}${line}`)}</p>`)}
      </div>`,
    );
  }

  #renderFacts(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const number = (value: number | null) => (typeof value === 'number' && value > 0 ? formatNumber(locale, value) : null);
    // The third item: the value is the CRM's words (its language marked), not a number of ours.
    const rows: Array<[string, string | null, boolean?]> = [
      [text.factPropertyType, listing.propertyType, true],
      [text.factBedrooms, number(listing.bed)],
      [text.factBathrooms, number(listing.bath)],
      [text.factEnsuites, number(listing.ensuites)],
      [text.factToilets, number(listing.toilets)],
      [text.factCarSpaces, number(listing.cars)],
      [text.factLandArea, formatArea(locale, listing.landArea)],
      [text.factFloorArea, formatArea(locale, listing.floorArea)],
      [text.factMethodOfSale, listing.methodOfSale, true],
    ];
    const shown = rows.filter((row): row is [string, string, boolean?] => Boolean(row[1]));
    if (!shown.length) return nothing;
    return this.#section(
      'facts',
      level,
      text.facts,
      html`<dl class="fact-list">
        ${shown.map(
          ([term, value, fromCrm]) =>
            html`<div>
              <dt>${term}</dt>
              <dd lang=${ifDefined(fromCrm ? this.contentLanguage : undefined)}>${value}</dd>
            </div>`,
        )}
      </dl>`,
    );
  }

  #renderFeatureList(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    if (!listing.features?.length) return nothing;
    return this.#section(
      'feature-list',
      level,
      this.#text.features,
      html`<ul class="ticks" lang=${ifDefined(this.contentLanguage)}>
        ${listing.features.map((feature) => html`<li>${feature}</li>`)}
      </ul>`,
    );
  }

  #renderFloorplans(listing: ListingDetail, level: number, address: string): TemplateResult | typeof nothing {
    const plans = listing.floorplans ?? [];
    if (!plans.length) return nothing;
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const label = `${text.floorplans}: ${address}`;
    return this.#section(
      'floorplans',
      level,
      text.floorplans,
      html`<ul class="plans">
        ${plans.map(
          (plan, index) =>
            html`<li>
              <button
                type="button"
                part="gallery-item"
                class="tile plan"
                aria-label=${fill(text.openFloorplan, { index: formatNumber(locale, index + 1), total: formatNumber(locale, plans.length) })}
                @click=${(event: Event) => this.#openLightbox(plans, index, event, label)}
              >
                ${renderPicture(plan, { relay: this.relay, sizes: '(min-width: 40rem) 20rem, 90vw', alt: '', loading: 'lazy' })}
              </button>
            </li>`,
        )}
      </ul>`,
    );
  }

  #renderLinks(links: ExternalLink[], level: number): TemplateResult | typeof nothing {
    const text = this.#text;
    const safe = links.map((link) => ({ ...link, url: safeHttpUrl(link.url) })).filter((link): link is ExternalLink => link.url !== null);
    if (!safe.length) return nothing;
    const label = (kind: string) => (/video/i.test(kind) ? text.linkVideo : /tour|3d|virtual/i.test(kind) ? text.linkTour : fill(text.linkOther, { kind }));
    return this.#section(
      'links',
      level,
      text.links,
      html`<ul class="link-list">
        ${safe.map(
          (link) =>
            html`<li>
              <a part="external-link button" class="button" href=${link.url} target="_blank" rel="noopener noreferrer">
                <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${playIcon}</svg>${label(link.kind)}
                <span class="visually-hidden">${text.opensInNewTab}</span>
              </a>
            </li>`,
        )}
      </ul>`,
    );
  }

  #renderOpenHomes(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    const text = this.#text;
    const locale = this.#resolvedLocale;
    const now = Date.now();
    const upcoming = (listing.openHomes ?? []).filter((openHome) => new Date(openHome.end).getTime() > now);
    if (listing.status !== 'available') return nothing;
    // The relay writes the calendar file (server/listings/open-home-calendar.ts) from the public
    // listing and the open home alone (its title too: a link's words never reach the file), with
    // the page the visitor is on as its link.
    const page = typeof location === 'undefined' ? null : safeHttpUrl(location.href);
    const calendarQuery = new URLSearchParams(page ? { page } : {});
    const item = (openHome: OpenHome) => {
      const when = formatTimeRange(locale, openHome.start, openHome.end, this.#zone) ?? '';
      if (Number.isNaN(new Date(openHome.start).getTime()) || Number.isNaN(new Date(openHome.end).getTime())) return nothing;
      const calendar = relayUrl(this.relay, `api/v1/listings/${listing.id}/open-homes/${openHome.id}.ics${page ? `?${calendarQuery}` : ''}`);
      const file = `open-home-${listing.id}-${openHome.id}.ics`;
      const open = this.visit === openHome.id;
      return html`<li class="open-home">
        <time datetime=${isoOrEmpty(openHome.start)}>${when}</time>
        <a part="calendar-link button" class="button" href=${calendar} download=${file} @click=${() => countVisit(this, 'calendar', listing.id)}>
          <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${calendarIcon}</svg>${text.addToCalendar}<span class="visually-hidden">: ${when}</span>
        </a>
        <button type="button" part="button register-button" class="button" aria-expanded=${open} @click=${() => this.#toggleVisit(openHome.id)}>
          ${text.register}<span class="visually-hidden">: ${when}</span>
        </button>
        ${
          open
            ? html`<estate-open-home-registration
                listing-id=${listing.id}
                open-home-id=${openHome.id}
                when=${when}
                end=${openHome.end}
                calendar-href=${calendar}
                calendar-file=${file}
                relay=${ifDefined(this.relay ?? undefined)}
                heading-level=${Math.min(6, level + 2)}
              ></estate-open-home-registration>`
            : nothing
        }
      </li>`;
    };
    const inspecting = this.visit === 0;
    return this.#section(
      'open-homes',
      level,
      text.openHomes,
      html`${
          upcoming.length
            ? html`<ul class="open-homes">
                ${upcoming.map(item)}
              </ul>`
            : html`<p class="muted">${text.noOpenHomes}</p>`
        }
        <button type="button" part="button inspection-button" class="button" aria-expanded=${inspecting} @click=${() => this.#toggleVisit(0)}>
          ${text.requestInspection}
        </button>
        ${
          inspecting
            ? html`<estate-inspection-request
                listing-id=${listing.id}
                relay=${ifDefined(this.relay ?? undefined)}
                heading-level=${Math.min(6, level + 2)}
              ></estate-inspection-request>`
            : nothing
        }`,
    );
  }

  #renderAuction(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    const auction = listing.auction;
    // A sold or leased listing's auction is history, not something to attend.
    if (listing.status !== 'available' || (!auction?.dateTime && !auction?.venue)) return nothing;
    const text = this.#text;
    const when = formatDateTime(this.#resolvedLocale, auction.dateTime, this.#zone);
    return this.#section(
      'auction',
      level,
      text.auction,
      html`<dl class="fact-list">
        ${
          when
            ? html`<div>
                <dt>${text.auctionDate}</dt>
                <dd><time datetime=${isoOrEmpty(auction.dateTime)}>${when}</time></dd>
              </div>`
            : nothing
        }
        ${
          auction.venue
            ? html`<div>
                <dt>${text.auctionVenue}</dt>
                <dd lang=${ifDefined(this.contentLanguage)}>${auction.venue}</dd>
              </div>`
            : nothing
        }
        ${
          auction.auctioneer
            ? html`<div>
                <dt>${text.auctionAuctioneer}</dt>
                <dd lang=${ifDefined(this.contentLanguage)}>${auction.auctioneer}</dd>
              </div>`
            : nothing
        }
      </dl>`,
    );
  }

  #renderAgents(listing: ListingDetail, level: number, address: string): TemplateResult | typeof nothing {
    const agents = listing.agents ?? [];
    if (!agents.length) return this.#renderOffice(listing, level);
    return this.#section(
      'agents',
      level,
      this.#text.agents,
      html`<ul class="agents">
        ${agents.map((agent) => this.#renderAgent(agent, address))}
      </ul>`,
    );
  }

  /**
   * Every agent of the listing has left the agency: the office takes their place, so a buyer still
   * has someone to call. (`office` may be missing from a listing a host or an older relay gives.)
   */
  #renderOffice(listing: ListingDetail, level: number): TemplateResult | typeof nothing {
    const office = listing.office;
    if (!office?.name && !office?.phone) return nothing;
    const text = this.#text;
    const name = office.name || text.officeFallback;
    const tel = office.phone ? telHref(office.phone) : null;
    return this.#section(
      'agents',
      level,
      text.contactOffice,
      html`<div part="agent office" class="agent office">
        <div class="agent-text">
          <p part="agent-name office-name" class="agent-name" lang=${ifDefined(office.name ? this.contentLanguage : undefined)}>${name}</p>
          ${
            tel
              ? html`<div class="agent-actions">
                  <a part="agent-phone office-phone button" class="button" href=${tel}>
                    <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${phoneIcon}</svg
                    ><span class="visually-hidden">${fill(text.callAgent, { name })}, </span>${unbroken(office.phone!)}
                  </a>
                </div>`
              : nothing
          }
        </div>
      </div>`,
    );
  }

  #renderAgent(agent: Agent, address: string): TemplateResult {
    const text = this.#text;
    const tel = agent.phone ? telHref(agent.phone) : null;
    const email = mailAddress(agent.email);
    return html`<li part="agent" class="agent">
      ${
        agent.photo
          ? renderPicture(agent.photo, { relay: this.relay, sizes: '4.5rem', alt: '', loading: 'lazy', part: 'agent-photo', className: 'agent-photo' })
          : html`<span part="agent-photo" class="agent-photo initials" aria-hidden="true">${initials(agent.name)}</span>`
      }
      <div class="agent-text">
        <p part="agent-name" class="agent-name" lang=${ifDefined(this.contentLanguage)}>${agent.name}</p>
        ${agent.position ? html`<p class="muted" lang=${ifDefined(this.contentLanguage)}>${agent.position}</p>` : nothing}
        <div class="agent-actions">
          ${
            tel
              ? html`<a part="agent-phone button" class="button" href=${tel}>
                  <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${phoneIcon}</svg
                  ><span class="visually-hidden">${fill(text.callAgent, { name: agent.name })}, </span>${agent.phone}
                </a>`
              : nothing
          }
          ${
            email
              ? html`<a part="agent-email button" class="button" href=${`mailto:${email}?subject=${encodeURIComponent(address)}`}>
                  <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${mailIcon}</svg
                  >${fill(text.emailAgent, { name: agent.name.split(/\s+/)[0] ?? agent.name })}
                </a>`
              : nothing
          }
        </div>
      </div>
    </li>`;
  }
}

/** The listing's photos, or its one card photo when the CRM sent no gallery. */
function galleryPhotos(listing: ListingDetail): Photo[] {
  return listing.photos?.length ? listing.photos : listing.photo ? [listing.photo] : [];
}

/** The element whose light DOM is the document's: this one, or the host of the shadow root holding it. */
function outermostHost(element: Element): Element {
  let current: Element = element;
  for (;;) {
    const root = current.getRootNode();
    if (root instanceof ShadowRoot) current = root.host;
    else return current;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-listing': EstateListing;
  }
  interface GlobalEventHandlersEventMap {
    'estate-listing-loaded': CustomEvent<ListingLoadedDetail>;
    'estate-listing-error': CustomEvent<ListingErrorDetail>;
  }
}
