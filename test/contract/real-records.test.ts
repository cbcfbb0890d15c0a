import { addressSlug } from '../../contract/slug.ts';
import { readdirSync, readFileSync, rmSync, statSync, mkdtempSync } from 'node:fs';
import { readRealRecords } from '../support/real-records.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { crmPropertySchema, crmUserSchema } from '../../server/crm/schemas.ts';
import { publicAgentSchema, publicListingSchema } from '../../server/listings/public-schema.ts';
import { agentFromCrm, listingFromCrm } from '../../server/crm/public-fields.ts';
import { TeamRules } from '../../server/listings/team.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import { buildWidgetBundle } from '../support/browser.ts';

/*
 * Contract test over real data: one page of a real agency's v1.3 sold list (26 records,
 * anonymised; every confidential field holds a `CANARY-<field>-<id>` marker). A fixture CRM serves
 * it over real HTTP exactly as dumped (with `{HOST}` replaced by a fixture file host serving real
 * JPEGs); a whole relay syncs it. No record may be dropped, and no CANARY may reach an API answer,
 * a file the relay wrote (SQLite cache, mirrored photos), the widget bundle or a log line.
 */

const CANARY = 'CANARY';
const rawDump = readRealRecords();
const dump = JSON.parse(rawDump) as { items: Array<Record<string, any>> };
const API_KEY = 'contract-api-key';
const ACCESS_TOKEN = 'contract-access-token';

interface Fixture {
  server: Server;
  origin: string;
  requests: string[];
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse, origin: string) => void | Promise<void>): Promise<Fixture> {
  const requests: string[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    Promise.resolve(handler(req, res, origin)).catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin, requests };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function emptyList(self: string) {
  return { items: [], totalItems: 0, totalPages: 0, urls: { previous: null, next: null, self } };
}

/** Real JPEGs, one of a few colours by file name, 800×600 as the real photos are (thumbnails at their width). */
const jpegs = new Map<string, Promise<Buffer>>();
function jpeg(shade: number, width: number): Promise<Buffer> {
  const key = `${shade}:${width}`;
  let pending = jpegs.get(key);
  if (!pending) {
    const height = Math.round((width * 3) / 4);
    pending = sharp({ create: { width, height, channels: 3, background: { r: 40 + shade * 25, g: 120, b: 200 - shade * 20 } } })
      .jpeg({ quality: 80 })
      .toBuffer();
    jpegs.set(key, pending);
  }
  return pending;
}

let fileHost: Fixture;
let crm: Fixture;
let relay: RunningRelay;
let dataDir: string;
const logLines: string[] = [];
/** The relay's listing ids of the records: one per sale life (a property sold twice is two listings). */
let soldIds: number[];
let listed: ListingSummary[];
let details: ListingDetail[];
const answers: string[] = [];

beforeAll(async () => {
  fileHost = await listen(async (req, res) => {
    const match = /^\/(photos|staff)\/(\d+)(?:-(\d+))?\.jpg$/.exec(req.url ?? '');
    if (!match) return json(res, 404, { error: 'not found' });
    const body = await jpeg(Number(match[2]) % 6, match[3] ? Math.min(Number(match[3]), 1024) : 800);
    res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': body.length });
    res.end(body);
  });
  const served = rawDump.replaceAll('{HOST}', fileHost.origin);
  const staff = [...new Map(dump.items.flatMap((item) => item.contactStaff as Array<Record<string, any>>).map((user) => [user.id, user])).values()];
  const staffJson = JSON.stringify(staff).replaceAll('{HOST}', fileHost.origin);

  crm = await listen((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    if (req.headers['x-api-key'] !== API_KEY) return json(res, 403, { success: false, msg: 'Forbidden', code: 'INVALID_API_KEY' });
    if (req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return json(res, 401, { success: false, msg: 'Unauthorized', code: 'INVALID_ACCESS_TOKEN' });
    const path = url.pathname.replace(/^\/api\/v1\.3/, '');
    if (path === '/properties/residential/sale/sold') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(served);
    }
    if (/^\/properties\/residential\/(sale|lease)(\/available)?$/.test(path) || path === '/openHomes') return json(res, 200, emptyList(url.href));
    if (path === '/account/users') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return void res.end(`{"items":${staffJson},"totalItems":${staff.length},"totalPages":1,"urls":{"previous":null,"next":null,"self":"${url.href}"}}`);
    }
    if (path === '/scopes') return json(res, 200, []);
    if (path === '/integrator/usage') return json(res, 200, { used: 0, remaining: 10_000 });
    return json(res, 404, { success: false, msg: `No endpoint ${path}`, code: 'NOT_FOUND' });
  });

  dataDir = mkdtempSync(join(tmpdir(), 'estate-contract-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: 'https://relay.agency.test',
    DATA_DIR: dataDir,
    CRM_BASE_URL: `${crm.origin}/api/v1.3`,
    CRM_API_KEY: API_KEY,
    CRM_ACCESS_TOKEN: ACCESS_TOKEN,
    CRM_REQUESTS_PER_SECOND: '50',
    PHOTO_HOSTS: new URL(fileHost.origin).host,
    PHOTO_WIDTHS: '240,480',
    // The dump is from 2022: a window wide enough to keep it in the sold showcase.
    SOLD_DAYS: '3650',
    SITE_PHONE: '(03) 5550 0100',
    LOG_LEVEL: 'debug',
  });
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  relay = await startRelay(config, { log: createLogger({ level: 'debug' }, sink), workers: false, app: { demoDir: null } });
  const report = await relay.listings.sync.run('full');
  expect(report.error).toBeUndefined();

  const get = async (path: string) => {
    const response = await fetch(`${relay.url}${path}`);
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text };
  };
  soldIds = dump.items.map((item) => (item.saleLifeId as number) * 2).sort((a, b) => a - b);
  const page = await get('/api/v1/listings?status=sold&pageSize=100');
  expect(page.status).toBe(200);
  listed = (JSON.parse(page.text) as Page<ListingSummary>).items;
  details = [];
  for (const id of soldIds) {
    const detail = await get(`/api/v1/listings/${id}`);
    expect(detail.status, `listing ${id}`).toBe(200);
    details.push(JSON.parse(detail.text) as ListingDetail);
  }
  answers.push((await get('/api/v1/agents')).text);
  // The agency's people (#31): the team, each staff member's answer and page (404 for the back office), the team page.
  const team = await get('/api/v1/team');
  expect(team.status).toBe(200);
  const members = (JSON.parse(team.text) as { items: Array<{ id: number; slug: string; phone: string | null }> }).items;
  expect(members.length).toBeGreaterThan(0);
  // The real web staff give only a mobile, which is theirs to publish: without AGENT_DIRECT_CONTACT they are reached at the office.
  expect(members.map((member) => member.phone)).toEqual(members.map(() => '(03) 5550 0100'));
  const publicIds = new Set(members.map((member) => member.id));
  const staffIds = new Set(dump.items.flatMap((item) => (item.contactStaff as Array<{ id: number }>).map((user) => user.id)));
  for (const id of staffIds) {
    // The team's people answer; everyone else on the records (not shown on the web) is 404 on every route.
    const expected = publicIds.has(id) ? 200 : 404;
    expect((await get(`/api/v1/agents/${id}`)).status, `agent ${id}`).toBe(expected);
    const slug = members.find((member) => member.id === id)?.slug ?? 'someone';
    expect((await get(`/listings/agents/${id}/${slug}`)).status, `page of agent ${id}`).toBe(expected);
    expect((await get(`/fragments/listings/agents/${id}`)).status, `fragment of agent ${id}`).toBe(expected);
  }
  expect((await get('/listings/agents')).status).toBe(200);
  // The server-rendered pages (#13) of every listing, the sold list, the sitemap and the fragments.
  for (const detail of details) {
    const page = await get(`/listings/${detail.id}/${addressSlug(detail.address.display)}`);
    expect(page.status, `page of listing ${detail.id}`).toBe(200);
    expect(page.text).toContain('<script type="application/ld+json">');
    expect((await get(`/fragments/listings/${detail.id}`)).status).toBe(200);
  }
  for (const path of ['/listings/sold', '/sitemap.xml', '/fragments/listings/sold']) expect((await get(path)).status, path).toBe(200);
  // Outside demo mode the page's elements reach the relay at PUBLIC_URL, and the relay's own strict
  // CSP stays off the page (it goes out in the agency's shell, on the agency's domain).
  const shown = await fetch(`${relay.url}/listings/${details[0]!.id}/${addressSlug(details[0]!.address.display)}`);
  expect(shown.headers.get('content-security-policy')).toBeNull();
  expect(await shown.text()).toMatch(/<estate-listing[^>]*relay="https:\/\/relay\.agency\.test"/);
  // Every mirrored photo the API points at, as a browser would load it.
  const photoUrls = details.flatMap((detail) => [...detail.photos, ...detail.floorplans].flatMap((photo) => photo.variants.map((variant) => variant.url)));
  for (const url of new Set(photoUrls)) {
    // Photo URLs start with PUBLIC_URL, which names no real host: ask this relay for the same path.
    const response = await fetch(new URL(new URL(url, relay.url).pathname, relay.url));
    expect(response.status, url).toBe(200);
    answers.push(Buffer.from(await response.arrayBuffer()).toString('latin1'));
  }
}, 120_000);

afterAll(async () => {
  await relay?.close();
  await new Promise((resolve) => crm?.server.close(resolve));
  await new Promise((resolve) => fileHost?.server.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('real v1.3 records (contract)', () => {
  it('the dump holds 26 records with CANARY markers in their confidential fields', () => {
    expect(dump.items).toHaveLength(26);
    expect(rawDump.split(CANARY).length - 1).toBeGreaterThan(26 * 10);
  });

  it('every record passes the CRM client schemas and the allow-list, and nothing confidential comes out', () => {
    for (const item of dump.items) {
      const parsed = crmPropertySchema.safeParse(item);
      expect(parsed.success, `record ${item.id}: ${parsed.error?.message}`).toBe(true);
      const mapped = listingFromCrm(parsed.data!, { source: 'residential/sale/sold', type: 'sale', status: 'sold' });
      expect(JSON.stringify({ fields: mapped.fields, photos: mapped.photos })).not.toContain(CANARY);
      // The public JSON as the cache stores it passes the API's strict schema, which relays copying the cache check it with.
      const listingCheck = publicListingSchema.safeParse(JSON.parse(JSON.stringify(mapped.fields)));
      expect(listingCheck.success, `record ${item.id}: ${listingCheck.error?.message}`).toBe(true);
      for (const user of item.contactStaff as Array<Record<string, unknown>>) {
        const agent = agentFromCrm(crmUserSchema.parse(user));
        expect(JSON.stringify(agent.fields)).not.toContain(CANARY);
        // `role` is confidential too: only whether one is set comes through.
        expect(agent.publicRole).toBe(typeof user.role === 'string');
        if (typeof user.role === 'string') expect(JSON.stringify(agent)).not.toContain(user.role);
        expect(publicAgentSchema.safeParse(JSON.parse(JSON.stringify(agent.fields))).success).toBe(true);
        // As every answer shows them, with the agency's direct contact off and on.
        for (const directContact of [false, true]) {
          const member = new TeamRules({ order: [], hidden: [], directContact }).member(agent.fields, null, { current: 1, all: 1 });
          expect(JSON.stringify(member)).not.toContain(CANARY);
          expect(Object.keys(member).sort()).toEqual(['email', 'id', 'listingCount', 'name', 'phone', 'photo', 'position', 'slug']);
        }
      }
    }
  });

  it('the sync asks for the published list and keeps every record, a property sold twice as two listings: none dropped', () => {
    expect(new Set(dump.items.map((item) => item.id)).size).toBeLessThan(dump.items.length);
    expect(crm.requests.some((line) => line.startsWith('GET /api/v1.3/properties/residential/sale/sold?') && line.includes('published=true'))).toBe(true);
    expect(listed.map((listing) => listing.id).sort((a, b) => a - b)).toEqual(soldIds);
    expect(details.map((detail) => detail.id)).toEqual(soldIds);
  });

  it('mirrors exactly the published photos, from the file host, never hotlinked', () => {
    for (const item of dump.items) {
      const detail = details.find((candidate) => candidate.id === (item.saleLifeId as number) * 2)!;
      const published = (item.photos as Array<{ published: boolean; type: string }>).filter((photo) => photo.published);
      expect(detail.photos.length + detail.floorplans.length, `listing ${item.id}`).toBe(published.length);
      for (const photo of [...detail.photos, ...detail.floorplans]) expect(photo.url).not.toContain(fileHost.origin);
    }
    // No per-listing photo call: the list items carried their photos.
    expect(crm.requests.filter((line) => /\/photos/.test(line))).toEqual([]);
    expect(fileHost.requests.length).toBeGreaterThan(0);
  });

  it('price sort: every real record shows "Contact Agent", so both orders are by id alone, whatever the hidden searchPrices (#30)', async () => {
    const order = async (sort: string) => {
      const response = await fetch(`${relay.url}/api/v1/listings?status=sold&sort=${sort}&pageSize=100`);
      return ((await response.json()) as Page<ListingSummary>).items.map((item) => item.id);
    };
    const byId = listed.map((item) => item.id).sort((a, b) => a - b);
    // The records' searchPrices run from 580,000 to 5,400,000: an order by them (or their bands) would differ from this.
    expect(new Set(dump.items.map((item) => item.searchPrice)).size).toBeGreaterThan(5);
    expect(await order('price')).toEqual(byId);
    expect(await order('-price')).toEqual(byId);
  });

  it('land size and keywords on real records: a land area of 0 or null is unknown, "pool" finds the pool-side home (#30)', async () => {
    const ids = async (query: string) => {
      const response = await fetch(`${relay.url}/api/v1/listings?status=sold&pageSize=100&${query}`);
      expect(response.status).toBe(200);
      return ((await response.json()) as Page<ListingSummary>).items.map((item) => item.id).sort((a, b) => a - b);
    };
    const withLand = (min: number) =>
      dump.items
        .filter((item) => typeof item.landArea?.value === 'number' && item.landArea.value >= Math.max(min, 1))
        .map((item) => (item.saleLifeId as number) * 2)
        .sort((a, b) => a - b);
    expect(withLand(600).length).toBeGreaterThan(0);
    expect(await ids('minLand=600')).toEqual([...new Set(withLand(600))]);
    expect(await ids('minLand=0')).toEqual([...new Set(withLand(0))]);
    const pool = details
      .filter((detail) => / pool/i.test(` ${detail.heading} ${detail.description}`.replace(/[^\p{L}\p{N}]+/gu, ' ')))
      .map((detail) => detail.id);
    expect(pool.length).toBeGreaterThan(0);
    expect(await ids('keywords=pool')).toEqual(pool.sort((a, b) => a - b));
  });

  it('no CANARY in any API answer, server-rendered page, sitemap, fragment or served photo', () => {
    expect(answers.length).toBeGreaterThan(details.length);
    for (const answer of answers) expect(answer).not.toContain(CANARY);
  });

  it('no CANARY in any log line', () => {
    expect(logLines.some((line) => line.includes('listing sync done'))).toBe(true);
    expect(logLines.filter((line) => line.includes(CANARY))).toEqual([]);
  });

  it('no CANARY in any file the relay wrote: the SQLite cache (with its WAL) and the photo mirror', async () => {
    await relay.close();
    const files = filesUnder(dataDir);
    expect(files.some((file) => file.endsWith('.db'))).toBe(true);
    expect(files.some((file) => /\.(jpg|webp)$/.test(file))).toBe(true);
    for (const file of files) expect(readFileSync(file).includes(CANARY), file).toBe(false);
  });

  it('no CANARY in the widget bundle', async () => {
    const outDir = await buildWidgetBundle();
    try {
      const files = filesUnder(outDir);
      expect(files.some((file) => file.endsWith('.js'))).toBe(true);
      for (const file of files) expect(readFileSync(file).includes(CANARY), file).toBe(false);
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }, 120_000);
});
