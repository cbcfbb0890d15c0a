// The simulator as a Nominatim-compatible geocoder (issue 20): it answers GET /search in jsonv2
// from its own seed, and a demo relay places every listing through it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBURBS } from '../../crm-sim/seed-data.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import type { ListingDetail, PlacementSummary } from '../../contract/relay-api.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

type Address = { streetNumber: string; street: string; suburb: { name: string; postcode: string; state: { abbreviation: string } } };

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ listings: 30 });
});
afterAll(async () => {
  await sim?.close();
});

const search = async (query: string) =>
  (await (await fetch(`${sim.origin}/search?format=jsonv2&${query}`)).json()) as Array<{ lat: string; lon: string; display_name: string }>;

describe('the simulator as a geocoder', () => {
  it('gives listings streets in the suburb they name, coordinates inside it, and leaves some without coordinates', () => {
    const listings = sim.state.listings;
    const without = listings.filter((listing) => (listing.fields.geolocation as { latitude: number | null }).latitude === null);
    expect(without.length).toBeGreaterThan(0);
    expect(without.length).toBeLessThan(listings.length);
    for (const listing of listings) {
      const address = listing.fields.address as Address;
      const suburb = SUBURBS.find((candidate) => candidate.name.toLowerCase() === address.suburb.name.toLowerCase())!;
      expect(suburb, address.suburb.name).toBeDefined();
      const geo = listing.fields.geolocation as { latitude: number | null; longitude: number | null };
      if (geo.latitude !== null) expect(Math.abs(geo.latitude - suburb.latitude) + Math.abs(geo.longitude! - suburb.longitude)).toBeLessThan(0.03);
    }
  });

  it('answers a listing address (free-form or structured) and a suburb from its seed, an unknown address with []', async () => {
    const listing = sim.state.listings.find((candidate) => (candidate.fields.geolocation as { latitude: number | null }).latitude !== null)!;
    const address = listing.fields.address as Address;
    const geo = listing.fields.geolocation as { latitude: number; longitude: number };
    const locality = `${address.suburb.name} ${address.suburb.state.abbreviation} ${address.suburb.postcode}`;
    const q = new URLSearchParams({ q: `${address.streetNumber} ${address.street}, ${locality}` });
    const [found] = await search(q.toString());
    expect({ lat: Number(found!.lat), lon: Number(found!.lon) }).toEqual({ lat: geo.latitude, lon: geo.longitude });
    const structured = new URLSearchParams({
      street: `${address.streetNumber} ${address.street}`,
      city: address.suburb.name,
      state: address.suburb.state.abbreviation,
      postalcode: address.suburb.postcode,
    });
    expect(await search(structured.toString())).toEqual([found]);
    const suburb = SUBURBS.find((candidate) => candidate.postcode === address.suburb.postcode)!;
    const [centre] = await search(new URLSearchParams({ q: locality }).toString());
    expect(Number(centre!.lat)).toBe(suburb.latitude);
    expect(await search(new URLSearchParams({ q: '1 Nowhere Street, Atlantis VIC 9999' }).toString())).toEqual([]);
  });
});

describe('a demo relay', () => {
  let relay: TestRelay;
  beforeAll(async () => {
    relay = await startTestRelay({ SIM_LISTINGS: '12', PHOTO_WIDTHS: '240' }, { workers: false });
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
  });

  it('points GEOCODER_URL at the simulator and places every listing', async () => {
    expect(relay.config.places.geocoderUrl).toBe(relay.simulator!.origin);
    expect((await relay.listings.sync.run('full')).error).toBeUndefined();
    await relay.places.worker.drain();
    const summary = (await (await fetch(`${relay.url}/api/v1/listings/placement`)).json()) as PlacementSummary;
    expect(summary.listings).toBeGreaterThan(0);
    expect(summary.unplaced).toBe(0);
    expect(summary.pending).toBe(0);
    const { items } = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=100`)).json()) as { items: ListingDetail[] };
    for (const item of items) expect(item.position, `listing ${item.id}`).not.toBeNull();
  }, 60_000);
});
