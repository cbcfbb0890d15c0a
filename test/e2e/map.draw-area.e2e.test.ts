// Issue 30, "Draw an area": the demo's /buy page (its map beside the list, the release bundle, a
// relay in demo mode, the site's strict CSP) in Chromium at 1280 × 800 and on a phone (390 × 844,
// touch). An outline drawn with the mouse, with a finger (touch events through CDP, which Chromium
// turns into pointer events) and with the keyboard's cross-hair filters the list and the pins to it
// (as the relay answers for the URL's area), and Back removes it. Screenshots of each go to
// DRAW_SCREENSHOTS when it is set.
import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingMap, ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { cardIds, listingsPlaced, mapState, startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';

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
const FILTERS = ['bbox', 'area', 'suburb', 'minBeds'];

/** The list's cards for a URL's search, as the relay answers it. */
async function listFor(url: string): Promise<number[]> {
  const params = new URL(url).searchParams;
  const query = new URLSearchParams({ type: 'sale', pageSize: '12' });
  for (const name of FILTERS) if (params.get(name)) query.set(name, params.get(name)!);
  const page = (await (await fetch(`${rig.relay.url}/api/v1/listings?${query}`)).json()) as ListingsPage<ListingSummary>;
  return page.items.map((item) => item.id);
}

/** The relay's markers for the map's view under the URL's filters (one zoom less, as the map asks; no box while the list follows). */
async function relayMarkers(url: string, state: { bbox: string; zoom: number }): Promise<string[]> {
  const params = new URL(url).searchParams;
  const zoom = Math.round(state.zoom) >= 17 ? 20 : Math.max(0, Math.round(state.zoom) - 1);
  const query = new URLSearchParams({ type: 'sale', bbox: state.bbox, zoom: String(zoom) });
  for (const name of ['area', 'suburb', 'minBeds']) if (params.get(name)) query.set(name, params.get(name)!);
  const answer = (await (await fetch(`${rig.relay.url}/api/v1/listings/map?${query}`)).json()) as ListingMap;
  return answer.features.map((feature) => ('cluster' in feature.properties ? `c${feature.properties.count}` : `p${feature.properties.id}`)).sort();
}

/** Until the list and the markers are the relay's for the URL (its area or none); then the URL. */
async function settled(page: Page, wantArea: boolean): Promise<URL> {
  await expect
    .poll(
      async () => {
        const url = page.url();
        if (Boolean(new URL(url).searchParams.get('area')) !== wantArea) return wantArea ? 'no area in the URL yet' : 'the area is still in the URL';
        const state = await mapState(page.locator('estate-map'));
        if (JSON.stringify(state.markers) !== JSON.stringify(await relayMarkers(url, state))) return 'the markers are not the URL’s';
        if (JSON.stringify(await cardIds(page.locator('estate-listings'))) !== JSON.stringify(await listFor(url))) return 'the list is not the URL’s';
        return 'settled';
      },
      { timeout: 15_000, interval: 250 },
    )
    .toBe('settled');
  return new URL(page.url());
}

async function openBuy(options: BrowserContextOptions) {
  const { context, page, problems } = await watchedPage(rig.browser, options);
  await page.goto(`${rig.relay.url}/buy`);
  // On a phone the list is behind the map/list switch (the map shows first): there, not shown.
  await page.locator('estate-listings [part~="card-link"]').first().waitFor({ state: 'attached' });
  await page.locator('estate-map .marker').first().waitFor();
  return { page, problems, close: () => context.close() };
}

/** Every listing of the area's answer (all pages) is inside the outline: the relay's own answer, checked against the outline's corners. */
async function areaListings(area: string): Promise<ListingSummary[]> {
  const page = (await (await fetch(`${rig.relay.url}/api/v1/listings?type=sale&pageSize=100&area=${area}`)).json()) as ListingsPage<ListingSummary>;
  return page.items;
}

async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.DRAW_SCREENSHOTS;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: false });
}

describe.each([
  ['1280 × 800', 'desktop', DESKTOP, false],
  ['390 × 844, touch', 'phone', PHONE, true],
] as const)('Draw an area on /buy at %s', (_name, label, options, touch) => {
  it(`draws with ${touch ? 'a finger' : 'the mouse'}: the list and pins filter to the outline; Back removes it`, async () => {
    const { page, problems, close } = await openBuy(options);
    const before = await settled(page, false);
    const totalBefore = await listFor(before.href);
    const map = page.locator('estate-map');
    const button = map.locator('[part~="draw-area"]');
    await button.scrollIntoViewIfNeeded();
    if (touch) await button.tap();
    else await button.click();
    const surface = map.locator('[part~="draw-surface"]');
    await surface.waitFor();
    const box = (await surface.boundingBox())!;
    // Around a marker (the fitted view's middle may hold none: between two cities on a tall phone map), inside the surface.
    const marker = (await map.locator('.marker').first().boundingBox())!;
    const [mx, my] = [marker.x + marker.width / 2, marker.y + marker.height / 2];
    const radius = Math.max(12, Math.min(mx - box.x, box.x + box.width - mx, my - box.y, box.y + box.height - my, Math.min(box.width, box.height) * 0.4) - 4);
    const [cx, cy] = [mx, my];
    const circle = Array.from({ length: 80 }, (_, i) => {
      const angle = (2 * Math.PI * i) / 80;
      return [cx + radius * Math.cos(angle), cy + radius * Math.sin(angle)] as const;
    });
    if (touch) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: circle[0]![0], y: circle[0]![1] }] });
      for (const [x, y] of circle.slice(1)) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y }] });
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    } else {
      await page.mouse.move(...circle[0]!);
      await page.mouse.down();
      for (const [x, y] of circle.slice(1)) await page.mouse.move(x, y);
      await page.mouse.up();
    }
    const drawn = await settled(page, true);
    // A finger's drag draws: the map neither moved under it nor asked for two fingers.
    expect(await map.locator('[part~="hint"]').count()).toBe(0);
    const area = drawn.searchParams.get('area')!;
    expect(area.split(';').length).toBeGreaterThanOrEqual(8);
    expect(area.split(';').length).toBeLessThanOrEqual(50);
    // The outline filters: fewer results, and what the list shows is among the area's.
    const inside = (await areaListings(area)).map((card) => card.id);
    expect(inside.length).toBeGreaterThan(0);
    for (const id of await cardIds(page.locator('estate-listings'))) expect(inside).toContain(id);
    expect(await map.locator('polygon.drawn-area').count()).toBe(1);
    // Said once the map's answer for the outline is in (after the list's, on a loaded machine).
    await expect.poll(() => map.locator('[role="status"]').textContent(), { timeout: 10_000 }).toMatch(/^Area drawn\./);
    await screenshot(page, `${label}-drawn`);

    await page.goBack();
    const after = await settled(page, false);
    expect(after.searchParams.get('area')).toBeNull();
    expect(await map.locator('polygon.drawn-area').count()).toBe(0);
    expect(await listFor(after.href)).toEqual(totalBefore);
    expect(problems).toEqual([]);
    await close();
  });

  it('draws with the keyboard: the cross-hair places corners, Enter on the first closes; Back removes it', async () => {
    const { page, problems, close } = await openBuy(options);
    await settled(page, false);
    const map = page.locator('estate-map');
    await map.locator('[part~="draw-area"]').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => map.evaluate((el) => el.shadowRoot!.activeElement?.getAttribute('part'))).toBe('draw-surface');
    // A triangle around the middle: up, then down-right, then left, then back up onto the first corner.
    const press = async (key: string, times: number) => {
      for (let i = 0; i < times; i++) await page.keyboard.press(key);
    };
    await press('Shift+ArrowUp', 2);
    await page.keyboard.press('Enter');
    await press('Shift+ArrowDown', 4);
    await press('Shift+ArrowRight', 2);
    await page.keyboard.press('Space');
    await press('Shift+ArrowLeft', 4);
    await page.keyboard.press('Enter');
    await press('Shift+ArrowRight', 2);
    await press('Shift+ArrowUp', 4);
    await expect.poll(() => map.locator('[role="status"]').textContent(), { timeout: 10_000 }).toContain('On the first corner');
    await screenshot(page, `${label}-drawing`);
    await page.keyboard.press('Enter');
    const drawn = await settled(page, true);
    expect(drawn.searchParams.get('area')!.split(';')).toHaveLength(3);
    await expect.poll(() => map.evaluate((el) => el.shadowRoot!.activeElement?.getAttribute('part'))).toContain('remove-area');
    await screenshot(page, `${label}-keyboard`);
    await page.goBack();
    await settled(page, false);
    expect(problems).toEqual([]);
    await close();
  });
});
