// Issue 32: the seller's campaign report. Two agencies of AGENCIES_FILE on one relay (the CRM
// simulator in-process, real SQLite files, real HTTP), the link made by the operator CLI, leads
// sent through the enquiry API, and the visit counts from an in-memory fixture (the visits module
// is built beside this one; its read interface is server/visits/counts.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { runCli } from '../../server/cli.ts';
import { listingLeadCounts } from '../../server/enquiries/report-counts.ts';
import { addDays, dayOf, daysBetween, longDay } from '../../server/reports/days.ts';
import { ReportLinks, tokenDigest } from '../../server/reports/links.ts';
import { typicalListing } from '../../server/reports/typical.ts';
import { contrast } from '../../server/reports/page.ts';
import { tablesOf } from '../../server/store/tables.ts';
import type { ListingVisits, VisitCounts } from '../../server/visits/counts.ts';
import { PUBLIC_URL, startAgenciesRig, type AgenciesRig } from '../compose/rig.ts';

const DAY_MS = 86_400_000;
const WITHHELD = 1_234_567;

/** The report's clock: the wall clock moved on by what a test sets (links expire by it). */
let offset = 0;
const clock = () => Date.now() + offset;

/** Visit counts the test writes, per agency and listing (what the visits module will count). */
const fixture = new Map<string, Map<number, ListingVisits>>();
const fixtureVisits = (slug: string | undefined): VisitCounts => ({
  async forListing(listingId, range) {
    const visits = fixture.get(slug ?? '')?.get(listingId) ?? { days: [], sources: [], dropped: 0 };
    return {
      days: visits.days.filter((day) => day.day >= range.since && day.day <= range.until),
      sources: visits.sources.filter((day) => day.day >= range.since && day.day <= range.until),
      dropped: visits.dropped,
    };
  },
  async dailyDetailViews(range) {
    return [...(fixture.get(slug ?? '') ?? new Map<number, ListingVisits>())].flatMap(([listingId, visits]) =>
      visits.days
        .filter((day) => day.detail > 0 && day.day >= range.since && day.day <= range.until)
        .map((day) => ({ listingId, day: day.day, detail: day.detail })),
    );
  },
});

let rig: AgenciesRig;
let env: Record<string, string>;
let timeZone: string;
/** Agency A's listing whose report is read: for sale, with an open home, its price withheld. */
let listing: ListingDetail;
let token: string;
/** The link as the CLI printed it. */
let printed: string;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { env, out: (text) => out.push(text), err: (text) => err.push(text), now: clock });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** The relay's answer at a URL the CLI printed (PUBLIC_URL names where sellers reach it; the test reaches it here). */
const open = (url: string) => fetch(url.replace(PUBLIC_URL, rig.relay.url));
const reportPath = (slug: string, value: string) => `${rig.relay.url}/a/${slug}/reports/${value}`;

async function makeLink(listingId: number, slug = 'agency-a', extra: string[] = []): Promise<string> {
  const made = await cli(['reports', 'link', String(listingId), '--agency', slug, ...extra]);
  expect(made.code, made.err).toBe(0);
  expect(made.out).toMatch(new RegExp(`^${PUBLIC_URL.replace(/[.]/g, '\\.')}/a/${slug}/reports/[A-Za-z0-9_-]{43}$`));
  printed = made.out;
  return made.out.split('/').at(-1)!;
}

const post = (slug: string, body: Record<string, unknown>) =>
  rig.request(`/a/${slug}/api/v1/enquiries`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ originalId: randomUUID(), fullName: 'Sam Seller', consent: true, website: '', elapsedMs: 25_000, ...body }),
  });

beforeAll(async () => {
  rig = await startAgenciesRig({
    agencies: 2,
    listings: 12,
    // Agency A wears the relay's default colour; agency B a colour of its own in AGENCIES_FILE.
    env: { SITE_BRAND_COLOUR: '#2b5d34' },
    entry: (entry, index) => (index === 1 ? { ...entry, brandColour: '#6b1f3a' } : entry),
    reports: { visits: (agency) => fixtureVisits(agency.slug), now: clock },
  });
  // A listing for sale with an open home ahead, its price withheld (shown as "Contact Agent", its search price kept for filters only).
  const account = rig.accounts[0]!;
  await rig.syncAll();
  const ids = (await rig.request('/a/agency-a/api/v1/listings?type=sale&pageSize=100')).body.items.map((item: { id: number }) => item.id) as number[];
  const details = await Promise.all(ids.map(async (id) => (await rig.request(`/a/agency-a/api/v1/listings/${id}`)).body as ListingDetail));
  const chosen = details.find((detail) => detail.openHomes.some((openHome) => Date.parse(openHome.end) > Date.now() + 10 * 60_000)) ?? details[0]!;
  const simListing = account.listings.find((candidate) => candidate.lifeId * 2 === chosen.id)!;
  account.changeListing(simListing.id, { fields: { displayPrice: 'Contact Agent', searchPrice: WITHHELD, priceOnApplication: true } }, 'sale');
  await rig.syncAll();
  listing = (await rig.request(`/a/agency-a/api/v1/listings/${chosen.id}`)).body as ListingDetail;
  expect(listing.displayPrice).toBe('Contact Agent');
  timeZone = rig.relay.agencies!.get('agency-a')!.agency.config.site.timeZone;
  env = {
    DATA_DIR: rig.dataDir,
    AGENCIES_FILE: rig.file,
    CRM_BASE_URL: rig.sim.baseUrl,
    CRM_API_KEY: rig.sim.apiKey,
    PUBLIC_URL,
    LOG_LEVEL: 'silent',
  };

  // Two weeks of counts ending today, the busiest day three days ago.
  const today = dayOf(clock(), timeZone);
  const days = Array.from({ length: 14 }, (_, index) => addDays(today, index - 13));
  const views = days.map((_, index) => (index === 10 ? 61 : 10 + index));
  fixture.set(
    'agency-a',
    new Map([
      [
        listing.id,
        {
          days: days.map((day, index) => ({
            day,
            detail: views[index]!,
            visitors: Math.ceil(views[index]! * 0.6),
            card: 50,
            mapCard: 5,
            photos: 3,
            kept: index % 5 === 0 ? 1 : 0,
            calendar: 0,
            shared: 1,
          })),
          sources: days.flatMap((day, index) => [
            { day, source: 'page:listing' as const, views: views[index]! - 5 },
            { day, source: 'utm:newsletter' as const, views: 4 },
            { day, source: 'shared' as const, views: 1 },
          ]),
          dropped: 3,
        },
      ],
    ]),
  );

  // One enquiry, one registration for the open home, one inspection request; and a form filled by a bot (its honeypot), never counted.
  expect((await post('agency-a', { listingId: listing.id, email: 'one@example.com', message: 'Is it still available?' })).status).toBe(202);
  const openHome = listing.openHomes.find((candidate) => Date.parse(candidate.end) > Date.now() + 10 * 60_000);
  if (openHome)
    expect((await post('agency-a', { kind: 'open-home', listingId: listing.id, openHomeId: openHome.id, attendees: 2, email: 'two@example.com' })).status).toBe(
      202,
    );
  const at = (days: number) => new Date(Math.floor((Date.now() + days * DAY_MS) / 60_000) * 60_000).toISOString();
  expect((await post('agency-a', { kind: 'inspection', listingId: listing.id, preferredTimes: [at(2)], email: 'three@example.com' })).status).toBe(202);
  expect((await post('agency-a', { listingId: listing.id, email: 'bot@example.com', message: 'Buy now', website: 'http://spam.example' })).status).toBe(202);

  token = await makeLink(listing.id);
}, 90_000);

afterAll(async () => {
  await rig?.close();
});

describe('the report page', () => {
  it('opens from the link the CLI printed, never to be indexed, kept or sent on, with no script allowed', async () => {
    const response = await open(printed);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-encoding')).toMatch(/^(br|gzip)$/);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await response.text();
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).not.toMatch(/<script/i);
    // The style sheet is the one the policy's hash names.
    const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const { createHash } = await import('node:crypto');
    expect(csp).toContain(`'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  });

  it("wears the agency's colour: SITE_BRAND_COLOUR, else an agency's own brandColour", async () => {
    const html = await (await fetch(reportPath('agency-a', token))).text();
    expect(html).toContain('--accent:#2b5d34;');
    const other = rig.relay.agencies!.get('agency-b')!.agency;
    expect(other.config.site.brandColour).toBe('#6b1f3a');
    const ids = (await rig.request('/a/agency-b/api/v1/listings?pageSize=1')).body.items.map((item: { id: number }) => item.id) as number[];
    const otherHtml = await (await fetch(reportPath('agency-b', await makeLink(ids[0]!, 'agency-b')))).text();
    expect(otherHtml).toContain('--accent:#6b1f3a;');
  });

  it("shows the listing's address, photo, the price as shown (never the withheld one) and its days on the market", async () => {
    const html = await (await fetch(reportPath('agency-a', token))).text();
    expect(html).toContain(escape(listing.address.display));
    expect(html).toContain(escape(rig.entries[0]!.name));
    expect(html).toContain('Contact Agent');
    for (const form of [String(WITHHELD), WITHHELD.toLocaleString('en-AU'), '$1.23', '1,235,'])
      expect(html, html.slice(Math.max(0, html.indexOf(form) - 200), html.indexOf(form) + 50)).not.toContain(form);
    const photo = listing.photos[0]!;
    expect(html).toContain(`<img src="${escape(photo.url)}"`);
    const listedDay = dayOf(Date.parse(listing.inserted!), timeZone);
    expect(html).toContain(`<dt>Days on the market</dt><dd>${daysBetween(listedDay, dayOf(clock(), timeZone))}</dd>`);
  });

  it('draws every chart as inline SVG with its title and description, and says its numbers in words beside it', async () => {
    const html = await (await fetch(reportPath('agency-a', token))).text();
    const charts = [
      ...html.matchAll(
        /<svg class="chart"[^>]*aria-labelledby="([\w-]+)-title \1-desc"[^>]*><title id="\1-title">([^<]+)<\/title><desc id="\1-desc">([^<]+)<\/desc>/g,
      ),
    ];
    expect(charts.map((match) => match[1])).toEqual(['views', 'sources', 'leads', ...(listing.openHomes.length ? ['open-homes'] : []), 'typical']);
    // Views: the fixture's 14 days (within the days since listing), the busiest three days ago.
    const today = dayOf(clock(), timeZone);
    const listedDay = dayOf(Date.parse(listing.inserted!), timeZone);
    const counted = Array.from({ length: 14 }, (_, index) => addDays(today, index - 13)).filter((day) => day >= listedDay);
    const viewsOf = (day: string) => (day === addDays(today, -3) ? 61 : 10 + 13 - daysBetween(day, today));
    const views = counted.reduce((sum, day) => sum + viewsOf(day), 0);
    const visitors = counted.reduce((sum, day) => sum + Math.ceil(viewsOf(day) * 0.6), 0);
    const span = daysBetween(listedDay, today) + 1;
    const words = `${views.toLocaleString('en-AU')} views from ${visitors.toLocaleString('en-AU')} visitors in ${span} days; busiest ${longDay(addDays(today, -3))} with 61.`;
    expect(html).toContain(`<p class="words">${words}</p>`);
    expect(html).toContain(`<desc id="views-desc">${words}</desc>`);
    expect(html).toMatch(/<p class="words">Most views came from Agency site: Listing page \(\d[\d,]* of \d[\d,]*, \d+%\); then Campaign: newsletter/);
    // Leads: the three sent (the bot's not among them), on today's date.
    const registrations = listing.openHomes.some((openHome) => Date.parse(openHome.end) > Date.now()) ? 1 : 0;
    const kept = counted.filter((day) => (13 - daysBetween(day, today)) % 5 === 0).length;
    expect(html).toContain(
      `<p class="words">${kept} kept, 1 enquiry, ${registrations} open-home registration${registrations === 1 ? '' : 's'} and 1 private inspection request in ${span} days.`,
    );
    expect(html).toContain(`Most leads came on ${longDay(dayOf(Date.now(), timeZone))} (${2 + registrations}).`);
    // The figures: shares (the Share button's, one a day in the fixture) beside the kept homes.
    expect(html).toContain(`<li><strong>${kept}</strong>Kept</li><li><strong>${counted.length}</strong>Shared</li>`);
    // The exact numbers, in a table under each chart.
    expect(html).toContain('<details><summary>Exact numbers</summary>');
    expect(html).toContain(`<tr><th scope="row">${escape(shortOf(addDays(today, -3)))}</th><td>61</td><td>37</td></tr>`);
    // Dropped counts said in words.
    expect(html).toContain('the relay set aside 3 counts it could not write in time, so these figures may be up to 3 short');
  });
});

describe('the links', () => {
  it('a wrong, malformed or revoked link answers 404 with a body that names no listing', async () => {
    const bodies: string[] = [];
    for (const wrong of [
      randomBytes(32).toString('base64url'),
      'not-a-token',
      `${token}x`,
      token.toLowerCase() === token ? token.toUpperCase() : token.toLowerCase(),
    ]) {
      const response = await fetch(reportPath('agency-a', wrong));
      expect(response.status, wrong).toBe(404);
      expect(response.headers.get('x-robots-tag')).toBe('noindex, nofollow');
      expect(response.headers.get('cache-control')).toBe('private, no-store');
      bodies.push(await response.text());
    }
    for (const body of bodies) expectNothingOfTheListing(body);
  });

  it('a new link for the listing replaces the old one; a revoked one stops at once', async () => {
    const first = await makeLink(listing.id);
    expect((await fetch(reportPath('agency-a', first))).status).toBe(200);
    const second = await makeLink(listing.id);
    expect((await fetch(reportPath('agency-a', first))).status).toBe(404);
    expect((await fetch(reportPath('agency-a', second))).status).toBe(200);
    const revoked = await cli(['reports', 'revoke', String(listing.id), '--agency', 'agency-a']);
    expect(revoked.code).toBe(0);
    const gone = await fetch(reportPath('agency-a', second));
    expect(gone.status).toBe(404);
    expectNothingOfTheListing(await gone.text());
    token = await makeLink(listing.id);
  });

  it('a link expires after its days (the report clock moved on), and --days sets them', async () => {
    const short = await makeLink(listing.id, 'agency-a', ['--days', '2']);
    expect((await fetch(reportPath('agency-a', short))).status).toBe(200);
    offset = 2 * DAY_MS - 60_000;
    expect((await fetch(reportPath('agency-a', short))).status).toBe(200);
    offset = 2 * DAY_MS + 60_000;
    const expired = await fetch(reportPath('agency-a', short));
    expect(expired.status).toBe(404);
    expectNothingOfTheListing(await expired.text());
    offset = 0;
    token = await makeLink(listing.id);
    expect((await fetch(reportPath('agency-a', token))).status).toBe(200);
    offset = 121 * DAY_MS;
    expect((await fetch(reportPath('agency-a', token))).status).toBe(404);
    offset = 0;
  });

  it("another agency's link under an agency's path answers 404", async () => {
    const ofB = (await rig.request('/a/agency-b/api/v1/listings?type=sale&pageSize=1')).body.items[0].id as number;
    const tokenOfB = await makeLink(ofB, 'agency-b');
    expect((await fetch(reportPath('agency-b', tokenOfB))).status).toBe(200);
    const crossed = await fetch(reportPath('agency-a', tokenOfB));
    expect(crossed.status).toBe(404);
    expectNothingOfTheListing(await crossed.text());
    expect((await fetch(reportPath('agency-b', token))).status).toBe(404);
  });

  it('keeps only the digest of a token in the store', async () => {
    const store = rig.relay.agencies!.get('agency-a')!.agency.store;
    const rows = tablesOf(store).prepare('SELECT * FROM report_links').all() as Array<Record<string, unknown>>;
    const text = JSON.stringify(rows);
    expect(text).not.toContain(token);
    expect(text).toContain(tokenDigest(token));
  });

  it('is never in a sitemap and is kept out by robots.txt', async () => {
    const sitemap = await rig.request('/a/agency-a/listings/sitemap.xml');
    expect(sitemap.status).toBe(200);
    expect(sitemap.text).not.toContain('/reports/');
    const robots = await rig.request('/robots.txt');
    expect(robots.text).toContain('Disallow: /a/*/reports/\n');
    expect(robots.text).toContain('Disallow: /reports/\n');
  });
});

describe('the CLI', () => {
  it('refuses a listing the cache does not know, clearly, and needs --agency with AGENCIES_FILE', async () => {
    const unknown = await cli(['reports', 'link', '999999999', '--agency', 'agency-a']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("Listing 999999999 is not in this agency's listing cache");
    const notANumber = await cli(['reports', 'link', 'abc', '--agency', 'agency-a']);
    expect(notANumber.code).toBe(2);
    expect(notANumber.err).toContain('needs one listing id');
    const days = await cli(['reports', 'link', String(listing.id), '--agency', 'agency-a', '--days', '0']);
    expect(days.code).toBe(2);
    expect(days.err).toContain('--days must be a whole number from 1 to 366');
    const noAgency = await cli(['reports', 'list']);
    expect(noAgency.code).toBe(2);
    expect(noAgency.err).toContain('--agency <slug>');
  });

  it('lists the links with their addresses and dates, never a token; the agencies view counts the live ones', async () => {
    const listed = await cli(['reports', 'list', '--agency', 'agency-a']);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/^listing\s+address\s+made\s+state$/m);
    expect(listed.out).toContain(`${listing.id}  ${listing.address.display}`);
    expect(listed.out).toMatch(/expires \d{4}-\d{2}-\d{2}/);
    expect(listed.out).not.toContain(token);
    const live = await new ReportLinks(rig.relay.agencies!.get('agency-a')!.agency.store).list();
    const count = live.filter((link) => link.revokedAt === null && link.expiresAt > Date.now()).length;
    const view = await cli(['agencies']);
    expect(view.out).toMatch(/REPORT LINKS/);
    const row = view.out.split('\n').find((line) => line.startsWith('agency-a '))!;
    const header = view.out.split('\n')[0]!;
    expect(row.slice(header.indexOf('REPORT LINKS')).trim().split(/\s+/)[0]).toBe(String(count));
  });
});

describe('the leads read from the outbox', () => {
  it('counts each kind by day and each open home, leaving out spam', async () => {
    const store = rig.relay.agencies!.get('agency-a')!.agency.store;
    const today = dayOf(Date.now(), timeZone);
    const counts = await listingLeadCounts(store, listing.id, { since: addDays(today, -1), until: today }, timeZone);
    const registrations = counts.openHomes.reduce((sum, openHome) => sum + openHome.registrations, 0);
    expect(counts.days).toEqual([{ day: today, enquiry: 1, 'open-home': registrations, inspection: 1 }]);
    expect(counts.erased).toEqual([]);
  });
});

describe('the typical listing', () => {
  it("is the median of the listings' cumulative views at each number of days on the market", () => {
    const today = '2031-06-18';
    const listed = new Map([
      [1, '2031-06-14'],
      [2, '2031-06-15'],
      [3, '2031-06-16'],
      [4, '2031-05-01'], // listed before the counts begin: left out
    ]);
    const views = [
      { listingId: 1, day: '2031-06-14', detail: 10 },
      { listingId: 1, day: '2031-06-15', detail: 5 },
      { listingId: 2, day: '2031-06-15', detail: 2 },
      { listingId: 2, day: '2031-06-17', detail: 30 },
      { listingId: 3, day: '2031-06-16', detail: 7 },
      { listingId: 4, day: '2031-06-16', detail: 99 },
    ];
    const points = typicalListing({ listed, views, countedSince: '2031-06-01', today, days: 4 });
    // Day 0: 10, 2, 7 → 7. Day 1: 15, 2, 7 → 7. Day 2: 15, 32, 7 → 15. Day 3: 15, 32 → 23.5. Day 4: 15 alone.
    expect(points).toEqual([
      { day: 0, median: 7, listings: 3 },
      { day: 1, median: 7, listings: 3 },
      { day: 2, median: 15, listings: 3 },
      { day: 3, median: 23.5, listings: 2 },
      { day: 4, median: 15, listings: 1 },
    ]);
  });

  it('series colours meet WCAG AA on white', () => {
    for (const colour of ['#a4460b', '#2d6a31', '#6b3fa0', '#1f4e79', '#0f4c5c']) {
      const value = parseInt(colour.slice(1), 16);
      expect(contrast([(value >> 16) & 255, (value >> 8) & 255, value & 255], [255, 255, 255]), colour).toBeGreaterThanOrEqual(4.5);
    }
  });
});

function expectNothingOfTheListing(body: string): void {
  expect(body).toContain('Report not found');
  for (const word of [listing.address.display, listing.address.suburb ?? '', String(listing.id), 'Contact Agent', rig.entries[0]!.name].filter(Boolean))
    expect(body, word).not.toContain(escape(word));
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function shortOf(day: string): string {
  return new Intl.DateTimeFormat('en-AU', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(Date.parse(`${day}T12:00:00Z`));
}
