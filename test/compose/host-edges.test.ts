// Issue 29: the relay's edges trust nothing they are told about the host. With AGENCIES_FILE the
// host picks the agency (its `hosts`), so: every cached answer is keyed by host (a warm answer cache
// never answers one agency's URL at another's host), X-Forwarded-Host counts only as the proxy next
// to the relay wrote it (its last value; a client's own value comes first when the proxy appends),
// answers Vary on what chose them, and the relay host's robots.txt names no agency. Three simulator
// accounts on one key, one relay (TRUST_PROXY=loopback: the test is the proxy), real HTTP (Host
// headers sent with node:http: fetch cannot set them), real SQLite.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressSlug } from '../../contract/slug.ts';
import { startAgenciesRig, type AgenciesRig, type AgencyFileEntry } from './rig.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const A_HOST = 'listings.agency-a.example';
const B_HOST = 'listings.agency-b.example';
/** The relay's own host as a client reaches it (PUBLIC_URL's would do as well: any host no agency lists). */
const RELAY_HOST = 'relay.integrator.test';
const BROWSER = { 'Accept-Encoding': 'br, gzip' };

/** GET `path` with a Host header of our choosing, and other headers (X-Forwarded-Host: as a proxy in front would send it). */
function getAt(rig: AgenciesRig, host: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${rig.relay.url}${path}`, { headers: { Host: host, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

/** The Vary header's fields, lower case. */
function varyOf(answer: Answer): string[] {
  return String(answer.headers.vary ?? '')
    .split(',')
    .map((field) => field.trim().toLowerCase())
    .filter(Boolean);
}

/**
 * Whether robots.txt lets a crawler fetch `path`, as RFC 9309 says: the group for `*`, the rule
 * whose path matches with the most octets wins (`*` any characters, `$` the end), Allow on a tie.
 */
function robotsAllows(robots: string, path: string): boolean {
  let best: { length: number; allow: boolean } | undefined;
  for (const line of robots.split('\n')) {
    const rule = /^(Allow|Disallow):\s*(\S*)\s*$/i.exec(line);
    if (!rule || !rule[2]) continue;
    const pattern = rule[2];
    const regex = new RegExp(
      `^${pattern
        .split('')
        .map((char, index) => (char === '*' ? '.*' : char === '$' && index === pattern.length - 1 ? '$' : char.replace(/[.+?^${}()|[\]\\/]/g, '\\$&')))
        .join('')}`,
    );
    if (!regex.test(path)) continue;
    const allow = rule[1]!.toLowerCase() === 'allow';
    if (!best || pattern.length > best.length || (pattern.length === best.length && allow)) best = { length: pattern.length, allow };
  }
  return best?.allow ?? true;
}

describe('edges that trust nothing they are told about the host', () => {
  let rig: AgenciesRig;
  const slugs = ['agency-a', 'agency-b', 'agency-c'];

  /** One listing of the agency for sale, with its page path. */
  async function listingOf(slug: string) {
    const { body } = await rig.request(`/a/${slug}/api/v1/listings?type=sale&pageSize=1`);
    const item = body.items[0] as { id: number; address: { display: string } };
    expect(item, `${slug} has a listing for sale`).toBeDefined();
    return { id: item.id, path: `/listings/${item.id}/${addressSlug(item.address.display)}` };
  }

  beforeAll(async () => {
    rig = await startAgenciesRig({
      agencies: 3,
      listings: 8,
      env: { TRUST_PROXY: 'loopback' },
      entry: (entry, index): AgencyFileEntry => {
        if (index === 0) return { ...entry, hosts: [A_HOST], allowedOrigins: [entry.siteUrl!, `https://${A_HOST}`] };
        if (index === 1) return { ...entry, hosts: [B_HOST], allowedOrigins: [entry.siteUrl!, `https://${B_HOST}`] };
        return entry; // C: a site, no hosts.
      },
    });
    await rig.syncAll();
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
  });

  it("never answers one agency's listing API or page at another agency's host, however warm the answer cache", async () => {
    for (const url of ['/a/agency-a/api/v1/listings?pageSize=5', '/a/agency-a/api/v1/agents', '/a/agency-a/api/v1/suburbs']) {
      // Cold: at B's host, A's paths are not there.
      expect((await getAt(rig, B_HOST, url, BROWSER)).status, `${url} cold`).toBe(404);
      // Warm: rendered, then recorded for replay and replayed, at the relay's host and at A's own.
      for (const host of [RELAY_HOST, RELAY_HOST, A_HOST, A_HOST]) expect((await getAt(rig, host, url, BROWSER)).status, `${url} at ${host}`).toBe(200);
      for (const host of [B_HOST, B_HOST.toUpperCase(), `${B_HOST}:443`]) {
        const answer = await getAt(rig, host, url, BROWSER);
        expect(answer.status, `${url} at ${host}, cache warm`).toBe(404);
        expect(JSON.parse(answer.text)).toMatchObject({ error: 'unknown_agency' });
      }
      // The same at B's host named by the proxy (X-Forwarded-Host), the Host being the relay's.
      expect((await getAt(rig, RELAY_HOST, url, { ...BROWSER, 'X-Forwarded-Host': B_HOST })).status, `${url} forwarded for B`).toBe(404);
    }

    // The pages, kept in the answer cache too: each host gets its own agency's, warm or not.
    const a = await listingOf('agency-a');
    for (let round = 0; round < 2; round++) {
      const atA = await getAt(rig, A_HOST, a.path, BROWSER);
      expect(atA.status).toBe(200);
    }
    // A's listing page at B's host: 404, in B's own name.
    const atB = await getAt(rig, B_HOST, a.path, BROWSER);
    expect(atB.status).toBe(404);
    // List pages: the same URL, each host its own agency's listings.
    const ownList = async (slug: string) => (await getAt(rig, RELAY_HOST, `/a/${slug}/listings/buy`, { 'Accept-Encoding': 'identity' })).text;
    const [listA, listB] = [await ownList('agency-a'), await ownList('agency-b')];
    for (let round = 0; round < 2; round++) {
      const byA = await getAt(rig, A_HOST, '/listings/buy', { 'Accept-Encoding': 'identity' });
      const byB = await getAt(rig, B_HOST, '/listings/buy', { 'Accept-Encoding': 'identity' });
      expect(byA.status).toBe(200);
      expect(byB.status).toBe(200);
      expect(byA.text).toBe(listA);
      expect(byB.text).toBe(listB);
      expect(byA.text).not.toBe(byB.text);
      expect(byA.text).toContain(`/a/agency-a/widget.js`);
      expect(byB.text).toContain(`/a/agency-b/widget.js`);
      expect(byB.text).not.toContain('/a/agency-a/');
    }
    expect(listA).not.toBe(listB);
  });

  it('takes X-Forwarded-Host only as the proxy next to the relay wrote it (its last value), never a value the client put first', async () => {
    const a = await listingOf('agency-a');
    const b = await listingOf('agency-b');
    // The proxy appends: the client's forged value first, the host the proxy saw last.
    const forged = (first: string, last: string) => ({ ...BROWSER, 'X-Forwarded-Host': `${first}, ${last}` });
    // Warm A's pages at A's host first: a forged request must not be answered from them either.
    expect((await getAt(rig, A_HOST, a.path, BROWSER)).status).toBe(200);
    expect((await getAt(rig, A_HOST, '/listings/buy', BROWSER)).status).toBe(200);

    // Reached at the relay's host, claiming A's: no agency's pages, the relay's robots.txt.
    const atRelay = await getAt(rig, RELAY_HOST, a.path, forged(A_HOST, RELAY_HOST));
    expect(atRelay.status).toBe(404);
    expect(JSON.parse(atRelay.text)).toMatchObject({ error: 'unknown_host' });
    expect((await getAt(rig, RELAY_HOST, '/listings/buy', forged(A_HOST, RELAY_HOST))).status).toBe(404);
    const robots = await getAt(rig, RELAY_HOST, '/robots.txt', forged(A_HOST, RELAY_HOST));
    expect(robots.text).not.toContain('Sitemap:');

    // Reached at B's host, claiming A's: B's pages, never A's.
    expect((await getAt(rig, B_HOST, a.path, forged(A_HOST, B_HOST))).status).toBe(404);
    expect((await getAt(rig, B_HOST, b.path, forged(A_HOST, B_HOST))).status).toBe(200);
    const buyAtB = await getAt(rig, B_HOST, '/listings/buy', { ...forged(A_HOST, B_HOST), 'Accept-Encoding': 'identity' });
    expect(buyAtB.status).toBe(200);
    expect(buyAtB.text).toContain('/a/agency-b/widget.js');
    expect(buyAtB.text).not.toContain('/a/agency-a/');
    // Nor A's API under B's host by claiming A's; B's own API answers as at B's host.
    expect((await getAt(rig, RELAY_HOST, '/a/agency-a/api/v1/listings?pageSize=5', forged(A_HOST, B_HOST))).status).toBe(404);
    expect((await getAt(rig, RELAY_HOST, '/a/agency-b/api/v1/listings?pageSize=5', forged(A_HOST, B_HOST))).status).toBe(200);

    // A client writing a new first value each time gets the one answer kept for the host the proxy
    // wrote: the forged values neither choose nor add entries to the answer cache.
    const api = '/a/agency-b/api/v1/listings?pageSize=4';
    const kept = await getAt(rig, RELAY_HOST, api, forged(A_HOST, B_HOST));
    const entries = rig.relay.answers.size;
    for (let i = 0; i < 20; i++) {
      const again = await getAt(rig, RELAY_HOST, api, forged(`forged-${i}.example`, B_HOST));
      expect(again.status).toBe(200);
      expect(again.headers.etag).toBe(kept.headers.etag);
    }
    expect(rig.relay.answers.size).toBe(entries);

    // A proxy that overwrites (deploy/nginx.conf) sends one value: that one counts, as before.
    expect((await getAt(rig, RELAY_HOST, a.path, { ...BROWSER, 'X-Forwarded-Host': A_HOST })).status).toBe(200);
    // And two header lines (node joins them in order): the last one counts.
    const twoLines = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${rig.relay.url}${a.path}`, {
        headers: [
          ['Host', RELAY_HOST],
          ['X-Forwarded-Host', A_HOST],
          ['X-Forwarded-Host', RELAY_HOST],
        ] as never,
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on('error', reject);
      request.end();
    });
    expect(twoLines).toBe(404);
  });

  it('makes pages, API answers and robots.txt Vary on what chose them (Host, X-Forwarded-Host) besides Accept-Encoding', async () => {
    const a = await listingOf('agency-a');
    const answers = {
      page: await getAt(rig, A_HOST, a.path, BROWSER),
      list: await getAt(rig, A_HOST, '/listings/buy', BROWSER),
      sitemap: await getAt(rig, A_HOST, '/sitemap.xml', BROWSER),
      copy: await getAt(rig, RELAY_HOST, `/a/agency-a${a.path}`, BROWSER),
      api: await getAt(rig, RELAY_HOST, '/a/agency-a/api/v1/listings?pageSize=3', BROWSER),
      // Twice more: the second is the recorded answer, replayed before Express; it carries the same Vary.
      apiAgain: await getAt(rig, RELAY_HOST, '/a/agency-a/api/v1/listings?pageSize=3', BROWSER),
      apiReplayed: await getAt(rig, RELAY_HOST, '/a/agency-a/api/v1/listings?pageSize=3', BROWSER),
      robots: await getAt(rig, A_HOST, '/robots.txt'),
      notFound: await getAt(rig, RELAY_HOST, '/listings/buy'),
    };
    for (const [name, answer] of Object.entries(answers)) {
      const vary = varyOf(answer);
      expect(vary, name).toContain('host');
      expect(vary, name).toContain('x-forwarded-host');
      if (!['robots', 'notFound'].includes(name)) expect(vary, name).toContain('accept-encoding');
    }
  });

  it("names no agency in the relay host's robots.txt, yet keeps every agency's page copies out and its API open; each agency's host keeps its sitemap", async () => {
    const robots = await getAt(rig, RELAY_HOST, '/robots.txt');
    expect(robots.status).toBe(200);
    for (const entry of rig.entries) {
      expect(robots.text).not.toContain(entry.slug);
      expect(robots.text).not.toContain(entry.name);
    }
    for (const slug of slugs) {
      const { id, path } = await listingOf(slug);
      for (const copy of [path, '/listings/buy', '/listings/buy/kew?page=2', '/listings/sitemap.xml', '/sitemap.xml', `/fragments/listings/${id}`])
        expect(robotsAllows(robots.text, `/a/${slug}${copy}`), `/a/${slug}${copy}`).toBe(false);
      for (const open of ['/api/v1/listings?pageSize=12', `/api/v1/listings/${id}`, `/api/v1/listings/${id}/open-homes/1.ics`, '/api/v1/agents', '/widget.js'])
        expect(robotsAllows(robots.text, `/a/${slug}${open}`), `/a/${slug}${open}`).toBe(true);
    }
    expect(robotsAllows(robots.text, '/photos/ab/abcdef-240.webp')).toBe(true);
    expect(robotsAllows(robots.text, '/widget.js')).toBe(true);
    // An agency's host: its own sitemap, its pages open.
    const atA = await getAt(rig, A_HOST, '/robots.txt');
    expect(atA.text).toContain('Sitemap: https://agency-a.example/listings/sitemap.xml');
    expect(robotsAllows(atA.text, '/listings/buy')).toBe(true);
  });
});
