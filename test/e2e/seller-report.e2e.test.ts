// Issue 32: the seller's report as a person sees it, in Chromium. A whole relay in demo mode (one
// agency at the root paths, its simulator, real SQLite, real HTTP), the link made by the operator
// CLI, real leads through the enquiry API, and visit counts from an in-memory fixture (the visits
// module is built beside this one). At 390 and 1280 px: axe clean, nothing wider than the screen,
// the report's own CSP broken by nothing; screenshots and an A4 print (page.pdf) in
// REPORT_SHOTS_DIR (default /tmp/report-shots/).
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { runCli } from '../../server/cli.ts';
import { addDays, dayOf, daysBetween } from '../../server/reports/days.ts';
import type { ListingDay, ListingSourceDay, VisitCounts } from '../../server/visits/counts.ts';
import { launchChromium, waitForListingsAndPhotos, watchedPage } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

const WIDTHS = [390, 1280] as const;
const shots = process.env.REPORT_SHOTS_DIR ?? '/tmp/report-shots';
mkdirSync(shots, { recursive: true });
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Each listing's listed day, learned once the relay has synced; the fixture counts from it. */
const listedDays = new Map<number, string>();
let timeZone = 'Australia/Sydney';

/** A campaign's shape: a launch peak, a weekend bump, a slow tail; each listing its own size. */
function viewsOn(listingId: number, age: number): number {
  const size = 4 + (listingId % 7);
  const launch = age < 4 ? 14 - age * 3 : 0;
  const weekend = age % 7 === 5 || age % 7 === 6 ? 6 : 0;
  return Math.max(0, Math.round(size + launch + weekend - age * 0.15));
}

const fixtureVisits: VisitCounts = {
  async forListing(listingId, range) {
    const listed = listedDays.get(listingId);
    const days: ListingDay[] = [];
    const sources: ListingSourceDay[] = [];
    if (listed)
      for (let day = listed > range.since ? listed : range.since; day <= range.until; day = addDays(day, 1)) {
        const detail = viewsOn(listingId, daysBetween(listed, day));
        if (detail === 0) continue;
        days.push({
          day,
          detail,
          visitors: Math.ceil(detail * 0.7),
          card: detail * 4,
          mapCard: detail,
          photos: Math.floor(detail / 2),
          kept: detail > 12 ? 1 : 0,
          calendar: 0,
          shared: detail % 3 === 0 ? 1 : 0,
        });
        const campaign = Math.floor(detail / 3);
        const shared = detail % 3 === 0 ? 1 : 0;
        sources.push({ day, source: 'page:listing', views: detail - campaign - shared - Math.floor(detail / 5) });
        sources.push({ day, source: 'page:buy', views: Math.floor(detail / 5) });
        if (campaign) sources.push({ day, source: 'utm:newsletter', views: campaign });
        if (shared) sources.push({ day, source: 'shared', views: shared });
      }
    return { days, sources, dropped: 0 };
  },
  async dailyDetailViews(range) {
    const rows: Array<{ listingId: number; day: string; detail: number }> = [];
    for (const [listingId, listed] of listedDays)
      for (let day = listed > range.since ? listed : range.since; day <= range.until; day = addDays(day, 1)) {
        const detail = viewsOn(listingId, daysBetween(listed, day));
        if (detail > 0) rows.push({ listingId, day, detail });
      }
    return rows;
  },
};

let relay: TestRelay;
let browser: Browser;
let listing: ListingDetail;
let reportUrl: string;

beforeAll(async () => {
  relay = await startTestRelay(
    { SIM_LISTINGS: '30', ENQUIRY_MIN_FILL_MS: '0', ENQUIRY_RATE_LIMIT_PER_MINUTE: '100' },
    { reports: { visits: () => fixtureVisits } },
  );
  await waitForListingsAndPhotos(relay);
  timeZone = relay.config.site.timeZone;
  const today = dayOf(Date.now(), timeZone);
  const page = (await (await fetch(`${relay.url}/api/v1/listings?type=sale&pageSize=100`)).json()) as ListingsPage<ListingSummary>;
  const details = await Promise.all(page.items.map(async (item) => (await (await fetch(`${relay.url}/api/v1/listings/${item.id}`)).json()) as ListingDetail));
  for (const detail of details) if (detail.inserted) listedDays.set(detail.id, dayOf(Date.parse(detail.inserted), timeZone));
  // A listing a few weeks on the market, with a photo and an open home ahead.
  const age = (detail: ListingDetail) => daysBetween(listedDays.get(detail.id) ?? today, today);
  listing =
    details.find(
      (detail) =>
        detail.photos.length > 0 && detail.openHomes.some((home) => Date.parse(home.end) > Date.now() + 600_000) && age(detail) >= 10 && age(detail) <= 60,
    ) ?? details.find((detail) => detail.photos.length > 0)!;

  const post = (body: Record<string, unknown>) =>
    fetch(`${relay.url}/api/v1/enquiries`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ originalId: randomUUID(), fullName: 'Sam Buyer', consent: true, website: '', elapsedMs: 25_000, ...body }),
    });
  expect((await post({ listingId: listing.id, email: 'a@example.com', message: 'Is the garden north-facing?' })).status).toBe(202);
  expect((await post({ listingId: listing.id, email: 'b@example.com', message: 'What are the strata fees?' })).status).toBe(202);
  const openHome = listing.openHomes.find((home) => Date.parse(home.end) > Date.now() + 600_000);
  if (openHome) {
    for (const email of ['c@example.com', 'd@example.com', 'e@example.com'])
      expect((await post({ kind: 'open-home', listingId: listing.id, openHomeId: openHome.id, attendees: 2, email })).status).toBe(202);
  }
  const at = new Date(Math.floor((Date.now() + 3 * 86_400_000) / 60_000) * 60_000).toISOString();
  expect((await post({ kind: 'inspection', listingId: listing.id, preferredTimes: [at], email: 'f@example.com' })).status).toBe(202);

  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['reports', 'link', String(listing.id)], {
    env: { DATA_DIR: relay.dataDir, LOG_LEVEL: 'silent' },
    out: (text) => out.push(text),
    err: (text) => err.push(text),
  });
  expect(code, err.join('\n')).toBe(0);
  // The CLI names the relay's configured port (no PUBLIC_URL in the demo); this test's relay listens on its own.
  reportUrl = out[0]!.replace(/^http:\/\/localhost:\d+/, relay.url);
  expect(reportUrl).toMatch(/\/reports\/[A-Za-z0-9_-]{43}$/);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await relay?.close();
});

describe("the seller's report in Chromium", () => {
  for (const width of WIDTHS) {
    it(`at ${width} px: axe clean, nothing cut off or wider than the screen, no CSP refusal, photo shown`, async () => {
      const { context, page, problems } = await watchedPage(browser, { viewport: { width, height: 900 } });
      try {
        const response = await page.goto(reportUrl);
        expect(response?.status()).toBe(200);
        await page.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
        await page.screenshot({ path: join(shots, `report-${width}.png`), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), 'no sideways scroll').toBeLessThanOrEqual(width);
        // Every chart inside the page's width, its text inside its box.
        const overflowing = await page.evaluate(() =>
          [...document.querySelectorAll('svg.chart, table, .figures li, h1')]
            .filter((node) => node.getBoundingClientRect().right > document.documentElement.clientWidth + 1 && !node.closest('.table-wrap'))
            .map((node) => node.outerHTML.slice(0, 80)),
        );
        expect(overflowing).toEqual([]);
        expect(await page.locator('svg.chart').count()).toBeGreaterThanOrEqual(4);
        await page.evaluate(axeSource);
        const violations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
          return (await axe.run()).violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`);
        });
        expect(violations).toEqual([]);
        // The tables open, and axe is clean with them open too.
        for (const summary of await page.locator('summary').all()) await summary.click();
        const openViolations = await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string }> }> } }).axe;
          return (await axe.run()).violations.map((violation) => violation.id);
        });
        expect(openViolations).toEqual([]);
        await page.screenshot({ path: join(shots, `report-${width}-tables.png`), fullPage: true });
        expect(await page.evaluate(() => document.documentElement.scrollWidth), 'no sideways scroll with the tables open').toBeLessThanOrEqual(width);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  it('prints to a tidy A4 (no details, each section whole)', async () => {
    const { context, page, problems } = await watchedPage(browser, { viewport: { width: 1280, height: 900 } });
    try {
      await page.goto(reportUrl);
      await page.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
      await page.emulateMedia({ media: 'print' });
      expect(await page.locator('details').first().isVisible()).toBe(false);
      const file = join(shots, 'report-print.pdf');
      await page.pdf({ path: file, format: 'A4', printBackground: true, preferCSSPageSize: true });
      const pdf = readFileSync(file, 'latin1');
      const pages = (pdf.match(/\/Type\s*\/Page[^s]/g) ?? []).length;
      expect(pages).toBeGreaterThanOrEqual(1);
      expect(pages).toBeLessThanOrEqual(4);
      expect(statSync(file).size).toBeGreaterThan(10_000);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
