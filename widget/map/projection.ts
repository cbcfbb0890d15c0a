import type { BoundingBox } from '../../contract/listing-filters.ts';

/*
 * Web Mercator, the projection of every web map's tiles, in d3-tile's and d3-zoom's terms: a point
 * of the world is a "unit" point, x and y from -0.5 to 0.5 with (0, 0) at longitude 0 on the
 * equator; a view is a transform { k, x, y }, k the world's width on screen in pixels and (x, y)
 * where the world's centre is on screen. So screen = (x + k * unitX, y + k * unitY), and zoom z
 * (256-pixel tiles) is k = 256 * 2^z.
 */

/** A tile's width in pixels (the relay's tiles, and the zoom levels of the map API). */
export const TILE_SIZE = 256;
/** Beyond this latitude Web Mercator runs to infinity; square tiles end here. */
export const MAX_LATITUDE = 85.0511287798;

export interface View {
  /** The world's width on screen, in pixels. */
  k: number;
  /** Where the world's centre is on screen. */
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** A longitude and latitude (degrees) as a unit point. */
export function project(lng: number, lat: number): [number, number] {
  const sin = Math.sin((clamp(lat, -MAX_LATITUDE, MAX_LATITUDE) * Math.PI) / 180);
  return [lng / 360, -Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)];
}

/** A unit point as [longitude, latitude] in degrees (longitude not wrapped). */
export function unproject(x: number, y: number): [number, number] {
  return [x * 360, (Math.atan(Math.sinh(-y * 2 * Math.PI)) * 180) / Math.PI];
}

/** Where a longitude and latitude are on screen in a view. */
export function toScreen(view: View, lng: number, lat: number): [number, number] {
  const [x, y] = project(lng, lat);
  return [view.x + view.k * x, view.y + view.k * y];
}

/** The longitude and latitude at a point on screen. */
export function fromScreen(view: View, screenX: number, screenY: number): [number, number] {
  return unproject((screenX - view.x) / view.k, (screenY - view.y) / view.k);
}

export function zoomOf(k: number): number {
  return Math.log2(k / TILE_SIZE);
}

export function scaleOf(zoom: number): number {
  return TILE_SIZE * 2 ** zoom;
}

/** The view at `zoom` with the point at the middle of a box of `size`. */
export function viewAt(lng: number, lat: number, zoom: number, size: Size): View {
  const k = scaleOf(zoom);
  const [x, y] = project(lng, lat);
  return { k, x: size.width / 2 - k * x, y: size.height / 2 - k * y };
}

/** Room kept clear on each side of a box, in pixels (a map's controls over it). */
export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

/**
 * The deepest whole zoom (within min..max) at which the box fits in `size` less `padding` on each
 * side (one number for all, or each side's), centred in what is left. A box of one point (a single
 * listing) gets `max`.
 */
export function fitBox(box: BoundingBox, size: Size, options: { padding?: number | Insets; minZoom: number; maxZoom: number }): View {
  const all = options.padding ?? 0;
  const { top, right, bottom, left } = typeof all === 'number' ? { top: all, right: all, bottom: all, left: all } : all;
  const east = box.east < box.west ? box.east + 360 : box.east;
  const [x0, y0] = project(box.west, box.north);
  const [x1, y1] = project(east, box.south);
  const width = Math.max(1, size.width - left - right);
  const height = Math.max(1, size.height - top - bottom);
  const spanX = x1 - x0;
  const spanY = y1 - y0;
  const fits = Math.min(spanX > 0 ? width / spanX : Infinity, spanY > 0 ? height / spanY : Infinity);
  const zoom = clamp(Math.floor(Number.isFinite(fits) ? zoomOf(fits) : options.maxZoom), options.minZoom, options.maxZoom);
  const k = scaleOf(zoom);
  return { k, x: left + width / 2 - (k * (x0 + x1)) / 2, y: top + height / 2 - (k * (y0 + y1)) / 2 };
}

/** Rounds outward to 5 decimals (about a metre): short, stable query parameters that never cut the view. */
const down = (value: number) => Math.floor(value * 1e5) / 1e5;
const up = (value: number) => Math.ceil(value * 1e5) / 1e5;

/**
 * What a view of `size` shows, as a bounding box (longitudes wrapped into -180..180; a view wider
 * than the world is the whole world's width; latitudes within Web Mercator's).
 */
export function viewBox(view: View, size: Size): BoundingBox {
  const [west, north] = fromScreen(view, 0, 0);
  const [east, south] = fromScreen(view, size.width, size.height);
  const box = {
    south: clamp(down(south), -MAX_LATITUDE, MAX_LATITUDE),
    north: clamp(up(north), -MAX_LATITUDE, MAX_LATITUDE),
    west: -180,
    east: 180,
  };
  if (east - west < 360) {
    box.west = clamp(down(wrapLongitude(west)), -180, 180);
    box.east = clamp(up(wrapLongitude(east)), -180, 180);
  }
  return box;
}

/** A longitude in -180..180. */
export function wrapLongitude(lng: number): number {
  const wrapped = ((((lng + 180) % 360) + 360) % 360) - 180;
  return wrapped === -180 && lng > 0 ? 180 : wrapped;
}

/** Where two boxes overlap (null when they do not); neither may cross the antimeridian. */
export function intersectBoxes(a: BoundingBox, b: BoundingBox): BoundingBox | null {
  if (a.west > a.east || b.west > b.east) return a.west > a.east ? b : a;
  const box = { west: Math.max(a.west, b.west), south: Math.max(a.south, b.south), east: Math.min(a.east, b.east), north: Math.min(a.north, b.north) };
  return box.west <= box.east && box.south < box.north ? box : null;
}

/** A tile's address with its x wrapped around the world (a view may show the world twice). */
export function tileAddress(x: number, y: number, z: number): { x: number; y: number; z: number } {
  const n = 2 ** z;
  return { x: ((x % n) + n) % n, y, z };
}

/** The relay's tile template (`/tiles/{z}/{x}/{y}.png`) filled in. */
export function tileUrl(template: string, tile: { x: number; y: number; z: number }): string {
  return template.replace('{z}', String(tile.z)).replace('{x}', String(tile.x)).replace('{y}', String(tile.y));
}
