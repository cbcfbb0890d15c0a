import { html, isServer, nothing, type PropertyValues, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { ListingSummary } from '../../contract/relay-api.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { resolveLocale } from '../shared/format.ts';
import { heading, headingLevel } from '../shared/heading.ts';
import { cardHref, renderCardContent } from '../shared/listing-parts.ts';
import { NearViewportController } from '../shared/near-viewport.ts';
import { idFrom } from '../shared/page-id.ts';
import { readRecentlyViewed, RECENTLY_VIEWED_KEY_PREFIX, RECENTLY_VIEWED_LIMIT, writeRecentlyViewed, type ViewedHome } from '../shared/recently-viewed.ts';
import { ShortlistController } from '../shared/shortlist.ts';
import { KeptHomesController } from '../shortlist/kept-homes.ts';
import { styles } from './recently-viewed.styles.ts';
import { type RecentlyViewedStrings } from './strings.ts';
import './strings.ts';

/** The list as stored, read again at each render, and the host rendered again when any tab changes it. */
class RecentlyViewedController implements ReactiveController {
  homes: ViewedHome[] = [];

  constructor(private readonly host: ReactiveControllerHost & { relay: string | null }) {
    host.addController(this);
  }

  hostConnected(): void {
    addEventListener('storage', this.#changed);
  }

  hostDisconnected(): void {
    removeEventListener('storage', this.#changed);
  }

  hostUpdate(): void {
    // On a server there is no visitor: nothing viewed.
    if (!isServer) this.homes = readRecentlyViewed(this.host.relay);
  }

  readonly #changed = (event: StorageEvent): void => {
    // null: storage cleared altogether (another tab's "clear site data").
    if (event.key === null || event.key.startsWith(RECENTLY_VIEWED_KEY_PREFIX)) this.host.requestUpdate();
  };
}

/** A kept home as a card: what was kept when it was viewed (no rooms, the one small photo). */
function viewedCard(home: ViewedHome): ListingSummary {
  return {
    id: home.id,
    type: 'sale',
    status: 'available',
    badge: null,
    heading: null,
    address: { display: home.title, suburb: null, postcode: null, state: null },
    displayPrice: home.price,
    propertyType: null,
    bed: null,
    bath: null,
    cars: null,
    landArea: null,
    floorArea: null,
    methodOfSale: null,
    auctionDateTime: null,
    photo: home.thumbnail ? { id: 0, caption: null, width: 480, height: 320, url: home.thumbnail, srcset: { webp: '', jpeg: '' }, variants: [] } : null,
    photoCount: home.thumbnail ? 1 : 0,
    modified: home.viewedAt,
    position: null,
  };
}

/**
 * The homes this browser recently looked at (the last 12, newest first), kept on this device only
 * (localStorage, per relay and agency, as the shortlist; no account, no cookie) and the same in
 * every tab at once. `<estate-listing>` records each listing it shows. The listing on the page
 * itself is left out. Each home shows as the relay has it now: a sold or leased one with its badge,
 * one no longer listed says so (and is no longer a link). "Clear" forgets them all. Asks the relay
 * only once the element nears the viewport; renders nothing while there is nothing to show.
 *
 * @summary The homes a visitor recently viewed, kept in the browser.
 *
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from. The list belongs to this relay and agency path.
 * @attr exclude-id - Leave out this listing (the one the page shows). Default: the id of the page's `<estate-listing>`, if any.
 * @attr limit - How many homes at most (1–12, default 12).
 * @attr detail-href - URL template for a card's link, `{id}` and `{slug}` replaced (`/listing.html?id={id}`). Default: this page with the home's id in the parameter the page's `<estate-listing listing-id-param>` reads (else `listing`).
 * @attr heading-level - Level of the "Recently viewed" heading (default 2); each card's is one below.
 * @attr sizes - `sizes` for card photos. Default suits the layout.
 * @attr locale - BCP 47 locale for numbers (default en-AU).
 * @attr time-zone - IANA zone for auction times. Default: the visitor's.
 * @attr strings - JSON object overriding any of the element's words (see RecentlyViewedStrings), over those of its language.
 *
 * @csspart base - The section.
 * @csspart heading - The "Recently viewed" heading.
 * @csspart clear-button - The "Clear" button.
 * @csspart status - The line saying the list was cleared (focused then).
 * @csspart list - The row (grid on a wide screen) of cards.
 * @csspart card - One home; also `card-gone` for one no longer listed.
 * @csspart card-media - The photo box.
 * @csspart card-image - The photo.
 * @csspart badge - A status badge; also `badge-sold`, `badge-leased`, `badge-under-offer`, `badge-gone`.
 * @csspart card-body - The text under the photo.
 * @csspart price - The price text, as the agency wrote it.
 * @csspart card-title - The address heading.
 * @csspart card-link - The link over the card.
 * @csspart meta - Property type and auction line.
 * @csspart features - Beds, baths and cars.
 * @csspart feature - One of them.
 * @csspart feature-icon - Its icon.
 * @csspart button - Every button.
 * @csspart keep-button - The heart that keeps a listed home in the visitor's shortlist.
 *
 * @cssprop --estate-recently-viewed-card - Width of a card in the row on a phone, and the narrowest in the grid (default 14rem).
 * @cssprop --estate-card-ratio - Photo aspect ratio (default 3 / 2).
 *
 * @fires {CustomEvent<RecentlyViewedClearDetail>} estate-recently-viewed-clear - The visitor cleared the list (cancelable).
 * @fires {CustomEvent<ShortlistAddDetail>} estate-shortlist-add - Analytics: a visitor kept a home with its heart (see docs/analytics.md).
 */
export class EstateRecentlyViewed extends EstateElement {
  static override localizedSections: Section[] = ['recentlyViewed'];
  static override styles = styles;

  static override properties = {
    excludeId: { type: Number, attribute: 'exclude-id' },
    limit: { type: Number },
    detailHref: { attribute: 'detail-href' },
    headingLevel: { type: Number, attribute: 'heading-level' },
    sizes: {},
    locale: {},
    timeZone: { attribute: 'time-zone' },
    strings: { type: Object },
    cleared: { state: true },
  };

  declare excludeId: number | null;
  declare limit: number;
  declare detailHref: string | null;
  declare headingLevel: number;
  declare sizes: string | null;
  declare locale: string | null;
  declare timeZone: string | null;
  declare strings: Partial<RecentlyViewedStrings> | null;
  /** The visitor just cleared the list: say so where the list was, until something is viewed again. */
  declare protected cleared: boolean;

  readonly #viewed = new RecentlyViewedController(this);
  readonly #near = new NearViewportController(this);
  readonly #status = new KeptHomesController(this);
  readonly #shortlist = new ShortlistController(this);
  /** `homes` as this update found them (a page query, the URL, a filter): render() draws these. */
  #shown: ViewedHome[] = [];

  constructor() {
    super();
    this.excludeId = null;
    this.limit = RECENTLY_VIEWED_LIMIT;
    this.detailHref = null;
    this.headingLevel = 2;
    this.sizes = null;
    this.locale = null;
    this.timeZone = null;
    this.strings = null;
    this.cleared = false;
  }

  /** The homes shown, newest first: the ones viewed, less the page's own listing, at most `limit`. */
  get homes(): ViewedHome[] {
    const excluded = this.#excludedId();
    const limit = Math.round(Number(this.limit));
    const bound = Number.isFinite(limit) ? Math.min(RECENTLY_VIEWED_LIMIT, Math.max(1, limit)) : RECENTLY_VIEWED_LIMIT;
    return this.#viewed.homes.filter((home) => home.id !== excluded).slice(0, bound);
  }

  /** `exclude-id`, else the listing the page's `<estate-listing>` shows (or will: its attributes before its code runs). */
  #excludedId(): number | null {
    if (typeof this.excludeId === 'number' && this.excludeId > 0) return this.excludeId;
    const shown = document.querySelector('estate-listing');
    if (!shown) return null;
    // Its code may not have run yet (no `effectiveId`): read what it will from its attributes.
    return shown.listing?.id ?? shown.effectiveId ?? idFrom(Number(shown.getAttribute('listing-id')), shown.getAttribute('listing-id-param'));
  }

  get #text(): RecentlyViewedStrings {
    return this.localize.words('recentlyViewed', this.strings);
  }

  // update(), not willUpdate(): the list is read in the controllers' hostUpdate, between the two.
  protected override update(changed: PropertyValues<this>): void {
    const homes = (this.#shown = this.homes);
    // The relay is asked about each home (bounded, a few at once) once the element nears the viewport.
    if (this.#near.near) this.#status.want(homes.map((home) => home.id));
    if (homes.length) this.cleared = false;
    super.update(changed);
  }

  #href(listing: Pick<ListingSummary, 'id' | 'address' | 'heading'>): string {
    if (this.detailHref) return cardHref(this.detailHref, listing);
    // This page again, showing that home: in the parameter the page's listing reads its id from.
    const url = new URL(location.href);
    url.searchParams.set(document.querySelector('estate-listing')?.getAttribute('listing-id-param') || 'listing', String(listing.id));
    return url.href;
  }

  #clear(): void {
    if (!this.emit<RecentlyViewedClearDetail>('estate-recently-viewed-clear', { ids: this.#viewed.homes.map((home) => home.id) }, true)) return;
    writeRecentlyViewed(this.relay, []);
    this.cleared = true;
    // The button is gone: focus the line that says what happened, where it was.
    void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLElement>('[part~="status"]')?.focus());
  }

  override render(): TemplateResult | typeof nothing {
    const text = this.#text;
    const level = headingLevel(this.headingLevel, 2);
    const homes = this.#shown;
    if (!homes.length) {
      return this.cleared
        ? html`<section part="base" class="base">
            <p part="status" class="status" role="status" tabindex="-1">${text.cleared}</p>
          </section>`
        : nothing;
    }
    const sizes = this.sizes ?? '(min-width: 40rem) 16rem, 14rem';
    return html`<section part="base" class="base" aria-labelledby="heading">
      <div class="heading-row">
        ${heading(level, text.heading, { part: 'heading', className: 'heading', id: 'heading' })}
        <button type="button" part="button clear-button" class="clear" aria-label=${text.clearName} @click=${this.#clear}>${text.clear}</button>
      </div>
      <ul part="list" class="list">
        ${homes.map((home) => this.#renderHome(home, level, sizes))}
      </ul>
    </section>`;
  }

  #renderHome(home: ViewedHome, level: number, sizes: string): TemplateResult {
    const text = this.#text;
    const state = this.#status.state(home.id);
    const gone = state.kind === 'gone';
    // Listed: the card as the relay has it now (its price, photo and badge today); else as it was kept.
    // The kept photo only when the relay cannot say: while it is being asked, the card waits for
    // today's photo (showing the kept one first would start a download the new one cuts short),
    // and a home that is gone may have no photo left on the relay.
    const kept = viewedCard(home);
    const listing = state.kind === 'listed' ? state.listing : state.kind === 'unknown' ? kept : { ...kept, photo: null };
    const address = listing.address?.display || listing.heading || home.title;
    return html`<li part=${gone ? 'card card-gone' : 'card'} class=${gone ? 'card gone' : 'card'} data-id=${home.id}>
      ${renderCardContent(listing, text, {
        contentLang: this.contentLanguage,
        relay: this.relay,
        locale: resolveLocale(this.locale, this.localize.lang),
        timeZone: this.timeZone,
        headingLevel: Math.min(6, level + 1),
        sizes,
        href: gone ? null : this.#href(listing),
        badge: gone ? { part: 'badge badge-gone', label: text.gone } : undefined,
        kept: gone ? undefined : this.#shortlist.has(home.id),
        toggleKeep: () => this.#shortlist.toggle({ id: home.id, address }),
      })}
    </li>`;
  }
}

export interface RecentlyViewedClearDetail {
  /** The ids that were in the list. */
  ids: number[];
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-recently-viewed': EstateRecentlyViewed;
  }
  interface GlobalEventHandlersEventMap {
    'estate-recently-viewed-clear': CustomEvent<RecentlyViewedClearDetail>;
  }
}
