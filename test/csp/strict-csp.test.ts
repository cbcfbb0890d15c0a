// The elements on an agency page served with a strict Content-Security-Policy: no inline script
// or style, scripts only from the site and the relay, Trusted Types enforced with Lit's policy
// allowed. Every element is exercised (list, in-place detail with its location map, lightbox,
// enquiry, the map with its tiles, gestures, card and full screen) and any
// `securitypolicyviolation` or CSP console error fails the test.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { widgetScriptTags } from '../../server/ops/script-tags.ts';
import type { PlacementSummary } from '../../contract/relay-api.ts';
import { fillEnquiry, projectRoot, startHostSiteRig, watchProblems, type HostSiteRig } from '../support/browser.ts';
import { policyHeader, readmePolicyLines } from './policy.ts';

interface Violation {
  directive: string;
  blocked: string;
  sample: string;
}

let rig: HostSiteRig;
let context: BrowserContext;

beforeAll(async () => {
  rig = await startHostSiteRig({
    pageDirPrefix: 'estate-csp-',
    htmlHeaders: (relayUrl) => ({ 'Content-Security-Policy': policyHeader(new URL(relayUrl).origin) }),
  });
  const pinned = widgetScriptTags(rig.relay.url, rig.widgetDir).pinned!;
  const template = readFileSync(join(projectRoot, 'test', 'csp', 'page.html'), 'utf8');
  writeFileSync(join(rig.pageDir, 'index.html'), template.replace('%SCRIPT_TAG%', pinned.tag));
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** A page whose CSP violations (from any shadow root) and console errors are collected. */
async function strictPage(): Promise<{ page: Page; violations: Violation[]; problems: string[] }> {
  context = await rig.browser.newContext();
  context.setDefaultTimeout(10_000);
  const violations: Violation[] = [];
  await context.exposeBinding('__reportViolation', (_source, violation: Violation) => {
    violations.push(violation);
  });
  await context.addInitScript(() => {
    // Capture on window: the event is composed, so violations inside shadow roots arrive too.
    window.addEventListener(
      'securitypolicyviolation',
      (event) => {
        (window as unknown as { __reportViolation(v: unknown): void }).__reportViolation({
          directive: event.effectiveDirective,
          blocked: event.blockedURI,
          sample: event.sample,
        });
      },
      true,
    );
  });
  const page = await context.newPage();
  const problems = watchProblems(page);
  return { page, violations, problems };
}

describe('strict Content-Security-Policy with Trusted Types', () => {
  it('lists, opens a listing in place, shows its photos and sends an enquiry without a single violation', async () => {
    const { page, violations, problems } = await strictPage();
    const response = await page.goto(`${rig.site.origin}/index.html`);
    expect(response?.headers()['content-security-policy']).toContain("require-trusted-types-for 'script'");

    const listings = page.locator('estate-listings');
    await listings.locator('[part~="card-link"]').first().waitFor();
    expect(await listings.locator('[part~="card-link"]').count()).toBe(4);
    // Photos come from the relay's mirror (img-src).
    await page.waitForFunction(() =>
      [...document.querySelector('estate-listings')!.shadowRoot!.querySelectorAll('img')].some((img) => img.complete && img.naturalWidth > 0),
    );

    await listings.locator('[part~="card-link"]').first().click();
    const detail = page.locator('estate-listings estate-listing');
    await detail.locator('[part~="title"]').waitFor();
    await detail.locator('[part~="gallery-item"]').first().click();
    await detail.locator('estate-lightbox [part~="lightbox-image"]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Escape');

    const form = detail.locator('estate-enquiry');
    await fillEnquiry(form, 'Is there parking for two cars?');
    await form.getByRole('button', { name: 'Send enquiry' }).click();
    await form.getByRole('status').filter({ hasText: 'Your enquiry has been sent' }).waitFor();

    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows the map, its tiles and pins, zooms, opens a card and goes full screen without a single violation', async () => {
    const { page, violations, problems } = await strictPage();
    await page.goto(`${rig.site.origin}/index.html`);
    const map = page.locator('estate-map');
    await map.locator('.marker').first().waitFor();
    // Tiles from the relay (img-src), placed through the CSSOM (no style attribute).
    await page.waitForFunction(() =>
      [...document.querySelector('estate-map')!.shadowRoot!.querySelectorAll('img')].some((img) => img.complete && img.naturalWidth > 0),
    );
    // Into clusters until a pin, and its card.
    for (let step = 0; step < 10 && !(await map.locator('[part~="pin"]').count()); step++) {
      const loaded = map.evaluate((element) => new Promise((resolve) => element.addEventListener('estate-map-loaded', resolve, { once: true })));
      await map.locator('[part~="cluster"]').first().click();
      await loaded;
    }
    await map.locator('[part~="pin"]').first().focus();
    await page.keyboard.press('Enter');
    await map.locator('[part~="card"]').waitFor();
    await page.keyboard.press('Escape');
    // A drag, a ctrl + wheel, the keyboard and the zoom buttons.
    const stage = (await map.locator('[part~="stage"]').boundingBox())!;
    await page.mouse.move(stage.x + stage.width / 2, stage.y + stage.height / 2);
    await page.mouse.down();
    await page.mouse.move(stage.x + stage.width / 2 - 60, stage.y + stage.height / 2 - 30, { steps: 5 });
    await page.mouse.up();
    await page.keyboard.down('Control');
    await page.mouse.wheel(0, -200);
    await page.keyboard.up('Control');
    await map.locator('[part~="stage"]').focus();
    await page.keyboard.press('ArrowLeft');
    await map.getByRole('button', { name: 'Zoom out' }).click();
    await map.getByRole('button', { name: 'Full screen map' }).click();
    await page.keyboard.press('Escape');
    await map.getByRole('button', { name: 'List the properties on the map' }).click();
    await map.locator('[part~="list"]').waitFor();

    // The detail's location map, once scrolled into view: the geocoder (one query a second, each
    // street and its suburb) must have placed the listings first.
    await expect
      .poll(async () => ((await (await fetch(`${rig.relay.url}/api/v1/listings/placement`)).json()) as PlacementSummary).pending, { timeout: 60_000 })
      .toBe(0);
    await page.locator('estate-listings [part~="card-link"]').first().click();
    const detail = page.locator('estate-listings estate-listing');
    await detail.locator('[part~="location"]').scrollIntoViewIfNeeded();
    await detail.locator('estate-map [part~="stage"]').waitFor();

    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('a mouse click on a pin right after zooming through a cluster opens that pin’s card: a lit pin grows where it is', async () => {
    const { page, violations, problems } = await strictPage();
    await page.goto(`${rig.site.origin}/index.html`);
    const map = page.locator('estate-map');
    await map.locator('.marker').first().waitFor();
    const centre = async (locator: typeof map) => {
      const box = (await locator.boundingBox())!;
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    };
    // Clusters clicked with the mouse (no locator retries): the pointer stays over the map as it zooms.
    for (let step = 0; step < 10 && !(await map.locator('[part~="pin"]').count()); step++) {
      // The map may be between two answers (it fits itself to the results first): a cluster shown, then measured.
      const cluster = map.locator('[part~="cluster"]').first();
      await cluster.waitFor();
      const loaded = map.evaluate((element) => new Promise((resolve) => element.addEventListener('estate-map-loaded', resolve, { once: true })));
      const at = await centre(cluster);
      await page.mouse.click(at.x, at.y);
      await loaded;
    }
    const pin = map.locator('[part~="pin"]').first();
    const id = await pin.getAttribute('data-id');
    const at = await centre(pin);
    await page.mouse.move(at.x, at.y);
    // Lit by the pointer (scale 1.2), and still under it: its place is not scaled with it.
    await expect.poll(() => pin.evaluate((element) => getComputedStyle(element).scale)).toBe('1.2');
    const lit = await centre(pin);
    expect(Math.abs(lit.x - at.x)).toBeLessThan(1);
    expect(Math.abs(lit.y - at.y)).toBeLessThan(1);
    await page.mouse.down();
    await page.mouse.up();
    await map.locator('[part~="card"]').waitFor();
    expect(await map.locator('[part~="pin-open"]').getAttribute('data-id')).toBe(id);
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('would notice a violation: the same page refuses an HTML string outside Lit', async () => {
    const { page, violations } = await strictPage();
    await page.goto(`${rig.site.origin}/index.html`);
    const refused = await page.evaluate(() => {
      try {
        document.body.insertAdjacentHTML('beforeend', '<b>raw</b>');
        return false;
      } catch {
        return true;
      }
    });
    expect(refused).toBe(true);
    await expect.poll(() => violations.map((violation) => violation.directive)).toContain('require-trusted-types-for');
    await context.close();
  });

  it('docs/embedding.md quotes the CSP lines this test uses', () => {
    const embedding = readFileSync(join(projectRoot, 'docs', 'embedding.md'), 'utf8');
    for (const line of readmePolicyLines()) expect(embedding).toContain(line);
  });
});
