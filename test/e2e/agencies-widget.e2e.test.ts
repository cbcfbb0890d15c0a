// One agency's script tag on its own site, in Chromium: the loader at /a/<slug>/widget.js
// fetches its chunks from /a/<slug>/ (each checked against the SHA-384 the pinned loader carries),
// and the elements call that agency's API, /a/<slug>/api/v1/…, showing its listings and no other's.
// Its server-rendered listing page (issue 23) is taken over by the same loader and chunks, and its
// enquiry form sends to that agency.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { addressSlug } from '../../contract/slug.ts';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { widgetScriptTags } from '../../server/ops/script-tags.ts';
import { buildWidgetBundle, fillEnquiry, launchChromium, serveFolder, watchedPage, type StaticSite } from '../support/browser.ts';
import { startAgenciesRig, type AgenciesRig } from '../compose/rig.ts';

let rig: AgenciesRig;
let widgetDir: string;
let pageDir: string;
let site: StaticSite;
let browser: Browser;

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();
  pageDir = mkdtempSync(join(tmpdir(), 'estate-agency-site-'));
  site = await serveFolder(pageDir);
  // Agency B's own page around its listing pages (its wrapperUrl), on its site.
  writeFileSync(
    join(pageDir, 'shell.html'),
    '<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Agency B</title></head><body><header id="agency-b-header">Agency B</header><main><!-- estate-embed --></main></body></html>',
  );
  // Enquiries sent at once (a test types faster than ENQUIRY_MIN_FILL_MS would allow a person).
  rig = await startAgenciesRig({
    agencies: 2,
    listings: 8,
    widgetDir,
    reachablePublicUrl: true,
    env: { ENQUIRY_MIN_FILL_MS: '0' },
    origins: (slug) => [`https://${slug}.example`, site.origin],
    entry: (entry) => (entry.slug === 'agency-b' ? { ...entry, wrapperUrl: `${site.origin}/shell.html` } : entry),
  });
  await rig.syncAll();
  const pinned = widgetScriptTags(`${rig.relay.url}/a/agency-b`, widgetDir).pinned!;
  writeFileSync(join(pageDir, 'b.html'), `<!doctype html><title>Agency B</title>${pinned.tag}<main><estate-listings page-size="50"></estate-listings></main>`);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await rig?.close();
  await site?.close();
  for (const dir of [widgetDir, pageDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("an agency's widget under /a/<slug>/", () => {
  it("loads its checked chunks from the agency's path and shows that agency's listings only", async () => {
    const { context, page, problems } = await watchedPage(browser);
    const relayPaths: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(rig.relay.url)) relayPaths.push(new URL(request.url()).pathname);
    });
    await page.goto(`${site.origin}/b.html`);
    const cards = page.locator('estate-listings [part~="card-link"]');
    await cards.first().waitFor();

    const served = (await rig.request('/a/agency-b/api/v1/listings?pageSize=50')).body as { total: number; items: Array<{ address: { display: string } }> };
    await expect.poll(() => cards.count()).toBe(served.total);
    const shown = (await cards.allTextContents()).map((text) => text.trim());
    const ofB = served.items.map((item) => item.address.display);
    const ofA = (await rig.request('/a/agency-a/api/v1/listings?pageSize=50')).body.items.map(
      (item: { address: { display: string } }) => item.address.display,
    ) as string[];
    expect(shown.every((text) => ofB.some((address) => text.includes(address)))).toBe(true);
    expect(shown.filter((text) => ofA.some((address) => text.includes(address)))).toEqual([]);

    const chunks = relayPaths.filter((path) => /\/widget-[^/]*\.js$/.test(path));
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((path) => path.startsWith('/a/agency-b/widget-'))).toBe(true);
    const api = relayPaths.filter((path) => path.includes('/api/v1/'));
    expect(api.length).toBeGreaterThan(0);
    expect(api.every((path) => path.startsWith('/a/agency-b/api/v1/'))).toBe(true);
    // Photos come from the shared mirror.
    expect(relayPaths.some((path) => path.startsWith('/photos/'))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("takes over the agency's server-rendered listing page with its own chunks, and the page's enquiry goes to that agency", async () => {
    const { context, page, problems } = await watchedPage(browser);
    const relayPaths: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(rig.relay.url)) relayPaths.push(new URL(request.url()).pathname);
    });
    const item = (await rig.request('/a/agency-b/api/v1/listings?type=sale&pageSize=1')).body.items[0] as { id: number; address: { display: string } };
    const path = `/a/agency-b/listings/${item.id}/${addressSlug(item.address.display)}`;
    await page.goto(`${rig.relay.url}${path}`);
    await page.waitForFunction(() => {
      const element = document.querySelector('estate-listing') as (HTMLElement & { hasUpdated?: boolean }) | null;
      return customElements.get('estate-listing') !== undefined && customElements.get('estate-enquiry') !== undefined && element?.hasUpdated === true;
    });
    const listing = page.locator('estate-listing');
    await expect.poll(() => listing.locator('[part~="title"]').textContent()).toContain(item.address.display);
    // In its own shell.
    await page.locator('#agency-b-header').waitFor();

    const queued = async (slug: string) => (await new EnquiryOutbox(rig.relay.agencies!.get(slug)!.agency.store).counts()).queued;
    const before = { a: await queued('agency-a'), b: await queued('agency-b') };
    const form = listing.locator('estate-enquiry');
    await fillEnquiry(form, 'Is the garden north-facing?');
    const sent = page.waitForResponse((response) => response.url().endsWith('/api/v1/enquiries') && response.request().method() === 'POST');
    await form.getByRole('button', { name: /send/i }).click();
    const answer = await sent;
    expect(answer.status()).toBe(202);
    expect(new URL(answer.url()).pathname).toBe('/a/agency-b/api/v1/enquiries');
    expect(await queued('agency-b')).toBe(before.b + 1);
    expect(await queued('agency-a')).toBe(before.a);

    // Every script the page ran came from this agency's path on the relay.
    const scripts = relayPaths.filter((each) => /\/widget[^/]*\.js$/.test(each));
    expect(scripts.length).toBeGreaterThan(1);
    expect(scripts.every((each) => each.startsWith('/a/agency-b/widget'))).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});
