import { html, nothing, type TemplateResult } from 'lit';
import { Task, initialState } from '@lit/task';
import type { ListingSummary, SimilarListings } from '../../contract/relay-api.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { resolveLocale } from '../shared/format.ts';
import { heading, headingLevel } from '../shared/heading.ts';
import { cardHref, renderCardContent } from '../shared/listing-parts.ts';
import { NearViewportController } from '../shared/near-viewport.ts';
import { idFrom } from '../shared/page-id.ts';
import { relayUrl, RelayError } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';
import { ShortlistController } from '../shared/shortlist.ts';
import { styles } from './similar-listings.styles.ts';
import { type SimilarListingsStrings } from './strings.ts';
import './strings.ts';

export interface SimilarListingsLoadedDetail {
  listingId: number;
  items: ListingSummary[];
}

/** The relay answers at most this many (contract SimilarListings). */
const MAX_LIMIT = 12;

/**
 * Similar homes under a listing: current homes of the same type and kind, nearby, at a similar
 * price and size, as the relay chooses them (`GET /api/v1/listings/{id}/similar`; a price the agency
 * withholds never plays a part). Cards look and link as `<estate-listings>`' do, hearts included. A
 * row that scrolls sideways on a phone, a grid on a wide screen. Asks the relay only once the element
 * nears the viewport, so it never competes with the listing's own photos; renders nothing (no
 * heading) when there are no similar homes, or the relay cannot be reached.
 *
 * @summary Similar homes: a row of cards like the listing shown.
 *
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr listing-id - The listing whose similar homes to show.
 * @attr listing-id-param - Read the id from this query parameter of the page URL instead (as `<estate-listing>`).
 * @attr limit - How many homes at most (1–12, default 4).
 * @attr detail-href - URL template for a card's link, `{id}` and `{slug}` replaced (`/listing.html?id={id}`). Default: this page with `listing-id-param` (else `listing`) set to the home's id.
 * @attr heading-level - Level of the "Similar homes" heading (default 2); each card's is one below.
 * @attr sizes - `sizes` for card photos. Default suits the layout.
 * @attr locale - BCP 47 locale for numbers and dates (default en-AU).
 * @attr time-zone - IANA zone for auction times. Default: the visitor's.
 * @attr strings - JSON object overriding any of the element's words (see SimilarListingsStrings), over those of its language.
 *
 * @csspart base - The section.
 * @csspart heading - The "Similar homes" heading.
 * @csspart list - The row (grid on a wide screen) of cards.
 * @csspart card - One home.
 * @csspart card-media - The photo box.
 * @csspart card-image - The photo.
 * @csspart badge - A status badge; also `badge-under-offer`.
 * @csspart card-body - The text under the photo.
 * @csspart price - The price text, as the agency wrote it.
 * @csspart card-title - The address heading.
 * @csspart card-link - The link over the card.
 * @csspart meta - Property type and auction line.
 * @csspart features - Beds, baths and cars.
 * @csspart feature - One of them.
 * @csspart feature-icon - Its icon.
 * @csspart button - The hearts.
 * @csspart keep-button - The heart that keeps the home in the visitor's shortlist (`aria-pressed` tells whether it is kept).
 *
 * @cssprop --estate-similar-card - Width of a card in the row on a phone, and the narrowest in the grid (default 16rem).
 * @cssprop --estate-card-ratio - Photo aspect ratio (default 3 / 2).
 * @cssprop --estate-keep-color - The heart's colour while the home is kept.
 *
 * @fires {CustomEvent<SimilarListingsLoadedDetail>} estate-similar-listings-loaded - The similar homes arrived (`items` may be empty: then nothing is shown).
 * @fires {CustomEvent<ShortlistAddDetail>} estate-shortlist-add - Analytics: a visitor kept a home with its heart (see docs/analytics.md).
 */
export class EstateSimilarListings extends EstateElement {
  static override localizedSections: Section[] = ['similarListings'];
  static override styles = styles;

  static override properties = {
    listingId: { type: Number, attribute: 'listing-id' },
    listingIdParam: { attribute: 'listing-id-param' },
    limit: { type: Number },
    detailHref: { attribute: 'detail-href' },
    headingLevel: { type: Number, attribute: 'heading-level' },
    sizes: {},
    locale: {},
    timeZone: { attribute: 'time-zone' },
    strings: { type: Object },
  };

  declare listingId: number | null;
  declare listingIdParam: string | null;
  declare limit: number;
  declare detailHref: string | null;
  declare headingLevel: number;
  declare sizes: string | null;
  declare locale: string | null;
  declare timeZone: string | null;
  declare strings: Partial<SimilarListingsStrings> | null;

  readonly #near = new NearViewportController(this);
  readonly #shortlist = new ShortlistController(this);

  readonly #similarTask = new Task(this, {
    task: async ([relay, id, limit, near], { signal }) => {
      if (!near || id === null) return initialState;
      const url = `${relayUrl(relay, `api/v1/listings/${id}/similar`)}?limit=${limit}`;
      const { items } = await fetchJsonOnceFilled<SimilarListings>(url, { signal });
      return { listingId: id, items };
    },
    args: () => [this.relay, this.effectiveId, this.#limit, this.#near.near] as const,
    onComplete: (result) => void this.rendered().then(() => this.emit<SimilarListingsLoadedDetail>('estate-similar-listings-loaded', result)),
    // Nothing is shown either way; only what the page's developer could fix is worth a console line.
    onError: (error) => {
      const quiet = (error instanceof DOMException && error.name === 'AbortError') || (error instanceof RelayError && error.status === 404);
      if (!quiet) console.warn('<estate-similar-listings> could not load similar homes:', error);
    },
  });

  constructor() {
    super();
    this.listingId = null;
    this.listingIdParam = null;
    this.limit = 4;
    this.detailHref = null;
    this.headingLevel = 2;
    this.sizes = null;
    this.locale = null;
    this.timeZone = null;
    this.strings = null;
  }

  /** The listing whose similar homes are shown: `listing-id`, else the page URL's `listing-id-param` parameter. */
  get effectiveId(): number | null {
    return idFrom(this.listingId, this.listingIdParam);
  }

  /** Settles once the element has neared the viewport and its load is done: the homes shown. */
  get loadComplete(): Promise<ListingSummary[]> {
    return this.#near.reached.then(async () => {
      await this.updateComplete;
      await this.#similarTask.taskComplete;
      return this.#similarTask.value?.items ?? [];
    });
  }

  get #limit(): number {
    const limit = Math.round(Number(this.limit));
    return Number.isFinite(limit) ? Math.min(MAX_LIMIT, Math.max(1, limit)) : 4;
  }

  get #text(): SimilarListingsStrings {
    return this.localize.words('similarListings', this.strings);
  }

  #href(listing: ListingSummary): string {
    if (this.detailHref) return cardHref(this.detailHref, listing);
    const url = new URL(location.href);
    url.searchParams.set(this.listingIdParam || 'listing', String(listing.id));
    return url.href;
  }

  override render(): TemplateResult | typeof nothing {
    const result = this.#similarTask.value;
    const items = result?.items.slice(0, this.#limit) ?? [];
    if (!items.length) return nothing;
    const text = this.#text;
    const level = headingLevel(this.headingLevel, 2);
    const sizes = this.sizes ?? '(min-width: 72rem) 18rem, (min-width: 40rem) 30vw, 16rem';
    return html`<section part="base" class="base" aria-labelledby="heading">
      ${heading(level, text.heading, { part: 'heading', className: 'heading', id: 'heading' })}
      <ul part="list" class="list">
        ${items.map((listing) => {
          const address = listing.address?.display || listing.heading || '';
          return html`<li part="card" class="card">
            ${renderCardContent(listing, text, {
              contentLang: this.contentLanguage,
              relay: this.relay,
              locale: resolveLocale(this.locale, this.localize.lang),
              timeZone: this.timeZone,
              headingLevel: Math.min(6, level + 1),
              sizes,
              href: this.#href(listing),
              kept: this.#shortlist.has(listing.id),
              toggleKeep: () => this.#shortlist.toggle({ id: listing.id, address }),
            })}
          </li>`;
        })}
      </ul>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-similar-listings': EstateSimilarListings;
  }
  interface GlobalEventHandlersEventMap {
    'estate-similar-listings-loaded': CustomEvent<SimilarListingsLoadedDetail>;
  }
}
