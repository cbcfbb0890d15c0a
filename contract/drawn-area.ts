import type { BoundingBox } from './listing-filters.ts';

/**
 * An area a buyer draws on the map (the `area` listing filter): a closed outline of corners,
 * written `lat,lng;lat,lng;…` with at most five decimals (about a metre), short enough for a URL
 * and safe in one without escaping but the separators. The relay and the widget read it with the
 * same rule; the relay's 400 says what is wrong, the widget drops a bad value.
 *
 * Plain arithmetic on degrees (the outline is a few km across, never near a pole or the
 * antimeridian for one agency's listings): a listing is inside when its shown position is.
 */

/** One corner of an area, in degrees. */
export interface AreaPoint {
  lat: number;
  lng: number;
}

/** Fewest corners an outline has (a triangle). */
export const AREA_POINTS_MIN = 3;
/** Most corners: the widget simplifies a freehand outline to about 50; twice that is room, not a payload. */
export const AREA_POINTS_MAX = 100;
/** Longest value: AREA_POINTS_MAX corners of `-37.12345,145.12345;` each. */
export const AREA_LENGTH_MAX = AREA_POINTS_MAX * 21;

const DEGREES = /^-?\d{1,3}(\.\d{1,5})?$/;

/** Why an outline is refused (readArea); parseArea says it in words for the relay's 400. */
export type AreaFault = 'long' | 'few' | 'many' | 'format' | 'lat' | 'lng' | 'line';

/**
 * Reads `lat,lng;lat,lng;…`: the corners, or the fault. The one rule for the relay and the widget;
 * the words are parseArea's, so the widget, which drops a bad value, carries none of them.
 */
export function readArea(text: string): AreaPoint[] | AreaFault {
  if (text.length > AREA_LENGTH_MAX) return 'long';
  const corners = text.trim().replace(/;$/, '').split(';');
  if (corners.length < AREA_POINTS_MIN) return 'few';
  if (corners.length > AREA_POINTS_MAX) return 'many';
  const points: AreaPoint[] = [];
  for (const corner of corners) {
    const parts = corner.split(',');
    if (parts.length !== 2 || !parts.every((part) => DEGREES.test(part))) return 'format';
    const [lat, lng] = parts.map(Number) as [number, number];
    if (lat < -90 || lat > 90) return 'lat';
    if (lng < -180 || lng > 180) return 'lng';
    points.push({ lat, lng });
  }
  const box = areaBox(points);
  return box.south === box.north || box.west === box.east ? 'line' : points;
}

const FAULT_WORDS: Record<AreaFault, string> = {
  long: `must be at most ${AREA_LENGTH_MAX} characters`,
  few: `must have at least ${AREA_POINTS_MIN} corners as lat,lng;lat,lng;lat,lng`,
  many: `must have at most ${AREA_POINTS_MAX} corners`,
  format: 'must be corners as lat,lng;lat,lng;… in decimal degrees (at most 5 decimals)',
  lat: 'latitudes must be from -90 to 90',
  lng: 'longitudes must be from -180 to 180',
  line: 'must enclose an area (its corners are all on one line)',
};

/** Reads `lat,lng;lat,lng;…`: the corners, or what is wrong (said in the relay's 400 for `area`). */
export function parseArea(text: string): AreaPoint[] | string {
  const read = readArea(text);
  return typeof read === 'string' ? FAULT_WORDS[read] : read;
}

/** The outline's canonical spelling (formatArea), or undefined when it is refused. */
export function canonicalArea(text: string): string | undefined {
  const read = readArea(text);
  return typeof read === 'string' ? undefined : formatArea(read);
}

/** An outline written as the query parameter: five decimals, numbers as JavaScript prints them (the canonical spelling). */
export function formatArea(points: readonly AreaPoint[]): string {
  return points.map((point) => `${round5(point.lat)},${round5(point.lng)}`).join(';');
}

function round5(degrees: number): number {
  // `+ 0` turns -0 into 0, so one outline has one spelling.
  return Math.round(degrees * 1e5) / 1e5 + 0;
}

/** The box around the corners. */
export function areaBox(points: readonly AreaPoint[]): BoundingBox {
  let west = Infinity;
  let south = Infinity;
  let east = -Infinity;
  let north = -Infinity;
  for (const { lat, lng } of points) {
    west = Math.min(west, lng);
    east = Math.max(east, lng);
    south = Math.min(south, lat);
    north = Math.max(north, lat);
  }
  return { west, south, east, north };
}

/**
 * Whether the point is inside the outline (even-odd ray casting, the outline closed from its last
 * corner back to its first). A point on an edge may fall either side; listings are not placed
 * on a drawn line.
 */
export function inArea(points: readonly AreaPoint[], lat: number, lng: number): boolean {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const a = points[i]!;
    const b = points[j]!;
    if (a.lat > lat !== b.lat > lat && lng < ((b.lng - a.lng) * (lat - a.lat)) / (b.lat - a.lat) + a.lng) inside = !inside;
  }
  return inside;
}
