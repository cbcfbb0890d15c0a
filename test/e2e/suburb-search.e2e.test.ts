// Finding places (issue #30) on the demo's /buy page as `npm start` serves it: the release widget
// bundle, a whole relay in demo mode, Chromium through playwright-core, on a phone (390, touch)
// and a desktop (1280). A buyer types a suburb with a typo, the relay's suggestion comes, the
// keyboard takes it as a chip, the search keeps it in the URL and the list shows only its homes.
// The filter bar is photographed at both widths (SCREENSHOT_DIR, else a temp folder) and its
// fields are checked to show their words whole.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { startDemoSiteRig, watchedPage, type DemoSiteRig } from '../support/browser.ts';

let rig: DemoSiteRig;
const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'estate-suburb-search-'));

beforeAll(async () => {
  rig = await startDemoSiteRig();
  mkdirSync(shots, { recursive: true });
}, 180_000);

afterAll(async () => {
  await rig?.close();
});

const VIEWPORTS: Array<[string, BrowserContextOptions]> = [
  ['phone', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 }],
  ['desktop', { viewport: { width: 1280, height: 800 } }],
];

describe.each(VIEWPORTS)('suburb autocomplete on /buy (%s)', (name, options) => {
  it('suggests Hawthorn for "Hawthorne", takes it by keyboard as a chip, searches it, and shows every field whole', async () => {
    const { context, page, problems } = await watchedPage(rig.browser, options);
    try {
      const hawthorn = (await (await fetch(`${rig.relay.url}/api/v1/listings?suburb=Hawthorn&type=sale`)).json()) as ListingsPage<ListingSummary>;
      expect(hawthorn.total).toBeGreaterThan(0);
      await page.goto(`${rig.relay.url}/buy`);
      const listings = page.locator('estate-listings[filters]');
      const field = listings.locator('#estate-filter-suburb');
      // On a phone the map shows first: the list and its filters are behind the map/list switch.
      if (name === 'phone') await page.locator('estate-map').locator('[part~="phone-list"]').tap();
      await field.waitFor();
      if (name === 'phone') await field.tap();
      else await field.click();
      // The combobox's code comes on first use, and takes over the focus.
      const combobox = listings.locator('#estate-filter-suburb[role="combobox"]');
      await combobox.waitFor();
      await expect.poll(() => combobox.evaluate((input) => input === (input.getRootNode() as ShadowRoot).activeElement)).toBe(true);
      await page.keyboard.type('Hawthorne', { delay: 30 });
      const option = listings.locator('[role="option"]', { hasText: 'Hawthorn' }).first();
      await option.waitFor();
      expect(await combobox.getAttribute('aria-expanded')).toBe('true');
      // The words stay in the field as the answer re-renders the bar.
      expect(await combobox.inputValue()).toBe('Hawthorne');
      await expect.poll(() => listings.locator('[role="status"]').first().textContent()).toMatch(/suggested/);
      await page.screenshot({ path: join(shots, `suburb-suggestions-${name}.png`) });
      await page.keyboard.press('ArrowDown');
      expect(await combobox.getAttribute('aria-activedescendant')).toBe(await option.getAttribute('id'));
      await page.keyboard.press('Enter');
      await listings.locator('[part~="suburb-chip"]', { hasText: 'Hawthorn' }).waitFor();
      expect(await combobox.inputValue()).toBe('');
      expect(await combobox.getAttribute('aria-expanded')).toBe('false');

      await listings.locator('button[type="submit"]').click();
      await expect.poll(() => new URL(page.url()).searchParams.get('suburb')).toBe('Hawthorn');
      await expect
        .poll(async () => {
          const suburbs = await listings.locator('[part~="card"]:not([part~="skeleton"])').evaluateAll((cards) => cards.map((card) => card.textContent ?? ''));
          return suburbs.length > 0 && suburbs.every((text) => text.includes('Hawthorn'));
        })
        .toBe(true);

      // Every field's words whole: no select or label cut off ("Price (high to lo").
      const cut = await listings.evaluate((element) => {
        const root = element.shadowRoot!;
        const found: string[] = [];
        for (const select of root.querySelectorAll<HTMLSelectElement>('[part~="filters"] select')) {
          const probe = document.createElement('span');
          const style = getComputedStyle(select);
          probe.style.font = style.font;
          probe.style.position = 'absolute';
          probe.style.whiteSpace = 'nowrap';
          root.append(probe);
          for (const option of select.options) {
            probe.textContent = option.text;
            // The select's own padding and its arrow (~2rem) around the text.
            if (probe.getBoundingClientRect().width + 32 > select.getBoundingClientRect().width) found.push(`${select.name}: ${option.text}`);
          }
          probe.remove();
        }
        for (const label of root.querySelectorAll<HTMLElement>('[part~="filters"] label')) {
          if (label.scrollWidth > label.clientWidth + 1) found.push(`label ${label.textContent?.trim()}`);
        }
        return found;
      });
      expect(cut).toEqual([]);
      await listings.locator('[part~="filters"]').screenshot({ path: join(shots, `filter-bar-${name}.png`) });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
