import { expect, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import { listingsPlaced, mapBesideList, mapFixture, relayJson } from './map-relay.ts';
import '../../widget/map/define.ts';
import '../../widget/listings/define.ts';
import type { EstateMap, MapLoadedDetail } from '../../widget/map/map.ts';
import { pinPrice } from '../../widget/map/pin-price.ts';
import { defaultMapStrings } from '../../widget/map/strings.ts';
import type { ListingMap, ListingSummary, MapConfig, MapListingProperties, Page } from '../../contract/relay-api.ts';

// <estate-map>'s state in the page URL (issue 30): its view written in place as it moves and as a
// new entry at a deliberate step, Back and Forward showing each view again, a new search fitting
// the map, a list that follows the map; and its price pins, hearts and one zoom level a wheel notch.

const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const parts = (el: Element, name: string) => [...shadow(el).querySelectorAll<HTMLElement>(`[part~="${name}"]`)];
const urlParam = (name: string) => new URL(window.location.href).searchParams.get(name);

async function nextLoad(el: EstateMap): Promise<MapLoadedDetail> {
  const { detail } = (await oneEvent(el, 'estate-map-loaded')) as CustomEvent<MapLoadedDetail>;
  await el.updateComplete;
  return detail;
}

/** The view the URL names, as numbers: `[lat, lng, zoom]`. */
function urlView(): [number, number, number] | null {
  const view = urlParam('view');
  return view ? (view.split(',').map(Number) as [number, number, number]) : null;
}

/** The map's own centre and zoom, for comparing with the URL's. */
function mapCentre(el: EstateMap): [number, number, number] {
  const [west, south, east, north] = el.view!.bbox.split(',').map(Number) as [number, number, number, number];
  return [(south + north) / 2, (west + east) / 2, el.view!.zoom];
}

function expectShows(el: EstateMap, view: [number, number, number], what: string): void {
  const [lat, lng, zoom] = mapCentre(el);
  expect(zoom, `${what}: zoom`).to.be.closeTo(view[2], 0.01);
  // The box's middle is the centre to a few metres (Mercator stretches latitudes a little).
  expect(lng, `${what}: longitude`).to.be.closeTo(view[1], 0.0005 * 2 ** (16 - zoom));
  expect(lat, `${what}: latitude`).to.be.closeTo(view[0], 0.0005 * 2 ** (16 - zoom));
}

async function back(): Promise<void> {
  const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
  history.back();
  await popped;
}

async function forward(): Promise<void> {
  const popped = new Promise((resolve) => window.addEventListener('popstate', resolve, { once: true }));
  history.forward();
  await popped;
}

describe('<estate-map> state in the URL', () => {
  let config: MapConfig;

  before(async function () {
    this.timeout(60_000);
    config = await relayJson<MapConfig>('api/v1/map/config');
    await listingsPlaced();
  });

  beforeEach(async () => {
    await setViewport({ width: 1000, height: 900 });
  });

  afterEach(() => {
    history.replaceState(null, '', testPageUrl);
  });

  it('writes its view in place while it pans, adds an entry at a cluster, and Back and Forward show each view again', async () => {
    const el = await mapFixture();
    expect(urlParam('view'), 'the start (fitted to the results) names no view').to.equal(null);
    const entries = history.length;
    part(el, 'stage')!.focus();
    for (const key of ['ArrowRight', 'ArrowRight', 'ArrowDown']) await sendKeys({ press: key });
    await waitUntil(() => urlView() !== null, 'the view written');
    await waitUntil(
      () =>
        urlView()!.join() ===
          mapCentre(el)
            .map((n) => n)
            .join() || Math.abs(urlView()![1] - mapCentre(el)[1]) < 0.001,
      'the rested view',
    );
    const panned = urlView()!;
    expectShows(el, panned, 'the URL says the view');
    expect(history.length, 'panning adds no entry').to.equal(entries);

    // A cluster: a step of its own.
    const loaded = nextLoad(el);
    parts(el, 'cluster')[0]!.click();
    await loaded;
    await waitUntil(() => history.length === entries + 1, 'a new entry for the cluster');
    await waitUntil(() => urlView() && urlView()![2] > panned[2], 'the cluster’s view written');
    const zoomed = urlView()!;
    expectShows(el, zoomed, 'zoomed');

    await back();
    await waitUntil(() => Math.abs(el.view!.zoom - panned[2]) < 0.01, 'Back to the panned view');
    expectShows(el, panned, 'after Back');
    expect(urlView()).to.deep.equal(panned);
    await forward();
    await waitUntil(() => Math.abs(el.view!.zoom - zoomed[2]) < 0.01, 'Forward to the cluster’s view');
    expectShows(el, zoomed, 'after Forward');
  });

  it('opens at the view its URL names, and a card the URL names; opening a card is an entry that Back closes', async () => {
    const first = await mapFixture();
    for (let step = 0; step < 8 && !parts(first, 'pin').length; step++) {
      const loaded = nextLoad(first);
      parts(first, 'cluster')[0]!.click();
      await loaded;
    }
    await waitUntil(() => urlView() !== null && Math.abs(urlView()![2] - first.view!.zoom) < 0.01, 'the view written');
    const view = urlView()!;
    const pin = parts(first, 'pin')[0]!;
    const id = pin.dataset.id!;
    const entries = history.length;
    pin.click();
    await first.updateComplete;
    expect(urlParam('card')).to.equal(id);
    expect(history.length).to.equal(entries + 1);

    // The same URL in a new map (a page opened from a link, or a reload): the same view, the card open.
    const again = await mapFixture();
    expectShows(again, view, 'a new map at the URL’s view');
    await waitUntil(() => part(again, 'card'), 'the card the URL names');
    expect(part(again, 'card-link')!.textContent).to.equal(
      (again.features.find((f) => !('cluster' in f.properties) && String(f.properties.id) === id)!.properties as MapListingProperties).title,
    );

    await back();
    await waitUntil(() => part(again, 'card') === null, 'Back closes the card');
    expectShows(again, view, 'the same view');
  });

  it('after "search this area", Back shows the view before it exactly (no zooming out)', async () => {
    const el = await mapFixture(html`<estate-map relay=${RELAY} no-follow></estate-map>`);
    const loaded = nextLoad(el);
    parts(el, 'cluster')[0]!.click();
    await loaded;
    await waitUntil(() => urlView() !== null && Math.abs(urlView()![2] - el.view!.zoom) < 0.01, 'the view written');
    const before = urlView()!;
    part(el, 'search-area')!.click();
    await el.updateComplete;
    expect(urlParam('bbox')).to.equal(el.view!.bbox);
    await back();
    await waitUntil(() => el.bbox === null, 'the area is gone');
    expectShows(el, before, 'the view before the area');
    await forward();
    await waitUntil(() => el.bbox !== null, 'the area again');
    expectShows(el, before, 'the area’s own view, not a fit around it');
  });

  it('fits the map to a new search’s results', async () => {
    const el = await mapFixture();
    const start = el.view!;
    // A suburb of the demo's: the one of its first placed listing.
    const page = await relayJson<Page<ListingSummary>>('api/v1/listings?pageSize=50');
    const suburb = page.items.find((card) => card.position && card.address.suburb)!.address.suburb!;
    const results = await relayJson<ListingMap>(`api/v1/listings/map?suburb=${encodeURIComponent(suburb)}&bbox=-180,-85,180,85&zoom=0`);
    expect(results.bounds, `listings in ${suburb}`).to.not.equal(null);
    // Another element (the list's filter bar) starts a new search through the URL.
    history.pushState(null, '', `${testPageUrl}${testPageUrl.includes('?') ? '&' : '?'}suburb=${encodeURIComponent(suburb)}`);
    window.dispatchEvent(new CustomEvent('estate-url-change', { detail: null }));
    await waitUntil(() => el.view!.zoom > start.zoom + 1, `zoomed in on ${suburb}`, { timeout: 5000 });
    await waitUntil(() => !parts(el, 'cluster').length || el.features.length > 0, 'pins');
    const [west, south, east, north] = el.view!.bbox.split(',').map(Number) as [number, number, number, number];
    const bounds = results.bounds!;
    expect(west <= bounds.west && east >= bounds.east && south <= bounds.south && north >= bounds.north, 'every result in view').to.equal(true);
    // The fit is written in the search's own entry.
    await waitUntil(() => urlView() !== null && Math.abs(urlView()![2] - el.view!.zoom) < 0.01, 'the fitted view written');
    expectShows(el, urlView()!, 'the URL says the fit');
  });

  it('zooms one level for one ctrl + wheel notch', async () => {
    const el = await mapFixture();
    const stage = part(el, 'stage')!;
    const box = stage.getBoundingClientRect();
    const zoom = el.view!.zoom;
    const at = { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, bubbles: true, cancelable: true, composed: true };
    stage.dispatchEvent(new WheelEvent('wheel', { ...at, deltaY: -100, deltaMode: 0, ctrlKey: true }));
    await waitUntil(() => Math.abs(el.view!.zoom - (zoom + 1)) < 0.01, `one level in (was ${zoom}, now ${el.view!.zoom})`);
    stage.dispatchEvent(new WheelEvent('wheel', { ...at, deltaY: 3, deltaMode: 1, ctrlKey: true }));
    await waitUntil(() => Math.abs(el.view!.zoom - zoom) < 0.01, `one level out for a line-mode notch (now ${el.view!.zoom})`);
  });

  describe('beside a list', () => {
    it('the list follows the map as it moves, with no "search this area"; turned off, the button is back', async () => {
      const { map, list } = await mapBesideList(true);
      const follow = part(map, 'follow')!.querySelector('input')!;
      expect(follow.checked).to.equal(true);
      await expect(map).to.be.accessible();
      // The list may load more than once as the zoom runs: what counts is that it ends on the map's view.
      type Loaded = { total: number; query: { bbox?: string } };
      let last: Loaded | undefined;
      list.addEventListener('estate-listings-loaded', (event) => (last = (event as CustomEvent<Loaded>).detail));
      const loaded = nextLoad(map);
      parts(map, 'cluster')[0]!.click();
      await loaded;
      await waitUntil(() => last?.query.bbox === map.view!.bbox, `the list on the map's view (list ${last?.query.bbox}, map ${map.view!.bbox})`, {
        timeout: 5000,
      });
      const detail = last!;
      expect(urlParam('bbox')).to.equal(map.view!.bbox);
      const inView = map.features.reduce((sum, f) => sum + ('cluster' in f.properties ? f.properties.count : 1), 0);
      expect(detail.total).to.equal(inView);
      expect(part(map, 'search-area')).to.equal(null);

      // Off: the list keeps the last view; a move offers "search this area".
      follow.click();
      await map.updateComplete;
      expect(urlParam('follow')).to.equal('off');
      part(map, 'stage')!.focus();
      await sendKeys({ press: '-' });
      await waitUntil(() => part(map, 'search-area'), '"search this area" after a move');
      expect(urlParam('bbox')).to.equal(detail.query.bbox);
    });
  });

  describe('price pins and cards', () => {
    it('says a short price on each pin, from the price the card shows', async () => {
      const words = {
        withheld: defaultMapStrings.priceFallback,
        millions: defaultMapStrings.pinMillions,
        thousands: defaultMapStrings.pinThousands,
        perWeek: defaultMapStrings.pinPerWeek,
        from: defaultMapStrings.pinFrom,
      };
      expect(pinPrice('$2,150,000', 'en-AU', words)).to.equal('$2.15m');
      expect(pinPrice('Guide $2,100,000', 'en-AU', words)).to.equal('$2.1m');
      expect(pinPrice('$650,000', 'en-AU', words)).to.equal('$650k');
      expect(pinPrice('$650 per week', 'en-AU', words)).to.equal('$650 pw');
      expect(pinPrice('$1,200 pw', 'en-AU', words)).to.equal('$1,200 pw');
      expect(pinPrice('$2,350,000 – $2,590,000', 'en-AU', words)).to.equal('$2.35m+');
      expect(pinPrice('Offers over $900,000', 'en-AU', words)).to.equal('$900k+');
      expect(pinPrice('Auction', 'en-AU', words)).to.equal('Auction');
      expect(pinPrice(null, 'en-AU', words)).to.equal('Contact agent');
      expect(pinPrice('Expressions of interest close 5pm Friday', 'en-AU', words)).to.equal('Contact agent');

      const el = await mapFixture();
      for (let step = 0; step < 8 && !parts(el, 'pin').length; step++) {
        const loaded = nextLoad(el);
        parts(el, 'cluster')[0]!.click();
        await loaded;
      }
      const pins = parts(el, 'pin');
      expect(pins.length).to.be.greaterThan(0);
      for (const pin of pins) {
        const listing = el.features.find((f) => !('cluster' in f.properties) && String(f.properties.id) === pin.dataset.id)!.properties as MapListingProperties;
        expect(pin.textContent!.trim()).to.equal(pinPrice(listing.price, 'en-AU', words));
        expect(pin.textContent!.trim().length).to.be.greaterThan(0);
        // Its name starts with what it shows (label in name), and has the price in full.
        const name = pin.getAttribute('aria-label')!;
        expect(name.startsWith(pin.textContent!.trim())).to.equal(true);
        expect(name).to.contain(listing.price?.trim() || 'Contact agent');
        // Readable: the text is not cut off.
        const text = pin.querySelector('span')!;
        expect(text.getBoundingClientRect().width).to.be.at.most(pin.getBoundingClientRect().width);
      }
      await expect(el).to.be.accessible();
    });

    it('a card has a heart that keeps the home in the shortlist', async () => {
      const el = await mapFixture();
      for (let step = 0; step < 8 && !parts(el, 'pin').length; step++) {
        const loaded = nextLoad(el);
        parts(el, 'cluster')[0]!.click();
        await loaded;
      }
      const pin = parts(el, 'pin')[0]!;
      pin.click();
      await el.updateComplete;
      const heart = part(el, 'keep-button')!;
      expect(heart.getAttribute('aria-pressed')).to.equal('false');
      expect(heart.getAttribute('aria-label')).to.match(/^Keep /);
      heart.click();
      await el.updateComplete;
      expect(part(el, 'keep-button')!.getAttribute('aria-pressed')).to.equal('true');
      const stored = Object.keys(localStorage).filter((key) => key.startsWith('estate-shortlist:'));
      expect(stored.some((key) => localStorage.getItem(key)!.includes(`"id":${pin.dataset.id}`))).to.equal(true);
      part(el, 'keep-button')!.click();
      await el.updateComplete;
      await expect(el).to.be.accessible();
      void config;
    });
  });
});
