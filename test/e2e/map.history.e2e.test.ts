// Issue 30: the demo's /buy page (its map beside the list, the release bundle, a relay in demo
// mode) in Chromium at 1280 × 800 and on a phone (390 × 844, touch). The map's view is the page
// URL's: cluster → cluster → pin → card → the listing → Back, and each Back after it, shows each
// view again, the list beside it showing that view's listings; a new search fits the map; one
// ctrl + wheel notch is one zoom level; the sticky map fits the viewport.
import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingMap, ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { cardIds, listingsPlaced, mapState, startDemoSiteRig, type MapState, watchedPage, type DemoSiteRig } from '../support/browser.ts';

let rig: DemoSiteRig;

beforeAll(async () => {
  rig = await startDemoSiteRig();
  await listingsPlaced(rig.relay.url);
}, 180_000);

afterAll(async () => {
  await rig?.close();
});

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 3 };

interface Seen extends MapState {
  url: string;
  cards: number[];
}

/** What the page shows: the map's view and markers, the list's cards. */
async function seen(page: Page): Promise<Seen> {
  return { url: page.url(), ...(await mapState(page.locator('estate-map'))), cards: await cardIds(page.locator('estate-listings')) };
}

/** The list's cards for a URL's search, as the relay answers it. */
async function listFor(url: string): Promise<number[]> {
  const params = new URL(url).searchParams;
  const query = new URLSearchParams({ type: 'sale', pageSize: '12' });
  for (const name of ['bbox', 'suburb', 'minBeds']) if (params.get(name)) query.set(name, params.get(name)!);
  const page = (await (await fetch(`${rig.relay.url}/api/v1/listings?${query}`)).json()) as ListingsPage<ListingSummary>;
  return page.items.map((item) => item.id);
}

/** The relay's markers for a view, as the map asks them (one zoom less; the URL's filters, no area while the list follows). */
async function relayMarkers(url: string, state: { bbox: string; zoom: number }): Promise<string[]> {
  const params = new URL(url).searchParams;
  const zoom = Math.round(state.zoom) >= 17 ? 20 : Math.max(0, Math.round(state.zoom) - 1);
  const query = new URLSearchParams({ type: 'sale', bbox: state.bbox, zoom: String(zoom) });
  for (const name of ['suburb', 'minBeds']) if (params.get(name)) query.set(name, params.get(name)!);
  const answer = (await (await fetch(`${rig.relay.url}/api/v1/listings/map?${query}`)).json()) as ListingMap;
  return answer.features.map((feature) => ('cluster' in feature.properties ? `c${feature.properties.count}` : `p${feature.properties.id}`)).sort();
}

/**
 * Whether the map shows the URL's view: its zoom, and its centre within 2 px. The zoom alone is not
 * enough: a card's pin panned clear of the card moves the centre, and the URL follows a moment later.
 */
function atView(now: MapState, view: string): boolean {
  const [lat, lng, zoom] = view.split(',').map(Number) as [number, number, number];
  if (Math.abs(zoom - now.zoom) >= 0.01) return false;
  const [west, south, east, north] = now.bbox.split(',').map(Number) as [number, number, number, number];
  // In the map's pixels (Web Mercator: the middle latitude of a box is not the mean of its edges).
  const pixelsPerRadian = (256 * 2 ** zoom) / (2 * Math.PI);
  const y = (latitude: number) => Math.log(Math.tan(Math.PI / 4 + (latitude * Math.PI) / 360));
  const dx = ((((west + east) / 2 - lng) * Math.PI) / 180) * pixelsPerRadian;
  const dy = ((y(south) + y(north)) / 2 - y(lat)) * pixelsPerRadian;
  return Math.abs(dx) < 2 && Math.abs(dy) < 2;
}

/**
 * Waits until the page has settled on a view: the map at the URL's view (when it names one), its
 * markers the relay's for that view, the list the relay's for the URL; then what the page shows.
 * `named`: the URL must name the view (after a move; the start and Back to it name none).
 */
async function settled(page: Page, named = true): Promise<Seen> {
  await expect
    .poll(
      async () => {
        const now = await seen(page);
        const view = new URL(now.url).searchParams.get('view');
        if (named && !view) return 'the URL names no view yet';
        if (view && !atView(now, view)) return 'the map is not at the URL’s view';
        if (JSON.stringify(now.markers) !== JSON.stringify(await relayMarkers(now.url, now))) return 'the markers are not the view’s';
        if (JSON.stringify(now.cards) !== JSON.stringify(await listFor(now.url))) return 'the list is not the URL’s';
        return 'settled';
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe('settled');
  return seen(page);
}

async function openBuy(options: BrowserContextOptions) {
  const { context, page, problems } = await watchedPage(rig.browser, options);
  await page.goto(`${rig.relay.url}/buy`);
  const map = page.locator('estate-map');
  // On a phone the map shows first and the list waits behind the map/list switch.
  await page.locator('estate-listings [part~="card-link"]').first().waitFor({ state: 'attached' });
  await map.locator('.marker').first().waitFor();
  return { page, problems, map, close: () => context.close() };
}

/** The first cluster (in the Tab order) clear of the map's controls, which would take a tap on it. */
async function clearCluster(map: Locator): Promise<Locator> {
  const clusters = map.locator('[part~="cluster"]');
  const controls = (await map.locator('[part~="controls"]').boundingBox())!;
  for (let index = 0; index < (await clusters.count()); index++) {
    const box = await clusters.nth(index).boundingBox();
    if (box && (box.x + box.width < controls.x - 4 || box.y > controls.y + controls.height + 4)) return clusters.nth(index);
  }
  return clusters.first();
}

async function press(target: Locator, touch: boolean): Promise<void> {
  if (touch) await target.tap();
  else await target.click();
}

/** The middle of a view's box, and its zoom. */
function centreOf(state: Seen): [number, number, number] {
  const [west, south, east, north] = state.bbox.split(',').map(Number) as [number, number, number, number];
  return [(south + north) / 2, (west + east) / 2, state.zoom];
}

function expectSameView(now: Seen, before: Seen, what: string): void {
  expect(new URL(now.url).searchParams.get('view'), `${what}: the URL's view`).toBe(new URL(before.url).searchParams.get('view'));
  const [lat0, lng0, zoom0] = centreOf(before);
  const [lat1, lng1, zoom1] = centreOf(now);
  expect(zoom1, `${what}: zoom`).toBeCloseTo(zoom0, 2);
  const tolerance = 0.0005 * 2 ** (16 - zoom0);
  expect(Math.abs(lat1 - lat0), `${what}: latitude`).toBeLessThan(tolerance);
  expect(Math.abs(lng1 - lng0), `${what}: longitude`).toBeLessThan(tolerance);
  expect(now.markers, `${what}: the same markers`).toEqual(before.markers);
  expect(now.cards, `${what}: the same list`).toEqual(before.cards);
}

describe.each([
  ['1280 × 800', DESKTOP, false],
  ['390 × 844, touch', PHONE, true],
] as const)('the /buy map at %s', (_name, options, touch) => {
  it('cluster → cluster → pin → card → the listing → Back, and Back again: each view comes back, list and map together', async () => {
    const { page, problems, map, close } = await openBuy(options);
    const views: Seen[] = [await settled(page, false)];
    for (let step = 0; step < 2; step++) {
      if (!(await map.locator('[part~="cluster"]').count())) break;
      const cluster = await clearCluster(map);
      await press(cluster, touch);
      views.push(await settled(page));
      expect(views.at(-1)!.zoom).toBeGreaterThan(views.at(-2)!.zoom);
    }
    // Down to pins (the demo's clusters may take more steps).
    for (let step = 0; step < 8 && !(await map.locator('[part~="pin"]').count()); step++) {
      await press(await clearCluster(map), touch);
      views.push(await settled(page));
    }
    // The list follows each view.
    for (const view of views.slice(1)) expect(new URL(view.url).searchParams.get('bbox')).toBe(view.bbox);
    expect(views.at(-1)!.cards).toEqual(await listFor(views.at(-1)!.url));

    const pin = map.locator('[part~="pin"]').first();
    const id = await pin.getAttribute('data-id');
    await press(pin, touch);
    await map.locator('[part~="card"]').waitFor();
    expect(new URL(page.url()).searchParams.get('card')).toBe(id);
    const withCard = await settled(page);
    await press(map.locator('[part~="card-link"]'), touch);
    await page.waitForURL(/\/listings\/\d+/);

    await page.goBack();
    await map.locator('[part~="card"]').waitFor();
    expectSameView(await settled(page), withCard, 'Back from the listing');
    await page.goBack();
    await expect.poll(() => map.locator('[part~="card"]').count()).toBe(0);
    for (let index = views.length - 1; index >= 1; index--) {
      const now = await settled(page);
      expectSameView(now, views[index]!, `view ${index}`);
      expect(now.cards).toEqual(await listFor(now.url));
      await page.goBack();
    }
    const first = await settled(page, false);
    expect(first.zoom).toBeCloseTo(views[0]!.zoom, 2);
    expect(first.markers).toEqual(views[0]!.markers);
    // Forward again to the deepest view.
    for (let index = 1; index < views.length; index++) await page.goForward();
    expectSameView(await settled(page), views.at(-1)!, 'Forward');
    expect(problems).toEqual([]);
    await close();
  }, 180_000);

  it('a new search fits the map to its results (one suburb)', async () => {
    const { page, problems, close } = await openBuy(options);
    const start = await settled(page, false);
    // A suburb with few homes for sale: the last of the first page's placed listings.
    const all = (await (await fetch(`${rig.relay.url}/api/v1/listings?type=sale&pageSize=50`)).json()) as ListingsPage<ListingSummary>;
    const suburb = all.items.filter((card) => card.position && card.address.suburb).at(-1)!.address.suburb!;
    const kew = (await (
      await fetch(`${rig.relay.url}/api/v1/listings/map?type=sale&suburb=${encodeURIComponent(suburb)}&bbox=-180,-85,180,85&zoom=0`)
    ).json()) as ListingMap;
    expect(kew.bounds).not.toBeNull();
    const list = page.locator('estate-listings');
    // A phone shows the list (and its filter bar) after "List".
    const showList = page.locator('estate-map').getByRole('button', { name: 'List', exact: true });
    if (await showList.count()) await showList.click();
    // Phones fold the filters away behind a button.
    const toggle = list.getByRole('button', { name: /filters/i });
    if ((await toggle.count()) && !(await list.getByLabel('Suburb').isVisible())) await toggle.first().click();
    await list.getByLabel('Suburb').fill(suburb);
    await list.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('suburb')).toBe(suburb);
    await expect.poll(async () => (await seen(page)).zoom, { timeout: 15_000 }).toBeGreaterThan(start.zoom + 1);
    const fitted = await settled(page);
    const [west, south, east, north] = fitted.bbox.split(',').map(Number) as [number, number, number, number];
    const bounds = kew.bounds!;
    expect(west <= bounds.west && east >= bounds.east && south <= bounds.south && north >= bounds.north).toBe(true);
    expect(fitted.cards).toEqual(await listFor(fitted.url));
    expect(fitted.cards.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await close();
  }, 90_000);
});

describe('the /buy map at 1280 × 800', () => {
  it('fits the viewport, sticky beside the list, "List the properties on the map" in view', async () => {
    const { page, problems, map, close } = await openBuy(DESKTOP);
    const toggle = map.locator('[part~="list-toggle"]');
    // No taller than the viewport less its sticky offset (1rem) above and below.
    expect((await map.boundingBox())!.height).toBeLessThanOrEqual(800 - 32);
    // Stuck, once the page scrolls down the list (the grid of list and map still below the fold):
    // whole in the viewport, the link under it too.
    const gridBottom = await page.evaluate(() => {
      const grid = document.querySelector('.search-with-map')!.getBoundingClientRect();
      window.scrollTo(0, grid.top + window.scrollY + 200);
      return grid.bottom - 200;
    });
    expect(gridBottom).toBeGreaterThan(800);
    await expect.poll(async () => (await map.boundingBox())!.y).toBeCloseTo(16, 0);
    const box = (await map.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    const button = (await toggle.boundingBox())!;
    expect(button.y).toBeGreaterThanOrEqual(box.y);
    expect(button.y + button.height).toBeLessThanOrEqual(800);
    expect(problems).toEqual([]);
    await close();
  }, 60_000);

  it('zooms one level for one ctrl + wheel notch', async () => {
    const { page, problems, map, close } = await openBuy(DESKTOP);
    const start = await settled(page, false);
    const stage = (await map.locator('[part~="stage"]').boundingBox())!;
    await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -100);
    await page.keyboard.up('Control');
    await expect.poll(async () => (await seen(page)).zoom).toBeCloseTo(start.zoom + 1, 2);
    const after = await settled(page);
    expect(after.zoom).toBeCloseTo(start.zoom + 1, 2);
    expect(problems).toEqual([]);
    await close();
  }, 60_000);
});
