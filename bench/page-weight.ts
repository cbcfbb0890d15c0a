/**
 * Script bytes each demo page makes a visitor download (gzip, as the relay sends them), against a
 * one-element Lit bundle built in the same run and served by the same relay the same way. The
 * pages load widget.js, the loader, which fetches only the elements the page shows (issue #12).
 * Goals: home (listings grid) <= 20 KB (the team page too), contact (enquiry forms) <= 16 KB, listing (detail,
 * enquiry; the lightbox once a photo is opened) <= 26 KB. The demo's listing and list pages are
 * server-rendered (server/pages, #13): `listing` and `buy` measure those, as a visitor gets them,
 * once their elements have rendered over the server's markup; `listing-client` is the
 * client-rendered listing page (listing.html) an agency's own page would be. The buy list is a
 * listings grid, held to the home page's goal; `map` is the demo's search page (/buy: `<estate-map>`
 * beside the list, issue 20), goal 64 KB with the map's library.
 *
 * Chromium (playwright-core) with a fresh profile per page: nothing cached. Bytes are the encoded
 * response bodies of every script the page fetched from the relay, once the page has shown its
 * elements and the network is idle. The browser asks for gzip only: Chromium would also accept
 * brotli, which the relay prefers (at quality 4), and the goals are gzip bytes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Request } from 'playwright-core';
import { addressSlug } from '../contract/slug.ts';
import { buildWidgetBundle, launchChromium, waitForListings } from '../test/support/browser.ts';
import { startTestRelay } from '../test/support/relay-fixture.ts';
import { buildBundle, oneElement } from './bundle-size.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const root = join(import.meta.dirname, '..');
/** Named like a chunk, so the relay serves it exactly as it serves the widget's own. */
const FLOOR_FILE = 'widget-lit-floor.AAAAAAAA.js';

interface PageSpec {
  name: string;
  path: string;
  /** True once the page has rendered what it is for (runs in the page). */
  ready: () => boolean;
  goalBytes: number;
}

/** Gzip only, as the goals count; a script sent in another encoding fails the run. */
const GZIP_ONLY = { extraHTTPHeaders: { 'Accept-Encoding': 'gzip' } };

async function encodedSize(request: Request): Promise<number> {
  const response = await request.response();
  const encoding = (await response?.headerValue('content-encoding')) ?? 'identity';
  if (encoding !== 'gzip' && encoding !== 'identity') throw new Error(`${request.url()} came ${encoding}, not gzip`);
  return (await request.sizes()).responseBodySize;
}

async function scriptBytes(browser: Browser, url: string, ready: () => boolean, lang?: string): Promise<{ bytes: number; files: number }> {
  const context = await browser.newContext(GZIP_ONLY);
  const page = await context.newPage();
  // A demo page in another language, as an agency's page in it would be: its <html lang> changed on the way.
  if (lang)
    await page.route(url, async (route) => {
      const response = await route.fetch();
      await route.fulfill({ response, body: (await response.text()).replace(/<html lang="[^"]*"/, `<html lang="${lang}"`) });
    });
  const scripts: Array<Promise<number>> = [];
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script' || /\.js(\?|$)/.test(request.url())) scripts.push(encodedSize(request));
  });
  await page.goto(url);
  await page.waitForFunction(ready, undefined, { timeout: 30_000 });
  await page.waitForLoadState('networkidle');
  const sizes = await Promise.all(scripts);
  await context.close();
  return { bytes: sizes.reduce((sum, size) => sum + size, 0), files: sizes.length };
}

/** The floor bundle, loaded as a page loads a module script, from the same relay. */
async function floorBytes(browser: Browser, relayUrl: string): Promise<number> {
  const context = await browser.newContext(GZIP_ONLY);
  const page = await context.newPage();
  let bytes: Promise<number> = Promise.resolve(0);
  page.on('requestfinished', (request) => {
    if (request.url().endsWith(FLOOR_FILE)) bytes = encodedSize(request);
  });
  await page.goto(`${relayUrl}/robots.txt`);
  await page.addScriptTag({ url: `${relayUrl}/${FLOOR_FILE}`, type: 'module' });
  await page.waitForFunction(() => customElements.get('hello-card') !== undefined);
  await page.waitForLoadState('networkidle');
  const measured = await bytes;
  await context.close();
  return measured;
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'bench-weight-'));
  context.note('building the widget and a one-element Lit bundle');
  const widgetDir = await buildWidgetBundle();
  const floorEntry = join(dir, 'one-element.ts');
  writeFileSync(floorEntry, oneElement);
  writeFileSync(join(widgetDir, FLOOR_FILE), await buildBundle(floorEntry, join(dir, 'floor')));

  const relay = await startTestRelay({}, { app: { widgetDir } });
  const browser = await launchChromium();
  try {
    context.note('waiting for the first sync');
    const listings = await waitForListings(relay.url);
    const first = listings.items[0]!;
    const listingId = first.id;
    const team = (await (await fetch(`${relay.url}/api/v1/team`)).json()) as { items: Array<{ id: number; listingCount: number }> };
    const agentId = (team.items.find((member) => member.listingCount > 0) ?? team.items[0])!.id;
    const floor = await floorBytes(browser, relay.url);
    if (!floor) throw new Error('the Lit floor bundle was not measured');

    const pages: PageSpec[] = [
      {
        name: 'home',
        path: '/',
        ready: () => document.querySelector('estate-listings')?.shadowRoot?.querySelector('[part~="card-link"]') != null,
        goalBytes: 20 * 1024,
      },
      {
        name: 'contact',
        path: '/contact.html',
        ready: () => document.querySelector('estate-enquiry')?.shadowRoot?.querySelector('form') != null,
        goalBytes: 16 * 1024,
      },
      {
        name: 'listing',
        path: `/listings/${listingId}/${addressSlug(first.address.display)}`,
        // Server-rendered: the markup is there before any script; ready once the elements have rendered over it.
        ready: () => {
          const detail = document.querySelector<HTMLElement & { hasUpdated?: boolean }>('estate-listing');
          const form = detail?.shadowRoot?.querySelector<HTMLElement & { hasUpdated?: boolean }>('estate-enquiry');
          return detail?.hasUpdated === true && form?.hasUpdated === true && form.shadowRoot?.querySelector('form') != null;
        },
        goalBytes: 26 * 1024,
      },
      {
        name: 'buy',
        path: '/listings/buy',
        ready: () => {
          const grid = document.querySelector<HTMLElement & { hasUpdated?: boolean }>('estate-listings');
          return grid?.hasUpdated === true && grid.shadowRoot?.querySelector('[part~="card-link"]') != null;
        },
        goalBytes: 20 * 1024,
      },
      {
        // The demo's search page: the map (and its gesture library) beside the list (issue 20).
        name: 'map',
        path: '/buy',
        ready: () => {
          const map = document.querySelector('estate-map')?.shadowRoot;
          const grid = document.querySelector('estate-listings')?.shadowRoot;
          return map?.querySelector('[part~="pin"], [part~="cluster"]') != null && grid?.querySelector('[part~="card-link"]') != null;
        },
        goalBytes: 64 * 1024,
      },
      {
        // The agency's people (issue 31): the team grid, held to the home page's goal.
        name: 'team',
        path: '/team',
        ready: () => document.querySelector('estate-team')?.shadowRoot?.querySelector('[part~="card"]:not([part~="skeleton"]) a') != null,
        goalBytes: 20 * 1024,
      },
      {
        // An agent's page: their cards and the message form to them, held to the listing's goal.
        name: 'agent',
        path: `/agent?id=${agentId}`,
        ready: () => {
          const agent = document.querySelector('estate-agent')?.shadowRoot;
          return agent?.querySelector('estate-enquiry')?.shadowRoot?.querySelector('form') != null;
        },
        goalBytes: 26 * 1024,
      },
      {
        name: 'listing-client',
        path: `/listing.html?id=${listingId}`,
        ready: () => {
          const detail = document.querySelector('estate-listing')?.shadowRoot;
          return detail?.querySelector('[part~="title"]') != null && detail.querySelector('estate-enquiry')?.shadowRoot?.querySelector('form') != null;
        },
        goalBytes: 26 * 1024,
      },
    ];
    const figures: BenchFigure[] = [];
    for (const spec of pages) {
      context.note(`loading ${spec.path}`);
      const { bytes, files } = await scriptBytes(browser, `${relay.url}${spec.path}`, spec.ready);
      figures.push({
        name: `page-weight-${spec.name}`,
        scriptGzipBytes: bytes,
        scriptFiles: files,
        litFloorGzipBytes: floor,
        ratioToFloor: Number((bytes / floor).toFixed(2)),
        goalBytes: spec.goalBytes,
        withinGoal: bytes <= spec.goalBytes,
      });
    }
    figures.push(...(await languageWeights(context, browser, widgetDir, figures)));
    return figures;
  } finally {
    await browser.close();
    await relay.close();
    rmSync(widgetDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A page's HTML as the relay sends it gzipped, in bytes. */
async function htmlGzipBytes(url: string): Promise<number> {
  const response = await fetch(url, { headers: { 'Accept-Encoding': 'gzip' } });
  if (response.headers.get('content-encoding') !== 'gzip') throw new Error(`${url} did not come gzipped`);
  // fetch decodes the body: its length on the wire is the encoded one the relay precompressed.
  const encoded = Number(response.headers.get('content-length') ?? NaN);
  await response.arrayBuffer();
  if (!Number.isFinite(encoded)) throw new Error(`${url} has no Content-Length`);
  return encoded;
}

/**
 * Issue 34: what another language adds, beside English measured in the same run. The contact page
 * (client-rendered: its elements fetch their words, checked) with its <html lang> in the language,
 * script bytes beyond English's; the server-rendered listing page of a relay offering every
 * language (`?lang=`), its HTML beyond English's (it carries the words its elements were rendered
 * with) and its script bytes, which must be English's.
 */
async function languageWeights(context: BenchContext, browser: Browser, widgetDir: string, english: BenchFigure[]): Promise<BenchFigure[]> {
  const { BUILT_IN_LANGUAGES } = await import('../contract/languages.ts');
  const relay = await startTestRelay({ SITE_LANGUAGES: BUILT_IN_LANGUAGES.join(',') }, { app: { widgetDir } });
  try {
    const listings = await waitForListings(relay.url);
    const first = listings.items[0]!;
    const listingPath = `/listings/${first.id}/${addressSlug(first.address.display)}`;
    const contactReady = () => document.querySelector('estate-enquiry')?.shadowRoot?.querySelector('form') != null;
    const listingReady = () => {
      const detail = document.querySelector<HTMLElement & { hasUpdated?: boolean }>('estate-listing');
      return detail?.hasUpdated === true && detail.shadowRoot?.querySelector('estate-enquiry') != null;
    };
    const englishContact = (await scriptBytes(browser, `${relay.url}/contact.html`, contactReady)).bytes;
    const englishListing = await scriptBytes(browser, `${relay.url}${listingPath}`, listingReady);
    const englishHtml = await htmlGzipBytes(`${relay.url}${listingPath}`);
    const figures: BenchFigure[] = [];
    for (const code of BUILT_IN_LANGUAGES) {
      context.note(`${code}: the contact page and a listing page`);
      // Until the element shows the language's words, not English's: the chunks have arrived.
      const contact = await scriptBytes(
        browser,
        `${relay.url}/contact.html`,
        () => {
          const form = document.querySelector('estate-enquiry');
          return form?.shadowRoot?.querySelector('form') != null && !form.hasAttribute('data-estate-words-pending');
        },
        code,
      );
      const listing = await scriptBytes(browser, `${relay.url}${listingPath}?lang=${code}`, listingReady);
      const html = await htmlGzipBytes(`${relay.url}${listingPath}?lang=${code}`);
      figures.push({
        name: `page-weight-language-${code}`,
        contactScriptExtraGzipBytes: contact.bytes - englishContact,
        listingScriptExtraGzipBytes: listing.bytes - englishListing.bytes,
        listingHtmlExtraGzipBytes: html - englishHtml,
        englishContactScriptGzipBytes: englishContact,
        englishListingHtmlGzipBytes: englishHtml,
      });
    }
    // English unchanged: a relay offering every language serves English pages as one that offers only English.
    const single = english.find((figure) => figure.name === 'page-weight-listing');
    figures.push({
      name: 'page-weight-language-en-AU',
      listingScriptGzipBytes: englishListing.bytes,
      singleLanguageListingScriptGzipBytes: single?.scriptGzipBytes ?? null,
      withinGoal: single ? englishListing.bytes <= (single.scriptGzipBytes as number) : false,
    });
    return figures;
  } finally {
    await relay.close();
  }
}
