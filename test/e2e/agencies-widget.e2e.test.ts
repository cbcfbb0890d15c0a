// One agency's script tag on its own site, in Chromium: the loader at /a/<slug>/widget.js
// fetches its chunks from /a/<slug>/ (each checked against the SHA-384 the pinned loader carries),
// and the elements call that agency's API, /a/<slug>/api/v1/…, showing its listings and no other's.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { widgetScriptTags } from '../../server/ops/script-tags.ts';
import { buildWidgetBundle, launchChromium, serveFolder, watchedPage, type StaticSite } from '../support/browser.ts';
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
  rig = await startAgenciesRig({ agencies: 2, listings: 8, widgetDir, reachablePublicUrl: true, origins: (slug) => [`https://${slug}.example`, site.origin] });
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
});
