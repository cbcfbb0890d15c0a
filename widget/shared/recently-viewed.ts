import type { ListingSummary } from '../../contract/relay-api.ts';
import { photoUrl } from './picture.ts';
import { shortlistOwner } from './shortlist.ts';

// The homes this browser recently looked at: a list in localStorage, one per relay and agency (as
// the shortlist), no account and no cookie. <estate-listing> records a view when it shows a
// listing; <estate-recently-viewed> shows the list. Rides in the listing's chunk, so it stays small.

/** A home looked at: enough to show it again without asking the relay. Nothing about the visitor. */
export interface ViewedHome {
  id: number;
  /** The address as shown (or the heading). */
  title: string;
  /** The price text as the agency wrote it, when viewed. */
  price: string | null;
  /** A small photo (absolute URL), or null. */
  thumbnail: string | null;
  /** When it was viewed (ISO 8601). */
  viewedAt: string;
}

/** Homes kept: the newest this many. */
export const RECENTLY_VIEWED_LIMIT = 12;

/** Every change reaches every tab as a `storage` event whose key starts with this (as the shortlist's). */
export const RECENTLY_VIEWED_KEY_PREFIX = 'estate-recently-viewed:';

const storageKey = (relay: string | null | undefined) => RECENTLY_VIEWED_KEY_PREFIX + shortlistOwner(relay);

/** The homes viewed, newest first; entries that are not homes (storage edited by hand, an older shape) are left out. */
export function readRecentlyViewed(relay: string | null | undefined): ViewedHome[] {
  try {
    // Nothing stored reads as null: no homes.
    const homes: unknown = JSON.parse(localStorage.getItem(storageKey(relay))!);
    return Array.isArray(homes) ? homes.filter(isViewedHome).slice(0, RECENTLY_VIEWED_LIMIT) : [];
  } catch {
    return []; // storage refused (privacy mode, a sandboxed frame) or not JSON: nothing kept
  }
}

function isViewedHome(value: unknown): value is ViewedHome {
  const home = value as Partial<ViewedHome> | null;
  return typeof home?.id === 'number' && Number.isInteger(home.id) && home.id > 0 && typeof home.title === 'string' && typeof home.viewedAt === 'string';
}

/** Stores the list and tells this page as the browser tells the other tabs: with a `storage` event. */
export function writeRecentlyViewed(relay: string | null | undefined, homes: ViewedHome[]): void {
  const key = storageKey(relay);
  try {
    if (homes.length) localStorage.setItem(key, JSON.stringify(homes.slice(0, RECENTLY_VIEWED_LIMIT)));
    else localStorage.removeItem(key);
  } catch {
    // Storage refused or full: nothing kept.
  }
  dispatchEvent(new StorageEvent('storage', { key }));
}

/** Puts a listing first in the list (moving it there when it was viewed before), the oldest past the limit dropped. */
export function recordView(relay: string | null | undefined, listing: ListingSummary, now = new Date()): void {
  const smallest = listing.photo?.variants?.filter((variant) => variant.format === 'jpeg').sort((a, b) => a.width - b.width)[0];
  const viewed: ViewedHome = {
    id: listing.id,
    title: listing.address?.display || listing.heading || '',
    price: listing.displayPrice,
    thumbnail: listing.photo ? photoUrl(relay, { ...listing.photo, url: smallest?.url ?? listing.photo.url }) : null,
    viewedAt: now.toISOString(),
  };
  writeRecentlyViewed(relay, [viewed, ...readRecentlyViewed(relay).filter((home) => home.id !== listing.id)]);
}
