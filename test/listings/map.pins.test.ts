import { describe, expect, it } from 'vitest';
import type { ListingPosition, MapClusterProperties, MapListingProperties } from '../../contract/relay-api.ts';
import { listingMapIndex, type MapPin, type MapPoints } from '../../server/listings/map.ts';

/*
 * The map's index is built from ids and positions alone (issue #30: a cold map answer within 3x a
 * cold list page): a listing's fields are read only when a cut shows it as a point of its own, once
 * per index. These drive listingMapIndex directly, counting what it asks of the cache.
 */

/** 400 listings in a 20 x 20 grid about 100 m apart around Kew (at zoom 10 a few clusters, at 16 every one alone), and 3 unplaced. */
function grid(): MapPoints {
  const placed: Array<{ id: number; position: ListingPosition }> = [];
  for (let row = 0; row < 20; row++) {
    for (let column = 0; column < 20; column++) {
      placed.push({
        id: 1000 + row * 20 + column,
        position: { lat: round(-37.8 - row * 0.001), lng: round(145.03 + column * 0.001), precision: row === 0 ? 'suburb' : 'crm' },
      });
    }
  }
  return { selected: placed.length + 3, placed };
}

const round = (degrees: number) => Number(degrees.toFixed(4));

function pin(id: number): MapPin {
  return {
    id,
    title: `${id} Example Street, Kew`,
    displayPrice: `$${id},000`,
    bed: 3,
    bath: 2,
    cars: 1,
    thumbnail: `/photos/${id}-240.jpg`,
    type: 'sale',
    status: 'available',
  };
}

/** The index with a pin reader that records each call, leaving out the listings in `gone`. */
function indexOf(points: MapPoints, gone = new Set<number>()) {
  const asked: number[][] = [];
  const index = listingMapIndex(points, (ids) => {
    asked.push([...ids]);
    return ids.filter((id) => !gone.has(id)).map(pin);
  });
  return { index, asked };
}

const KEW = { west: 145.0, south: -37.9, east: 145.1, north: -37.7 };
const CORNER = { west: 145.0295, south: -37.8015, east: 145.0315, north: -37.7995 };

describe('the map index reads pins only for the listings a cut shows alone', () => {
  it('builds from ids and positions, and a cut of clusters reads no pin', () => {
    const { index, asked } = indexOf(grid());
    expect(asked).toEqual([]);
    expect(index).toMatchObject({ placed: 400, unplaced: 3 });
    const cut = index.cut(KEW, 10);
    expect(cut.features.length).toBeGreaterThan(0);
    expect(cut.features.every((feature) => 'cluster' in feature.properties)).toBe(true);
    expect(cut.features.reduce((sum, feature) => sum + (feature.properties as MapClusterProperties).count, 0)).toBe(400);
    expect(asked).toEqual([]);
    expect(index.collection(cut)).toMatchObject({ unplaced: 3, bounds: { west: 145.03, east: 145.049, north: -37.8, south: -37.819 } });
  });

  it("reads the pins a cut shows alone, once each per index; a feature carries the pin's fields and the index's position", () => {
    const { index, asked } = indexOf(grid());
    const corner = index.cut(CORNER, 16);
    const ids = corner.features.map((feature) => (feature.properties as MapListingProperties).id).sort();
    // The corner box holds listings 1000, 1001, 1020 and 1021, each a point of its own at zoom 16.
    expect(ids).toEqual([1000, 1001, 1020, 1021]);
    expect(asked.flat().sort()).toEqual(ids);
    const first = corner.features.find((feature) => (feature.properties as MapListingProperties).id === 1000)!;
    expect(first.geometry.coordinates).toEqual([145.03, -37.8]);
    expect(first.properties).toEqual({
      id: 1000,
      title: '1000 Example Street, Kew',
      price: '$1000,000',
      bed: 3,
      bath: 2,
      cars: 1,
      thumbnail: '/photos/1000-240.jpg',
      type: 'sale',
      status: 'available',
      // The position's own precision (a withheld address is at its suburb, and says so), not the pin's.
      precision: 'suburb',
    });
    // The same box again, and a box around it at another zoom: the pins already read are not read again.
    index.cut(CORNER, 17);
    expect(asked).toHaveLength(1);
    const wider = index.cut({ ...CORNER, east: 145.0325 }, 16);
    expect(wider.features).toHaveLength(6);
    expect(asked.slice(1).flat().sort()).toEqual([1002, 1022]);
  });

  it('leaves out a listing gone from the cache since the index was built', () => {
    const { index } = indexOf(grid(), new Set([1001]));
    const ids = index
      .cut(CORNER, 16)
      .features.map((feature) => (feature.properties as MapListingProperties).id)
      .sort();
    expect(ids).toEqual([1000, 1020, 1021]);
  });
});
