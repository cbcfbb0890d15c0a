import { aTimeout, expect, fixture, fixtureCleanup, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import { listingsPlaced, mapBesideList, relayJson } from './map-relay.ts';
import '../../widget/map/define.ts';
import '../../widget/listings/define.ts';
import '../../widget/listing/define.ts';
import type { EstateMap, MapAreaDetail, MapLoadedDetail } from '../../widget/map/map.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { ListingDetail, ListingMap, ListingSummary, MapConfig, MapListingProperties, Page } from '../../contract/relay-api.ts';

// <estate-map> against the real relay of the run (demo mode: the simulator's listings, placed by
// its geocoder, and its plain tiles served by the relay).

const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const parts = (el: Element, name: string) => [...shadow(el).querySelectorAll<HTMLElement>(`[part~="${name}"]`)];

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/** The relay's answer for the map's view, as the element should ask it. */
async function answerFor(el: EstateMap, zoom?: number): Promise<ListingMap> {
  const view = el.view!;
  const relayZoom = zoom ?? Math.max(0, Math.round(view.zoom) - 1);
  return relayJson<ListingMap>(`api/v1/listings/map?bbox=${view.bbox}&zoom=${relayZoom}`);
}

/** A map in a 800×480 box, once its first pins are in. */
async function mapFixture(template = html`<estate-map relay=${RELAY}></estate-map>`): Promise<{ el: EstateMap; loaded: MapLoadedDetail }> {
  const holder = await fixture<HTMLDivElement>(html`<div class="holder">${template}</div>`);
  const el = holder.querySelector('estate-map')!;
  el.style.setProperty('--estate-map-height', '480px');
  holder.style.width = '800px';
  const { detail } = (await oneEvent(el, 'estate-map-loaded')) as CustomEvent<MapLoadedDetail>;
  await el.updateComplete;
  return { el, loaded: detail };
}

async function nextLoad(el: EstateMap): Promise<MapLoadedDetail> {
  const { detail } = (await oneEvent(el, 'estate-map-loaded')) as CustomEvent<MapLoadedDetail>;
  await el.updateComplete;
  return detail;
}

const markerSummary = (features: ListingMap['features']) =>
  features.map((feature) => ('cluster' in feature.properties ? `c${feature.properties.count}` : `p${feature.properties.id}`)).sort();

function shownSummary(el: EstateMap): string[] {
  return [...parts(el, 'cluster').map((c) => `c${c.textContent!.trim()}`), ...parts(el, 'pin').map((p) => `p${p.dataset.id}`)].sort();
}

/** Replaces window.fetch for one test: the relay still answers, the wrapper may change an answer. */
function wrapFetch(wrapper: (real: typeof fetch, input: RequestInfo | URL, init?: RequestInit) => Promise<Response>): () => void {
  const real = window.fetch;
  window.fetch = (input, init) => wrapper(real, input, init);
  return () => {
    window.fetch = real;
  };
}

describe('<estate-map>', () => {
  let config: MapConfig;

  before(async function () {
    // The placing waits for the relay's geocoder (one request a second): longer than a test may take on a busy machine.
    this.timeout(60_000);
    config = await relayJson<MapConfig>('api/v1/map/config');
    expect(config.bounds, 'the demo relay has placed listings').to.not.equal(null);
    await listingsPlaced();
  });

  beforeEach(async () => {
    await setViewport({ width: 1000, height: 900 });
  });

  afterEach(() => {
    history.replaceState(null, '', testPageUrl);
  });

  it('is accessible, and shows the pins and clusters the relay answers for its view, over the relay’s tiles', async () => {
    const { el, loaded } = await mapFixture();
    await expect(el).to.be.accessible();
    const answer = await answerFor(el);
    expect(loaded.features.length).to.be.greaterThan(0);
    expect(shownSummary(el)).to.deep.equal(markerSummary(answer.features));
    const stage = part(el, 'stage')!;
    expect(stage.getAttribute('tabindex')).to.equal('0');
    expect(stage.getAttribute('aria-label')).to.equal('Map of properties');
    expect(shadow(el).getElementById(stage.getAttribute('aria-describedby')!)!.textContent).to.contain('Arrow keys move the map');
    // Tiles from the relay's own origin, loaded (the demo's tile source).
    await waitUntil(() => [...shadow(el).querySelectorAll<HTMLImageElement>('.tile')].some((img) => img.complete && img.naturalWidth === 256), 'a tile loaded');
    for (const img of shadow(el).querySelectorAll<HTMLImageElement>('.tile')) expect(img.src.startsWith(`${RELAY}/tiles/`)).to.equal(true);
    // The provider's credit, always visible.
    expect(part(el, 'attribution')!.textContent).to.equal(config.attribution);
    expect(part(el, 'attribution')!.getBoundingClientRect().height).to.be.greaterThan(0);
  });

  it('asks the relay once for its first view when the results’ fit is nearly the first view (a phone pays each request)', async () => {
    // For sale only: its results' bounds are within a pixel of every listing's (the settings' bounds), not equal.
    const results = (await relayJson<ListingMap>('api/v1/listings/map?type=sale&bbox=-180,-85,180,85&zoom=0')).bounds!;
    expect(results, 'the results’ bounds differ from the settings’').to.not.deep.equal(config.bounds);
    const asked: string[] = [];
    const restore = wrapFetch((real, input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.includes('/api/v1/listings/map')) asked.push(url);
      return real(input, init);
    });
    try {
      const { el } = await mapFixture(html`<estate-map relay=${RELAY} type="sale"></estate-map>`);
      await aTimeout(1000);
      expect(asked, `one request for the first view: ${asked.map((url) => new URL(url).searchParams.get('bbox')).join(' then ')}`).to.have.length(1);
      expect(new URL(asked[0]!).searchParams.get('bbox')).to.equal(el.view!.bbox);
    } finally {
      restore();
    }
  });

  it('names every marker, and Tab reaches them top to bottom', async () => {
    const { el } = await mapFixture();
    const markers = [...shadow(el).querySelectorAll<HTMLElement>('.marker')];
    expect(markers.length).to.be.greaterThan(1);
    for (const marker of markers) {
      const name = marker.getAttribute('aria-label')!;
      if (marker.matches('[part~="cluster"]')) expect(name).to.match(/^\d+ properties, zoom in$/);
      else expect(name.length).to.be.greaterThan(3);
      const box = marker.getBoundingClientRect();
      expect(box.width, 'target size').to.be.at.least(24);
      expect(box.height, 'target size').to.be.at.least(24);
    }
    const tops = markers.map((marker) => marker.getBoundingClientRect().top);
    for (let index = 1; index < tops.length; index++) expect(tops[index]! + 24, 'top to bottom').to.be.at.least(tops[index - 1]!);
    part(el, 'stage')!.focus();
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(markers[0]);
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(markers[1]);
  });

  it('zooms to where a cluster splits when it is activated, and focus goes to a marker of it', async () => {
    const { el } = await mapFixture();
    const cluster = parts(el, 'cluster')[0]!;
    expect(cluster, 'the demo listings make a cluster at the start view').to.exist;
    const before = el.view!.zoom;
    const count = Number(cluster.textContent);
    cluster.focus();
    const loaded = nextLoad(el);
    await sendKeys({ press: 'Enter' });
    await loaded;
    await waitUntil(() => deepActive()?.classList.contains('marker'), 'focus on a marker');
    expect(el.view!.zoom).to.be.greaterThan(before);
    const active = deepActive() as HTMLElement;
    expect(active.classList.contains('marker')).to.equal(true);
    // Zoomed in: more markers than the cluster's one, together as many listings as it held (or more in view).
    const inView = el.features.reduce((sum, feature) => sum + ('cluster' in feature.properties ? feature.properties.count : 1), 0);
    expect(inView).to.be.at.least(count);
    expect(shadow(el).querySelector('[role="status"]')!.textContent).to.match(/propert(y|ies) on the map/);
  });

  it('opens a pin’s card (photo, price, address, features, link), and Escape or close returns focus to the pin', async () => {
    const { el } = await mapFixture(html`<estate-map relay=${RELAY} detail-href="/listing.html?id={id}"></estate-map>`);
    // Zoom in until a single pin shows.
    for (let step = 0; step < 8 && !parts(el, 'pin').length; step++) {
      const loaded = nextLoad(el);
      parts(el, 'cluster')[0]!.click();
      await loaded;
    }
    const pin = parts(el, 'pin')[0]!;
    const id = Number(pin.dataset.id);
    const listing = el.features.find((feature) => !('cluster' in feature.properties) && feature.properties.id === id)!.properties as MapListingProperties;
    pin.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    const card = part(el, 'card')!;
    expect(card.getAttribute('role')).to.equal('dialog');
    expect(deepActive()).to.equal(card);
    expect(pin.getAttribute('aria-expanded')).to.equal('true');
    expect(part(el, 'price')!.textContent!.trim()).to.equal(listing.price ?? 'Contact agent');
    const link = part(el, 'card-link') as HTMLAnchorElement;
    expect(link.textContent!.trim()).to.equal(listing.title);
    expect(link.getAttribute('href')).to.equal(`/listing.html?id=${id}`);
    if (listing.thumbnail) expect((part(el, 'card-image') as HTMLImageElement).src).to.equal(new URL(listing.thumbnail, `${RELAY}/`).href);
    if (listing.bed) expect(part(el, 'features')!.textContent).to.contain(`${listing.bed} bedroom`);
    await expect(el).to.be.accessible();

    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    await aTimeout(0);
    expect(part(el, 'card')).to.equal(null);
    expect(deepActive()).to.equal(shadow(el).querySelector(`[part~="pin"][data-id="${id}"]`));

    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    part(el, 'close-button')!.click();
    await el.updateComplete;
    await aTimeout(0);
    expect(part(el, 'card')).to.equal(null);
    expect(deepActive()).to.equal(shadow(el).querySelector(`[part~="pin"][data-id="${id}"]`));
  });

  it('steps its card to the pin beside it, west to east, by its buttons or a sideways swipe, and wraps round', async () => {
    const { el } = await mapFixture();
    for (let step = 0; step < 8 && parts(el, 'pin').length < 2; step++) {
      const clusters = parts(el, 'cluster').sort((a, b) => Number(b.textContent) - Number(a.textContent));
      if (!clusters.length) break;
      const loaded = nextLoad(el);
      clusters[0]!.click();
      await loaded;
    }
    const across = () =>
      parts(el, 'pin')
        .map((pin) => ({ id: Number(pin.dataset.id), x: Number(pin.dataset.x), y: Number(pin.dataset.y) }))
        .sort((a, b) => a.x - b.x || a.y - b.y)
        .map((pin) => pin.id);
    expect(across().length, 'pins in view').to.be.greaterThan(1);
    const first = across()[0]!;
    shadow(el).querySelector<HTMLElement>(`[part~="pin"][data-id="${first}"]`)!.click();
    await el.updateComplete;
    const openId = () => Number(shadow(el).querySelector<HTMLElement>('[part~="pin-open"]')?.dataset.id);
    const cardParam = () => new URL(window.location.href).searchParams.get('card');
    expect(openId()).to.equal(first);
    await expect(el).to.be.accessible();
    const entries = history.length;

    // Next: the pin east of it (the order is read again after any pan that keeps the new pin clear).
    let order = across();
    let expected = order[(order.indexOf(first) + 1) % order.length]!;
    part(el, 'card-next')!.click();
    await el.updateComplete;
    expect(openId()).to.equal(expected);
    expect(cardParam()).to.equal(String(expected));
    expect(history.length, 'a step replaces the card in the URL').to.equal(entries);
    const title = (el.features.find((f) => !('cluster' in f.properties) && f.properties.id === expected)!.properties as MapListingProperties).title!;
    expect(shadow(el).querySelector('[role="status"]')!.textContent).to.contain(title);
    expect(part(el, 'card-link')!.textContent!.trim()).to.equal(title);

    // Previous from the westernmost pin: round to the easternmost.
    order = across();
    const from = openId();
    expected = order[(order.indexOf(from) - 1 + order.length) % order.length]!;
    part(el, 'card-previous')!.click();
    await el.updateComplete;
    expect(openId()).to.equal(expected);

    // A finger's swipe: to the left is the next pin; up and down is no step.
    const card = part(el, 'card')!;
    const box = card.getBoundingClientRect();
    const swipe = (dx: number, dy: number) => {
      const at = { pointerId: 7, isPrimary: true, pointerType: 'touch', bubbles: true, composed: true, clientY: box.top + 20 };
      card.dispatchEvent(new PointerEvent('pointerdown', { ...at, clientX: box.left + 150 }));
      card.dispatchEvent(new PointerEvent('pointerup', { ...at, clientX: box.left + 150 + dx, clientY: box.top + 20 + dy }));
    };
    const before = openId();
    swipe(0, -90);
    await el.updateComplete;
    expect(openId(), 'an upward drag').to.equal(before);
    swipe(-20, 0);
    await el.updateComplete;
    expect(openId(), 'a short nudge').to.equal(before);
    order = across();
    swipe(-120, 10);
    await el.updateComplete;
    expect(openId(), 'a swipe to the left').to.equal(order[(order.indexOf(before) + 1) % order.length]);
    order = across();
    const now = openId();
    swipe(120, -10);
    await el.updateComplete;
    expect(openId(), 'a swipe to the right').to.equal(order[(order.indexOf(now) - 1 + order.length) % order.length]);
  });

  it('pans with the arrow keys and zooms with + and - (and its buttons), saying what is in view', async () => {
    const { el } = await mapFixture(html`<estate-map relay=${RELAY} no-follow></estate-map>`);
    part(el, 'stage')!.focus();
    const start = el.view!;
    await sendKeys({ press: 'ArrowRight' });
    const [west0] = start.bbox.split(',').map(Number);
    const [west1] = el.view!.bbox.split(',').map(Number);
    expect(west1, 'moved east').to.be.greaterThan(west0!);
    await sendKeys({ press: 'ArrowDown' });
    expect(Number(el.view!.bbox.split(',')[1]), 'moved south').to.be.lessThan(Number(start.bbox.split(',')[1]));
    const zoom = el.view!.zoom;
    const loaded = nextLoad(el);
    await sendKeys({ press: '+' });
    await waitUntil(() => Math.abs(el.view!.zoom - (zoom + 1)) < 0.01, 'zoomed in');
    await loaded;
    expect(shadow(el).querySelector('[role="status"]')!.textContent).to.match(/propert(y|ies) on the map|No properties/);
    await sendKeys({ press: '-' });
    await waitUntil(() => Math.abs(el.view!.zoom - zoom) < 0.01, 'zoomed out');
    part(el, 'zoom-in')!.click();
    await waitUntil(() => Math.abs(el.view!.zoom - (zoom + 1)) < 0.01, 'zoom-in button');
    part(el, 'zoom-out')!.click();
    await waitUntil(() => Math.abs(el.view!.zoom - zoom) < 0.01, 'zoom-out button');
    expect(part(el, 'search-area'), 'offered after a move').to.exist;
  });

  it('lists the properties in view as plain links (the map’s alternative)', async () => {
    const { el } = await mapFixture(html`<estate-map relay=${RELAY} detail-href="/listing.html?id={id}"></estate-map>`);
    const toggle = part(el, 'list-toggle')!;
    expect(toggle.getAttribute('aria-expanded')).to.equal('false');
    toggle.click();
    await waitUntil(() => part(el, 'list'), 'the list');
    expect(toggle.getAttribute('aria-expanded')).to.equal('true');
    const every = await answerFor(el, 20);
    const ids = every.features.map((feature) => (feature.properties as MapListingProperties).id).sort();
    const links = [...part(el, 'list')!.querySelectorAll('a')];
    expect(links.map((link) => Number(new URL(link.href).searchParams.get('id'))).sort()).to.deep.equal(ids);
    expect(part(el, 'list')!.textContent).to.contain(`${ids.length} propert`);
    await expect(el).to.be.accessible();
  });

  it('offers "Get alerts for this search" with the map’s filters (never its box), its form fetched on the first click', async () => {
    const { el } = await mapFixture(html`<estate-map relay=${RELAY} type="sale" min-beds="3"></estate-map>`);
    expect(customElements.get('estate-saved-search'), 'not fetched before the click').to.equal(undefined);
    const button = part(el, 'alerts-button')!;
    expect(button.textContent!.trim()).to.equal('Get alerts for this search');
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    button.focus();
    await sendKeys({ press: 'Enter' });
    // The first fetch of the form's modules is compiled by the test server as it is asked for.
    await waitUntil(() => customElements.get('estate-saved-search') && part(el, 'alerts'), 'the form', { timeout: 15_000 });
    expect(button.getAttribute('aria-expanded')).to.equal('true');
    const form = part(el, 'alerts') as HTMLElement & { search: Record<string, unknown>; updateComplete: Promise<unknown> };
    await form.updateComplete;
    expect(form.search).to.include({ type: 'sale', minBeds: 3 });
    expect(form.search).not.to.have.property('bbox');
    await expect(el).to.be.accessible();
  });

  it('without tiles draws a plain ground with the suburbs’ names, and no image', async () => {
    const restore = wrapFetch(async (real, input, init) => {
      const response = await real(input, init);
      if (!String(input).endsWith('/api/v1/map/config')) return response;
      const body = (await response.json()) as MapConfig;
      return new Response(JSON.stringify({ ...body, tiles: null, attribution: null }), { headers: { 'Content-Type': 'application/json' } });
    });
    try {
      const { el } = await mapFixture();
      // Zoom in until single listings (whose titles name their suburbs) show.
      for (let step = 0; step < 8 && !parts(el, 'pin').length; step++) {
        const loaded = nextLoad(el);
        parts(el, 'cluster')[0]!.click();
        await loaded;
      }
      await aTimeout(50);
      expect(shadow(el).querySelectorAll('img').length).to.equal(0);
      const labels = parts(el, 'label').map((label) => label.textContent!.trim());
      expect(labels.length).to.be.greaterThan(0);
      for (const label of labels) expect(label).to.match(/^[A-Z][A-Za-z' -]+$/);
      expect(part(el, 'attribution')!.textContent).to.equal('Map without background');
      await expect(el).to.be.accessible();
    } finally {
      restore();
    }
  });

  it('scrolls the page on a plain wheel (with a hint) and zooms on ctrl + wheel', async () => {
    const { el } = await mapFixture();
    const stage = part(el, 'stage')!;
    const box = stage.getBoundingClientRect();
    const at = { clientX: box.left + box.width / 2, clientY: box.top + box.height / 2, bubbles: true, cancelable: true, deltaY: -300 };
    const zoom = el.view!.zoom;
    const plain = new WheelEvent('wheel', at);
    stage.dispatchEvent(plain);
    expect(plain.defaultPrevented, 'the page scrolls').to.equal(false);
    expect(el.view!.zoom).to.equal(zoom);
    await el.updateComplete;
    expect(part(el, 'hint')!.textContent).to.match(/Ctrl|⌘/);
    const ctrl = new WheelEvent('wheel', { ...at, ctrlKey: true });
    stage.dispatchEvent(ctrl);
    expect(ctrl.defaultPrevented).to.equal(true);
    expect(el.view!.zoom).to.be.greaterThan(zoom);
  });

  it('fills the screen and keeps focus inside until Escape or its button leaves, where focus returns', async () => {
    const { el } = await mapFixture();
    const button = part(el, 'fullscreen-button')!;
    expect(button.getAttribute('aria-label')).to.equal('Full screen map');
    button.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(el.hasAttribute('fullscreen')).to.equal(true);
    const box = el.getBoundingClientRect();
    expect(box.width).to.equal(window.innerWidth);
    expect(box.height).to.equal(window.innerHeight);
    expect(deepActive()).to.equal(part(el, 'fullscreen-button'));
    expect(part(el, 'fullscreen-button')!.getAttribute('aria-label')).to.equal('Close full screen map');
    // Every gesture moves the map now: a plain wheel zooms.
    const zoom = el.view!.zoom;
    const stage = part(el, 'stage')!.getBoundingClientRect();
    part(el, 'stage')!.dispatchEvent(
      new WheelEvent('wheel', { clientX: stage.left + 100, clientY: stage.top + 100, deltaY: -300, bubbles: true, cancelable: true }),
    );
    expect(el.view!.zoom).to.be.greaterThan(zoom);
    // Tab past the last control comes back inside.
    for (let step = 0; step < 40; step++) {
      await sendKeys({ press: 'Tab' });
      const active = deepActive();
      expect(active === el || el.shadowRoot!.contains(active), `focus stayed inside (step ${step})`).to.equal(true);
    }
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    if (part(el, 'card')) {
      await sendKeys({ press: 'Escape' });
      await el.updateComplete;
    }
    expect(el.hasAttribute('fullscreen')).to.equal(false);
    await aTimeout(0);
    expect(deepActive()).to.equal(part(el, 'fullscreen-button'));
    expect(document.documentElement.style.overflow).to.equal('');
  });

  it('offers "search this area" after a move where the list does not follow: the view becomes the bbox filter, in the URL, and "clear area" undoes it', async () => {
    const { el } = await mapFixture(html`<estate-map relay=${RELAY} no-follow></estate-map>`);
    expect(part(el, 'search-area')).to.equal(null);
    part(el, 'stage')!.focus();
    await sendKeys({ press: '+' });
    await waitUntil(() => part(el, 'search-area'), 'the button');
    await nextLoad(el).catch(() => undefined);
    const view = el.view!.bbox;
    const area = oneEvent(el, 'estate-map-area');
    part(el, 'search-area')!.click();
    const { detail } = (await area) as CustomEvent<MapAreaDetail>;
    expect(detail.bbox).to.equal(view);
    expect(new URL(window.location.href).searchParams.get('bbox')).to.equal(view);
    expect(el.bbox).to.equal(view);
    await el.updateComplete;
    await aTimeout(0);
    expect(deepActive()).to.equal(part(el, 'clear-area'));
    expect(shadow(el).querySelector('[role="status"]')!.textContent).to.equal('Showing properties in this area.');
    part(el, 'clear-area')!.click();
    await el.updateComplete;
    expect(new URL(window.location.href).searchParams.get('bbox')).to.equal(null);
    expect(el.bbox).to.equal(null);
  });

  describe('beside <estate-listings>', () => {
    it('"search this area" filters the list; the list’s filters change the map’s pins', async () => {
      const { map, list } = await mapBesideList(false);
      // Zoom in on the first cluster: an area holding some listings, not all.
      const loaded = nextLoad(map);
      parts(map, 'cluster')[0]!.click();
      await loaded;
      const inArea = map.features.reduce((sum, feature) => sum + ('cluster' in feature.properties ? feature.properties.count : 1), 0);
      const listLoaded = oneEvent(list, 'estate-listings-loaded');
      part(map, 'search-area')!.click();
      const { detail } = (await listLoaded) as CustomEvent<{ total: number; query: { bbox?: string } }>;
      expect(detail.query.bbox).to.equal(map.bbox);
      const expected = await relayJson<Page<ListingSummary>>(`api/v1/listings?bbox=${map.bbox}&pageSize=50`);
      expect(detail.total).to.equal(expected.total);
      expect(detail.total).to.equal(inArea);

      // The list's filter bar: at least 3 bedrooms. The map asks again with it.
      const form = shadow(list).querySelector('form')!;
      (form.querySelector('[name="minBeds"]') as HTMLSelectElement).value = '3';
      const mapLoaded = nextLoad(map);
      form.requestSubmit();
      await mapLoaded;
      const view = map.view!;
      const filtered = await relayJson<ListingMap>(`api/v1/listings/map?bbox=${map.bbox}&zoom=${Math.max(0, Math.round(view.zoom) - 1)}&minBeds=3`);
      expect(shownSummary(map)).to.deep.equal(markerSummary(filtered.features));
      expect(map.minBeds).to.equal(3);
    });

    it('leaves "Get alerts for this search" to the list’s filter bar: one button on the page', async () => {
      const { map, list } = await mapBesideList();
      await list.updateComplete;
      expect(part(map, 'alerts-button') === null, 'not under the map').to.equal(true);
      expect(part(list, 'alerts-button')!.textContent!.trim()).to.equal('Get alerts for this search');
      await expect(map).to.be.accessible();
      // A list without a bar, or one under another prefix (another search), leaves the map its own.
      for (const other of [
        html`<estate-map relay=${RELAY}></estate-map><estate-listings relay=${RELAY} page-size="4"></estate-listings>`,
        html`<estate-map relay=${RELAY}></estate-map><estate-listings relay=${RELAY} filters query-prefix="rent-" page-size="4"></estate-listings>`,
      ]) {
        fixtureCleanup();
        const holder = await fixture<HTMLDivElement>(html`<div style="width: 900px">${other}</div>`);
        const alone = holder.querySelector('estate-map')!;
        await oneEvent(alone, 'estate-map-loaded');
        await alone.updateComplete;
        expect(part(alone, 'alerts-button') !== null, 'under the map').to.equal(true);
      }
    });

    it('hovering or focusing a card lights up its pin, and a pin its card', async () => {
      const { map, list } = await mapBesideList();
      for (let step = 0; step < 8 && !parts(map, 'pin').length; step++) {
        const loaded = nextLoad(map);
        parts(map, 'cluster')[0]!.click();
        await loaded;
      }
      const pin = parts(map, 'pin')[0]!;
      const id = Number(pin.dataset.id);
      // The list follows the map: its cards are those in view once the view has rested.
      const link = await waitUntil(() => shadow(list).querySelector<HTMLElement>(`[part~="card-link"][data-id="${id}"]`), 'the pin’s card in the list').then(
        () => shadow(list).querySelector<HTMLElement>(`[part~="card-link"][data-id="${id}"]`)!,
      );
      link.focus();
      await map.updateComplete;
      expect(shadow(map).querySelector(`[data-id="${id}"]`)!.getAttribute('part')).to.contain('pin-highlighted');
      link.blur();
      await map.updateComplete;
      expect(shadow(map).querySelector(`[data-id="${id}"]`)!.getAttribute('part')).to.not.contain('pin-highlighted');
      shadow(map).querySelector<HTMLElement>(`[data-id="${id}"]`)!.focus();
      await list.updateComplete;
      expect(link.closest('[part~="card"]')!.getAttribute('part')).to.contain('card-highlighted');
    });
  });

  describe('a location map (lat and lng)', () => {
    it('shows a pin for an address, with the credit and no controls', async () => {
      const el = await fixture<EstateMap>(html`<estate-map relay=${RELAY} lat="-37.81" lng="144.96" precision="address" place="Melbourne"></estate-map>`);
      await waitUntil(() => part(el, 'pin'), 'the pin');
      expect(part(el, 'area')).to.equal(null);
      expect(part(el, 'caption')).to.equal(null);
      expect(part(el, 'stage')!.getAttribute('role')).to.equal('img');
      expect(part(el, 'stage')!.getAttribute('aria-label')).to.equal('Map of the property’s location');
      expect(shadow(el).querySelectorAll('button').length).to.equal(0);
      expect(part(el, 'attribution')!.textContent).to.equal(config.attribution);
      const pin = part(el, 'pin')!.getBoundingClientRect();
      const stage = part(el, 'stage')!.getBoundingClientRect();
      expect(Math.abs(pin.left + pin.width / 2 - (stage.left + stage.width / 2))).to.be.lessThan(2);
      await waitUntil(() => [...shadow(el).querySelectorAll<HTMLImageElement>('.tile')].some((img) => img.complete && img.naturalWidth > 0), 'tiles');
      await expect(el).to.be.accessible();
    });

    it('shows an area and "approximate location" for a suburb, never a pin', async () => {
      const el = await fixture<EstateMap>(html`<estate-map relay=${RELAY} lat="-37.81" lng="144.96" precision="suburb" place="Kew"></estate-map>`);
      await waitUntil(() => part(el, 'area'), 'the area');
      expect(part(el, 'pin')).to.equal(null);
      expect(part(el, 'caption')!.textContent).to.equal('Approximate location, Kew');
      expect(part(el, 'stage')!.getAttribute('aria-label')).to.equal('Approximate location, Kew');
      await expect(el).to.be.accessible();
    });

    async function listingWith(position: ListingDetail['position']): Promise<EstateListing> {
      const page = await relayJson<Page<ListingSummary>>('api/v1/listings?pageSize=1');
      const detail = await relayJson<ListingDetail>(`api/v1/listings/${page.items[0]!.id}`);
      const listing = { ...detail, position, address: { ...detail.address, suburb: 'Kew' } };
      return fixture<EstateListing>(html`<estate-listing relay=${RELAY} no-enquiry .listing=${listing}></estate-listing>`);
    }

    it('in a listing detail: loaded only once scrolled into view, at the precision the listing allows', async () => {
      await setViewport({ width: 1000, height: 400 });
      const el = await listingWith({ lat: -37.81, lng: 144.96, precision: 'suburb' });
      const section = part(el, 'location')!;
      expect(section).to.exist;
      expect(part(el, 'location-map'), 'not before it is in view').to.equal(null);
      section.scrollIntoView();
      await waitUntil(() => part(el, 'location-map'), 'the map once in view');
      const map = part(el, 'location-map') as EstateMap;
      await waitUntil(() => map.shadowRoot && part(map, 'area'), 'its area');
      expect(part(map, 'pin')).to.equal(null);
      expect(part(map, 'caption')!.textContent).to.equal('Approximate location, Kew');
      window.scrollTo(0, 0);
    });

    it('in a listing detail: a pin for an address, and nothing without a position', async () => {
      const placed = await listingWith({ lat: -37.81, lng: 144.96, precision: 'address' });
      part(placed, 'location')!.scrollIntoView();
      await waitUntil(() => part(placed, 'location-map')?.shadowRoot && part(part(placed, 'location-map')!, 'pin'), 'a pin');
      const unplaced = await listingWith(null);
      expect(part(unplaced, 'location')).to.equal(null);
      window.scrollTo(0, 0);
    });
  });
});
