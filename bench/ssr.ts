/**
 * `npm run bench -- ssr` (issue #13): the server-rendered listing page against the client-rendered
 * one (demo/listing.html, the element fetching the listing itself), in the same run.
 *
 * - Largest Contentful Paint of each, in Chromium as a phone on a slow 4G line (150 ms latency,
 *   1.6 Mbit/s down, CPU slowed 4x), fresh profile per load, alternating pages; medians and their ratio.
 * - Rendered pages per second from the page cache (autocannon, 10 connections) against the listing
 *   API's JSON for the same listing from the same relay (the ratio), and pages per second rendered
 *   cold (every page a cache miss: server rendering, wrapper, brotli and gzip).
 */
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import type { ListingDetail, ListingSummary, Page } from '../contract/relay-api.ts';
import { addressSlug } from '../contract/slug.ts';
import { buildWidgetBundle, launchChromium, waitForListings } from '../test/support/browser.ts';
import { startTestRelay } from '../test/support/relay-fixture.ts';
import { phoneContext, PHONE_CONDITIONS, throttledPage } from './phone.ts';
import { compareThroughput } from './support.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const LOADS_PER_PAGE = 5;

const LCP_SCRIPT = `window.__lcp = 0;
new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__lcp = entry.startTime; })
  .observe({ type: 'largest-contentful-paint', buffered: true });`;

async function lcp(browser: Browser, url: string): Promise<number> {
  const context = await phoneContext(browser);
  const page = await throttledPage(context);
  await page.addInitScript(LCP_SCRIPT);
  await page.goto(url);
  // Shown: the listing's first photo has loaded (server-rendered or fetched and rendered by the element).
  await page.waitForFunction(
    () => {
      const img = document.querySelector('estate-listing')?.shadowRoot?.querySelector<HTMLImageElement>('[part~="gallery-item"] img');
      return img !== null && img !== undefined && img.complete && img.naturalWidth > 0;
    },
    undefined,
    { timeout: 60_000 },
  );
  await page.waitForLoadState('networkidle');
  const value = await page.evaluate(() => (window as unknown as { __lcp: number }).__lcp);
  await context.close();
  return value;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const widgetDir = await buildWidgetBundle();
  const relay = await startTestRelay({ SIM_LISTINGS: '120' }, { app: { widgetDir } });
  const browser = await launchChromium();
  try {
    await waitForListings(relay.url);
    const page = (await (await fetch(`${relay.url}/api/v1/listings?type=sale&pageSize=100`)).json()) as Page<ListingSummary>;
    const detail = (await (await fetch(`${relay.url}/api/v1/listings/${page.items.find((item) => item.photoCount >= 5)!.id}`)).json()) as ListingDetail;
    const ssrPath = `/listings/${detail.id}/${addressSlug(detail.address.display)}`;
    const csrPath = `/listing.html?id=${detail.id}`;
    context.note(`listing ${detail.id}: ${ssrPath} against ${csrPath}`);

    const ssr: number[] = [];
    const csr: number[] = [];
    for (let round = 0; round < LOADS_PER_PAGE; round++) {
      ssr.push(await lcp(browser, `${relay.url}${ssrPath}`));
      csr.push(await lcp(browser, `${relay.url}${csrPath}`));
    }
    const lcpFigure: BenchFigure = {
      name: 'ssr-lcp',
      ssrLcpMs: Math.round(median(ssr)),
      clientLcpMs: Math.round(median(csr)),
      ratio: Number((median(ssr) / median(csr)).toFixed(3)),
      loadsEach: LOADS_PER_PAGE,
      conditions: PHONE_CONDITIONS,
    };

    // Cold renders: every listing page once, each a cache miss.
    const all: ListingSummary[] = [];
    for (let number = 1; ; number++) {
      const batch = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=100&page=${number}`)).json()) as Page<ListingSummary>;
      all.push(...batch.items);
      if (batch.items.length < 100) break;
    }
    const started = performance.now();
    for (const item of all) {
      const response = await fetch(`${relay.url}/listings/${item.id}/${addressSlug(item.address.display)}`);
      if (response.status !== 200) throw new Error(`listing page ${item.id} answered ${response.status}`);
      await response.arrayBuffer();
    }
    const coldSeconds = (performance.now() - started) / 1000;

    const throughput = await compareThroughput(`${relay.url}/api/v1/listings/${detail.id}`, `${relay.url}${ssrPath}`, context.durationSeconds);
    const pageBytes = (await (await fetch(`${relay.url}${ssrPath}`, { headers: { 'Accept-Encoding': 'identity' } })).arrayBuffer()).byteLength;
    return [
      lcpFigure,
      {
        name: 'ssr-throughput',
        cachedPagesPerSecond: throughput.relayRps,
        apiDetailPerSecond: throughput.baselineRps,
        ratio: throughput.ratio,
        ratioSpread: throughput.ratioSpread,
        pageP99Ms: throughput.relayP99Ms,
        coldRendersPerSecond: Number((all.length / coldSeconds).toFixed(1)),
        coldPages: all.length,
        pageBytes,
      },
    ];
  } finally {
    await browser.close();
    await relay.close();
    rmSync(widgetDir, { recursive: true, force: true });
  }
}
