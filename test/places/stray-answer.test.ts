// Issue 29: one bad geocoder answer must not widen the map to the world. A whole relay syncs the
// simulator's agency and places its listings through a fixture geocoder over real HTTP, which
// passes every query on to the simulator's geocoder but answers London for two of the streets:
// once naming the United Kingdom, once claiming Australia (a provider that ignores `countrycodes`
// and mislabels). Tiles come from a fixture provider through the relay's own tile route.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, MapConfig } from '../../contract/relay-api.ts';
import { tileX, tileY } from '../../contract/map-area.ts';
import { SUBURBS } from '../../crm-sim/seed-data.ts';
import { publicListingId, startListingRig, type ListingRig } from '../listings/rig.ts';

const LONDON = { lat: 51.5072, lon: -0.1276 };
type Address = { streetNumber: string; street: string; suburb: { name: string; postcode: string; state: { abbreviation: string } } };

let rig: ListingRig;
let geocoder: Server;
let provider: Server;
let simOrigin = '';
/** Streets (lower case, "12 example street") the fixture answers with London, and the country it claims. */
const strays = new Map<string, string>();
const countriesAsked = new Set<string | null>();
const tilesAsked: string[] = [];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#dde4d8' } })
    .png()
    .toBuffer();
  provider = createServer((req, res) => {
    tilesAsked.push(req.url!);
    res.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'max-age=60' }).end(png);
  });
  geocoder = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture');
    countriesAsked.add(url.searchParams.get('countrycodes'));
    const q = (url.searchParams.get('q') ?? '').toLowerCase();
    const stray = [...strays].find(([street]) => q.startsWith(`${street},`));
    if (stray) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify([{ lat: String(LONDON.lat), lon: String(LONDON.lon), display_name: 'London', address: { city: 'London', country_code: stray[1] } }]),
      );
      return;
    }
    fetch(`${simOrigin}${req.url}`).then(
      async (answer) => {
        res.writeHead(answer.status, { 'Content-Type': 'application/json' });
        res.end(await answer.text());
      },
      () => res.writeHead(502).end(),
    );
  });
  const [geocoderUrl, providerUrl] = await Promise.all([listen(geocoder), listen(provider)]);
  rig = await startListingRig({
    listings: 24,
    env: {
      GEOCODER_URL: geocoderUrl,
      GEOCODER_REQUESTS_PER_SECOND: '50',
      MAP_TILE_URL: `${providerUrl}/{z}/{x}/{y}.png`,
      MAP_ATTRIBUTION: '© Test Tiles',
    },
  });
  simOrigin = rig.sim.origin;
}, 60_000);

afterAll(async () => {
  await rig?.close();
  for (const server of [geocoder, provider]) {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  }
});

describe('a geocoder answering London for Australian streets (issue 29)', () => {
  it('leaves those listings at their suburbs, keeps the map area around the agency, and London tiles 404 through the relay', async () => {
    const unplaced = rig.sim.state.listings.filter(
      (listing) =>
        (listing.fields.geolocation as { latitude: number | null }).latitude === null &&
        (listing.fields.address as Address | undefined)?.street &&
        rig.expectedIds(listing.market === 'lease' ? 'lease' : 'sale').includes(publicListingId(listing)),
    );
    expect(unplaced.length, 'the simulator leaves some listings without coordinates').toBeGreaterThanOrEqual(2);
    const [toUk, toAu] = unplaced;
    const streetOf = (listing: typeof toUk) => {
      const address = listing!.fields.address as Address;
      return `${address.streetNumber} ${address.street}`.toLowerCase();
    };
    strays.set(streetOf(toUk), 'gb');
    strays.set(streetOf(toAu), 'au');

    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    await rig.relay.places.worker.drain();
    // Every query names the agency's country.
    expect([...countriesAsked]).toEqual(['au']);

    for (const listing of [toUk!, toAu!]) {
      const { status, body } = await rig.get(`/api/v1/listings/${publicListingId(listing)}`);
      expect(status).toBe(200);
      const address = listing.fields.address as Address;
      const suburb = SUBURBS.find((candidate) => candidate.name.toLowerCase() === address.suburb.name.toLowerCase())!;
      expect((body as ListingDetail).position, streetOf(listing)).toEqual({ lat: suburb.latitude, lng: suburb.longitude, precision: 'suburb' });
    }

    const config = (await rig.get('/api/v1/map/config')).body as MapConfig;
    expect(config.tiles).not.toBeNull();
    // The agency's listings are in Melbourne and Sydney: the area's north edge is in Australia.
    expect(config.bounds!.north).toBeLessThan(-30);
    expect(config.bounds!.west).toBeGreaterThan(140);

    for (const z of [8, 12, 15]) {
      const london = await fetch(`${rig.relay.url}/tiles/${z}/${tileX(LONDON.lon, z)}/${tileY(LONDON.lat, z)}.png`);
      expect(london.status, `London at zoom ${z}`).toBe(404);
      await london.body?.cancel();
      const paris = await fetch(`${rig.relay.url}/tiles/${z}/${tileX(2.3522, z)}/${tileY(48.8566, z)}.png`);
      expect(paris.status, `Paris at zoom ${z}`).toBe(404);
      await paris.body?.cancel();
      const suburb = SUBURBS.find((candidate) => candidate.name.toLowerCase() === (toUk!.fields.address as Address).suburb.name.toLowerCase())!;
      const home = await fetch(`${rig.relay.url}/tiles/${z}/${tileX(suburb.longitude, z)}/${tileY(suburb.latitude, z)}.png`);
      expect(home.status, `the listing's suburb at zoom ${z}`).toBe(200);
      await home.body?.cancel();
    }
    expect(tilesAsked.every((path) => !path.startsWith(`/15/${tileX(LONDON.lon, 15)}/`))).toBe(true);
  }, 90_000);
});
