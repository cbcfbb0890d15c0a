// Shared by the browser suites (framework interop, strict CSP, end to end): a release build of the
// widget, a relay serving it, a static server for the host pages (another origin, as an agency
// site is), and Chromium through playwright-core.
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { build, type InlineConfig, type Plugin } from 'vite';
import { projectRoot } from '../../server/http/app.ts';
import type { ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { startTestRelay, type TestRelay } from './relay-fixture.ts';

// scripts/find-chromium.mjs is plain JS shared with the runner configs; typed here by hand.
const { findChromium, chromiumArgs } = (await import(join(projectRoot, 'scripts', 'find-chromium.mjs'))) as {
  findChromium(): string;
  chromiumArgs: string[];
};

/** Builds with Vite's JS API, quietly, and throws with Vite's message when the build fails. */
export async function viteBuild(config: InlineConfig): Promise<void> {
  await build({ logLevel: 'error', ...config });
}

/** Puts the relay's address into a host page's script tag (`%RELAY%/widget.js`) before Vite reads it. */
export function relayAddressPlugin(relayUrl: string): Plugin {
  return {
    name: 'relay-address',
    transformIndexHtml: { order: 'pre', handler: (html: string) => html.replaceAll('%RELAY%', relayUrl) },
  };
}

/**
 * The widget bundle exactly as `npm run build:widget` makes it, in a folder of our own, so a
 * parallel build elsewhere can never hand us a half-written file: the browser's chunks, and the
 * server copy of the elements the relay renders listing pages with (vite.ssr.config.ts, in ssr/).
 */
export async function buildWidgetBundle(): Promise<string> {
  // Inside the project: the server copy imports `lit` from its node_modules.
  mkdirSync(join(projectRoot, '.tmp'), { recursive: true });
  const outDir = mkdtempSync(join(projectRoot, '.tmp', 'estate-widget-'));
  await viteBuild({ configFile: join(projectRoot, 'vite.config.ts'), root: projectRoot, build: { outDir, emptyOutDir: true } });
  await viteBuild({ configFile: join(projectRoot, 'vite.ssr.config.ts'), root: projectRoot, build: { outDir: join(outDir, 'ssr'), emptyOutDir: true } });
  return outDir;
}

/**
 * The bundler build (vite.module.config.ts: what `estate-embed/widget` and
 * `estate-embed/widget/<element>` point at), inside the project so its `lit` imports resolve.
 */
export async function buildWidgetModules(): Promise<string> {
  mkdirSync(join(projectRoot, '.tmp'), { recursive: true });
  const outDir = mkdtempSync(join(projectRoot, '.tmp', 'widget-module-'));
  await viteBuild({ configFile: join(projectRoot, 'vite.module.config.ts'), root: projectRoot, build: { outDir, emptyOutDir: true } });
  return outDir;
}

/** Chromium, headless; `extraArgs` for a browser of its own (`--user-agent=…`: every request it sends, a page's last beacon too, says it). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), args: [...chromiumArgs, ...extraArgs], headless: true });
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

export interface StaticSite {
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves a folder on 127.0.0.1 (a free port): the "agency site". `htmlHeaders` may add a CSP
 * to HTML answers (a function: the relay's address is known only once the relay runs, and the
 * relay needs this site's origin first).
 */
export async function serveFolder(dir: string, htmlHeaders: () => OutgoingHttpHeaders = () => ({})): Promise<StaticSite> {
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    // Chromium asks every site for one; a 404 would show as a console error.
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const type = TYPES[extname(file)] ?? 'application/octet-stream';
    res.writeHead(200, { 'Content-Type': type, 'Cache-Control': 'no-store', ...(type.startsWith('text/html') ? htmlHeaders() : {}) });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Collects what should never happen on a host page: console errors, page errors, failed requests.
 * A request the test's own navigation cut short (a photo still loading when the test moved on, aborted)
 * is the test's doing, not the page's: only those are let pass.
 */
export function watchProblems(page: Page, problems: string[] = []): string[] {
  let navigations = 0;
  const startedInPage = new WeakMap<object, number>();
  page.on('request', (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) navigations += 1;
    else startedInPage.set(request, navigations);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    const errorText = request.failure()?.errorText ?? '';
    const leftBehind = errorText === 'net::ERR_ABORTED' && (startedInPage.get(request) ?? navigations) < navigations;
    // A fetch the page aborted itself (an answer superseded before it came: the map's view moved on, abort() in map-data.ts),
    // or a photo the browser stopped because it is no longer shown (a phone's list hidden behind the map/list switch).
    const superseded = errorText === 'net::ERR_ABORTED' && ['fetch', 'image'].includes(request.resourceType());
    // The browser's own fetch of the tab's icon, stopped by a reload or a navigation it was late for: no page's doing.
    const tabIcon = errorText === 'net::ERR_ABORTED' && /\/favicon\.(svg|ico|png)$/.test(new URL(request.url()).pathname);
    if (!leftBehind && !superseded && !tabIcon) problems.push(`failed: ${request.url()} ${errorText}`);
  });
  return problems;
}

/** Waits until the relay has placed every listing (the simulator's geocoder places the last ones a moment after the first sync). */
export async function listingsPlaced(relayUrl: string, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const placement = (await (await fetch(`${relayUrl}/api/v1/listings/placement`)).json()) as { pending: number };
    if (placement.pending === 0) return;
    if (Date.now() > deadline) throw new Error('the listings were never all placed');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Waits until the relay's listing cache holds listings (the first sync runs at start). */
export async function waitForListings(relayUrl: string, timeoutMs = 60_000): Promise<ListingsPage<ListingSummary>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${relayUrl}/api/v1/listings?pageSize=50`);
    if (response.ok) {
      const page = (await response.json()) as ListingsPage<ListingSummary>;
      if (page.total > 0) return page;
    }
    if (Date.now() > deadline) throw new Error('The relay never had listings to show.');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits for the listings and then for their photos: a first fill serves before its photos are
 * mirrored (issue 33), and the suites that call this look at galleries, cards and page images.
 */
export async function waitForListingsAndPhotos(relay: Pick<TestRelay, 'url' | 'listings'>): Promise<void> {
  await waitForListings(relay.url);
  await relay.listings.sync.photosMirrored();
}

/** Fills an `<estate-enquiry>` as a visitor would (Playwright's locators pierce its shadow root). */
export async function fillEnquiry(form: Locator, message: string): Promise<void> {
  await form.getByRole('textbox', { name: 'Full name' }).fill('Priya Raman');
  await form.getByRole('textbox', { name: 'Email' }).fill('priya.raman@example.com');
  await form.getByRole('textbox', { name: 'Message', exact: true }).fill(message);
}

/** The cards an `<estate-listings>` shows, by listing id. */
export function cardIds(listings: Locator): Promise<number[]> {
  return listings.evaluate((element) => [...element.shadowRoot!.querySelectorAll('[part~="card-link"]')].map((link) => Number(link.getAttribute('data-id'))));
}

/** What an `<estate-map>` shows: its view and its markers (`c<count>` or `p<id>`), sorted. */
export interface MapState {
  bbox: string;
  zoom: number;
  markers: string[];
}

export function mapState(map: Locator): Promise<MapState> {
  return map.evaluate((element) => {
    const el = element as HTMLElement & { view: { bbox: string; zoom: number } };
    const root = el.shadowRoot!;
    const markers = [
      ...[...root.querySelectorAll('[part~="cluster"]')].map((cluster) => `c${cluster.textContent!.trim()}`),
      ...[...root.querySelectorAll<HTMLElement>('[part~="pin"]')].map((pin) => `p${pin.dataset.id}`),
    ].sort();
    return { bbox: el.view.bbox, zoom: el.view.zoom, markers };
  });
}

/** A page in a fresh context (10 s default timeout) whose problems are collected. */
export async function watchedPage(
  browser: Browser,
  contextOptions: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext(contextOptions);
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  return { context, page, problems: watchProblems(page) };
}

export interface HostSiteRig {
  /** The release widget bundle the relay serves. */
  widgetDir: string;
  /** The agency site's folder (empty): the suite writes or builds its pages into it. */
  pageDir: string;
  site: StaticSite;
  relay: TestRelay;
  browser: Browser;
  /** A page of the relay's listing API, e.g. `type=sale&pageSize=3`: what the elements should show. */
  listingsPage(query: string): Promise<ListingsPage<ListingSummary>>;
  close(): Promise<void>;
}

/**
 * Everything a host-page suite needs before its first page: the widget bundle, an agency site on
 * its own origin, a relay that allows that origin (and has listings), and Chromium. Enquiries are
 * accepted however fast the robot fills the form.
 */
export async function startHostSiteRig(options: {
  /** Prefix of the temp folder for the site's pages, e.g. 'estate-react-'. */
  pageDirPrefix: string;
  /** Extra headers on the site's HTML answers, given the relay's address. */
  htmlHeaders?: (relayUrl: string) => OutgoingHttpHeaders;
}): Promise<HostSiteRig> {
  const widgetDir = await buildWidgetBundle();
  const pageDir = mkdtempSync(join(tmpdir(), options.pageDirPrefix));
  const { htmlHeaders } = options;
  let relay: TestRelay | undefined;
  const site = await serveFolder(pageDir, htmlHeaders ? () => htmlHeaders(relay!.url) : undefined);
  relay = await startTestRelay({ ALLOWED_ORIGINS: site.origin, ENQUIRY_MIN_FILL_MS: '0' }, { app: { widgetDir } });
  await waitForListingsAndPhotos(relay);
  const browser = await launchChromium();
  const started = relay;
  return {
    widgetDir,
    pageDir,
    site,
    relay: started,
    browser,
    listingsPage: async (query) => (await fetch(`${started.url}/api/v1/listings?${query}`)).json() as Promise<ListingsPage<ListingSummary>>,
    close: async () => {
      await browser.close();
      await started.close();
      await site.close();
      for (const dir of [widgetDir, pageDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface DemoSiteRig {
  /** The whole relay in demo mode, serving the demo site and the release widget bundle. */
  relay: TestRelay;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * The demo site as `npm start` serves it, for a suite's beforeAll: the release widget bundle, a
 * whole relay in demo mode (embedded CRM simulator, workers running) under its strict CSP, its
 * listings filled, and Chromium. Enquiries are accepted however fast the robot fills the form,
 * unless `relayEnv` gives the relay settings of its own (`{}`: the relay's defaults).
 */
export async function startDemoSiteRig(options: { relayEnv?: Record<string, string> } = {}): Promise<DemoSiteRig> {
  const widgetDir = await buildWidgetBundle();
  let relay: TestRelay | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await relay?.close();
    rmSync(widgetDir, { recursive: true, force: true });
  };
  try {
    relay = await startTestRelay(options.relayEnv ?? { ENQUIRY_MIN_FILL_MS: '0' }, { app: { widgetDir } });
    browser = await launchChromium();
    await waitForListingsAndPhotos(relay);
    return { relay, browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}

export { projectRoot };
