import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, PlacementSummary } from '../../contract/relay-api.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import { collectStatus, formatStatus } from '../../server/ops/status.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { readRealRecords } from '../support/real-records.ts';

/*
 * Issue 20's proof over the shared real records: a whole relay syncs them from a fixture CRM and
 * places them through a fixture geocoder speaking Nominatim's jsonv2 over real HTTP, which records
 * every query. Three of the records are made address-withheld (one of them with the CRM's exact
 * coordinates). Every record with a public address is placed at its CRM coordinates or its address;
 * the withheld ones only at their suburb, and their streets never reach the geocoder; the geocoder
 * is asked once per address across two restarts on the same DATA_DIR, never faster than 1 a second.
 */

type Item = Record<string, any>;
const dump = JSON.parse(readRealRecords().replaceAll('{HOST}', 'http://127.0.0.1:9')) as { items: Item[] };
const API_KEY = 'places-api-key';
const ACCESS_TOKEN = 'places-access-token';
const EMAIL = 'ops@agency.example';

/** Record ids made address-withheld: with CRM coordinates (Hawthorn), without (Camberwell, street shown without its number), without (Kew). */
const WITHHELD: Record<number, string> = { 15242125: 'suburb', 15222693: 'streetAndSuburb', 15222543: 'suburb' };
for (const item of dump.items) {
  item.photos = [];
  if (WITHHELD[item.id as number]) item.addressVisibility = WITHHELD[item.id as number];
}
const withheld = dump.items.filter((item) => WITHHELD[item.id as number]);
const shown = dump.items.filter((item) => !WITHHELD[item.id as number]);
const hasCoordinates = (item: Item) => typeof item.geolocation?.latitude === 'number';

interface Query {
  q: string;
  email: string | null;
  format: string | null;
  userAgent: string | undefined;
  at: number;
}

/** Where the fixture geocoder puts a query: a point near Melbourne, the same for the same words. */
function pointOf(q: string): { lat: number; lon: number } {
  let hash = 0;
  for (const char of q.toLowerCase()) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { lat: -37.8 - (hash % 1000) / 20_000, lon: 145 + ((hash >>> 10) % 1000) / 20_000 };
}

let crm: Server;
let crmOrigin: string;
let geocoder: Server;
let geocoderOrigin: string;
const queries: Query[] = [];
let dataDir: string;
/** Serves the records' streets in capitals from the second restart on: the same places once normalised. */
let shout = false;

async function listen(handler: (req: IncomingMessage, res: ServerResponse, origin: string) => void): Promise<{ server: Server; origin: string }> {
  let origin = '';
  const server = createServer((req, res) => handler(req, res, origin));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, origin };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

const empty = (self: string) => ({ items: [], totalItems: 0, totalPages: 0, urls: { previous: null, next: null, self } });

beforeAll(async () => {
  ({ server: crm, origin: crmOrigin } = await listen((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    if (req.headers['x-api-key'] !== API_KEY || req.headers.authorization !== `Bearer ${ACCESS_TOKEN}`) return json(res, 403, { success: false });
    const path = url.pathname.replace(/^\/api\/v1\.3/, '');
    if (path === '/properties/residential/sale/sold') {
      const items = shout
        ? dump.items.map((item) => ({
            ...item,
            modified: new Date(Date.parse(item.modified as string) + 60_000).toISOString(),
            address: { ...item.address, street: String(item.address.street).toUpperCase() },
          }))
        : dump.items;
      return json(res, 200, { items, totalItems: items.length, totalPages: 1, urls: { previous: null, next: null, self: url.href } });
    }
    if (/^\/properties\/residential\/(sale|lease)(\/available)?$/.test(path) || path === '/openHomes' || path === '/account/users')
      return json(res, 200, empty(url.href));
    if (path === '/scopes') return json(res, 200, []);
    if (path === '/integrator/usage') return json(res, 200, { used: 0, remaining: 10_000 });
    return json(res, 404, { success: false });
  }));
  ({ server: geocoder, origin: geocoderOrigin } = await listen((req, res, origin) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname !== '/search') return json(res, 404, []);
    const q = url.searchParams.get('q') ?? '';
    queries.push({ q, email: url.searchParams.get('email'), format: url.searchParams.get('format'), userAgent: req.headers['user-agent'], at: Date.now() });
    const { lat, lon } = pointOf(q);
    // The country as Nominatim names it with addressdetails=1: the relay takes only answers in the country asked.
    json(res, 200, [
      { place_id: queries.length, lat: String(lat), lon: String(lon), category: 'place', type: 'house', display_name: q, address: { country_code: 'au' } },
    ]);
  }));
  dataDir = mkdtempSync(join(tmpdir(), 'estate-places-'));
});

afterAll(async () => {
  await new Promise((resolve) => crm?.close(resolve));
  await new Promise((resolve) => geocoder?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

async function runRelay(): Promise<{ relay: RunningRelay; asked: number }> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: 'https://relay.agency.test',
    DATA_DIR: dataDir,
    CRM_BASE_URL: `${crmOrigin}/api/v1.3`,
    CRM_API_KEY: API_KEY,
    CRM_ACCESS_TOKEN: ACCESS_TOKEN,
    CRM_REQUESTS_PER_SECOND: '50',
    SOLD_DAYS: '3650',
    GEOCODER_URL: geocoderOrigin,
    GEOCODER_EMAIL: EMAIL,
    GEOCODER_REQUESTS_PER_SECOND: '1',
  });
  const relay = await startRelay(config, { log: silentLogger, workers: false, app: { demoDir: null } });
  const report = await relay.listings.sync.run('full');
  expect(report.error).toBeUndefined();
  const asked = await relay.places.worker.drain();
  return { relay, asked };
}

async function details(relay: RunningRelay): Promise<Map<number, ListingDetail>> {
  const found = new Map<number, ListingDetail>();
  for (const item of dump.items) {
    const id = (item.saleLifeId as number) * 2;
    const response = await fetch(`${relay.url}/api/v1/listings/${id}`);
    expect(response.status).toBe(200);
    found.set(id, (await response.json()) as ListingDetail);
  }
  return found;
}

describe('placing the real records (issue 20)', () => {
  let first: Map<number, ListingDetail>;
  let placement: PlacementSummary;
  let askedFirst: number;

  beforeAll(async () => {
    const { relay, asked } = await runRelay();
    askedFirst = asked;
    try {
      first = await details(relay);
      placement = (await (await fetch(`${relay.url}/api/v1/listings/placement`)).json()) as PlacementSummary;
      const list = (await (await fetch(`${relay.url}/api/v1/listings?status=sold&pageSize=100`)).json()) as { items: Array<{ id: number; position: unknown }> };
      for (const card of list.items) expect(card.position).toEqual(first.get(card.id)!.position);
    } finally {
      await relay.close();
    }
  }, 120_000);

  it('the shared records lack coordinates as real data does, and the test withholds three addresses', () => {
    expect(dump.items).toHaveLength(26);
    expect(dump.items.filter((item) => !hasCoordinates(item))).toHaveLength(15);
    expect(withheld.filter(hasCoordinates)).toHaveLength(1);
  });

  it('places every record with a public address: at its CRM coordinates, else at its address', () => {
    for (const item of shown) {
      const position = first.get((item.saleLifeId as number) * 2)!.position;
      if (hasCoordinates(item))
        expect(position, `record ${item.id}`).toEqual({ lat: item.geolocation.latitude, lng: item.geolocation.longitude, precision: 'crm' });
      else expect(position, `record ${item.id}`).toMatchObject({ precision: 'address' });
    }
  });

  it('places a withheld address only at its suburb, even with exact CRM coordinates, and never sends its street', () => {
    for (const item of withheld) {
      const detail = first.get((item.saleLifeId as number) * 2)!;
      const suburb = pointOf(`${detail.address.suburb} ${detail.address.state} ${detail.address.postcode}`);
      expect(detail.position, `record ${item.id}`).toEqual({ lat: suburb.lat, lng: suburb.lon, precision: 'suburb' });
      expect(detail.geolocation).toBeNull();
      const street = String(item.address.street).toLowerCase();
      for (const query of queries) expect(query.q.toLowerCase(), `record ${item.id}'s street was sent`).not.toContain(street);
    }
  });

  it('asks the geocoder once per address and suburb, with the relay named and the contact e-mail, no faster than 1 a second', () => {
    const geocoded = shown.filter((item) => !hasCoordinates(item));
    // Each street's suburb is asked too (a street is taken only near its suburb), and Camberwell, Kew
    // and Hawthorn, the withheld records' suburbs: each suburb once.
    const suburbs = new Set([...geocoded, ...withheld].map((item) => String(item.address.suburb?.name ?? item.address.suburb).toLowerCase()));
    expect(askedFirst).toBe(geocoded.length + suburbs.size);
    expect(queries).toHaveLength(geocoded.length + suburbs.size);
    expect(new Set(queries.map((query) => query.q.toLowerCase())).size).toBe(queries.length);
    for (const query of queries) {
      expect(query.userAgent).toMatch(/^estate-embed\/\S+ \(ops@agency\.example\)$/);
      expect(query.email).toBe(EMAIL);
      expect(query.format).toBe('jsonv2');
    }
    const times = queries.map((query) => query.at);
    for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!, `query ${index}`).toBeGreaterThanOrEqual(1000);
  });

  it('counts the placed and the unplaced: in the listing API and in `relay status`', () => {
    expect(placement).toEqual({
      listings: 26,
      placed: { crm: shown.filter(hasCoordinates).length, address: shown.filter((item) => !hasCoordinates(item)).length, suburb: 3 },
      pending: 0,
      unplaced: 0,
    });
    const status = collectStatus(dataDir, 10_000);
    expect(status.places).toEqual(placement);
    expect(formatStatus(status)).toMatch(
      /Map positions\s+26 of 26 placed \(\d+ CRM, \d+ address, 3 suburb\), 0 waiting for the geocoder, 0 could not be placed/,
    );
  });

  it('asks nothing again across two restarts on the same DATA_DIR, a re-sync rewriting every listing included', async () => {
    const before = queries.length;
    const second = await runRelay();
    try {
      expect(second.asked).toBe(0);
      expect(await details(second.relay)).toEqual(first);
    } finally {
      await second.relay.close();
    }
    // Every record changed in the CRM, its street now in capitals: the same places once normalised.
    shout = true;
    const third = await runRelay();
    try {
      expect(third.asked).toBe(0);
      const positions = [...(await details(third.relay)).values()].map((detail) => [detail.id, detail.position]);
      expect(positions).toEqual([...first.values()].map((detail) => [detail.id, detail.position]));
    } finally {
      await third.relay.close();
    }
    expect(queries.length).toBe(before);
  }, 120_000);
});
