// The elements from a Vue 3 page built by Vite inside the test run, in Chromium: the widget
// bundled into the app (no script tag, so a `relay` attribute), attribute and `.prop` bindings,
// `@estate-…` listeners, against a whole relay.
import vue from '@vitejs/plugin-vue';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRelay } from '../support/relay-fixture.ts';
import { buildWidgetModules, cardIds, fillEnquiry, projectRoot, startHostSiteRig, viteBuild, watchedPage, type HostSiteRig } from '../support/browser.ts';

let rig: HostSiteRig;
let relay: TestRelay;
let page: Page;
let problems: string[];
let modulesDir: string | undefined;

beforeAll(async () => {
  rig = await startHostSiteRig({ pageDirPrefix: 'estate-vue-' });
  relay = rig.relay;
  modulesDir = await buildWidgetModules();
  await viteBuild({
    root: join(projectRoot, 'test', 'interop', 'vue'),
    configFile: false,
    base: './',
    define: { __RELAY__: JSON.stringify(relay.url) },
    // What the package export `estate-embed/widget` points at: the bundler build.
    resolve: { alias: { 'estate-embed/widget': join(modulesDir, 'index.js') } },
    plugins: [vue({ template: { compilerOptions: { isCustomElement: (tag: string) => tag.startsWith('estate-') } } })],
    build: { outDir: rig.pageDir, emptyOutDir: true, target: 'es2022' },
  });
  ({ page, problems } = await watchedPage(rig.browser));
  await page.goto(`${rig.site.origin}/index.html`);
}, 120_000);

afterAll(async () => {
  await rig?.close();
  if (modulesDir) rmSync(modulesDir, { recursive: true, force: true });
});

describe('Vue 3', () => {
  it('binds attributes and properties, and hears events through @estate-… listeners', async () => {
    const sale = await rig.listingsPage('type=sale&pageSize=3');
    await page
      .getByTestId('loaded')
      .filter({ hasText: `3 of ${sale.total}` })
      .waitFor();
    const listings = page.locator('#by-attributes estate-listings');
    expect(await cardIds(listings)).toEqual(sale.items.map((item) => item.id));
    expect(
      await listings.evaluate((element: HTMLElementTagNameMap['estate-listings']) => ({
        relay: element.relay,
        pageSize: element.pageSize,
        pageSizeAttribute: element.getAttribute('page-size'),
        type: element.type,
        className: element.className,
      })),
    ).toEqual({ relay: relay.url, pageSize: 3, pageSizeAttribute: '3', type: 'sale', className: 'host-styled' });
  });

  it('cancels the select event with .prevent and shows the detail through a .prop binding', async () => {
    const first = (await rig.listingsPage('type=sale&pageSize=3')).items[0]!;
    await page.locator('#by-attributes estate-listings [part~="card-link"]').first().click();
    await page.getByTestId('detail-loaded').filter({ hasText: first.address.display }).waitFor();
    expect(await page.locator('#by-attributes estate-listings [part~="detail"]').count()).toBe(0);
    expect(await page.locator('#detail estate-listing estate-enquiry').count()).toBe(0);
    // `:listing-id` without .prop on <estate-enquiry> went as the attribute, which Lit converts.
    expect(await page.locator('#detail estate-enquiry').evaluate((element: HTMLElementTagNameMap['estate-enquiry']) => element.listingId)).toBe(first.id);
  });

  it('sends an enquiry and hands Vue the success event', async () => {
    const form = page.locator('#detail estate-enquiry');
    await fillEnquiry(form, 'Could we see it on Thursday evening?');
    await form.getByRole('button', { name: 'Send enquiry' }).click();
    await page
      .getByTestId('sent')
      .filter({ hasText: /^[0-9a-f-]{36}$/ })
      .waitFor();
    const originalId = await page.getByTestId('sent').textContent();
    const status = await fetch(`${relay.url}/api/v1/enquiries/${originalId}`);
    expect(status.status).toBe(200);
  });

  it('renders listings the app passed with :listings.prop', async () => {
    const lease = await rig.listingsPage('type=lease&pageSize=2');
    const listings = page.locator('#by-property estate-listings');
    await listings.locator('[part~="card-link"]').first().waitFor();
    expect(await cardIds(listings)).toEqual(lease.items.map((item) => item.id));
    expect(await listings.evaluate((element) => element.hasAttribute('listings'))).toBe(false);
    expect(problems).toEqual([]);
  });
});
