// The map element asks only for tiles the relay serves (widget/map/tile-layer.ts's servedTile
// against server/tiles/area.ts's tileInArea): every tile the element would ask for is one the relay
// serves, and it still asks for every tile over the listings themselves.
import { describe, expect, it } from 'vitest';
import { tileInArea, tileX, tileY } from '../../server/tiles/area.ts';
import { servedTile } from '../../widget/map/tile-layer.ts';

const AREAS = [
  { south: -37.824605, west: 144.897196, north: -33.865616, east: 151.2268 },
  { south: -37.85, west: 144.98, north: -37.79, east: 145.06 },
  { south: -37.8312, west: 145.0355, north: -37.8312, east: 145.0355 },
  { south: 51.4, west: -0.3, north: 51.6, east: 0.1 },
];

describe('the tiles the map element asks for', () => {
  it('are all within the relay’s area, and cover the listings’ box at every zoom', () => {
    for (const bounds of AREAS) {
      for (let z = 0; z <= 12; z++) {
        const x0 = Math.max(0, tileX(bounds.west, z) - 4);
        const x1 = Math.min(2 ** z - 1, tileX(bounds.east, z) + 4);
        const y0 = Math.max(0, tileY(bounds.north, z) - 4);
        const y1 = Math.min(2 ** z - 1, tileY(bounds.south, z) + 4);
        for (let x = x0; x <= x1; x++) {
          for (let y = y0; y <= y1; y++) {
            const tile = { x, y, z };
            if (servedTile(tile, bounds)) expect(tileInArea(tile, bounds), `${z}/${x}/${y}`).toBe(true);
            const overListings = x >= tileX(bounds.west, z) && x <= tileX(bounds.east, z) && y >= tileY(bounds.north, z) && y <= tileY(bounds.south, z);
            if (overListings) expect(servedTile(tile, bounds), `${z}/${x}/${y} over the listings`).toBe(true);
          }
        }
      }
      expect(servedTile({ x: 0, y: 0, z: 6 }, null)).toBe(false);
      expect(servedTile({ x: 0, y: 0, z: 5 }, null)).toBe(true);
    }
  });
});
