// Issue 20: an agency page with `<estate-map>` beside `<estate-listings>`, in Chromium. The release
// widget bundle from a real relay (demo mode: the simulator's listings, placed by its geocoder, and
// its tiles), the page on another origin as an agency site is. Map and list stay in step both ways
// through the page URL, pointing at a card lights up its pin, and a keyboard alone reaches a pin,
// opens its card and follows it to the listing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingMap, ListingSummary, MapListingProperties, Page as ListingsPage } from '../../contract/relay-api.ts';
import { widgetScriptTags } from '../../server/ops/script-tags.ts';
import { cardIds, listingsPlaced, mapState, startHostSiteRig, watchedPage, type HostSiteRig, type MapState } from '../support/browser.ts';

let rig: HostSiteRig;

beforeAll(async () => {
  rig = await startHostSiteRig({ pageDirPrefix: 'estate-map-' });
  await listingsPlaced(rig.relay.url);
  const tag = widgetScriptTags(rig.relay.url, rig.widgetDir).pinned!.tag;
  writeFileSync(
    join(rig.pageDir, 'buy.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Buy</title>${tag}</head><body>
      <h1>Homes for sale</h1>
      <estate-map type="sale"></estate-map>
      <estate-listings type="sale" filters page-size="50"></estate-listings>
    </body></html>`,
  );
}, 180_000);

afterAll(async () => {
  await rig?.close();
});

/** The relay's markers for a view (as the map asks: one zoom less), sorted. */
async function relayMarkers(state: MapState, filters = ''): Promise<string[]> {
  const zoom = Math.max(0, Math.round(state.zoom) - 1);
  const answer = (await (await fetch(`${rig.relay.url}/api/v1/listings/map?type=sale&bbox=${state.bbox}&zoom=${zoom}${filters}`)).json()) as ListingMap;
  return answer.features.map((feature) => ('cluster' in feature.properties ? `c${feature.properties.count}` : `p${feature.properties.id}`)).sort();
}

async function openBuyPage(
  contextOptions: BrowserContextOptions = {},
): Promise<{ page: Page; problems: string[]; map: Locator; list: Locator; close(): Promise<void> }> {
  const { context, page, problems } = await watchedPage(rig.browser, contextOptions);
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.goto(`${rig.site.origin}/buy.html`);
  const map = page.locator('estate-map');
  const list = page.locator('estate-listings');
  await list.locator('[part~="card-link"]').first().waitFor();
  await map.locator('.marker').first().waitFor();
  return { page, problems, map, list, close: () => context.close() };
}

/** Does `action` and waits for the map's next answer (estate-map-loaded: the view has rested and its markers are drawn). */
async function andLoaded(map: Locator, action: () => Promise<void>): Promise<void> {
  await map.evaluate((element) => {
    (window as unknown as { mapLoaded: Promise<void> }).mapLoaded = new Promise((resolve) =>
      element.addEventListener('estate-map-loaded', () => resolve(), { once: true }),
    );
  });
  await action();
  await map.page().evaluate(() => (window as unknown as { mapLoaded: Promise<void> }).mapLoaded);
}

/** Until the map's view has stayed put for 400 ms (its start's fit, or a zoom, is over) with markers drawn. */
async function atRest(map: Locator): Promise<void> {
  let last = '';
  await expect
    .poll(
      async () => {
        const state = await mapState(map);
        const now = `${state.bbox}|${state.markers.join(',')}`;
        const still = now === last && state.markers.length > 0;
        last = now;
        return still;
      },
      { interval: 400 },
    )
    .toBe(true);
}

/** Activates clusters until the map shows single pins. */
async function zoomToPins(map: Locator): Promise<void> {
  for (let step = 0; step < 10 && (await atRest(map), !(await map.locator('[part~="pin"]').count())); step++) {
    await andLoaded(map, () => map.locator('[part~="cluster"]').first().click());
  }
  await map.locator('[part~="pin"]').first().waitFor();
}

describe('<estate-map> beside <estate-listings>', () => {
  it('moving the map and "search this area" filters the list and the URL; the list’s filter changes the map’s pins', async () => {
    const { page, problems, map, list, close } = await openBuyPage();
    const all = (await rig.listingsPage('type=sale&pageSize=50')) as ListingsPage<ListingSummary>;
    expect(await cardIds(list)).toEqual(all.items.map((item) => item.id));
    await expect.poll(async () => (await mapState(map)).markers).toEqual(await relayMarkers(await mapState(map)));

    // The list does not follow the map (its switch off): into the first cluster, then the view's area as the filter.
    await map.getByLabel('Search as I move the map').uncheck();
    const before = (await mapState(map)).zoom;
    await andLoaded(map, () => map.locator('[part~="cluster"]').first().click());
    expect((await mapState(map)).zoom).toBeGreaterThan(before);
    await map.getByRole('button', { name: 'Search this area' }).click();
    const bbox = new URL(page.url()).searchParams.get('bbox');
    expect(bbox).toBe((await mapState(map)).bbox);
    const inArea = (await rig.listingsPage(`type=sale&bbox=${bbox}&pageSize=50`)) as ListingsPage<ListingSummary>;
    expect(inArea.total).toBeGreaterThan(0);
    expect(inArea.total).toBeLessThan(all.total);
    await expect.poll(() => cardIds(list)).toEqual(inArea.items.map((item) => item.id));

    // The list's filter bar: at least 3 bedrooms. The map's pins follow.
    await list.getByLabel('Bedrooms').selectOption('3');
    await list.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('minBeds')).toBe('3');
    await expect.poll(async () => (await mapState(map)).markers).toEqual(await relayMarkers(await mapState(map), `&minBeds=3`));
    const threeBeds = (await rig.listingsPage(`type=sale&bbox=${bbox}&minBeds=3&pageSize=50`)) as ListingsPage<ListingSummary>;
    await expect.poll(() => cardIds(list)).toEqual(threeBeds.items.map((item) => item.id));

    // Back: the list and the map return to the area without the bedrooms filter.
    await page.goBack();
    await expect.poll(() => cardIds(list)).toEqual(inArea.items.map((item) => item.id));
    await expect.poll(async () => (await mapState(map)).markers).toEqual(await relayMarkers(await mapState(map)));
    expect(problems).toEqual([]);
    await close();
  }, 90_000);

  it('one "Get alerts for this search" on the page (the list’s filter bar), and 512 px tiles on a 2x screen', async () => {
    const { page, problems, map, close } = await openBuyPage({ deviceScaleFactor: 2 });
    await expect.poll(() => page.getByRole('button', { name: 'Get alerts for this search' }).count()).toBe(1);
    expect(await map.getByRole('button', { name: 'Get alerts for this search' }).count()).toBe(0);
    const tiles = map.locator('img.tile');
    await expect
      .poll(() => tiles.evaluateAll((images) => (images as HTMLImageElement[]).filter((image) => image.complete && image.naturalWidth > 0).length))
      .toBeGreaterThan(0);
    const drawn = await tiles.evaluateAll((images) =>
      (images as HTMLImageElement[]).map((image) => ({ src: image.src, natural: image.naturalWidth, width: image.getBoundingClientRect().width })),
    );
    for (const tile of drawn) expect(tile.src).toMatch(/\/tiles\/\d+\/\d+\/\d+@2x\.png$/);
    const loaded = drawn.find((tile) => tile.natural > 0)!;
    expect(loaded.natural).toBe(512);
    // Twice the pixels it is drawn at: sharp on this screen (Lighthouse's image-size-responsive).
    expect(loaded.natural).toBeGreaterThanOrEqual(Math.floor(loaded.width) * 2 - 1);
    expect(problems).toEqual([]);
    await close();
  }, 60_000);

  it('hovering or focusing a card lights up its pin', async () => {
    const { problems, map, list, close } = await openBuyPage();
    await zoomToPins(map);
    const id = Number(await map.locator('[part~="pin"]').first().getAttribute('data-id'));
    const pin = map.locator(`[part~="pin"][data-id="${id}"]`);
    const card = list.locator(`[part~="card-link"][data-id="${id}"]`);
    expect(await pin.getAttribute('part')).not.toContain('pin-highlighted');
    await card.hover();
    await expect.poll(() => pin.getAttribute('part')).toContain('pin-highlighted');
    await map.locator('[part~="zoom-in"]').hover();
    await expect.poll(() => pin.getAttribute('part')).not.toContain('pin-highlighted');
    await card.focus();
    await expect.poll(() => pin.getAttribute('part')).toContain('pin-highlighted');
    // A click on the pin opens its card, and lights up the card in the list.
    await pin.click();
    await map.locator('[part~="card"]').waitFor();
    expect(await map.locator('[part~="card-link"]').getAttribute('href')).toContain(`listing=${id}`);
    expect(problems).toEqual([]);
    await close();
  }, 60_000);

  it('keyboard only: Tab to a pin, open its card, follow it to the listing', async () => {
    const { page, problems, map, list, close } = await openBuyPage();
    // Tab from the top of the page to the map itself.
    const focusedPart = () =>
      page.evaluate(() => {
        let active = document.activeElement;
        while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
        return active?.getAttribute('part') ?? active?.localName ?? '';
      });
    for (let step = 0; step < 10 && (await focusedPart()) !== 'stage'; step++) await page.keyboard.press('Tab');
    expect(await focusedPart()).toBe('stage');
    // Into the markers; a cluster zooms in and hands focus to a marker of it, until one is a pin.
    await page.keyboard.press('Tab');
    for (let step = 0; step < 10 && (await focusedPart()) === 'cluster'; step++) {
      await andLoaded(map, () => page.keyboard.press('Enter'));
      expect(await focusedPart()).toMatch(/^(cluster|pin)/);
    }
    expect(await focusedPart()).toMatch(/^pin/);
    const id = Number(await page.evaluate(() => (document.querySelector('estate-map')!.shadowRoot!.activeElement as HTMLElement).dataset.id));
    const listing = (await (await fetch(`${rig.relay.url}/api/v1/listings/${id}`)).json()) as MapListingProperties & { address: { display: string } };
    await page.keyboard.press('Enter');
    await expect.poll(focusedPart).toBe('card');
    expect(await map.locator('[part~="card"]').getAttribute('role')).toBe('dialog');
    await page.keyboard.press('Tab');
    expect(await focusedPart()).toBe('card-link');
    await page.keyboard.press('Enter');
    // The list beside it opens the listing in place (no detail-href), from the URL.
    await expect.poll(() => new URL(page.url()).searchParams.get('listing')).toBe(String(id));
    const detail = list.locator('estate-listing');
    await expect.poll(() => detail.locator('[part~="title"]').textContent()).toBe(listing.address.display);
    expect(problems).toEqual([]);
    await close();
  }, 60_000);
});
