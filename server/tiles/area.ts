import type { MapBounds } from '../../contract/relay-api.ts';
import { tileInMapArea } from '../../contract/map-area.ts';

export { AREA_MARGIN_KM, mapArea, MAX_AREA_RADIUS_KM, OPEN_ZOOM, tileX, tileY } from '../../contract/map-area.ts';

/** Tiles served beyond the map's area on every side (contract/map-area.ts), at each zoom. */
const TILE_RING = 1;

export interface TileCoordinates {
  z: number;
  x: number;
  y: number;
}

/**
 * Pixels per CSS pixel of a tile: 1 (256 px) or 2 (512 px, `@2x`, for high-density screens, when
 * MAP_TILE_URL has Leaflet's `{r}`). The same ground either way: the same area and rate rules.
 */
export type TileScale = 1 | 2;

/** A tile at a scale: what is fetched, kept on disk and served. */
export interface ScaledTile extends TileCoordinates {
  scale: TileScale;
}

/** Whether a real tile: whole numbers, 0 ≤ z ≤ maxZoom, x and y within the zoom's grid. */
export function validTile({ z, x, y }: TileCoordinates, maxZoom: number): boolean {
  if (!Number.isInteger(z) || !Number.isInteger(x) || !Number.isInteger(y)) return false;
  if (z < 0 || z > maxZoom) return false;
  const n = 2 ** z;
  return x >= 0 && x < n && y >= 0 && y < n;
}

/** Whether the tile may be served for an agency whose listings lie in `bounds` (null: none placed): the map's area and a ring of tiles. */
export function tileInArea(tile: TileCoordinates, bounds: MapBounds | null): boolean {
  return tileInMapArea(tile, bounds, TILE_RING);
}
