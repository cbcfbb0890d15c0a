// The elements from a React 19 page built by Vite inside the test run, in Chromium: attributes,
// properties and events through React's custom-element support, against a whole relay.
import react from '@vitejs/plugin-react';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestRelay } from '../support/relay-fixture.ts';
import { cardIds, relayAddressPlugin, fillEnquiry, projectRoot, startHostSiteRig, viteBuild, watchedPage, type HostSiteRig } from '../support/browser.ts';

let rig: HostSiteRig;
let relay: TestRelay;
let page: Page;
let problems: string[];

beforeAll(async () => {
  rig = await startHostSiteRig({ pageDirPrefix: 'estate-react-' });
  relay = rig.relay;
  await viteBuild({
    root: join(projectRoot, 'test', 'interop', 'react'),
    configFile: false,
    base: './',
    plugins: [react(), relayAddressPlugin(relay.url)],
    build: { outDir: rig.pageDir, emptyOutDir: true, target: 'es2022' },
  });
  ({ page, problems } = await watchedPage(rig.browser));
  await page.goto(`${rig.site.origin}/index.html`);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

describe('React 19', () => {
  it('passes attributes and properties, and hears events through onestate-… props', async () => {
    const sale = await rig.listingsPage('type=sale&pageSize=3');
    await page
      .getByTestId('loaded')
      .filter({ hasText: `3 of ${sale.total}` })
      .waitFor();
    const listings = page.locator('#by-attributes estate-listings');
    expect(await cardIds(listings)).toEqual(sale.items.map((item) => item.id));
    // `page-size` (no such property) went as an attribute; `type` (a property of the element) was
    // set as the property, so no attribute appears; `className` became class.
    expect(
      await listings.evaluate((element: HTMLElementTagNameMap['estate-listings']) => ({
        pageSizeAttribute: element.getAttribute('page-size'),
        pageSize: element.pageSize,
        type: element.type,
        typeAttribute: element.getAttribute('type'),
        className: element.className,
      })),
    ).toEqual({ pageSizeAttribute: '3', pageSize: 3, type: 'sale', typeAttribute: null, className: 'host-styled' });
  });

  it('lets the host cancel the select event and show the detail with a property-bound id', async () => {
    const first = (await rig.listingsPage('type=sale&pageSize=3')).items[0]!;
    await page.locator('#by-attributes estate-listings [part~="card-link"]').first().click();
    await page.getByTestId('detail-loaded').filter({ hasText: first.address.display }).waitFor();
    // preventDefault() was honoured: the list did not open its own in-place detail.
    expect(await page.locator('#by-attributes estate-listings [part~="detail"]').count()).toBe(0);
    // `noEnquiry` (a boolean property) left the detail's own form out; the page's form is the only one.
    expect(await page.locator('#detail estate-listing estate-enquiry').count()).toBe(0);
  });

  it('sends an enquiry and hands React the success event', async () => {
    const form = page.locator('#detail estate-enquiry');
    await fillEnquiry(form, 'Is the open home on Saturday still on?');
    await form.getByRole('button', { name: 'Send enquiry' }).click();
    await page
      .getByTestId('sent')
      .filter({ hasText: /^[0-9a-f-]{36}$/ })
      .waitFor();
    const originalId = await page.getByTestId('sent').textContent();
    const status = await fetch(`${relay.url}/api/v1/enquiries/${originalId}`);
    expect(status.status).toBe(200);
    expect(((await status.json()) as { status: string }).status).toBe('accepted');
  });

  it('renders listings the host passed as an array property, without stringifying it', async () => {
    const lease = await rig.listingsPage('type=lease&pageSize=2');
    const listings = page.locator('#by-property estate-listings');
    await listings.locator('[part~="card-link"]').first().waitFor();
    expect(await cardIds(listings)).toEqual(lease.items.map((item) => item.id));
    expect(await listings.evaluate((element) => element.hasAttribute('listings'))).toBe(false);
    expect(problems).toEqual([]);
  });
});
