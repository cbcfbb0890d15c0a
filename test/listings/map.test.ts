import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingMap, ListingSummary, MapClusterProperties, MapListingProperties, Page } from '../../contract/relay-api.ts';
import { allListingIds, startListingRig, type ListingRig } from './rig.ts';

/** Every listing of the simulator's seed is in Victoria or New South Wales. */
const WORLD = '-180,-90,180,90';
/** Melbourne's inner suburbs (Kew, Hawthorn, Richmond, Fitzroy …), not Sydney's. */
const MELBOURNE = '144.8,-38,145.3,-37.6';

describe('listings on a map: the bbox filter and GET /api/v1/listings/map', () => {
  let rig: ListingRig;
  let all: ListingSummary[];

  beforeAll(async () => {
    rig = await startListingRig({ listings: 80 });
    currentRelay = rig.relay.url;
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    all = await cards('');
    expect(all.length).toBeGreaterThan(20);
    // The simulator leaves a third of its records without coordinates, and no geocoder is set: some are unplaced.
    expect(all.some((card) => card.position === null)).toBe(true);
    expect(all.filter((card) => card.position !== null).length).toBeGreaterThan(15);
  });
  afterAll(async () => {
    await rig?.close();
  });

  async function cards(query: string): Promise<ListingSummary[]> {
    const response = await rig.get<Page<ListingSummary>>(`/api/v1/listings?pageSize=100${query ? `&${query}` : ''}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.total).toBeLessThanOrEqual(100);
    return response.body.items;
  }
  const inside = (card: ListingSummary, bbox: string) => {
    const [west, south, east, north] = bbox.split(',').map(Number) as [number, number, number, number];
    const position = card.position;
    if (!position || position.lat < south || position.lat > north) return false;
    return west <= east ? position.lng >= west && position.lng <= east : position.lng >= west || position.lng <= east;
  };
  const idsOf = (items: Array<{ id: number }>) => items.map((item) => item.id).sort((a, b) => a - b);
  async function map(query: string, headers: Record<string, string> = {}) {
    const response = await rig.get<ListingMap>(`/api/v1/listings/map?${query}`, headers);
    expect(response.status, response.text).toBe(200);
    return response;
  }
  const singles = (answer: ListingMap) =>
    answer.features.filter((feature) => !('cluster' in feature.properties)).map((feature) => feature.properties as MapListingProperties);
  const clusters = (answer: ListingMap) =>
    answer.features.filter((feature) => 'cluster' in feature.properties).map((feature) => feature.properties as MapClusterProperties);
  const counted = (answer: ListingMap) => singles(answer).length + clusters(answer).reduce((sum, cluster) => sum + cluster.count, 0);

  describe('bbox on the list', () => {
    it('lists only the placed listings inside the box', async () => {
      for (const bbox of [MELBOURNE, WORLD, '151,-34,151.4,-33.7', '145.0,-37.83,145.05,-37.80']) {
        const expected = idsOf(all.filter((card) => inside(card, bbox)));
        expect(idsOf(await cards(`bbox=${bbox}`)), bbox).toEqual(expected);
      }
      expect(await cards('bbox=0,0,1,1')).toEqual([]);
      const placed = all.filter((card) => card.position !== null);
      expect(idsOf(await cards(`bbox=${WORLD}`))).toEqual(idsOf(placed));
      // With other filters, as any filter.
      const sale = idsOf(all.filter((card) => card.type === 'sale' && inside(card, MELBOURNE)));
      expect(idsOf(await cards(`type=sale&bbox=${MELBOURNE}`))).toEqual(sale);
    });

    it('takes a box across the antimeridian (west above east)', async () => {
      // East of 140°E or west of 170°W: all of the seed's placed listings; east of 179°E or west of 170°W: none.
      const placed = all.filter((card) => card.position !== null);
      expect(idsOf(await cards('bbox=140,-90,-170,90'))).toEqual(idsOf(placed));
      expect(await cards('bbox=179,-90,-170,90')).toEqual([]);
      const eastOnly = '145.0,-90,-170,90';
      expect(idsOf(await cards(`bbox=${eastOnly}`))).toEqual(idsOf(all.filter((card) => inside(card, eastOnly))));
    });

    it('refuses a bad box with a 400 naming bbox', async () => {
      for (const bad of [
        '1,2,3',
        '1,2,3,4,5',
        'a,b,c,d',
        '1e2,0,3,4',
        '200,-10,10,10',
        '0,-10,190,10',
        '0,10,10,5',
        '0,-95,10,10',
        '0,5,10,5',
        '',
        '0x1,0,1,1',
      ]) {
        const response = await rig.get(`/api/v1/listings?bbox=${encodeURIComponent(bad)}`);
        expect(response.status, bad).toBe(400);
        expect(Object.keys(response.body.fields), bad).toEqual(['bbox']);
        expect(response.body.message, bad).toContain('bbox');
      }
    });

    it('shares one cached answer between boxes holding the same listings', async () => {
      const melbourne = all.filter((card) => inside(card, MELBOURNE));
      expect(melbourne.length).toBeGreaterThan(1);
      const first = await rig.get(`/api/v1/listings?bbox=${MELBOURNE}`);
      // A box a hair larger holds the same listings: the same answer (one entry, one ETag).
      const wider = await rig.get('/api/v1/listings?bbox=144.79,-38.01,145.31,-37.59');
      expect(wider.headers.get('etag')).toBe(first.headers.get('etag'));
      expect((await rig.get(`/api/v1/listings?bbox=${MELBOURNE}`, { 'If-None-Match': first.headers.get('etag')! })).status).toBe(304);
      // Two empty boxes, one answer.
      const empty = await rig.get('/api/v1/listings?bbox=0,0,1,1');
      expect((await rig.get('/api/v1/listings?bbox=10,10,20,20')).headers.get('etag')).toBe(empty.headers.get('etag'));
    });
  });

  describe('GET /api/v1/listings/map', () => {
    it('answers GeoJSON, compressed once, with ETags, 304s and the list cache headers', async () => {
      const response = await map(`bbox=${MELBOURNE}&zoom=10`);
      expect(response.headers.get('content-type')).toMatch(/^application\/geo\+json/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=60, stale-while-revalidate=600, stale-if-error=86400');
      expect(response.body.type).toBe('FeatureCollection');
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect((await map(`bbox=${MELBOURNE}&zoom=10`)).headers.get('etag')).toBe(etag);
      expect((await rig.get(`/api/v1/listings/map?bbox=${MELBOURNE}&zoom=10`, { 'If-None-Match': etag })).status).toBe(304);
      // Brotli to a browser, the same content.
      const world = await map(`bbox=${WORLD}&zoom=20`);
      expect(world.text.length).toBeGreaterThan(1024);
      const browser = await raw(`/api/v1/listings/map?bbox=${WORLD}&zoom=20`, { 'Accept-Encoding': 'br, gzip' });
      expect(browser.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(browser.body).toString()).toBe(world.text);
      expect(browser.headers.etag).not.toBe(world.headers.get('etag'));
    });

    it('clusters at a low zoom and gives single listings at a high one; counts add up to the placed listings in the box', async () => {
      const placed = all.filter((card) => card.position !== null);
      const far = (await map(`bbox=${WORLD}&zoom=3`)).body;
      expect(clusters(far).length).toBeGreaterThan(0);
      expect(far.features.length).toBeLessThan(placed.length);
      expect(counted(far)).toBe(placed.length);
      expect(far.unplaced).toBe(all.length - placed.length);
      for (const cluster of clusters(far)) {
        expect(cluster.count).toBeGreaterThan(1);
        expect(cluster.expansionZoom).toBeGreaterThan(3);
        expect(Number.isInteger(cluster.id)).toBe(true);
      }
      const near = (await map(`bbox=${MELBOURNE}&zoom=20`)).body;
      expect(clusters(near)).toEqual([]);
      expect(idsOf(singles(near))).toEqual(idsOf(all.filter((card) => inside(card, MELBOURNE))));
      // Each zoom between: the box's clusters and listings still count every placed listing (the box holds them all).
      for (const zoom of [0, 5, 8, 11, 14, 16, 17]) expect(counted((await map(`bbox=${WORLD}&zoom=${zoom}`)).body), `zoom ${zoom}`).toBe(placed.length);
    });

    it("a single listing carries its card's own fields and position, never more", async () => {
      const near = (await map(`bbox=${WORLD}&zoom=20`)).body;
      for (const feature of near.features) {
        const properties = feature.properties as MapListingProperties;
        const card = all.find((item) => item.id === properties.id)!;
        expect(feature.geometry.coordinates).toEqual([card.position!.lng, card.position!.lat]);
        expect(properties).toEqual({
          id: card.id,
          title: card.address.display || card.heading,
          price: card.displayPrice,
          bed: card.bed,
          bath: card.bath,
          cars: card.cars,
          thumbnail: card.photo ? card.photo.variants.find((variant) => variant.format === 'jpeg' && variant.width === 240)!.url : null,
          type: card.type,
          status: card.status,
          precision: card.position!.precision,
        });
      }
      expect(near.features.some((feature) => (feature.properties as MapListingProperties).thumbnail?.startsWith(rig.publicUrl))).toBe(true);
    });

    it('applies the listing filters', async () => {
      for (const filters of ['minBeds=3', 'type=lease', 'type=sale&minBaths=2', 'status=sold']) {
        const listed = await allListingIds(rig, `${filters}&bbox=${WORLD}`);
        const near = (await map(`${filters}&bbox=${WORLD}&zoom=20`)).body;
        expect(idsOf(singles(near)), filters).toEqual(listed);
        const far = (await map(`${filters}&bbox=${WORLD}&zoom=2`)).body;
        expect(counted(far), filters).toBe(listed.length);
        const unplaced = (await allListingIds(rig, filters)).length - listed.length;
        expect(far.unplaced, filters).toBe(unplaced);
      }
      expect((await map(`minBeds=3&bbox=${WORLD}&zoom=20`)).body.features.length).toBeLessThan((await map(`bbox=${WORLD}&zoom=20`)).body.features.length);
    });

    it('says where every result of the filters is (bounds), whatever the box asked', async () => {
      for (const filters of ['', 'minBeds=3', 'type=lease']) {
        const placed = (await cards(filters)).filter((card) => card.position !== null).map((card) => card.position!);
        const expected = {
          west: Math.min(...placed.map((p) => p.lng)),
          south: Math.min(...placed.map((p) => p.lat)),
          east: Math.max(...placed.map((p) => p.lng)),
          north: Math.max(...placed.map((p) => p.lat)),
        };
        // A box holding none of them still says where they are: a map fits itself to the results.
        for (const bbox of [WORLD, '0,0,1,1']) {
          const bounds = (await map(`${filters}${filters ? '&' : ''}bbox=${bbox}&zoom=5`)).body.bounds!;
          for (const side of ['west', 'south', 'east', 'north'] as const) expect(bounds[side], `${filters} ${bbox} ${side}`).toBeCloseTo(expected[side], 5);
        }
      }
      expect((await map('suburb=Nowhere&bbox=-180,-90,180,90&zoom=5')).body.bounds).toBeNull();
    });

    it('refuses a missing or bad bbox or zoom, paging and unknown parameters with a 400 naming each', async () => {
      const cases: Array<[string, string[]]> = [
        ['', ['bbox', 'zoom']],
        ['zoom=3', ['bbox']],
        [`bbox=${WORLD}`, ['zoom']],
        [`bbox=${WORLD}&zoom=21`, ['zoom']],
        [`bbox=${WORLD}&zoom=1.5`, ['zoom']],
        ['bbox=0,10,10,5&zoom=3', ['bbox']],
        [`bbox=${WORLD}&zoom=3&page=2`, ['page']],
        [`bbox=${WORLD}&zoom=3&minBeds=x`, ['minBeds']],
        [`bbox=${WORLD}&bbox=${WORLD}&zoom=3`, ['bbox']],
      ];
      for (const [query, names] of cases) {
        const response = await rig.get(`/api/v1/listings/map?${query}`);
        expect(response.status, query).toBe(400);
        expect(Object.keys(response.body.fields).sort(), query).toEqual([...names].sort());
      }
    });

    it('shares bodies between boxes holding the same features, and follows the cache when a listing changes', async () => {
      const first = await map(`bbox=${MELBOURNE}&zoom=20`);
      const wider = await map('bbox=144.79,-38.01,145.31,-37.59&zoom=20');
      expect(wider.headers.get('etag')).toBe(first.headers.get('etag'));
      // Past the last clustering zoom, every zoom gives the same answer.
      expect((await map(`bbox=${MELBOURNE}&zoom=18`)).headers.get('etag')).toBe(first.headers.get('etag'));

      const target = singles(first.body)[0]!;
      const record = rig.simListing(target.id);
      rig.sim.state.changeListing(record.id, { fields: { bed: 9 } }, record.market);
      expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
      const after = await map(`bbox=${MELBOURNE}&zoom=20`);
      expect(after.headers.get('etag')).not.toBe(first.headers.get('etag'));
      expect(singles(after.body).find((listing) => listing.id === target.id)!.bed).toBe(9);
      expect(idsOf(singles((await map(`minBeds=9&bbox=${MELBOURNE}&zoom=20`)).body))).toContain(target.id);
    });
  });
});

function raw(path: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const url = new URL(path, currentRelay!);
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
let currentRelay: string | undefined;
