// Issue 30, phones first: the demo's /buy page (the release bundle, a relay in demo mode) in
// Chromium at 390 × 844 (touch) and 1280 × 800. A tapped pin's card sits along the bottom of the
// map and never covers its pin or a control (their rectangles do not meet); full screen keeps the
// centre, and Back leaves it without leaving the page; on the phone the map/list switch keeps the
// map's view and the list's place, and Back switches back.
import type { BrowserContextOptions, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';

let rig: DemoSiteRig;
/** A street-level view over the most placed listings' middle, where the demo has price pins. */
let streetView: string;

beforeAll(async () => {
  rig = await startDemoSiteRig();
  for (const deadline = Date.now() + 30_000; ;) {
    const placement = (await (await fetch(`${rig.relay.url}/api/v1/listings/placement`)).json()) as { pending: number };
    if (placement.pending === 0) break;
    if (Date.now() > deadline) throw new Error('the listings were never all placed');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const page = (await (await fetch(`${rig.relay.url}/api/v1/listings?type=sale&pageSize=50`)).json()) as {
    items: Array<{ position: { lat: number; lng: number } | null }>;
  };
  const placed = page.items.find((item) => item.position)!.position!;
  streetView = `${placed.lat.toFixed(5)},${placed.lng.toFixed(5)},14`;
}, 180_000);

afterAll(async () => {
  await rig?.close();
});

const DESKTOP: BrowserContextOptions = { viewport: { width: 1280, height: 800 } };
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 3 };

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function meet(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

async function box(target: Locator): Promise<Box> {
  const found = await target.boundingBox();
  expect(found, 'a box on screen').not.toBeNull();
  return found!;
}

/** The middle of the map's view (its box) and its zoom. */
/** The map's centre once it has stopped moving (a keyboard pan eases on after the URL first changes). */
async function settledCentre(map: Locator): Promise<[number, number, number]> {
  let last = await centre(map);
  await expect
    .poll(
      async () => {
        const now = await centre(map);
        const same = JSON.stringify(now) === JSON.stringify(last);
        last = now;
        return same;
      },
      { interval: 300 },
    )
    .toBe(true);
  return last;
}

async function centre(map: Locator): Promise<[number, number, number]> {
  const view = (await map.evaluate((element) => (element as unknown as { view: { bbox: string; zoom: number } | null }).view))!;
  const [west, south, east, north] = view.bbox.split(',').map(Number) as [number, number, number, number];
  return [(south + north) / 2, (west + east) / 2, view.zoom];
}

async function openBuy(options: BrowserContextOptions, query = '') {
  const { context, page, problems } = await watchedPage(rig.browser, options);
  await page.goto(`${rig.relay.url}/buy${query}`);
  const map = page.locator('estate-map');
  await map.locator('.marker').first().waitFor();
  return { page, problems, map, close: () => context.close() };
}

async function press(target: Locator, touch: boolean): Promise<void> {
  if (touch) await target.tap();
  else await target.click();
}

describe.each([
  ['1280 × 800', DESKTOP, false],
  ['390 × 844, touch', PHONE, true],
])('the /buy map at %s', (_name, options, touch) => {
  it('a tapped pin’s card never covers the pin or a control, even for the pin lowest on the map', async () => {
    const { problems, map, close } = await openBuy(options, `?view=${encodeURIComponent(streetView)}`);
    await map.locator('[part~="pin"]').first().waitFor();
    // The lowest pin in view: the one a strip along the bottom would cover.
    const pins = map.locator('[part~="pin"]');
    const stage = await box(map.locator('[part~="stage"]'));
    let lowest: { id: string; y: number } | null = null;
    for (let index = 0; index < (await pins.count()); index++) {
      const pin = await pins.nth(index).boundingBox();
      const id = (await pins.nth(index).getAttribute('data-id'))!;
      if (pin && pin.y + pin.height < stage.y + stage.height - 8 && (!lowest || pin.y > lowest.y)) lowest = { id, y: pin.y };
    }
    expect(lowest).not.toBeNull();
    const pin = map.locator(`[part~="pin"][data-id="${lowest!.id}"]`);
    // Not by a tap that the controls would take: the pin's own click (the lowest pin is clear of them).
    if (touch) await pin.tap({ force: true });
    else await pin.click({ force: true });
    const card = map.locator('[part~="card"]');
    await card.waitFor();
    const controls = [
      map.locator('[part~="zoom-in"]'),
      map.locator('[part~="zoom-out"]'),
      map.locator('[part~="fullscreen-button"]'),
      map.locator('[part~="follow"]'),
    ];
    await expect
      .poll(async () => {
        const pinBox = await box(pin);
        if (meet(pinBox, await box(card))) return 'the card covers the pin';
        for (const control of controls) if (meet(pinBox, await box(control))) return 'a control covers the pin';
        return 'clear';
      })
      .toBe('clear');
    const cardBox = await box(card);
    for (const control of controls) expect(meet(cardBox, await box(control)), 'the card covers a control').toBe(false);
    // The card is a strip along the bottom of the map (measured again: a click may scroll the page).
    const stageNow = await box(map.locator('[part~="stage"]'));
    expect(cardBox.y + cardBox.height).toBeGreaterThan(stageNow.y + stageNow.height - 48);
    // "Search this area" (following off) on one line, clear of the zoom buttons.
    await map.locator('[part~="follow"] input').click();
    await map.locator('[part~="zoom-in"]').click();
    const searchArea = map.locator('[part~="search-area"]');
    await searchArea.waitFor();
    const lineHeight = await searchArea.evaluate((element) => parseFloat(getComputedStyle(element).lineHeight) || 24);
    expect((await box(searchArea)).height).toBeLessThan(lineHeight * 2 + 12);
    for (const control of controls.slice(0, 3)) expect(meet(await box(searchArea), await box(control))).toBe(false);
    expect(problems.join('\n')).toBe('');
    await close();
  }, 90_000);

  it('full screen keeps the centre; the phone’s Back leaves it and stays on the page', async () => {
    const { page, problems, map, close } = await openBuy(options, `?view=${encodeURIComponent(streetView)}`);
    await expect.poll(async () => (await centre(map))[2]).toBeCloseTo(14, 2);
    const [lat0, lng0, zoom0] = await centre(map);
    const url = page.url();
    await press(map.locator('[part~="fullscreen-button"]'), touch);
    await expect.poll(() => map.evaluate((element) => element.hasAttribute('fullscreen'))).toBe(true);
    const viewport = page.viewportSize()!;
    await expect.poll(async () => (await box(map.locator('[part~="stage"]'))).height).toBeGreaterThan(viewport.height - 4);
    const [lat1, lng1, zoom1] = await centre(map);
    expect(zoom1).toBeCloseTo(zoom0, 2);
    const tolerance = 0.0005 * 2 ** (16 - zoom0);
    expect(Math.abs(lat1 - lat0)).toBeLessThan(tolerance);
    expect(Math.abs(lng1 - lng0)).toBeLessThan(tolerance);
    // The filters are reachable in full screen (the list's bar, beside this map).
    await map.locator('[part~="filters-button"]').waitFor();
    await page.goBack();
    await expect.poll(() => map.evaluate((element) => element.hasAttribute('fullscreen'))).toBe(false);
    expect(new URL(page.url()).pathname).toBe('/buy');
    expect(page.url()).toBe(url);
    const [lat2, lng2] = await centre(map);
    expect(Math.abs(lat2 - lat0)).toBeLessThan(tolerance);
    expect(Math.abs(lng2 - lng0)).toBeLessThan(tolerance);
    expect(problems.join('\n')).toBe('');
    await close();
  }, 90_000);
});

describe('the /buy map/list switch at 390 × 844', () => {
  it('shows one at a time, keeps the map’s view and the list’s scroll, and Back switches back', async () => {
    const { page, problems, map, close } = await openBuy(PHONE, `?view=${encodeURIComponent(streetView)}`);
    const list = page.locator('estate-listings');
    const mapButton = map.getByRole('button', { name: 'Map', exact: true });
    const listButton = map.getByRole('button', { name: 'List', exact: true });
    await expect.poll(() => mapButton.getAttribute('aria-pressed')).toBe('true');
    expect(await list.isVisible()).toBe(false);
    // Full height: the map reaches near the bottom of the screen (the switch and one row of links under it).
    const stage = await box(map.locator('[part~="stage"]'));
    expect(stage.y + stage.height).toBeGreaterThan(844 - 140);
    await map.locator('[part~="stage"]').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).not.toBe(streetView);
    const moved = await settledCentre(map);
    await listButton.tap();
    await expect.poll(() => list.isVisible()).toBe(true);
    expect(new URL(page.url()).searchParams.get('show')).toBe('list');
    expect(await map.locator('[part~="stage"]').isVisible()).toBe(false);
    await list.locator('[part~="card-link"]').first().waitFor();
    await page.evaluate(() => window.scrollTo(0, 900));
    const scrolled = await page.evaluate(() => window.scrollY);
    await mapButton.tap();
    await expect.poll(() => map.locator('[part~="stage"]').isVisible()).toBe(true);
    expect(await centre(map)).toEqual(moved);
    await listButton.tap();
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(scrolled);
    // Back: the map again, at its view.
    await page.goBack();
    await expect.poll(() => mapButton.getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => list.isVisible()).toBe(false);
    expect(await centre(map)).toEqual(moved);
    expect(problems.join('\n')).toBe('');
    await close();
  }, 90_000);
});
