// Issue 23: server-rendered listing pages for every agency of AGENCIES_FILE, under /a/<slug>/ and
// at the root paths of each agency's own host names (`hosts`). Three simulator accounts on one
// key, one relay, real SQLite, real HTTP (Host headers sent with node:http: fetch cannot set them),
// and each agency's wrapper page served by a real HTTP server.
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressSlug } from '../../contract/slug.ts';
import { escapeHtml } from '../../server/pages/html.ts';
import { PUBLIC_URL, startAgenciesRig, until, type AgenciesRig, type AgencyFileEntry } from './rig.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** GET `path` from the relay with a Host header of our choosing (and any other headers). */
function getAt(rig: AgenciesRig, host: string | null, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${rig.relay.url}${path}`, { headers: { ...(host ? { Host: host } : {}), ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

function attribute(html: string, pattern: RegExp): string {
  const match = html.match(pattern);
  if (!match) throw new Error(`no ${pattern} in the page`);
  return unescapeHtml(match[1]!);
}

const canonicalOf = (html: string) => attribute(html, /<link rel="canonical" href="([^"]*)"/);
const metaOf = (html: string, key: string) => attribute(html, new RegExp(`<meta (?:name|property)="${key}" content="([^"]*)"`));
const locsOf = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => unescapeHtml(match[1]!));
/** Listing ids in a sitemap's listing URLs (`…/<id>/<slug>`). */
const sitemapIds = (xml: string, prefix: string) =>
  locsOf(xml)
    .map((loc) => new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(\\d+)/`).exec(loc)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number);

/** Each agency's wrapper page: its own header, so a page shows whose shell it is in. */
const shell = (name: string) =>
  `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><title>${name} home</title><link rel="canonical" href="https://x.example/"></head>` +
  `<body><header id="shell-${name}">${name} header</header><main><!-- estate-embed --></main><footer>${name} footer</footer></body></html>`;

describe('listing pages of every agency on one relay', () => {
  let rig: AgenciesRig;
  let wrapperSite: Server;
  let wrapperOrigin: string;
  const wrapperRequests = new Map<string, number>();
  const hostOf = { 'agency-a': 'listings.agency-a.example', 'agency-b': 'listings.agency-b.example' } as const;
  const site = (slug: string) => rig.entries.find((entry) => entry.slug === slug)!.siteUrl!;
  const prefixOf = (slug: string) => rig.entries.find((entry) => entry.slug === slug)!.listingPath ?? '/listings';
  const slugs = ['agency-a', 'agency-b', 'agency-c'];

  /** One listing of the agency (for sale, or any), with its page path. */
  async function listingOf(slug: string, query = 'type=sale') {
    const { body } = await rig.request(`/a/${slug}/api/v1/listings?${query}&pageSize=1`);
    const item = body.items[0] as { id: number; address: { display: string } };
    expect(item, `${slug} has a listing (${query})`).toBeDefined();
    return { id: item.id, path: `/listings/${item.id}/${addressSlug(item.address.display)}` };
  }

  beforeAll(async () => {
    wrapperSite = createServer((req, res) => {
      const name = (req.url ?? '/').slice('/shell-'.length);
      wrapperRequests.set(name, (wrapperRequests.get(name) ?? 0) + 1);
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(shell(name));
    });
    await new Promise<void>((resolve) => wrapperSite.listen(0, '127.0.0.1', resolve));
    wrapperOrigin = `http://127.0.0.1:${(wrapperSite.address() as AddressInfo).port}`;
    rig = await startAgenciesRig({
      agencies: 3,
      listings: 8,
      maxUrlsPerSitemap: 1000,
      entry: (entry, index): AgencyFileEntry => {
        if (index === 0)
          return {
            ...entry,
            hosts: [hostOf['agency-a']],
            wrapperUrl: `${wrapperOrigin}/shell-A`,
            timeZone: 'Australia/Perth',
            allowedOrigins: [entry.siteUrl!, `https://${hostOf['agency-a']}`],
          };
        // B: its site maps the relay's /listings/ to /property (the WordPress and Worker recipes).
        if (index === 1)
          return { ...entry, hosts: [hostOf['agency-b'], 'www.agency-b.example'], wrapperUrl: `${wrapperOrigin}/shell-B`, listingPath: '/property' };
        return entry; // C: a site, no hosts, no wrapper (the plain shell), the default time zone.
      },
    });
    await rig.syncAll();
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    await new Promise((resolve) => wrapperSite?.close(resolve));
  });

  it("serves each agency's listing page under /a/<slug>/: its name, canonical and Open Graph on its siteUrl, its wrapper, its widget and time zone", async () => {
    for (const slug of slugs) {
      const entry = rig.entries.find((each) => each.slug === slug)!;
      const { id, path } = await listingOf(slug);
      const answer = await getAt(rig, null, `/a/${slug}${path}`);
      expect(answer.status, `${slug} ${path}`).toBe(200);
      const html = answer.text;
      const canonical = `${site(slug)}${prefixOf(slug)}/${path.slice('/listings/'.length)}`;
      expect(canonicalOf(html)).toBe(canonical);
      expect(metaOf(html, 'og:url')).toBe(canonical);
      expect(metaOf(html, 'og:site_name')).toBe(entry.name);
      expect(attribute(html, /<title>([^<]*)<\/title>/)).toMatch(new RegExp(`· ${entry.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      // The JSON-LD names the agency on its own site.
      expect(html).toContain(`"@id":"${site(slug)}/#agency"`);
      // Its widget and API, under its slug: the enquiry form posts to this agency, with its token.
      expect(html).toContain(`<script type="module" src="${PUBLIC_URL}/a/${slug}/widget.js"></script>`);
      expect(html).toMatch(new RegExp(`<estate-listing\\s[^>]*relay="${PUBLIC_URL}/a/${slug}"`));
      expect(html).toMatch(new RegExp(`<estate-listing\\s[^>]*time-zone="${entry.timeZone ?? 'Australia/Sydney'}"`));
      expect(html).toContain(`"id":${id}`);
      // Its own shell (A and B), or the plain one (C); never another agency's.
      if (slug === 'agency-a') expect(html).toContain('<header id="shell-A">');
      if (slug === 'agency-b') expect(html).toContain('<header id="shell-B">');
      for (const other of ['A', 'B']) if (!(slug === `agency-${other.toLowerCase()}`)) expect(html).not.toContain(`shell-${other}`);
    }
  });

  it('serves the same pages at the root paths of its hosts, in any case and with a port', async () => {
    const { path } = await listingOf('agency-a');
    const byPath = await getAt(rig, null, `/a/agency-a${path}`);
    for (const host of [hostOf['agency-a'], 'LISTINGS.Agency-A.example:443', `${hostOf['agency-a']}.`]) {
      const byHost = await getAt(rig, host, path);
      expect(byHost.status, host).toBe(200);
      // One page, one cache: the very bytes (and ETag) of the page by path.
      expect(byHost.headers.etag).toBe(byPath.headers.etag);
      expect(canonicalOf(byHost.text)).toBe(`${site('agency-a')}/listings${path.slice('/listings'.length)}`);
    }
    // B's second name serves B.
    const ofB = await listingOf('agency-b');
    const atWww = await getAt(rig, 'www.agency-b.example', ofB.path);
    expect(atWww.status).toBe(200);
    expect(canonicalOf(atWww.text)).toBe(`${site('agency-b')}/property${ofB.path.slice('/listings'.length)}`);
    // A wrong slug in the path redirects within the host (to the site's path, as single-agency mode does).
    const stale = await getAt(rig, hostOf['agency-a'], path.replace(/\/[^/]+$/, '/old-address'));
    expect(stale.status).toBe(301);
    expect(stale.headers.location).toBe(path);
  });

  it('serves list pages, sitemaps and fragments per agency, by path and by Host, each with only its own listings', async () => {
    const idsOf = new Map<string, number[]>();
    for (const slug of slugs) {
      const prefix = `${site(slug)}${prefixOf(slug)}`;
      const sitemap = await getAt(rig, null, `/a/${slug}/sitemap.xml`);
      expect(sitemap.status).toBe(200);
      expect(sitemap.headers['content-type']).toMatch(/^application\/xml/);
      const locs = locsOf(sitemap.text);
      expect(locs.length).toBeGreaterThan(3);
      expect(locs.every((loc) => loc.startsWith(`${prefix}/`))).toBe(true);
      expect(locs).toContain(`${prefix}/buy`);
      const ids = sitemapIds(sitemap.text, prefix);
      expect(ids.length).toBeGreaterThan(0);
      idsOf.set(slug, ids);
      expect((await getAt(rig, null, `/a/${slug}/listings/sitemap.xml`)).text).toBe(sitemap.text);

      const buy = await getAt(rig, null, `/a/${slug}/listings/buy`);
      expect(buy.status).toBe(200);
      expect(canonicalOf(buy.text)).toBe(`${prefix}/buy`);
      const cardIds = (
        JSON.parse(attribute(buy.text, /<script type="application\/json" data-estate-ssr>([^<]*)<\/script>/)) as { listings: Array<{ id: number }> }
      ).listings.map((card) => card.id);
      expect(cardIds.length).toBeGreaterThan(0);
      expect(cardIds.filter((id) => !ids.includes(id))).toEqual([]);

      const { id } = await listingOf(slug);
      const fragment = await getAt(rig, null, `/a/${slug}/fragments/listings/${id}`);
      expect(fragment.status).toBe(200);
      const parts = JSON.parse(fragment.text) as { status: number; canonical: string; head: string; body: string };
      expect(parts.status).toBe(200);
      expect(parts.canonical.startsWith(`${prefix}/${id}/`)).toBe(true);
      expect(parts.head).toContain(`src="${PUBLIC_URL}/a/${slug}/widget.js"`);
      const listFragment = JSON.parse((await getAt(rig, null, `/a/${slug}/fragments/listings/rent`)).text) as { status: number; canonical: string };
      expect(listFragment).toMatchObject({ status: 200, canonical: `${prefix}/rent` });
    }
    // The agencies' listings do not overlap: each sitemap is its own.
    const all = [...idsOf.values()].flat();
    expect(new Set(all).size).toBe(all.length);

    // By Host: the same sitemap (at /sitemap.xml and /listings/sitemap.xml), lists and fragments.
    for (const slug of ['agency-a', 'agency-b'] as const) {
      const byPath = (await getAt(rig, null, `/a/${slug}/sitemap.xml`)).text;
      expect((await getAt(rig, hostOf[slug], '/sitemap.xml')).text).toBe(byPath);
      expect((await getAt(rig, hostOf[slug], '/listings/sitemap.xml')).text).toBe(byPath);
      const buy = await getAt(rig, hostOf[slug], '/listings/buy');
      expect(buy.status).toBe(200);
      expect(canonicalOf(buy.text)).toBe(`${site(slug)}${prefixOf(slug)}/buy`);
      const { id } = await listingOf(slug);
      const fragment = JSON.parse((await getAt(rig, hostOf[slug], `/fragments/listings/${id}`)).text) as { status: number; canonical: string };
      expect(fragment.status).toBe(200);
      expect(fragment.canonical.startsWith(`${site(slug)}${prefixOf(slug)}/${id}/`)).toBe(true);
    }
  });

  it("never shows another agency's listing, agent, name or wrapper: by path or by Host, in both directions", async () => {
    const a = await listingOf('agency-a');
    const b = await listingOf('agency-b');
    // A's listing under B's path and at B's host, and B's under A's: 404, with B's (A's) own name and shell.
    for (const [listing, owner, other] of [
      [a, 'agency-a', 'agency-b'],
      [b, 'agency-b', 'agency-a'],
    ] as const) {
      const ownerName = rig.entries.find((entry) => entry.slug === owner)!.name;
      const otherName = rig.entries.find((entry) => entry.slug === other)!.name;
      for (const answer of [
        await getAt(rig, null, `/a/${other}${listing.path}`),
        await getAt(rig, hostOf[other], listing.path),
        await getAt(rig, null, `/a/${other}/fragments/listings/${listing.id}`),
        await getAt(rig, hostOf[other], `/fragments/listings/${listing.id}`),
      ]) {
        expect(answer.status).toBe(404);
        expect(answer.text).not.toContain(escapeHtml(ownerName));
        expect(answer.text).not.toContain(ownerName);
        expect(answer.text).not.toContain(`"id":${listing.id},`);
      }
      const notFound = await getAt(rig, hostOf[other], listing.path);
      expect(notFound.text).toContain(escapeHtml(otherName));
      expect(notFound.text).toContain(`<header id="shell-${other.slice(-1).toUpperCase()}">`);
      expect(notFound.text).toContain('<meta name="robots" content="noindex">');
    }
    // At an agency's own host, another agency's /a/<slug>/ paths are not there at all.
    expect((await getAt(rig, hostOf['agency-a'], `/a/agency-b${b.path}`)).status).toBe(404);
    expect((await getAt(rig, hostOf['agency-a'], '/a/agency-b/api/v1/listings')).status).toBe(404);
    expect((await getAt(rig, hostOf['agency-a'], `/a/agency-a${a.path}`)).status).toBe(200);

    // No name, agent or shell of another agency on any page of this one (its list page and a listing).
    const agentsOf = async (slug: string) => ((await rig.request(`/a/${slug}/api/v1/agents`)).body.items as Array<{ name: string }>).map((agent) => agent.name);
    const agents = new Map(await Promise.all(slugs.map(async (slug) => [slug, await agentsOf(slug)] as const)));
    let checkedNames = 0;
    for (const slug of slugs) {
      const pages = [(await getAt(rig, null, `/a/${slug}/listings/buy`)).text, (await getAt(rig, null, `/a/${slug}${(await listingOf(slug)).path}`)).text];
      for (const other of slugs.filter((each) => each !== slug)) {
        const otherEntry = rig.entries.find((entry) => entry.slug === other)!;
        const onlyTheirs = agents.get(other)!.filter((name) => !agents.get(slug)!.includes(name));
        checkedNames += onlyTheirs.length;
        for (const html of pages) {
          expect(html).not.toContain(otherEntry.name);
          expect(html).not.toContain(escapeHtml(otherEntry.name));
          expect(html).not.toContain(`/a/${other}/`);
          for (const name of onlyTheirs) {
            expect(html).not.toContain(name);
            expect(html).not.toContain(escapeHtml(name));
          }
        }
      }
    }
    expect(checkedNames).toBeGreaterThan(0);
  });

  it('answers 404 for the pages at a host no agency lists, at the relay host, and for an unknown slug', async () => {
    const { path } = await listingOf('agency-a');
    for (const host of [null, new URL(PUBLIC_URL).host, 'nobody.example', 'agency-a.example']) {
      for (const root of [path, '/listings/buy', '/sitemap.xml', `/fragments${path.replace(/\/[^/]+$/, '')}`]) {
        const answer = await getAt(rig, host, root);
        expect(answer.status, `${host} ${root}`).toBe(404);
        expect(JSON.parse(answer.text)).toMatchObject({ error: 'unknown_host' });
      }
    }
    const unknownSlug = await getAt(rig, null, '/a/nobody/listings/buy');
    expect(unknownSlug.status).toBe(404);
    expect(JSON.parse(unknownSlug.text)).toMatchObject({ error: 'unknown_agency' });
    // An agency's host is its pages: the root API serves no agency there either.
    expect((await getAt(rig, hostOf['agency-a'], '/api/v1/listings')).status).toBe(404);
    // X-Forwarded-Host is not believed without TRUST_PROXY (this relay trusts no proxy).
    expect((await getAt(rig, null, path, { 'X-Forwarded-Host': hostOf['agency-a'] })).status).toBe(404);
  });

  it("answers robots.txt by Host: an agency's host opens its pages and names its sitemap; the relay's keeps the copies under /a/<slug>/ out, naming no slug", async () => {
    const atA = await getAt(rig, hostOf['agency-a'], '/robots.txt');
    expect(atA.status).toBe(200);
    expect(atA.headers['content-type']).toMatch(/^text\/plain/);
    expect(atA.text).toContain(`Sitemap: ${site('agency-a')}/listings/sitemap.xml`);
    expect(atA.text).toMatch(/^Disallow: \/a\/$/m);
    expect(atA.text).not.toMatch(/^Disallow: \/listings/m);
    expect((await getAt(rig, 'www.agency-b.example', '/robots.txt')).text).toContain(`Sitemap: ${site('agency-b')}/property/sitemap.xml`);
    // The relay's: the copies under /a/<slug>/ kept out by wildcard, naming no agency (test/compose/host-edges.test.ts reads the rules).
    const atRelay = await getAt(rig, null, '/robots.txt');
    expect(atRelay.text).toContain('Disallow: /a/*/listings\n');
    for (const slug of slugs) expect(atRelay.text).not.toContain(slug);
    // The widget, API and photos stay open to a crawler rendering the agencies' sites.
    expect(atRelay.text).not.toMatch(/^Disallow: (?:\/a\/$|.*(?:\/api\/|\/photos\/|widget))/m);
  });

  it('keeps each agency its own wrapper copy and published-pages record: a withdrawn listing is 410 at its agency and still 404 at the others', async () => {
    expect(wrapperRequests.get('A')).toBe(1);
    expect(wrapperRequests.get('B')).toBe(1);
    const account = rig.accounts[2]!;
    const { id, path } = await listingOf('agency-c');
    expect((await getAt(rig, null, `/a/agency-c${path}`)).status).toBe(200);
    // Public ids are the CRM's per life and market: the simulator's listing is id / 2 of its life.
    const listing = account.listings.find((candidate) => candidate.lifeId * 2 === id && candidate.market === 'sale');
    expect(listing).toBeDefined();
    account.withdrawListing(listing!.id, 'sale');
    await rig.syncAll();
    const gone = await until(
      () => getAt(rig, null, `/a/agency-c${path}`),
      (answer) => answer.status === 410,
    );
    expect(gone.status).toBe(410);
    expect((await getAt(rig, null, `/a/agency-a${path}`)).status).toBe(404);
    expect((await getAt(rig, hostOf['agency-b'], path)).status).toBe(404);
  });

  it("refuses a reload that gives an agency the relay's own host or another agency's, naming agency and field; the pages keep serving", async () => {
    const before = rig.entries;
    rig.writeAgencies(before.map((entry) => (entry.slug === 'agency-c' ? { ...entry, hosts: [new URL(PUBLIC_URL).hostname, 'WWW.agency-b.example'] } : entry)));
    const report = await rig.relay.agencies!.reload();
    expect(report.ok).toBe(false);
    expect(report.problems).toEqual([
      expect.stringMatching(/^AGENCIES_FILE: "agency-c": hosts\.0: "relay\.integrator\.test" is the relay's own host \(PUBLIC_URL\)/),
      `AGENCIES_FILE: "agency-c": hosts.1: "www.agency-b.example" is also agency "agency-b"'s (a host name serves one agency's pages)`,
    ]);
    expect((await getAt(rig, 'www.agency-b.example', '/listings/buy')).status).toBe(200);
    expect(canonicalOf((await getAt(rig, 'www.agency-b.example', '/listings/buy')).text)).toBe(`${site('agency-b')}/property/buy`);
    rig.writeAgencies(before);
  });

  it('picks up changed hosts, wrapperUrl, siteUrl and timeZone on reload', async () => {
    const { path } = await listingOf('agency-a');
    rig.writeAgencies(
      rig.entries.map((entry) =>
        entry.slug === 'agency-a'
          ? {
              ...entry,
              hosts: ['homes.agency-a.example'],
              siteUrl: 'https://agency-a.example.net',
              wrapperUrl: `${wrapperOrigin}/shell-A2`,
              timeZone: 'Australia/Darwin',
            }
          : entry,
      ),
    );
    const report = await rig.relay.agencies!.reload();
    expect(report).toMatchObject({ ok: true, changed: ['agency-a'], added: [], removed: [] });
    expect((await getAt(rig, hostOf['agency-a'], path)).status).toBe(404);
    const moved = await getAt(rig, 'homes.agency-a.example', path);
    expect(moved.status).toBe(200);
    expect(canonicalOf(moved.text)).toBe(`https://agency-a.example.net${path}`);
    expect(moved.text).toContain('<header id="shell-A2">');
    expect(moved.text).not.toContain('shell-A"');
    expect(moved.text).toContain('time-zone="Australia/Darwin"');
    expect((await getAt(rig, null, `/a/agency-a${path}`)).text).toBe(moved.text);
    expect((await getAt(rig, 'homes.agency-a.example', '/robots.txt')).text).toContain('Sitemap: https://agency-a.example.net/listings/sitemap.xml');
    // The others are as they were.
    expect((await getAt(rig, hostOf['agency-b'], '/listings/buy')).status).toBe(200);
  });
});

describe('listing pages of agencies behind a proxy, with a render limit', () => {
  let rig: AgenciesRig;

  beforeAll(async () => {
    rig = await startAgenciesRig({
      agencies: 2,
      listings: 30,
      env: { TRUST_PROXY: 'loopback', UNCACHED_RENDERS_PER_MINUTE: '3' },
      entry: (entry, index) => ({ ...entry, hosts: [`listings.agency-${index === 0 ? 'a' : 'b'}.example`] }),
    });
    await rig.syncAll();
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  it('takes the host from X-Forwarded-Host when TRUST_PROXY trusts the proxy (here: loopback)', async () => {
    const forwarded = await getAt(rig, 'relay.internal', '/listings/buy', { 'X-Forwarded-Host': 'listings.agency-b.example' });
    expect(forwarded.status).toBe(200);
    expect(canonicalOf(forwarded.text)).toBe('https://agency-b.example/listings/buy');
  });

  it("counts renders per agency: one agency's crawler at its limit leaves the others' pages rendering", async () => {
    const ids = async (slug: string) =>
      ((await rig.request(`/a/${slug}/api/v1/listings?pageSize=10`)).body.items as Array<{ id: number; address: { display: string } }>).map(
        (item) => `/listings/${item.id}/${addressSlug(item.address.display)}`,
      );
    const ofA = await ids('agency-a');
    const ofB = await ids('agency-b');
    expect(ofA.length).toBeGreaterThan(7);
    // /listings/buy was rendered for B by the test before: the limit of 3 counts this minute's renders.
    const statusesA: number[] = [];
    // Until refused (a minute that ends meanwhile allows three more).
    for (const path of ofA) {
      statusesA.push((await getAt(rig, null, `/a/agency-a${path}`)).status);
      if (statusesA.at(-1) === 429) break;
    }
    expect(statusesA).toContain(429);
    expect((await getAt(rig, null, `/a/agency-b${ofB[0]}`)).status).toBe(200);
    // A page already rendered is still served to the client at its limit.
    expect((await getAt(rig, null, `/a/agency-a${ofA[0]}`)).status).toBe(200);
  });
});
