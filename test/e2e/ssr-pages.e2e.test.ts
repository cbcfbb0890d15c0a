// Issue #13: the server-rendered listing page in Chromium. With JavaScript off (as a chat app's
// preview or a crawler without script) it shows the address, price, photos, description, agents
// and open homes; with JavaScript on, the elements render over the server markup (without Lit's
// hydration, issue #12) in no visible frame: every frame, checked before it is painted, shows the
// content once (never missing, never doubled), nothing shifts, and the lightbox and the enquiry
// form work; what a visitor typed into the server's form before the code came (values, focus,
// caret) is in the form rendered in its place. Real relay (demo mode), the release widget bundle,
// playwright-core.
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { buildWidgetBundle, fillEnquiry, launchChromium, waitForListingsAndPhotos, watchProblems } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';
import { lastsBeyond } from '../support/test-clock.ts';

let widgetDir: string;
let relay: TestRelay;
let browser: Browser;
let detail: ListingDetail;
let path: string;

// Plain JavaScript (a string): runs in the page before any of its scripts. From the moment the
// parser has built the document (declarative shadow roots included) until 3 s after load, it looks
// at every frame before it is painted (requestAnimationFrame) and counts the frames in which
// `window.__expect` (set per test) does not hold: content missing or drawn twice. It also sums
// layout shifts and notes whether the elements' server nodes were replaced.
const WATCH_SCRIPT = `
window.__shift = 0; window.__frames = 0; window.__badFrames = []; window.__roots = 0;
new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shift += entry.value; })
  .observe({ type: 'layout-shift', buffered: true });
document.addEventListener('readystatechange', () => {
  if (document.readyState !== 'interactive') return;
  const count = (root) => { for (const element of root.querySelectorAll('*')) if (element.shadowRoot) { window.__roots += 1; count(element.shadowRoot); } };
  count(document);
  const listing = document.querySelector('estate-listing');
  window.__firstTitle = listing && listing.shadowRoot && listing.shadowRoot.querySelector('[part~="title"]');
  window.__serverForm = listing && listing.shadowRoot && listing.shadowRoot.querySelector('estate-enquiry');
  let until = Infinity;
  window.addEventListener('load', () => { until = performance.now() + 3000; });
  const frame = (time) => {
    window.__frames += 1;
    const problem = window.__expect && window.__expect();
    if (problem) window.__badFrames.push(problem);
    if (time < until) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
});`;

/** In each frame: the detail's title once, its price, its gallery, and its enquiry form's fields once. */
const LISTING_FRAME = `window.__expect = () => {
  const root = document.querySelector('estate-listing')?.shadowRoot;
  const titles = root ? root.querySelectorAll('[part~="title"]').length : 0;
  const forms = root ? root.querySelectorAll('estate-enquiry').length : 0;
  const fields = root?.querySelector('estate-enquiry')?.shadowRoot?.querySelectorAll('input[name="fullName"]').length ?? 0;
  const photos = root ? root.querySelectorAll('[part~="gallery"] [part~="gallery-item"] img').length : 0;
  return titles === 1 && forms === 1 && fields === 1 && photos === 5 ? '' : 'titles ' + titles + ', forms ' + forms + ', name fields ' + fields + ', photos ' + photos;
};`;

/** In each frame: the buy list's cards, as many as the server sent, each once. */
const BUY_FRAME = `window.__expect = () => {
  const root = document.querySelector('estate-listings')?.shadowRoot;
  const links = root ? root.querySelectorAll('[part~="card-link"]').length : 0;
  window.__cards ??= links;
  return links > 0 && links === window.__cards ? '' : 'card links ' + links + ' (server: ' + window.__cards + ')';
};`;

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();
  relay = await startTestRelay({ ENQUIRY_MIN_FILL_MS: '0' }, { app: { widgetDir } });
  await waitForListingsAndPhotos(relay);
  // A listing for sale with photos, agents and open homes: everything the page has to show.
  const page = (await (await fetch(`${relay.url}/api/v1/listings?type=sale&pageSize=100`)).json()) as Page<ListingSummary>;
  for (const item of page.items) {
    const candidate = (await (await fetch(`${relay.url}/api/v1/listings/${item.id}`)).json()) as ListingDetail;
    // Open homes none of which can end during the suite: the page would show one fewer than read here.
    const lasting = candidate.openHomes.every(lastsBeyond(30 * 60_000));
    if (candidate.openHomes.length && lasting && candidate.agents.length && candidate.photos.length >= 5 && candidate.description) {
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
    await first.evaluate((img: HTMLImageElement) =>
      img.complete ? undefined : new Promise((resolve) => img.addEventListener('load', resolve, { once: true })),
    );
    expect(await first.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    expect(await listing.locator('[part~="gallery"] [part~="gallery-item"]').count()).toBe(5);
    // The enquiry form sends nothing without its code: no navigation carrying the visitor's
    // details in the URL (the form has no action), and what they typed stays.
    const form = listing.locator('estate-enquiry');
    await form.getByRole('textbox', { name: 'Full name' }).fill('Alex Buyer');
    await form.getByRole('textbox', { name: 'Email' }).fill('alex.buyer@example.com');
    await page.keyboard.press('Enter');
    await form.getByRole('button', { name: /send/i }).click();
    await page.waitForTimeout(500);
    expect(page.url()).toBe(`${relay.url}${path}`);
    expect(await form.getByRole('textbox', { name: 'Email' }).inputValue()).toBe('alex.buyer@example.com');
    await context.close();
  });

  it('with JavaScript on, renders over the server markup in no visible frame and shifts nothing, then the lightbox and the enquiry form work', async () => {
    const context = await browser.newContext({ viewport: { width: 412, height: 915 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.addInitScript(WATCH_SCRIPT + LISTING_FRAME);
    await page.goto(`${relay.url}${path}`);
    // Taken over: the element's code ran, rendered over its server markup, and its first update is done.
    await page.waitForFunction(() => {
      const element = document.querySelector('estate-listing') as (HTMLElement & { hasUpdated?: boolean }) | null;
      return customElements.get('estate-listing') !== undefined && element?.hasUpdated === true;
    });
    await page.waitForFunction(() => customElements.get('estate-enquiry') !== undefined);
    await page.waitForFunction(() => (window as unknown as { __frames: number }).__frames > 0 && document.readyState === 'complete');
    await page.waitForTimeout(3500);
    const watched = await page.evaluate(() => {
      const w = window as unknown as {
        __frames: number;
        __badFrames: string[];
        __shift: number;
        __roots: number;
        __firstTitle: Element | null;
        __serverForm: (Element & { hasUpdated?: boolean }) | null;
      };
      const title = document.querySelector('estate-listing')!.shadowRoot!.querySelector('[part~="title"]');
      return {
        frames: w.__frames,
        badFrames: w.__badFrames,
        shift: w.__shift,
        roots: w.__roots,
        rendered: title !== null && title !== w.__firstTitle,
        // The server's enquiry form (its code runs before the detail's) was thrown away unrendered.
        serverFormRendered: w.__serverForm?.hasUpdated === true,
        serverFormKept: w.__serverForm?.isConnected === true,
      };
    });
    expect(watched.roots).toBeGreaterThanOrEqual(3); // the listing, its enquiry form, its lightbox
    expect(watched.frames).toBeGreaterThan(10);
    // The browser's own render replaced the server's nodes (no Lit hydration), in no painted frame.
    expect(watched).toMatchObject({ badFrames: [], shift: 0, rendered: true, serverFormRendered: false, serverFormKept: false });

    // The lightbox (its code fetched on first use) opens on a photo.
    const listing = page.locator('estate-listing');
    await listing.locator('[part~="gallery-item"]').first().click();
    await listing.locator('estate-lightbox dialog[open]').waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');

    // The enquiry form, rendered again inside the listing, sends to the relay.
    const form = listing.locator('estate-enquiry');
    await fillEnquiry(form, 'Is there parking for two cars?');
    const sent = page.waitForResponse((response) => response.url().endsWith('/api/v1/enquiries') && response.request().method() === 'POST');
    await form.getByRole('button', { name: /send/i }).click();
    expect((await sent).status()).toBe(202);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps what a visitor typed into the server-rendered enquiry form before its code came: the values, the focus and the caret', async () => {
    const context = await browser.newContext({ viewport: { width: 412, height: 915 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    // The detail's chunk (it carries the form's code) is held back: a slow phone still fetching it.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    await page.route(/\/widget-estate-listing\.[\w-]+\.js$/, async (route) => {
      held = true;
      await released;
      await route.continue();
    });
    await page.goto(`${relay.url}${path}`);
    const serverForm = page.locator('estate-listing estate-enquiry');
    await serverForm.getByRole('textbox', { name: 'Full name' }).fill('Alex Buyer');
    const message = serverForm.getByRole('textbox', { name: 'Message', exact: true });
    await message.click();
    await page.keyboard.type('Is there parking?');
    for (let i = 0; i < 'parking?'.length; i++) await page.keyboard.press('ArrowLeft');
    expect(held).toBe(true);
    expect(await page.evaluate(() => customElements.get('estate-listing') === undefined)).toBe(true);
    await page.evaluate(() => {
      (window as unknown as { __serverForm: Element }).__serverForm = document.querySelector('estate-listing')!.shadowRoot!.querySelector('estate-enquiry')!;
    });

    release();
    await page.waitForFunction(() => {
      const form = document.querySelector('estate-listing')?.shadowRoot?.querySelector<HTMLElement & { hasUpdated?: boolean }>('estate-enquiry');
      return form?.hasUpdated === true && form !== (window as unknown as { __serverForm: Element }).__serverForm;
    });
    const after = await page.evaluate(() => {
      const listing = document.querySelector('estate-listing')!;
      const form = listing.shadowRoot!.querySelector('estate-enquiry')!;
      const textarea = form.shadowRoot!.querySelector('textarea')!;
      return {
        serverFormGone: !(window as unknown as { __serverForm: Element }).__serverForm.isConnected,
        name: form.shadowRoot!.querySelector<HTMLInputElement>('input[name="fullName"]')!.value,
        message: textarea.value,
        // Focus, all the way down: the page's, the detail's shadow root's, the form's.
        focused: document.activeElement === listing && listing.shadowRoot!.activeElement === form && form.shadowRoot!.activeElement === textarea,
        caret: [textarea.selectionStart, textarea.selectionEnd],
      };
    });
    expect(after).toEqual({ serverFormGone: true, name: 'Alex Buyer', message: 'Is there parking?', focused: true, caret: [9, 9] });

    // Typing goes on where it was, and what is sent is what the visitor sees.
    await page.keyboard.type('covered ');
    const form = page.locator('estate-listing estate-enquiry');
    await form.getByRole('textbox', { name: 'Email' }).fill('alex.buyer@example.com');
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/v1/enquiries') && request.method() === 'POST');
    await form.getByRole('button', { name: /send/i }).click();
    expect((await sent).postDataJSON()).toMatchObject({ fullName: 'Alex Buyer', email: 'alex.buyer@example.com', message: 'Is there covered parking?' });
    await form.locator('[part="status"][data-state="sent"]').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('keeps the focus on a field that has no caret to keep (email), and a value typed elsewhere', async () => {
    const context = await browser.newContext({ viewport: { width: 412, height: 915 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/widget-estate-listing\.[\w-]+\.js$/, async (route) => {
      await released;
      await route.continue();
    });
    await page.goto(`${relay.url}${path}`);
    const serverForm = page.locator('estate-listing estate-enquiry');
    await serverForm.getByRole('textbox', { name: 'Mobile' }).fill('0412 345 678');
    await serverForm.getByRole('textbox', { name: 'Email' }).click();
    await page.keyboard.type('alex@');
    expect(await page.evaluate(() => customElements.get('estate-listing') === undefined)).toBe(true);
    const serverNodes = await page.evaluateHandle(() => document.querySelector('estate-listing')!.shadowRoot!.querySelector('estate-enquiry')!);

    release();
    await page.waitForFunction((old) => {
      const form = document.querySelector('estate-listing')?.shadowRoot?.querySelector<HTMLElement & { hasUpdated?: boolean }>('estate-enquiry');
      return form?.hasUpdated === true && form !== old;
    }, serverNodes);
    await page.keyboard.type('example.com');
    const after = await page.evaluate(() => {
      const form = document.querySelector('estate-listing')!.shadowRoot!.querySelector('estate-enquiry')!;
      const email = form.shadowRoot!.querySelector<HTMLInputElement>('input[name="email"]')!;
      return {
        email: email.value,
        focused: form.shadowRoot!.activeElement === email,
        mobile: form.shadowRoot!.querySelector<HTMLInputElement>('input[name="mobile"]')!.value,
      };
    });
    expect(after).toEqual({ email: 'alex@example.com', focused: true, mobile: '0412 345 678' });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the buy list renders over the server markup in no visible frame, and its card links lead to the listing pages', async () => {
    const context = await browser.newContext({ viewport: { width: 412, height: 915 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.addInitScript(WATCH_SCRIPT + BUY_FRAME);
    await page.goto(`${relay.url}/listings/buy`);
    await page.waitForFunction(() => (document.querySelector('estate-listings') as (HTMLElement & { hasUpdated?: boolean }) | null)?.hasUpdated === true);
    await page.waitForFunction(() => document.readyState === 'complete');
    await page.waitForTimeout(3500);
    const watched = await page.evaluate(() => {
      const w = window as unknown as { __frames: number; __badFrames: string[]; __shift: number };
      return { frames: w.__frames > 10, badFrames: w.__badFrames, shift: w.__shift };
    });
    expect(watched).toEqual({ frames: true, badFrames: [], shift: 0 });
    const link = page.locator('estate-listings [part~="card-link"]').first();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/listings\/\d+\/[a-z0-9-]+$/);
    await link.click();
    await page.waitForURL(`${relay.url}${href}`);
    expect(await page.locator('estate-listing [part~="title"]').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
  it('carries the hearts (issue 21): unpressed in the server markup, pressed over it for a kept home, and a keep there reaches the detail page', async () => {
    const html = await (await fetch(`${relay.url}/listings/buy`)).text();
    const served = html.match(/part="button keep-button"[^>]*aria-pressed="(true|false)"|aria-pressed="(true|false)"[^>]*part="button keep-button"/g) ?? [];
    expect(served.length, 'a heart on every server-rendered card').toBeGreaterThan(0);
    expect(
      served.every((heart) => heart.includes('aria-pressed="false"')),
      'the server knows no visitor',
    ).toBe(true);

    const list = (await (await fetch(`${relay.url}/api/v1/listings?type=sale&pageSize=100`)).json()) as Page<ListingSummary>;
    const first = list.items[0]!;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const key = `estate-shortlist:${relay.url}/`;
    // Kept on an earlier visit: then the page is opened again.
    await page.goto(`${relay.url}/listings/buy`);
    await page.evaluate(([storageKey, home]) => localStorage.setItem(storageKey, JSON.stringify([home])), [
      key,
      { id: first.id, address: first.address.display },
    ] as const);
    await page.reload();
    await page.waitForFunction(() => (document.querySelector('estate-listings') as (HTMLElement & { hasUpdated?: boolean }) | null)?.hasUpdated === true);
    const hearts = page.locator('estate-listings [part~="keep-button"]');
    await expect.poll(() => hearts.first().getAttribute('aria-pressed')).toBe('true');
    expect(await hearts.nth(1).getAttribute('aria-pressed')).toBe('false');
    expect(await hearts.first().getAttribute('aria-label')).toBe(`Keep ${first.address.display}`);

    await hearts.nth(1).click();
    const kept = await page.evaluate((storageKey) => JSON.parse(localStorage.getItem(storageKey) ?? '[]') as Array<{ id: number }>, key);
    expect(kept.map((home) => home.id)).toEqual([first.id, list.items[1]!.id]);

    await page.goto(`${relay.url}/listings/${list.items[1]!.id}/${addressSlug(list.items[1]!.address.display)}`);
    await page.waitForFunction(() => (document.querySelector('estate-listing') as (HTMLElement & { hasUpdated?: boolean }) | null)?.hasUpdated === true);
    await expect.poll(() => page.locator('estate-listing [part~="keep-button"]').getAttribute('aria-pressed')).toBe('true');
    expect(problems).toEqual([]);
    await context.close();
  });
});
