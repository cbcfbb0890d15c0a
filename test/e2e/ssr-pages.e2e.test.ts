// Issue #13: the server-rendered listing page in Chromium. With JavaScript off (as a chat app's
// preview or a crawler without script) it shows the address, price, photos, description, agents
// and open homes; with JavaScript on, the elements hydrate the server markup: no node in their
// shadow roots is replaced (counted with MutationObservers), nothing shifts, and the lightbox and
// the enquiry form work. Real relay (demo mode), the release widget bundle, playwright-core.
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { buildWidgetBundle, fillEnquiry, launchChromium, waitForListings, watchProblems } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

let widgetDir: string;
let relay: TestRelay;
let browser: Browser;
let detail: ListingDetail;
let path: string;

// Plain JavaScript (a string): runs in the page before any of its scripts. From the moment the
// parser has built the document (declarative shadow roots included), it watches every shadow root
// for nodes removed or added, and sums layout shifts.
const WATCH_SCRIPT = `
window.__removed = 0; window.__added = 0; window.__shift = 0; window.__roots = 0;
new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value; })
  .observe({ type: 'layout-shift', buffered: true });
document.addEventListener('readystatechange', () => {
  if (document.readyState !== 'interactive') return;
  const observer = new MutationObserver((records) => {
    for (const record of records) { window.__removed += record.removedNodes.length; window.__added += record.addedNodes.length; }
  });
  const watch = (root) => {
    for (const element of root.querySelectorAll('*')) {
      if (!element.shadowRoot) continue;
      window.__roots += 1;
      observer.observe(element.shadowRoot, { childList: true, subtree: true, characterData: true });
      watch(element.shadowRoot);
    }
  };
  watch(document);
  const listing = document.querySelector('estate-listing');
  window.__firstTitle = listing && listing.shadowRoot && listing.shadowRoot.querySelector('[part~="title"]');
});`;

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();
  relay = await startTestRelay({ ENQUIRY_MIN_FILL_MS: '0' }, { app: { widgetDir } });
  await waitForListings(relay.url);
  // A listing for sale with photos, agents and open homes: everything the page has to show.
  const page = (await (await fetch(`${relay.url}/api/v1/listings?type=sale&pageSize=100`)).json()) as Page<ListingSummary>;
  for (const item of page.items) {
    const candidate = (await (await fetch(`${relay.url}/api/v1/listings/${item.id}`)).json()) as ListingDetail;
    if (candidate.openHomes.length && candidate.agents.length && candidate.photos.length >= 5 && candidate.description) {
      detail = candidate;
      break;
    }
  }
  expect(detail, 'a listing with open homes, agents and photos').toBeDefined();
  path = `/listings/${detail.id}/${addressSlug(detail.address.display)}`;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await relay?.close();
  if (widgetDir) rmSync(widgetDir, { recursive: true, force: true });
});

describe('the demo listing page, server-rendered', () => {
  it('with JavaScript off shows the address, price, photos, description, agents and open homes', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 412, height: 915 } });
    const page = await context.newPage();
    await page.goto(`${relay.url}${path}`);
    const listing = page.locator('estate-listing');
    await expect(listing.locator('[part~="title"]').textContent()).resolves.toBe(detail.address.display);
    await expect(listing.locator('[part~="price"]').textContent()).resolves.toBe(detail.displayPrice);
    expect(await listing.locator('[part~="title"]').isVisible()).toBe(true);
    const firstLine = detail.description!.split('\n')[0]!.trim();
    expect(await listing.locator('[part~="description"]').innerText()).toContain(firstLine);
    for (const agent of detail.agents) expect(await listing.locator('[part~="agent-name"]', { hasText: agent.name }).isVisible()).toBe(true);
    const times = listing.locator('.open-home time');
    expect(await times.count()).toBe(detail.openHomes.length);
    expect(await times.first().isVisible()).toBe(true);
    // The first photo loads (a real JPEG or WebP from the mirror), eagerly, with its box reserved.
    const first = listing.locator('[part~="gallery-item"] img').first();
    await first.evaluate((img: HTMLImageElement) => (img.complete ? undefined : new Promise((resolve) => img.addEventListener('load', resolve, { once: true }))));
    expect(await first.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    expect(await listing.locator('[part~="gallery"] [part~="gallery-item"]').count()).toBe(5);
    await context.close();
  });

  it('with JavaScript on, hydrates without replacing a node or shifting the layout, then the lightbox and the enquiry form work', async () => {
    const context = await browser.newContext({ viewport: { width: 412, height: 915 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.addInitScript(WATCH_SCRIPT);
    await page.goto(`${relay.url}${path}`);
    // Hydrated: the element's code ran, adopted its shadow root, and its first update is done.
    await page.waitForFunction(() => {
      const element = document.querySelector('estate-listing') as (HTMLElement & { hasUpdated?: boolean }) | null;
      return customElements.get('estate-listing') !== undefined && element?.hasUpdated === true;
    });
    await page.waitForFunction(() => customElements.get('estate-enquiry') !== undefined);
    await page.waitForTimeout(500);
    const watched = await page.evaluate(() => {
      const w = window as unknown as { __removed: number; __added: number; __shift: number; __roots: number; __firstTitle: Element | null };
      const title = document.querySelector('estate-listing')!.shadowRoot!.querySelector('[part~="title"]');
      return { removed: w.__removed, added: w.__added, shift: w.__shift, roots: w.__roots, sameTitle: title !== null && title === w.__firstTitle };
    });
    expect(watched.roots).toBeGreaterThanOrEqual(3); // the listing, its enquiry form, its lightbox
    expect(watched).toMatchObject({ removed: 0, added: 0, shift: 0, sameTitle: true });

    // The lightbox (its code fetched on first use) opens on a photo.
    const listing = page.locator('estate-listing');
    await listing.locator('[part~="gallery-item"]').first().click();
    await listing.locator('estate-lightbox dialog[open]').waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');

    // The enquiry form, hydrated inside the listing, sends to the relay.
    const form = listing.locator('estate-enquiry');
    await fillEnquiry(form, 'Is there parking for two cars?');
    const sent = page.waitForResponse((response) => response.url().endsWith('/api/v1/enquiries') && response.request().method() === 'POST');
    await form.getByRole('button', { name: /send/i }).click();
    expect((await sent).status()).toBe(202);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the buy list hydrates without replacing a node, and its card links lead to the listing pages', async () => {
    const context = await browser.newContext({ viewport: { width: 412, height: 915 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.addInitScript(WATCH_SCRIPT);
    await page.goto(`${relay.url}/listings/buy`);
    await page.waitForFunction(() => (document.querySelector('estate-listings') as (HTMLElement & { hasUpdated?: boolean }) | null)?.hasUpdated === true);
    await page.waitForTimeout(500);
    const watched = await page.evaluate(() => {
      const w = window as unknown as { __removed: number; __added: number; __shift: number };
      return { removed: w.__removed, added: w.__added, shift: w.__shift };
    });
    expect(watched).toEqual({ removed: 0, added: 0, shift: 0 });
    const link = page.locator('estate-listings [part~="card-link"]').first();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/listings\/\d+\/[a-z0-9-]+$/);
    await link.click();
    await page.waitForURL(`${relay.url}${href}`);
    expect(await page.locator('estate-listing [part~="title"]').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
