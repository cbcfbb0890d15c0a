/**
 * `estate-listing-highlight`: a listing is pointed at (hovered or focused) in one element, so the
 * others on the page may show it too: a card of `<estate-listings>` lights up its pin on an
 * `<estate-map>`, and a pin its card. `id` null: nothing is pointed at any more. Bubbles out of
 * every shadow root, so the elements (and a host page) hear it on `document`.
 */
export const LISTING_HIGHLIGHT = 'estate-listing-highlight';

export interface ListingHighlightDetail {
  id: number | null;
}

/** Calls `onHighlight` for every highlight another element sends; returns the unsubscribe. */
export function listenForHighlights(self: Element, onHighlight: (id: number | null) => void): () => void {
  const listener = (event: Event) => {
    if (event.target !== self) onHighlight((event as CustomEvent<ListingHighlightDetail>).detail?.id ?? null);
  };
  document.addEventListener(LISTING_HIGHLIGHT, listener);
  return () => document.removeEventListener(LISTING_HIGHLIGHT, listener);
}

declare global {
  interface GlobalEventHandlersEventMap {
    'estate-listing-highlight': CustomEvent<ListingHighlightDetail>;
  }
}
