// Issue 32's proof, end to end on the demo site as `npm start` serves it (release widget bundle, a
// whole relay in demo mode with its workers, real SQLite, Chromium): two browsers (two addresses,
// as the relay's trusted proxy says them, and two ordinary user agents) view a listing three times
// between them; one keeps it and registers for its open home, the other sends an enquiry. The
// seller's report, opened from the link the operator CLI prints, says 3 views, 2 visitors, 1 kept,
// 1 registration and 1 enquiry on the day they happened. The counting sets no cookie and no storage
// entry of its own, and the store's files hold neither address nor user agent.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page as ListingsPage } from '../../contract/relay-api.ts';
import { runCli } from '../../server/cli.ts';
import { shortDay } from '../../server/reports/days.ts';
import { dayIn } from '../../server/visits/days.ts';
import { launchChromium, startDemoSiteRig, watchProblems, type DemoSiteRig } from '../support/browser.ts';

/** Two people, each with an address a proxy in front of the relay names and a browser of their own (headless Chromium's own user agent is a bot's). */
const PEOPLE = [
  {
    address: '203.0.113.41',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.6778.85 Safari/537.36 CountingTestA',
  },
  {
    address: '198.51.100.73',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.6723.92 Safari/537.36 CountingTestB',
  },
] as const;

/** What the widget keeps in a browser for the visitor's own sake (the shortlist, recently viewed, open homes registered for, a visit's campaign), never the counting's. */
const FEATURE_STORAGE = /^estate-(shortlist|recently-viewed|open-home|embed:)/;

/**
 * The agency's time zone for this run: one where it is now well away from midnight (any hour from
 * 3 to 20), so every view, lead and the report fall on one agency day whenever the suite runs.
 */
function zoneAwayFromMidnight(): string {
  const zones = ['Australia/Sydney', 'Europe/London', 'America/Los_Angeles', 'Asia/Kolkata', 'Pacific/Auckland'];
  const hourIn = (timeZone: string) => Number(new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' }).format(Date.now()));
  return zones.find((zone) => hourIn(zone) >= 3 && hourIn(zone) <= 20)!;
}

let rig: DemoSiteRig;
let listing: ListingDetail;

beforeAll(async () => {
  rig = await startDemoSiteRig({
    // The test's proxy is loopback (the browsers' X-Forwarded-For is believed); writes every 250 ms so the report need not wait.
    relayEnv: { ENQUIRY_MIN_FILL_MS: '0', TRUST_PROXY: 'loopback', VISIT_FLUSH_MS: '250', SITE_TIME_ZONE: zoneAwayFromMidnight() },
  });
  listing = await listingWithOpenHome();
}, 180_000);

afterAll(async () => {
  await Promise.all(browsers.map((browser) => browser.close()));
  await rig?.close();
});

async function listingWithOpenHome(): Promise<ListingDetail> {
  const listings = (await (await fetch(`${rig.relay.url}/api/v1/listings?pageSize=40`)).json()) as ListingsPage<ListingSummary>;
  for (const item of listings.items) {
    const detail = (await (await fetch(`${rig.relay.url}/api/v1/listings/${item.id}`)).json()) as ListingDetail;
    if (detail.status === 'available' && detail.openHomes.some((openHome) => Date.parse(openHome.start) > Date.now())) return detail;
  }
  throw new Error('The demo has no listing with an open home still to come.');
}

const browsers: Browser[] = [];

/**
 * A browser of the person's own: its user agent set at launch, since a context's override does not
 * reach a beacon sent as the page goes (Chromium sends it after the page has left).
 */
async function browserOf(person: (typeof PEOPLE)[number]): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const browser = await launchChromium([`--user-agent=${person.userAgent}`]);
  browsers.push(browser);
  const context = await browser.newContext({
    extraHTTPHeaders: { 'X-Forwarded-For': person.address },
    viewport: { width: 1280, height: 900 },
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  return { context, page, problems: watchProblems(page) };
}

/** Opens the listing's page and waits until its detail is shown (the moment a view is counted). */
async function viewListing(page: Page): Promise<Locator> {
  await page.goto(`${rig.relay.url}/listing?id=${listing.id}`);
  const detail = page.locator('estate-listing');
  await detail.locator('[part~="keep-button"]').waitFor();
  return detail;
}

async function fillPerson(form: Locator, name: string, email: string, message?: string): Promise<void> {
  await form.getByRole('textbox', { name: 'Full name' }).fill(name);
  await form.getByRole('textbox', { name: 'Email' }).fill(email);
  await form.getByRole('textbox', { name: /^Mobile/ }).fill('0412 555 019');
  if (message) await form.getByRole('textbox', { name: 'Message', exact: true }).fill(message);
  const consent = form.getByRole('checkbox');
  if ((await consent.count()) > 0) await consent.first().check();
}

async function sendAndWait(page: Page, form: Locator, button: string): Promise<void> {
  const accepted = page.evaluate(() => new Promise<void>((resolve) => document.addEventListener('estate-lead-sent', () => resolve(), { once: true })));
  await form.getByRole('button', { name: button }).click();
  await accepted;
}

/** The storage entries a page holds that are not the widget's features' own, and its cookies. */
async function countingTraces(context: BrowserContext, page: Page): Promise<{ cookies: string[]; storage: string[] }> {
  const storage = await page.evaluate(() => [...Object.keys(localStorage), ...Object.keys(sessionStorage)]);
  return { cookies: (await context.cookies()).map((cookie) => cookie.name), storage: storage.filter((key) => !FEATURE_STORAGE.test(key)) };
}

describe("the seller's report counts what two browsers did (demo site)", () => {
  it('shows 3 views, 2 visitors, 1 kept, 1 shared, 1 registration and 1 enquiry on the day, with nothing kept of who', async () => {
    const timeZone = rig.relay.config.site.timeZone;
    const [a, b] = [await browserOf(PEOPLE[0]), await browserOf(PEOPLE[1])];

    // A: two views (a reload), keeps it, registers for its open home; then leaves (the beacon goes on pagehide).
    let detail = await viewListing(a.page);
    await a.page.reload();
    detail = a.page.locator('estate-listing');
    await detail.locator('[part~="keep-button"]').waitFor();
    await detail.locator('[part~="keep-button"]').first().click();
    await detail.locator('[part~="register-button"]').first().click();
    const registration = detail.locator('estate-open-home-registration');
    await registration.getByLabel('Full name').waitFor();
    await fillPerson(registration, 'Alex Counting', `alex.counting.${Date.now().toString(36)}@example.org`);
    await sendAndWait(a.page, registration, 'Register');

    // B: one view, an enquiry from the listing's own form.
    detail = await viewListing(b.page);
    const enquiry = detail.locator('estate-enquiry');
    await enquiry.getByLabel('Full name').waitFor();
    await fillPerson(enquiry, 'Sam Counting', `sam.counting.${Date.now().toString(36)}@example.org`, 'Could we see it on Saturday?');
    await sendAndWait(b.page, enquiry, 'Send enquiry');
    // And shares it: this Chromium has no share sheet, so the link is copied (the clipboard the browser's own).
    await b.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.relay.url });
    await detail.locator('[part~="share-button"]').click();
    await detail.getByRole('status').filter({ hasText: 'Link copied' }).waitFor();
    const copied = new URL(await b.page.evaluate(() => navigator.clipboard.readText()));
    expect([copied.pathname, copied.searchParams.get('shared')]).toEqual([new URL(b.page.url()).pathname, '1']);

    const traces = [await countingTraces(a.context, a.page), await countingTraces(b.context, b.page)];
    expect(traces, 'no cookie and no storage entry from the counting').toEqual([
      { cookies: [], storage: [] },
      { cookies: [], storage: [] },
    ]);
    // Leaving sends what is waiting.
    await Promise.all([a.page.goto('about:blank'), b.page.goto('about:blank')]);
    const day = dayIn(timeZone, Date.now());

    const printed: string[] = [];
    const code = await runCli(['reports', 'link', String(listing.id)], {
      env: { DATA_DIR: rig.relay.dataDir, LOG_LEVEL: 'silent' },
      out: (text) => printed.push(text),
      err: (text) => printed.push(text),
    });
    expect(code, printed.join('\n')).toBe(0);
    const link = /https?:\/\/\S+\/reports\/[A-Za-z0-9_-]+/.exec(printed.join('\n'))?.[0];
    expect(link, printed.join('\n')).toBeDefined();
    const reportUrl = `${rig.relay.url}${new URL(link!).pathname}`;

    const { context, page } = await browserOf(PEOPLE[0]);
    /** The report's exact-numbers rows for the day, by table: the cells after the day. */
    const rowsOfTheDay = async () => {
      await page.goto(reportUrl);
      return page.evaluate(
        (label) =>
          [...document.querySelectorAll('table')].map((table) => ({
            head: [...table.querySelectorAll('thead th')].map((cell) => cell.textContent!.trim()),
            row: Array.from(
              [...table.querySelectorAll('tbody tr')].find((row) => row.querySelector('th')?.textContent?.trim() === label)?.querySelectorAll('td') ?? [],
              (cell) => cell.textContent!.trim(),
            ),
          })),
        shortDay(day),
      );
    };
    const wanted = [
      { head: ['Day', 'Views', 'Visitors'], row: ['3', '2'] },
      { head: ['Day', 'Kept', 'Enquiries', 'Registrations', 'Inspections'], row: ['1', '1', '1', '0'] },
    ];
    // The beacons and the outbox reach the report within a flush or two.
    await expect
      .poll(async () => (await rowsOfTheDay()).filter((table) => wanted.some((want) => want.head.join() === table.head.join())), {
        timeout: 30_000,
        interval: 500,
      })
      .toEqual(wanted);
    expect(await page.locator('.figures li').allTextContents(), 'the figures').toContain('1Shared');
    await context.close();
    expect([...a.problems, ...b.problems]).toEqual([]);
    await Promise.all([a.context.close(), b.context.close()]);

    // Nowhere in the relay's files: neither address, nor either user agent.
    const files = readdirSync(rig.relay.dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const entry of files) {
      const bytes = readFileSync(join(entry.parentPath, entry.name));
      for (const person of PEOPLE)
        for (const secret of [person.address, person.userAgent, person.userAgent.split(' ').at(-1)!]) {
          expect(bytes.includes(Buffer.from(secret)), `${secret} in ${entry.name}`).toBe(false);
        }
    }
  }, 180_000);
});
