// Issue #34: the relay's own pages in the agency's language (SITE_LANGUAGE), here Arabic, right to
// left. Over plain HTTP, as a crawler reads them: `<html lang="ar" dir="rtl">`, the page's own
// words (headings, links, titles) in Arabic, the elements' server-rendered shadow DOM in Arabic
// with none of English's words, and the words the elements were rendered with carried in the page.
// In Chromium at 390 and 1280 px: the elements take the server's Arabic over without fetching
// their words or hiding while they come, right to left, axe clean, nothing wider than the screen;
// and the map search page in Arabic, Simplified Chinese and Vietnamese likewise.
// Real relay (demo mode, embedded simulator), the release widget bundle, playwright-core.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page as ListPage } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { PAGE_WORDS } from '../../server/pages/words.ts';
import arListing from '../../widget/i18n/ar/listing.ts';
import arListings from '../../widget/i18n/ar/listings.ts';
import arMap from '../../widget/i18n/ar/map.ts';
import viListing from '../../widget/i18n/vi/listing.ts';
import zhListing from '../../widget/i18n/zh-Hans/listing.ts';
import viMap from '../../widget/i18n/vi/map.ts';
import zhMap from '../../widget/i18n/zh-Hans/map.ts';
import '../../widget/listing/strings.ts';
import '../../widget/listings/strings.ts';
import '../../widget/listings/filter-bar.strings.ts';
import { wordsFor } from '../../widget/shared/localize.ts';
import { buildWidgetBundle, launchChromium, waitForListingsAndPhotos, watchProblems } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'estate-languages-shots-'));
mkdirSync(shots, { recursive: true });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ar = PAGE_WORDS.ar!;

let widgetDir: string;
let relay: TestRelay;
let browser: Browser;
let listingPath: string;

/** Every string of a section's words that has no placeholder (what a rendered element shows as it is). */
function plainStrings(words: unknown): string[] {
  if (typeof words === 'string') return /\{\w+\}/.test(words) ? [] : [words];
  if (typeof words === 'object' && words !== null) return Object.values(words).flatMap(plainStrings);
  return [];
}

/** The element's server-rendered markup in a page: its declarative shadow root. */
function shadowOf(html: string, tag: string): string {
  const start = html.indexOf(`<${tag}`);
  const end = html.indexOf(`</${tag}>`, start);
  expect(start, `<${tag}> in the page`).toBeGreaterThan(-1);
  const element = html.slice(start, end);
  expect(element, `<${tag}> server-rendered`).toContain('<template shadowroot');
  return element;
}

/** The element's shown words: its markup without tags and attribute values (English could be an address or a URL there). */
const textOf = (markup: string) => markup.replace(/<style[\s\S]*?<\/style>/g, ' ').replace(/<[^>]*>/g, ' ');

beforeAll(async () => {
  widgetDir = await buildWidgetBundle();
  // Arabic first; its pages also in English, Vietnamese and Simplified Chinese (`?lang=`).
  relay = await startTestRelay({ SITE_LANGUAGE: 'ar', SITE_LANGUAGES: 'en-AU,vi,zh-Hans', SIM_LISTINGS: '24' }, { app: { widgetDir } });
  await waitForListingsAndPhotos(relay);
  const page = (await (await fetch(`${relay.url}/api/v1/listings?status=available&type=sale&pageSize=1`)).json()) as ListPage<ListingSummary>;
  const first = page.items[0]!;
  listingPath = `/listings/${first.id}/${addressSlug(first.address.display)}`;
  browser = await launchChromium();
  console.log(`language e2e screenshots: ${shots}`);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await relay?.close();
  if (widgetDir) rmSync(widgetDir, { recursive: true, force: true });
});

describe('pages in the agency language (SITE_LANGUAGE=ar)', () => {
  it("the buy list: lang and dir on <html>, the page's words and the cards' in Arabic, their words carried in the page", async () => {
    const html = await (await fetch(`${relay.url}/listings/buy`)).text();
    expect(html).toMatch(/<html lang="ar" dir="rtl"/);
    expect(html).toContain(`<h1 class="estate-page-title">${ar.homesForSale}</h1>`);
    expect(html).toMatch(new RegExp(`<title>${ar.homesForSale}`));
    const shadow = textOf(shadowOf(html, 'estate-listings'));
    expect(plainStrings(arListings).filter((words) => shadow.includes(words)).length, 'Arabic words in the cards').toBeGreaterThan(0);
    const english = plainStrings(wordsFor('listings', 'en-AU')).filter((words) => words.includes(' '));
    expect(english.filter((words) => shadow.includes(words))).toEqual([]);
    const carried = html.match(/<script type="application\/json" data-estate-translation="built-in">([^<]*)<\/script>/);
    expect(carried, 'the words script').not.toBeNull();
    const translation = JSON.parse(carried![1]!) as Record<string, unknown>;
    expect(translation.$code).toBe('ar');
    expect(translation.listings).toEqual(arListings);
    // Only the sections the page's elements show: not the map's or the shortlist's.
    expect(Object.keys(translation)).not.toContain('map');
  });

  it('a listing: its title and description words, and the detail and its enquiry form in Arabic', async () => {
    const html = await (await fetch(`${relay.url}${listingPath}`)).text();
    expect(html).toMatch(/<html lang="ar" dir="rtl"/);
    expect(html).toContain(`aria-label="${ar.listingsNav}"`);
    const shadow = textOf(shadowOf(html, 'estate-listing'));
    expect(plainStrings(arListing).filter((words) => shadow.includes(words)).length).toBeGreaterThan(3);
    const english = plainStrings(wordsFor('listing', 'en-AU')).filter((words) => words.includes(' '));
    expect(english.filter((words) => shadow.includes(words))).toEqual([]);
    const translation = JSON.parse(html.match(/data-estate-translation="built-in">([^<]*)<\/script>/)![1]!) as Record<string, unknown>;
    expect(Object.keys(translation).sort()).toEqual(expect.arrayContaining(['$code', 'enquiry', 'listing']));
    // A listing that has gone: its 404 in Arabic too.
    const missing = await fetch(`${relay.url}/listings/999999/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain(ar.listingMissingTitle);
  });

  it("names and links its other languages: hreflang versions, a switcher in each language's own name, links within a version kept in it", async () => {
    const html = await (await fetch(`${relay.url}${listingPath}`)).text();
    const canonical = html.match(/<link rel="canonical" href="([^"]*)"/)![1]!;
    expect(html).toContain(`<link rel="alternate" hreflang="ar" href="${canonical}">`);
    expect(html).toContain(`<link rel="alternate" hreflang="vi" href="${canonical}?lang=vi">`);
    expect(html).toContain(`<link rel="alternate" hreflang="en-AU" href="${canonical}?lang=en-AU">`);
    expect(html).toContain(`<link rel="alternate" hreflang="x-default" href="${canonical}">`);
    const switcher = html.match(/<nav class="estate-languages" aria-label="([^"]*)"><ul>([\s\S]*?)<\/ul><\/nav>/);
    expect(switcher![1]).toBe(ar.languages);
    expect(switcher![2]).toContain(`<a href="${listingPath}" hreflang="ar" lang="ar" aria-current="true">العربية</a>`);
    expect(switcher![2]).toContain(`<a href="${listingPath}?lang=vi" hreflang="vi" lang="vi">Tiếng Việt</a>`);
    expect(switcher![2]).toContain('>English</a>');
    // The Vietnamese version: in Vietnamese, left to right, its canonical its own, its links kept in it.
    const vi = await (await fetch(`${relay.url}${listingPath}?lang=vi`)).text();
    expect(vi).toMatch(/<html lang="vi">/);
    expect(vi).toContain(`<link rel="canonical" href="${canonical}?lang=vi">`);
    expect(vi).toContain(`aria-label="${PAGE_WORDS.vi!.listingsNav}"`);
    expect(vi).toContain(`href="/listings/buy?lang=vi">${PAGE_WORDS.vi!.homesForSale}</a>`);
    expect(vi).toMatch(/data-estate-translation="built-in">\{"\$code":"vi"/);
    expect(vi).toContain(`<a href="${listingPath}?lang=vi" hreflang="vi" lang="vi" aria-current="true">Tiếng Việt</a>`);
    // The English version carries no words: the elements have English's.
    const en = await (await fetch(`${relay.url}/listings/buy?lang=en-AU`)).text();
    expect(en).toMatch(/<html lang="en-AU">/);
    expect(en).not.toContain('data-estate-translation');
    expect(en).toContain('detail-href="/listings/{id}/{slug}?lang=en-AU"');
    // A language the site does not offer: refused, naming the ones it does.
    const refused = await fetch(`${relay.url}${listingPath}?lang=fr`);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { fields: Record<string, string> }).fields.lang).toBe('must be one of ar, en-AU, vi, zh-Hans');
    // Any other route of the relay is none of this: the API answers for itself.
    const api = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=1&lang=fr`)).json()) as { fields?: Record<string, string> };
    expect(api.fields?.lang).not.toBe('must be one of ar, en-AU, vi, zh-Hans');
  });

  it("names a listing's open homes in its structured data in the page's language", async () => {
    const page = (await (await fetch(`${relay.url}/api/v1/listings?status=available&pageSize=40`)).json()) as ListPage<ListingSummary>;
    let withOpenHome: ListingDetail | undefined;
    for (const item of page.items) {
      const detail = (await (await fetch(`${relay.url}/api/v1/listings/${item.id}`)).json()) as ListingDetail;
      if (detail.openHomes.some((openHome) => Date.parse(openHome.end) > Date.now() + 10 * 60_000)) withOpenHome = detail;
      if (withOpenHome) break;
    }
    expect(withOpenHome, 'a listing with an open home to come').toBeDefined();
    const address = withOpenHome!.address.display;
    for (const [query, words] of [
      ['', ar],
      ['?lang=vi', PAGE_WORDS.vi!],
    ] as const) {
      const html = await (await fetch(`${relay.url}/listings/${withOpenHome!.id}/${addressSlug(address)}${query}`)).text();
      const graph = (JSON.parse(html.match(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/)![1]!) as { '@graph': Array<Record<string, unknown>> })[
        '@graph'
      ];
      const event = graph.find((node) => node['@type'] === 'Event');
      expect(event, `an open home in ${query || 'ar'}`).toMatchObject({
        name: words.openHomeEvent.replace('{address}', address),
        description: words.openHomeEventDescription.replace('{address}', address),
      });
    }
  });

  it('lists every page in every language in its sitemap, each naming all its versions and x-default, valid against the sitemap schema', async () => {
    const xml = await (await fetch(`${relay.url}/sitemap.xml`)).text();
    const check = await validateXML({
      xml: { fileName: 'sitemap.xml', contents: xml },
      schema: readFileSync(join(import.meta.dirname, '../pages/sitemap.xsd'), 'utf8'),
    });
    expect(check.errors).toEqual([]);
    expect(xml).toContain('xmlns:xhtml="http://www.w3.org/1999/xhtml"');
    const urls = [...xml.matchAll(/<url><loc>([^<]*)<\/loc>[\s\S]*?<\/url>/g)].map((match) => ({ loc: match[1]!, entry: match[0] }));
    const html = await (await fetch(`${relay.url}${listingPath}`)).text();
    const canonical = html.match(/<link rel="canonical" href="([^"]*)"/)![1]!;
    const versions = { ar: canonical, 'en-AU': `${canonical}?lang=en-AU`, vi: `${canonical}?lang=vi`, 'zh-Hans': `${canonical}?lang=zh-Hans` };
    for (const url of Object.values(versions)) {
      const entry = urls.find((candidate) => candidate.loc === url.replaceAll('&', '&amp;'));
      expect(entry, `${url} in the sitemap`).toBeDefined();
      for (const [code, href] of [...Object.entries(versions), ['x-default', canonical]])
        expect(entry!.entry).toContain(`<xhtml:link rel="alternate" hreflang="${code}" href="${href}"/>`);
    }
    // Each page once per language, no more.
    expect(new Set(urls.map((url) => url.loc)).size).toBe(urls.length);
    expect(urls.filter((url) => url.loc.includes('?lang=vi')).length * 4).toBe(urls.length);
  });

  for (const [lang, words] of [
    ['ar', arListing],
    ['zh-Hans', zhListing],
    ['vi', viListing],
  ] as const)
    for (const width of [390, 1280]) {
      it(`in Chromium at ${width} px in ${lang}: the server's words taken over at once (no words fetched, never hidden), ${lang === 'ar' ? 'right to left, ' : ''}axe clean`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          ...(width < 600 ? { isMobile: true, hasTouch: true } : {}),
        });
        const page = await context.newPage();
        const problems = watchProblems(page);
        const fetched: string[] = [];
        page.on('request', (request) => {
          if (new RegExp(`widget-i18n-${lang}-(listing|enquiry)\\.`).test(request.url())) fetched.push(request.url());
        });
        // Whether the detail was ever hidden for its words (translations.ts's data-estate-words-pending).
        await page.addInitScript(() => {
          (window as unknown as { __hidden: number }).__hidden = 0;
          new MutationObserver((records) => {
            for (const record of records)
              if ((record.target as Element).hasAttribute?.('data-estate-words-pending')) (window as unknown as { __hidden: number }).__hidden += 1;
          }).observe(document, { attributes: true, attributeFilter: ['data-estate-words-pending'], subtree: true });
        });
        await page.goto(`${relay.url}${listingPath}${lang === 'ar' ? '' : `?lang=${lang}`}`);
        const listing = page.locator('estate-listing');
        await expect.poll(() => listing.evaluate((element) => (element as { hasUpdated?: boolean }).hasUpdated === true), { timeout: 20_000 }).toBe(true);
        expect(await listing.evaluate((element) => getComputedStyle(element).direction)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        const shown = await listing.evaluate((element) => element.shadowRoot!.textContent ?? '');
        expect(plainStrings(words).filter((phrase) => shown.includes(phrase)).length).toBeGreaterThan(3);
        expect(await page.evaluate(() => (window as unknown as { __hidden: number }).__hidden)).toBe(0);
        expect(fetched).toEqual([]);
        await page.screenshot({ path: join(shots, `listing-${lang}-${width}.png`), fullPage: false });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
        await context.close();
      });
    }
});

describe("the map search page (the demo's /buy, as an agency's own page in the language would be)", () => {
  for (const [lang, words] of [
    ['ar', arMap],
    ['zh-Hans', zhMap],
    ['vi', viMap],
  ] as const) {
    for (const width of [390, 1280]) {
      it(`in ${lang} at ${width} px: the map's controls and the list in its words, ${lang === 'ar' ? 'right to left, ' : ''}nothing wider than the screen, axe clean`, async () => {
        const context = await browser.newContext({
          viewport: { width, height: width < 600 ? 844 : 900 },
          ...(width < 600 ? { isMobile: true, hasTouch: true } : {}),
        });
        const page = await context.newPage();
        const problems = watchProblems(page);
        await page.route(`${relay.url}/buy`, async (route) => {
          const response = await route.fetch();
          await route.fulfill({ response, body: (await response.text()).replace(/<html lang="[^"]*"/, `<html lang="${lang}"`) });
        });
        await page.goto(`${relay.url}/buy`);
        const map = page.locator('estate-map');
        await expect
          .poll(() => map.evaluate((element) => element.shadowRoot?.querySelector('[part~="zoom-in"]')?.getAttribute('aria-label') ?? ''), { timeout: 20_000 })
          .toBe(words.zoomIn);
        await expect
          .poll(() => map.evaluate((element) => element.shadowRoot?.querySelectorAll('[part~="pin"], [part~="cluster"]').length ?? 0), { timeout: 20_000 })
          .toBeGreaterThan(0);
        expect(await map.evaluate((element) => getComputedStyle(element).direction)).toBe(lang === 'ar' ? 'rtl' : 'ltr');
        await page.screenshot({ path: join(shots, `buy-${lang}-${width}.png`) });
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await axeViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
        await context.close();
      });
    }
  }
});

/** axe on the whole page, shadow roots included. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const result = await axe.run();
    return result.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
  });
}
