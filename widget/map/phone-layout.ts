import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { UrlQueryController } from '../shared/url-query.ts';

/** What a phone shows of a map and the list it pairs with: one at a time. */
export type PhoneShow = 'map' | 'list';

/** Below this width the map and its list take turns (the portals' phone layout). */
const NARROW = '(max-width: 40rem)';

interface PhoneLayoutHost extends ReactiveControllerHost, HTMLElement {
  queryPrefix: string;
}

/**
 * The map/list switch of a phone. Where a map and an `<estate-listings>` share a query prefix, a
 * narrow screen shows one of them at a time, as realestate.com.au, Domain and Zillow do: the map
 * renders the switch, and hides the list while it shows itself (and itself while it shows the
 * list), so a page needs no CSS of its own. The choice is the page URL's `show=map|list` (under the
 * prefix; a history entry, so Back switches back), and each keeps its place: the map its view (it
 * is only hidden), the list its page (in the URL) and the page's scroll, kept per side.
 */
export class PhoneLayout implements ReactiveController {
  readonly #host: PhoneLayoutHost;
  readonly #urlQuery: UrlQueryController;
  #media: MediaQueryList | undefined;
  #narrow = false;
  #list: HTMLElement | null = null;
  /** The page's scroll where each side was left. */
  readonly #scroll: Record<PhoneShow, number> = { map: 0, list: 0 };
  #applied: PhoneShow | null = null;

  constructor(host: PhoneLayoutHost, urlQuery: UrlQueryController) {
    this.#host = host;
    this.#urlQuery = urlQuery;
    host.addController(this);
  }

  /** The switch is shown: a narrow screen, and a list beside the map under its prefix. */
  get active(): boolean {
    return this.#narrow && this.#list !== null;
  }

  /** What the phone shows now (the URL's choice; the map unless it says the list). */
  get show(): PhoneShow {
    return this.#urlQuery.get('show') === 'list' ? 'list' : 'map';
  }

  hostConnected(): void {
    this.#media = matchMedia(NARROW);
    this.#media.addEventListener('change', this.#onMedia);
    this.#narrow = this.#media.matches;
    // After the page's other elements are in (a list after the map in the markup).
    queueMicrotask(() => this.apply());
  }

  hostDisconnected(): void {
    this.#media?.removeEventListener('change', this.#onMedia);
    this.#unhideList();
  }

  readonly #onMedia = (event: MediaQueryListEvent): void => {
    this.#narrow = event.matches;
    this.apply();
  };

  /** Shows `show`: a new history entry, and the page's scroll where that side was left. */
  select(show: PhoneShow): void {
    if (show === this.show) return;
    this.#scroll[this.show] = window.scrollY;
    this.#urlQuery.push({ show: show === 'map' ? null : 'list' });
    this.apply();
  }

  /** Hides the side not shown (after the URL changed, the width, or the page's list). */
  apply(): void {
    this.#list = pairedList(this.#host);
    const show = this.active ? this.show : null;
    if (show) this.#host.setAttribute('phone-show', show);
    else this.#host.removeAttribute('phone-show');
    if (show === 'map' && !this.#host.hasAttribute('fullscreen')) this.#measureTop();
    if (this.#list) {
      if (show === 'map') {
        this.#list.setAttribute('hidden', '');
        // Inline and important: a page's own `estate-listings { display: block }` would show it again.
        this.#list.style.setProperty('display', 'none', 'important');
      } else this.#unhideList();
    }
    if (show !== this.#applied) {
      const was = this.#applied;
      this.#applied = show;
      if (show && was) requestAnimationFrame(() => window.scrollTo(0, this.#scroll[show]));
    }
    this.#host.requestUpdate();
  }

  #unhideList(): void {
    if (!this.#list?.hasAttribute('hidden')) return;
    this.#list.removeAttribute('hidden');
    this.#list.style.removeProperty('display');
    // A hidden list may have set its cards aside for later (<estate-listings>): they show now.
    (this.#list as HTMLElement & { requestUpdate?: () => void }).requestUpdate?.();
  }

  /**
   * The page above the map (its header, a heading): the full-height map is the viewport less it.
   * Read from an IntersectionObserver's entry, computed with the frame's own layout: reading the
   * map's position at once forced a layout of the half-built page (170 ms on a phone, before the pins).
   */
  #measureTop(): void {
    const observer = new IntersectionObserver(([entry]) => {
      observer.disconnect();
      if (!entry || this.#host.hasAttribute('fullscreen')) return;
      const top = Math.max(0, entry.boundingClientRect.top + window.scrollY);
      this.#host.style.setProperty('--_phone-top', `${Math.round(top)}px`);
    });
    observer.observe(this.#host);
  }
}

/** The `<estate-listings>` under the map's query prefix on its page, if any. */
function pairedList(map: PhoneLayoutHost): HTMLElement | null {
  const prefix = map.queryPrefix ?? '';
  const root = map.getRootNode() as Document | ShadowRoot;
  for (const list of root.querySelectorAll<HTMLElement>('estate-listings')) {
    const listPrefix = (list as { queryPrefix?: string }).queryPrefix ?? list.getAttribute('query-prefix') ?? '';
    if (listPrefix === prefix) return list;
  }
  return null;
}
