import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ListingPlace } from '../../server/listings/source.ts';
import { GeocoderBusyError, GeocoderError, nominatimGeocoder, type Geocoder, type PlaceQuery } from '../../server/places/geocoder.ts';
import { Geocoding, queryKey } from '../../server/places/geocoding.ts';
import { distanceKm } from '../../server/places/distance.ts';
import { Placements } from '../../server/places/placements.ts';
import { mapArea, MAX_AREA_RADIUS_KM, tileInArea, tileX, tileY } from '../../server/tiles/area.ts';
import { PlacesWorker } from '../../server/places/worker.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { migrations } from '../../server/store/migrations.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';

/** A fixture geocoder over real HTTP: each test sets how it answers, every request is recorded. */
let server: Server;
let origin: string;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
const seen: Array<{ url: URL; userAgent: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: new URL(req.url ?? '/', origin), userAgent: req.headers['user-agent'] });
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  seen.length = 0;
});

const KEW: PlaceQuery = { kind: 'address', street: '33 Example Street', suburb: 'Kew', state: 'VIC', postcode: '3101', country: 'AU' };
const client = (options: Partial<Parameters<typeof nominatimGeocoder>[0]> = {}) =>
  nominatimGeocoder({ baseUrl: `${origin}/`, userAgent: 'estate-embed/9.9.9', email: 'ops@agency.example', timeoutMs: 2_000, ...options });
const send =
  (status: number, body: string, headers: Record<string, string> = {}) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
    res.end(body);
  };

describe('the Nominatim client', () => {
  it('asks /search in jsonv2, free-form, naming the relay and its contact in the User-Agent and as email=', async () => {
    answer = send(200, JSON.stringify([{ lat: '-37.8064', lon: '145.0311', display_name: 'Kew', address: { suburb: 'Kew', country_code: 'au' } }]));
    expect(await client().search(KEW)).toEqual({ lat: -37.8064, lng: 145.0311 });
    const { url, userAgent } = seen[0]!;
    expect(url.pathname).toBe('/search');
    expect(url.searchParams.get('format')).toBe('jsonv2');
    expect(url.searchParams.get('q')).toBe('33 Example Street, Kew VIC 3101');
    expect(url.searchParams.get('countrycodes')).toBe('au');
    expect(url.searchParams.get('addressdetails')).toBe('1');
    expect(url.searchParams.get('email')).toBe('ops@agency.example');
    expect(userAgent).toBe('estate-embed/9.9.9 (ops@agency.example)');
  });

  it('an answer outside the country asked, or naming no country, is "not found"; without a country asked, any is taken', async () => {
    const london = { lat: '51.5072', lon: '-0.1276', display_name: 'London', address: { city: 'London', country_code: 'gb' } };
    answer = send(200, JSON.stringify([london]));
    expect(await client().search(KEW)).toBeNull();
    answer = send(200, JSON.stringify([{ lat: '-37.8064', lon: '145.0311', display_name: 'Kew' }]));
    expect(await client().search(KEW)).toBeNull();
    answer = send(200, JSON.stringify([{ ...london, address: 'not an object' }]));
    expect(await client().search(KEW)).toBeNull();
    answer = send(200, JSON.stringify([london]));
    expect(await client().search({ ...KEW, country: null })).toEqual({ lat: 51.5072, lng: -0.1276 });
    expect(seen.at(-1)!.url.searchParams.has('countrycodes')).toBe(false);
  });

  it('an empty answer is "not found"; an answer not in the jsonv2 shape is an error', async () => {
    answer = send(200, '[]');
    expect(await client().search(KEW)).toBeNull();
    answer = send(200, JSON.stringify([{ lat: 'north', lon: '145' }]));
    await expect(client().search(KEW)).rejects.toBeInstanceOf(GeocoderError);
    answer = send(200, '{"error":"nope"}');
    await expect(client().search(KEW)).rejects.toBeInstanceOf(GeocoderError);
  });

  it('429 and 403 are refusals for load, with Retry-After; a 500 is an error', async () => {
    answer = send(429, '{}', { 'Retry-After': '120' });
    const refused = await client()
      .search(KEW)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GeocoderBusyError);
    expect((refused as GeocoderBusyError).retryAfterMs).toBe(120_000);
    answer = send(403, 'Usage limit reached');
    await expect(client().search(KEW)).rejects.toBeInstanceOf(GeocoderBusyError);
    answer = send(500, 'oops');
    await expect(client().search(KEW)).rejects.toBeInstanceOf(GeocoderError);
  });

  it('gives up on a slow geocoder after its timeout', async () => {
    answer = () => undefined; // never answers
    const started = Date.now();
    await expect(client({ timeoutMs: 300 }).search(KEW)).rejects.toThrow(/no answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reads no more than its size cap, declared or streamed', async () => {
    const big = JSON.stringify([{ lat: '1', lon: '2', display_name: 'x'.repeat(5_000) }]);
    answer = send(200, big);
    await expect(client({ maxBytes: 1_000 }).search(KEW)).rejects.toThrow(/larger than 1000 bytes/);
    answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write(big.slice(0, 3_000));
      res.end(big.slice(3_000));
    };
    await expect(client({ maxBytes: 1_000 }).search(KEW)).rejects.toThrow(/larger than 1000 bytes/);
  });
});

describe('placing one agency', () => {
  let dir: string;
  let store: Store;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'estate-places-unit-'));
    store = openStore(dir);
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A geocoder that knows only the suburbs, recording what it is asked. */
  function fakeGeocoder(asked: PlaceQuery[], refuse = 0): Geocoder {
    return {
      url: 'fake',
      async search(query) {
        asked.push(query);
        if (refuse-- > 0) throw new GeocoderBusyError(429, 10);
        return query.kind === 'suburb' ? { lat: -37.8, lng: 145 } : null;
      },
    };
  }
  const place = (over: Partial<ListingPlace>): ListingPlace => ({
    street: '12 Lost Lane',
    suburb: 'Kew',
    state: 'VIC',
    postcode: '3101',
    country: 'AU',
    coordinates: null,
    ...over,
  });

  it('an address the geocoder cannot find is placed at its suburb; every answer is kept, found or not', async () => {
    const asked: PlaceQuery[] = [];
    const geocoding = new Geocoding({ store, geocoder: fakeGeocoder(asked), requestsPerSecond: 100, log: silentLogger });
    const placements = new Placements(store, geocoding);
    placements.written([{ id: 1, place: place({}) }]);
    expect(placements.summary()).toMatchObject({ listings: 1, pending: 1 });
    const worker = new PlacesWorker({ placements, log: silentLogger, onPlaced: () => undefined });
    expect(await worker.drain()).toBe(2);
    expect(asked.map((query) => query.kind)).toEqual(['address', 'suburb']);
    expect(placements.positionsOf([1]).get(1)).toEqual({ lat: -37.8, lng: 145, precision: 'suburb' });
    expect(geocoding.known(asked[0]!)).toBeNull();
    // Another listing at the same address (spelt otherwise) and suburb asks nothing.
    placements.written([{ id: 2, place: place({ street: '12  LOST LANE.' }) }]);
    expect(await worker.drain()).toBe(0);
    expect(placements.positionsOf([2]).get(2)?.precision).toBe('suburb');
    expect(queryKey({ ...asked[0]!, street: '12  LOST LANE.' })).toBe(queryKey(asked[0]!));
  });

  it('a refusal for load pauses the worker (at least Retry-After) and the listing waits', async () => {
    const asked: PlaceQuery[] = [];
    const geocoding = new Geocoding({ store, geocoder: fakeGeocoder(asked, 1), requestsPerSecond: 100, log: silentLogger });
    const placements = new Placements(store, geocoding);
    placements.written([{ id: 3, place: place({ street: null, suburb: 'Hawthorn', postcode: '3122' }) }]);
    const worker = new PlacesWorker({ placements, log: silentLogger, onPlaced: () => undefined, backoffMs: 200 });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(asked).toHaveLength(1);
    expect(placements.positionsOf([3]).size).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await worker.stop();
    expect(asked).toHaveLength(2);
    expect(placements.positionsOf([3]).get(3)?.precision).toBe('suburb');
  });

  it("asks within the agency's country when the record names none, and takes a street only near its suburb", async () => {
    const asked: PlaceQuery[] = [];
    /** Manly NSW's middle for the suburb; for the streets, London (a wrong match) or a point 2 km from Manly's middle. */
    const geocoder: Geocoder = {
      url: 'fake',
      async search(query) {
        asked.push(query);
        if (query.kind === 'suburb') return { lat: -33.7969, lng: 151.2857 };
        return query.street === '1 The Corso' ? { lat: 51.5072, lng: -0.1276 } : { lat: -33.78, lng: 151.28 };
      },
    };
    const geocoding = new Geocoding({ store, geocoder, requestsPerSecond: 100, log: silentLogger });
    const placements = new Placements(store, geocoding, { country: 'AU' });
    placements.removed([1, 2, 3, 4, 5]);
    const manly = { suburb: 'Manly', state: 'NSW', postcode: '2095', country: null };
    placements.written([
      { id: 10, place: place({ ...manly, street: '1 The Corso' }) },
      { id: 11, place: place({ ...manly, street: '7 Darley Road' }) },
    ]);
    const worker = new PlacesWorker({ placements, log: silentLogger, onPlaced: () => undefined });
    await worker.drain();
    expect(new Set(asked.map((query) => query.country))).toEqual(new Set(['AU']));
    expect(placements.positionsOf([10]).get(10)).toEqual({ lat: -33.7969, lng: 151.2857, precision: 'suburb' });
    expect(placements.positionsOf([11]).get(11)).toEqual({ lat: -33.78, lng: 151.28, precision: 'address' });
    // The wrong match is kept as "not found": never used, never asked again.
    expect(geocoding.known(asked.find((query) => query.street === '1 The Corso')!)).toBeNull();
    expect(asked.filter((query) => query.kind === 'suburb')).toHaveLength(1);
    expect(placements.bounds()).toEqual({ south: -33.7969, west: 151.28, north: -33.78, east: 151.2857 });
  });

  it("one listing far from the others (CRM coordinates in London) keeps its marker but does not widen the map's area", () => {
    const placements = new Placements(store, new Geocoding({ store, geocoder: undefined, requestsPerSecond: 1, log: silentLogger }));
    placements.removed([10, 11]);
    const melbourne = [
      { lat: -37.81, lng: 145.02 },
      { lat: -37.83, lng: 145.05 },
      { lat: -37.8, lng: 145.03 },
    ];
    placements.written([
      ...melbourne.map((coordinates, i) => ({ id: 20 + i, place: place({ coordinates }) })),
      { id: 30, place: place({ coordinates: { lat: 51.5072, lng: -0.1276 } }) },
    ]);
    expect(placements.positionsOf([30]).get(30)).toEqual({ lat: 51.5072, lng: -0.1276, precision: 'crm' });
    const bounds = placements.bounds();
    expect(bounds).toEqual({ south: -37.83, west: 145.02, north: -37.8, east: 145.05 });
    const london = { z: 10, x: tileX(-0.1276, 10), y: tileY(51.5072, 10) };
    const kew = { z: 10, x: tileX(145.03, 10), y: tileY(-37.81, 10) };
    expect(tileInArea(london, bounds)).toBe(false);
    expect(tileInArea(kew, bounds)).toBe(true);
    // However the box is given (a relay before this rule, a stale answer), the area is capped around its middle.
    const world = { south: -37.83, west: -0.1276, north: 51.5072, east: 145.05 };
    const area = mapArea(world);
    expect(distanceKm({ lat: area.south, lng: area.west }, { lat: area.north, lng: area.east })).toBeLessThan(5 * MAX_AREA_RADIUS_KM);
    placements.removed([20, 21, 22, 30]);
  });

  it('without a geocoder: CRM coordinates only, the rest counted as not placed', () => {
    const placements = new Placements(store, new Geocoding({ store, geocoder: undefined, requestsPerSecond: 1, log: silentLogger }));
    placements.removed([1, 2, 3, 10, 11, 20, 21, 22, 30]);
    placements.written([
      { id: 4, place: place({ street: 'Nowhere Road', suburb: 'Nowhere', coordinates: null }) },
      { id: 5, place: place({ coordinates: { lat: -37.81, lng: 145.02 } }) },
    ]);
    expect(placements.summary()).toEqual({ listings: 2, placed: { crm: 1, address: 0, suburb: 0 }, pending: 0, unplaced: 1 });
  });
});

describe('migration 190: answers kept before the checks are asked again', () => {
  it('forgets the found answers (not the "not found" ones) and sets the geocoded listings waiting, keeping their positions meanwhile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-places-190-'));
    try {
      const before = openStore(
        dir,
        migrations.filter((migration) => migration.id < '190'),
      );
      const london: PlaceQuery = { kind: 'address', street: '1 The Corso', suburb: 'Manly', state: 'NSW', postcode: '2095', country: 'AU' };
      const manly: PlaceQuery = { kind: 'suburb', suburb: 'Manly', state: 'NSW', postcode: '2095', country: 'AU' };
      const nowhere: PlaceQuery = { kind: 'suburb', suburb: 'Nowhere', state: 'NSW', postcode: '2999', country: 'AU' };
      const db = tablesOf(before);
      const answer = db.prepare('INSERT INTO places_geocodes (query_key, lat, lng, asked_at) VALUES (?, ?, ?, 1)');
      answer.run(queryKey(london), 51.5072, -0.1276);
      answer.run(queryKey(manly), -33.7969, 151.2857);
      answer.run(queryKey(nowhere), null, null);
      const manlyPlace: ListingPlace = { street: '1 The Corso', suburb: 'Manly', state: 'NSW', postcode: '2095', country: 'AU', coordinates: null };
      const listing = db.prepare('INSERT INTO places_listings (listing_id, place_json, lat, lng, precision, pending, updated_at) VALUES (?, ?, ?, ?, ?, 0, 1)');
      listing.run(1, JSON.stringify(manlyPlace), 51.5072, -0.1276, 'address');
      listing.run(2, JSON.stringify({ ...manlyPlace, coordinates: { lat: -33.79, lng: 151.28 } }), -33.79, 151.28, 'crm');
      before.close();

      const after = openStore(dir);
      try {
        const asked: PlaceQuery[] = [];
        const geocoding = new Geocoding({
          store: after,
          geocoder: {
            url: 'fake',
            async search(query) {
              asked.push(query);
              return query.kind === 'suburb' ? { lat: -33.7969, lng: 151.2857 } : { lat: 51.5072, lng: -0.1276 };
            },
          },
          requestsPerSecond: 100,
          log: silentLogger,
        });
        expect(geocoding.known(london)).toBeUndefined();
        expect(geocoding.known(manly)).toBeUndefined();
        expect(geocoding.known(nowhere)).toBeNull();
        const placements = new Placements(after, geocoding, { country: 'AU' });
        expect(placements.summary()).toMatchObject({ pending: 1, placed: { crm: 1, address: 1 } });
        expect(placements.positionsOf([1]).get(1)).toEqual({ lat: 51.5072, lng: -0.1276, precision: 'address' });
        await new PlacesWorker({ placements, log: silentLogger, onPlaced: () => undefined }).drain();
        expect(asked.map((query) => query.kind)).toEqual(['address', 'suburb']);
        expect(placements.positionsOf([1, 2])).toEqual(
          new Map([
            [1, { lat: -33.7969, lng: 151.2857, precision: 'suburb' }],
            [2, { lat: -33.79, lng: 151.28, precision: 'crm' }],
          ]),
        );
      } finally {
        after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
