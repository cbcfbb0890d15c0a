/**
 * Counting what happens to listings without tracking (docs/visits.md): the elements' events on the
 * page (a detail seen, a home kept, and `estate-visit`: a card shown, photos opened, …) are
 * gathered and sent to the relay with navigator.sendBeacon when the page is hidden or left, and
 * every 10 s while there are some: at most one beacon each time. No cookie, no storage, no
 * identifier: the relay estimates visitors from a hash it forgets at midnight.
 */
import { relayUrl } from './relay.ts';

/** What an `estate-visit` reports (the relay's kinds besides `detail` and `kept`, which have events of their own). */
export interface VisitDetail {
  kind: 'card' | 'map-card' | 'photos' | 'calendar' | 'shared';
  listingId: number;
}

/** Events a beacon carries: well inside the relay's 4 KB and 50 events. */
const BATCH = 40;
/** Started once per page, by whichever chunk's copy of this module counts first (the copies share it). */
const STARTED = Symbol.for('estate-embed.visits');

/**
 * Where a detail view came from, as the page says it: a shared link, a campaign's utm_source, else
 * the page (its `<meta name="estate-page">`, else its path's first part). The relay reads it into
 * its few sources (server/visits/beacon.ts), so these bytes, on every page, stay few.
 */
function source(): string {
  const query = new URLSearchParams(location.search);
  const campaign = query.get('utm_source');
  const said =
    query.get('shared') === '1'
      ? 'shared'
      : campaign
        ? `utm:${campaign}`
        : `page:${document.querySelector<HTMLMetaElement>('meta[name="estate-page"]')?.content ?? location.pathname.split('/')[1]}`;
  // Short, so 40 events stay inside the relay's 4 KB.
  return said.slice(0, 60);
}

/**
 * Starts counting on this page, once: called by whatever is about to report the page's first
 * listing event (countVisit, a detail seen, a home kept), whose element's relay the beacons go to.
 * A page with nothing to count (a contact page's forms) never downloads or starts this.
 */
export function startVisits(relay: string | null): void {
  const global = globalThis as { [STARTED]?: boolean };
  if (global[STARTED] || typeof document === 'undefined' || !navigator.sendBeacon) return;
  global[STARTED] = true;
  const url = relayUrl(relay, 'api/v1/visits');
  const queue: object[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const send = () => {
    clearTimeout(timer);
    timer = undefined;
    if (queue.length) navigator.sendBeacon(url, JSON.stringify(queue.splice(0, BATCH)));
    if (queue.length) timer = setTimeout(send, 10_000);
  };
  const add = (kind: string, listingId: number, detail?: boolean) => {
    if (!(listingId > 0)) return;
    queue.push(detail ? { kind, listingId, source: source() } : { kind, listingId });
    if (queue.length >= BATCH) send();
    else timer ??= setTimeout(send, 10_000);
  };
  document.addEventListener('estate-listing-view', (event) => add('detail', event.detail.listingId, true));
  document.addEventListener('estate-shortlist-add', (event) => add('kept', event.detail.listingId));
  document.addEventListener('estate-visit', (event) => add(event.detail.kind, event.detail.listingId));
  addEventListener('pagehide', send);
  document.addEventListener('visibilitychange', () => document.visibilityState === 'hidden' && send());
}

/** Reports one moment of a listing for counting (bubbles out of every shadow root to the document). */
export function countVisit(element: Element & { relay: string | null }, kind: VisitDetail['kind'], listingId: number): void {
  startVisits(element.relay);
  element.dispatchEvent(new CustomEvent<VisitDetail>('estate-visit', { detail: { kind, listingId }, bubbles: true, composed: true }));
}

declare global {
  interface GlobalEventHandlersEventMap {
    'estate-visit': CustomEvent<VisitDetail>;
  }
}
