import { html, isServer, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from 'lit';
import { relayUrl } from './relay.ts';
import { dispatchAnalytics, type ShortlistAddDetail } from './analytics.ts';
import { startVisits } from './visits.ts';

// The shortlist (homes a visitor keeps): a list in the browser's localStorage, one per relay and
// agency, no account and no cookie. The hearts on cards and on the detail read and toggle it here;
// <estate-shortlist> shows it. This module rides in the listing elements' chunks, so it stays small.

/**
 * A kept home: its listing id, and its address so a home the relay no longer has (sold without a
 * showcase, withdrawn) can still be named. Nothing about the visitor.
 */
export interface KeptHome {
  id: number;
  address: string;
}

/**
 * Every change of a shortlist reaches every tab as a `storage` event on `window` whose key starts
 * with this: the browser tells the other tabs, and writeShortlist tells its own page the same way.
 */
export const SHORTLIST_KEY_PREFIX = 'estate-shortlist:';

/** The relay as an absolute URL (agency path included): what a shortlist belongs to. */
export function shortlistOwner(relay: string | null | undefined): string {
  return new URL(relayUrl(relay, ''), location.href).href;
}

const storageKey = (owner: string) => SHORTLIST_KEY_PREFIX + owner;

/**
 * The kept homes, oldest first, as stored: callers look entries up by id (`home?.id`), so one
 * that is not a home matches nothing (<estate-shortlist> shows only well-formed ones).
 */
export function readShortlist(owner: string): KeptHome[] {
  try {
    // Nothing stored reads as null: no homes.
    const homes: unknown = JSON.parse(localStorage.getItem(storageKey(owner))!);
    return Array.isArray(homes) ? homes : [];
  } catch {
    return []; // storage refused (privacy mode, a sandboxed frame) or not JSON: nothing kept
  }
}

/**
 * Stores the shortlist, and tells this page as the browser tells the other tabs: with a `storage`
 * event (one kind of event to listen for, wherever the change was made).
 */
export function writeShortlist(owner: string, homes: KeptHome[]): void {
  const key = storageKey(owner);
  try {
    localStorage.setItem(key, JSON.stringify(homes));
  } catch {
    // Storage refused or full: nothing kept.
  }
  dispatchEvent(new StorageEvent('storage', { key }));
}

/**
 * An element's view of its relay's shortlist, read again at each render (a few hundred bytes of
 * JSON), and the host rendered again when this page or another tab changes storage.
 */
export class ShortlistController implements ReactiveController {
  homes: KeptHome[] = [];
  #owner = '';

  constructor(private readonly host: ReactiveControllerHost & HTMLElement & { relay: string | null }) {
    host.addController(this);
  }

  hostConnected(): void {
    addEventListener('storage', this.#changed);
  }

  hostDisconnected(): void {
    removeEventListener('storage', this.#changed);
  }

  hostUpdate(): void {
    // On a server there is no visitor: nothing is kept, and the browser's render fills the hearts in.
    if (!isServer) this.homes = readShortlist((this.#owner = shortlistOwner(this.host.relay)));
  }

  has(id: number): boolean {
    return this.homes.some((home) => home?.id === id);
  }

  /** Keeps the home, or lets it go when it is kept (a change from another tab has rendered the host already). */
  toggle(home: KeptHome): void {
    const homes = this.homes.filter((kept) => kept?.id !== home.id);
    const keeping = homes.length === this.homes.length;
    if (keeping) homes.push(home);
    // Held at once: a second toggle before the next render builds on this one.
    writeShortlist(this.#owner, (this.homes = homes));
    // Analytics: a home kept (analytics.ts), as GA4's add_to_wishlist.
    if (keeping) {
      // A home kept is counted too (visits.ts).
      startVisits(this.host.relay);
      dispatchAnalytics<ShortlistAddDetail>(this.host, 'estate-shortlist-add', { listingId: home.id, title: home.address }, [
        { ecommerce: null },
        { event: 'add_to_wishlist', ecommerce: { items: [{ item_id: String(home.id), item_name: home.address }] } },
      ]);
    }
  }

  readonly #changed = (): void => this.host.requestUpdate();
}

/** The heart: a toggle button named with the home's address; `label`, when given, is shown beside it. */
export function renderKeep(kept: boolean, name: string, toggle: () => void, label?: string): TemplateResult {
  return html`<button type="button" part="button keep-button" class="keep" aria-pressed=${kept} aria-label=${name} @click=${toggle}>
    <svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M12 20 4 12a4.5 4.5 0 0 1 8-6 4.5 4.5 0 0 1 8 6z" /></svg>${label}
  </button>`;
}
