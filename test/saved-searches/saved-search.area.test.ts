// A map area in a saved search, on a whole relay synced from the CRM simulator: GET
// /api/v1/suburbs?bbox= names the suburbs of the placed listings inside the box (every status),
// most listings first, capped at AREA_SUBURBS_MAX with the rest counted; and POST
// /api/v1/saved-searches refuses, with a 400 naming the field and close names, a suburb none of
// the CRM's listings names (nothing stored), while the suburbs of an area are taken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingSummary, Page } from '../../contract/relay-api.ts';
import { AREA_SUBURBS_MAX, type AreaSuburbs } from '../../contract/saved-search-area.ts';
import type { SavedSearchRefusal } from '../../contract/saved-search.ts';
import { startListingRig, type ListingRig } from '../listings/rig.ts';
import { rawRows } from '../support/store-variants.ts';
import { validSavedSearch } from './support.ts';

/** Melbourne's inner suburbs (Kew, Hawthorn, Richmond, Fitzroy …), not Sydney's. */
const MELBOURNE = '144.8,-38,145.3,-37.6';
const WORLD = '-180,-90,180,90';

describe('a map area becomes the suburbs it covers', () => {
  let rig: ListingRig;
  let placed: ListingSummary[];

  beforeAll(async () => {
    rig = await startListingRig({ listings: 120, seed: 11 });
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    placed = [];
    for (const status of ['available', 'sold', 'leased']) {
      const page = await rig.get<Page<ListingSummary>>(`/api/v1/listings?pageSize=100&status=${status}&bbox=${WORLD}`);
      expect(page.status, page.text).toBe(200);
      expect(page.body.total).toBeLessThanOrEqual(100);
      placed.push(...page.body.items);
    }
    expect(placed.length).toBeGreaterThan(20);
  });
  afterAll(async () => {
    await rig?.close();
  });

  /** Suburb → placed listings of it inside the box, from the listings the relay answers (any status). */
  function countsIn(bbox: string): Map<string, number> {
    const [west, south, east, north] = bbox.split(',').map(Number) as [number, number, number, number];
    const counts = new Map<string, number>();
    for (const card of placed) {
      const at = card.position!;
      if (at.lat < south || at.lat > north || at.lng < west || at.lng > east || !card.address.suburb) continue;
      counts.set(card.address.suburb, (counts.get(card.address.suburb) ?? 0) + 1);
    }
    return counts;
  }

  it('names the suburbs with a placed listing in the box, most listings first, and none outside it', async () => {
    const counts = countsIn(MELBOURNE);
    expect(counts.size).toBeGreaterThan(2);
    const response = await rig.get<AreaSuburbs>(`/api/v1/suburbs?bbox=${MELBOURNE}`);
    expect(response.status, response.text).toBe(200);
    const names = response.body.items.map((suburb) => suburb.name);
    const expected = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0], 'en')).map(([name]) => name);
    expect(names).toEqual(expected.slice(0, AREA_SUBURBS_MAX));
    expect(response.body.more).toBe(Math.max(0, expected.length - AREA_SUBURBS_MAX));
    // Each with the postcode and state its listings give.
    const kew = placed.find((card) => card.address.suburb === names[0])!;
    expect(response.body.items[0]).toEqual({ name: names[0], postcode: kew.address.postcode, state: kew.address.state });
    // A box around one listing names its suburb alone (Sydney's suburbs and the rest are outside).
    const one = placed.find((card) => card.position!.precision !== 'suburb')!;
    const tiny = `${one.position!.lng - 0.0001},${one.position!.lat - 0.0001},${one.position!.lng + 0.0001},${one.position!.lat + 0.0001}`;
    const alone = await rig.get<AreaSuburbs>(`/api/v1/suburbs?bbox=${tiny}`);
    expect(alone.body.items.map((suburb) => suburb.name)).toContain(one.address.suburb);
    expect(alone.body.items.map((suburb) => suburb.name)).toEqual([...countsIn(tiny).keys()]);
    expect((await rig.get<AreaSuburbs>('/api/v1/suburbs?bbox=0,0,1,1')).body).toEqual({ items: [], more: 0 });
  });

  it(`follows at most ${AREA_SUBURBS_MAX} suburbs of a large box, and counts the ones past the cap`, async () => {
    const counts = countsIn(WORLD);
    expect(counts.size).toBeGreaterThan(AREA_SUBURBS_MAX);
    const response = await rig.get<AreaSuburbs>(`/api/v1/suburbs?bbox=${WORLD}`);
    expect(response.body.items).toHaveLength(AREA_SUBURBS_MAX);
    expect(response.body.more).toBe(counts.size - AREA_SUBURBS_MAX);
    const fewest = Math.min(...response.body.items.map((suburb) => counts.get(suburb.name)!));
    const left = [...counts.entries()].filter(([name]) => !response.body.items.some((suburb) => suburb.name === name));
    for (const [, count] of left) expect(count).toBeLessThanOrEqual(fewest);
  });

  it("refuses a bad box with a 400 naming bbox; without one, the agency's suburbs as before", async () => {
    for (const bad of ['1,2,3', '10,5,20,1', 'west,south,east,north']) {
      const response = await rig.get(`/api/v1/suburbs?bbox=${bad}`);
      expect(response.status, bad).toBe(400);
      expect(Object.keys(response.body.fields)).toEqual(['bbox']);
    }
    const all = await rig.get<{ items: Array<{ name: string }> }>('/api/v1/suburbs');
    expect(all.status).toBe(200);
    expect(all.body).not.toHaveProperty('more');
    expect(all.body.items.length).toBeGreaterThanOrEqual(countsIn(WORLD).size);
  });

  async function post(body: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${rig.relay.url}/api/v1/saved-searches`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: new URL(rig.publicUrl).origin },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  }

  it('refuses a suburb the CRM does not know at the form: a 400 naming the field, with close names, and nothing stored', async () => {
    const area = (await rig.get<AreaSuburbs>(`/api/v1/suburbs?bbox=${MELBOURNE}`)).body.items.map((suburb) => suburb.name);
    const known = area[0]!;
    const misspelt = `${known.slice(0, -1)}x`;
    const before = (await rawRows(rig.relay.store, 'saved_searches')).length;

    const one = await post(validSavedSearch({ search: { type: 'sale', suburb: misspelt } }));
    expect(one.status).toBe(400);
    const refusal = one.body as SavedSearchRefusal;
    expect(refusal.error).toBe('unknown_suburb');
    expect(Object.keys(refusal.fields)).toEqual(['search.suburb']);
    expect(refusal.fields['search.suburb']).toContain(misspelt);
    expect(refusal.suggestions!['search.suburb']![0]).toBe(known);

    // In an area's list, the one entry is named; a name nothing is close to gets no suggestion.
    const many = await post(validSavedSearch({ search: { suburbs: [known, 'Qqqqzzzz'] } }));
    expect(many.status).toBe(400);
    expect(Object.keys(many.body.fields)).toEqual(['search.suburbs.1']);
    expect(many.body.suggestions).toEqual({ 'search.suburbs.1': [] });
    expect(await rawRows(rig.relay.store, 'saved_searches')).toHaveLength(before);

    // The area's suburbs as the relay named them (any letter case) are taken.
    const taken = await post(validSavedSearch({ search: { minBeds: 3, suburbs: area.map((name, index) => (index === 0 ? name.toUpperCase() : name)) } }));
    expect(taken.status).toBe(202);
    const rows = await rawRows(rig.relay.store, 'saved_searches');
    expect(rows).toHaveLength(before + 1);
    expect(JSON.parse(String(rows.at(-1)!.payload)).search.suburbs).toHaveLength(area.length);
  });
});
