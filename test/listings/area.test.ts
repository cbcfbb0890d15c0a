import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AreaSuburbs } from '../../contract/saved-search-area.ts';
import type { ListingMap, ListingSummary, MapListingProperties, Page } from '../../contract/relay-api.ts';
import { startListingRig, type ListingRig } from './rig.ts';

const WORLD = '-180,-90,180,90';

/** Corners written as the `area` parameter takes them. */
const outline = (corners: Array<[lat: number, lng: number]>) => corners.map(([lat, lng]) => `${lat.toFixed(5)},${lng.toFixed(5)}`).join(';');

describe('the area filter (a drawn outline) on the list, the map answer and the suburbs', () => {
  let rig: ListingRig;
  let placed: ListingSummary[];

  beforeAll(async () => {
    rig = await startListingRig({ listings: 80 });
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    placed = (await cards('')).filter((card) => card.position !== null);
    expect(placed.length).toBeGreaterThan(15);
  });
  afterAll(async () => {
    await rig?.close();
  });

  async function cards(query: string): Promise<ListingSummary[]> {
    const response = await rig.get<Page<ListingSummary>>(`/api/v1/listings?pageSize=100${query ? `&${query}` : ''}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items;
  }
  const idsOf = (items: Array<{ id: number }>) => items.map((item) => item.id).sort((a, b) => a - b);

  /**
   * Two outlines around the middle half of the placed listings (worked out from where they are, so
   * any seed gives a real test): a rectangle, and the triangle of it south-east of its diagonal
   * (a listing is in when it is below the line from the south-west corner to the north-east one).
   */
  function outlines() {
    const lats = placed.map((card) => card.position!.lat).sort((a, b) => a - b);
    const lngs = placed.map((card) => card.position!.lng).sort((a, b) => a - b);
    const quarter = (sorted: number[], at: number) => sorted[Math.floor(sorted.length * at)]!;
    // Edges a hair off any listing's coordinates (no listing on a drawn line).
    const [south, north] = [quarter(lats, 0.2) - 0.000013, quarter(lats, 0.8) + 0.000017];
    const [west, east] = [quarter(lngs, 0.2) - 0.000011, quarter(lngs, 0.8) + 0.000019];
    const inBox = (card: ListingSummary) => {
      const { lat, lng } = card.position!;
      return lat > south && lat < north && lng > west && lng < east;
    };
    const belowDiagonal = (card: ListingSummary) => {
      const { lat, lng } = card.position!;
      return inBox(card) && (lat - south) / (north - south) < (lng - west) / (east - west);
    };
    return [
      {
        name: 'rectangle',
        area: outline([
          [north, west],
          [north, east],
          [south, east],
          [south, west],
        ]),
        holds: inBox,
      },
      {
        name: 'triangle',
        area: outline([
          [south, west],
          [north, east],
          [south, east],
        ]),
        holds: belowDiagonal,
      },
    ];
  }

  it('lists exactly the listings placed inside the outline, with other filters', async () => {
    for (const { name, area, holds } of outlines()) {
      const expected = idsOf(placed.filter(holds));
      expect(expected.length, name).toBeGreaterThan(0);
      expect(expected.length, name).toBeLessThan(placed.length);
      expect(idsOf(await cards(`area=${area}`)), name).toEqual(expected);
      const sale = idsOf(placed.filter((card) => holds(card) && card.type === 'sale'));
      expect(idsOf(await cards(`type=sale&area=${area}`)), name).toEqual(sale);
      // With a box too: both apply.
      expect(idsOf(await cards(`area=${area}&bbox=0,0,1,1`)), name).toEqual([]);
    }
  });

  it('gives the map answer the listings inside, and bounds around them alone', async () => {
    for (const { name, area, holds } of outlines()) {
      const inside = placed.filter(holds);
      const response = await rig.get<ListingMap>(`/api/v1/listings/map?area=${area}&bbox=${WORLD}&zoom=20`);
      expect(response.status, response.text).toBe(200);
      const singles = response.body.features
        .filter((feature) => !('cluster' in feature.properties))
        .map((feature) => feature.properties as MapListingProperties);
      expect(idsOf(singles), name).toEqual(idsOf(inside));
      expect(response.body.bounds, name).toEqual({
        west: Math.min(...inside.map((card) => card.position!.lng)),
        south: Math.min(...inside.map((card) => card.position!.lat)),
        east: Math.max(...inside.map((card) => card.position!.lng)),
        north: Math.max(...inside.map((card) => card.position!.lat)),
      });
    }
  });

  it('names the suburbs an alert for the area follows: those of the listings inside', async () => {
    const [{ area, holds }] = outlines();
    const response = await rig.get<AreaSuburbs>(`/api/v1/suburbs?area=${area}`);
    expect(response.status, response.text).toBe(200);
    const names = (cards: ListingSummary[]) => [...new Set(cards.map((card) => card.address.suburb!.toLowerCase()))].sort();
    // Every status: sold homes say where their suburbs are too.
    const everyStatus = [...placed, ...(await cards('status=sold')), ...(await cards('status=leased'))].filter((card) => card.position && holds(card));
    expect(response.body.items.map((suburb) => suburb.name.toLowerCase()).sort()).toEqual(names(everyStatus).slice(0, 12));
    expect(response.body.items.length).toBeGreaterThan(0);
  });

  it('takes an outline drawn across the antimeridian as the shape it is', async () => {
    // From 140°E eastwards across 180° to 170°W: every placed listing (Melbourne and Sydney) inside.
    // Read the long way round (170°W westwards to 140°E) it would hold none of them.
    const across = outline([
      [-20, 140],
      [-20, -170],
      [-50, -170],
      [-50, 140],
    ]);
    expect(idsOf(await cards(`area=${across}`))).toEqual(idsOf(placed));
    const map = await rig.get<ListingMap>(`/api/v1/listings/map?bbox=${WORLD}&area=${across}&zoom=20`);
    expect(map.status, map.text).toBe(200);
    expect(map.body.features.length).toBeGreaterThan(0);
    // East of 179°E across to 170°W: none of them.
    const pacific = outline([
      [-20, 179],
      [-20, -170],
      [-50, -170],
      [-50, 179],
    ]);
    expect(await cards(`area=${pacific}`)).toEqual([]);
  });

  it('refuses nonsense with a 400 naming area', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `${(-37.8 - Math.sin(i / 16) / 100).toFixed(5)},${(145 + Math.cos(i / 16) / 100).toFixed(5)}`).join(';');
    for (const bad of [
      'nonsense',
      '-37.8,145',
      '-37.8,145;-37.9,145;-37.8,145;x',
      '-97,145;-37.9,145;-37.9,145.1',
      '-37.8,145;-37.8,145.1;-37.8,145.2',
      many,
    ]) {
      for (const path of ['/api/v1/listings', '/api/v1/listings/map', '/api/v1/suburbs']) {
        const query = `area=${encodeURIComponent(bad)}${path.endsWith('map') ? `&bbox=${WORLD}&zoom=5` : ''}`;
        const response = await rig.get<{ fields: Record<string, string>; message: string }>(`${path}?${query}`);
        expect(response.status, `${path} ${bad}`).toBe(400);
        expect(Object.keys(response.body.fields), `${path} ${bad}`).toEqual(['area']);
      }
    }
    expect((await rig.get<{ fields: Record<string, string> }>(`/api/v1/listings?area=${encodeURIComponent(many)}`)).body.fields.area).toMatch(
      /at most 100 corners/,
    );
    expect((await rig.get('/api/v1/listings?area=a&area=b')).status).toBe(400);
  });
});
