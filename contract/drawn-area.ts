import type { BoundingBox } from './listing-filters.ts';

/**
 * An area a buyer draws on the map (the `area` listing filter): a closed outline of corners,
 * written `lat,lng;lat,lng;…` with at most five decimals (about a metre), short enough for a URL
 * and safe in one without escaping but the separators. The relay and the widget read it with the
 * same rule; the relay's 400 says what is wrong, the widget drops a bad value.
 *
 * Plain arithmetic on degrees (the outline is a few km across, never near a pole): a listing is
 * inside when its shown position is. An outline may cross the antimeridian (the Chatham Islands,
 * Fiji, Kiribati): its corners are read as one shape, each corner's longitude taken within 180° of
 * the one before (`unwrappedCorners`), and its box then has west above east.
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

/**
 * The corners as one shape: each longitude moved by whole turns to lie within 180° of the corner
 * before, so an outline across the antimeridian keeps its short edges (some longitudes then lie
 * beyond ±180). An outline that does not cross it comes back as it was.
 */
export function unwrappedCorners(points: readonly AreaPoint[]): AreaPoint[] {
  let previous: number | undefined;
  return points.map(({ lat, lng }) => {
    let unwrapped = lng;
    if (previous !== undefined) {
      while (unwrapped - previous > 180) unwrapped -= 360;
      while (unwrapped - previous < -180) unwrapped += 360;
    }
    previous = unwrapped;
    return { lat, lng: unwrapped };
  });
}

/** The box around the corners: west above east when the outline crosses the antimeridian. */
export function areaBox(points: readonly AreaPoint[]): BoundingBox {
  const box = plainBox(unwrappedCorners(points));
  if (box.east - box.west >= 360) return { ...box, west: -180, east: 180 };
  return { ...box, west: wrapDegrees(box.west), east: wrapDegrees(box.east) };
}

function plainBox(points: readonly AreaPoint[]): BoundingBox {
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

/** A longitude brought into -180..180 (180 stays 180, so a box may end on the antimeridian). */
function wrapDegrees(lng: number): number {
  if (lng >= -180 && lng <= 180) return lng;
  return ((((lng + 180) % 360) + 360) % 360) - 180;
}

/**
 * Whether the point is inside the outline (even-odd ray casting, the outline closed from its last
 * corner back to its first). A point on an edge may fall either side; listings are not placed
 * on a drawn line. Across the antimeridian the point is tried a turn either way as well.
 */
export function inArea(points: readonly AreaPoint[], lat: number, lng: number): boolean {
  return areaTest(points)(lat, lng);
}

/** inArea for many points: the outline read once. */
export function areaTest(points: readonly AreaPoint[]): (lat: number, lng: number) => boolean {
  const corners = unwrappedCorners(points);
  const box = plainBox(corners);
  return (lat, lng) => {
    if (lat < box.south || lat > box.north) return false;
    for (const turn of [0, -360, 360]) {
      const shifted = lng + turn;
      if (shifted >= box.west && shifted <= box.east && inOutline(corners, lat, shifted)) return true;
    }
    return false;
  };
}

function inOutline(points: readonly AreaPoint[], lat: number, lng: number): boolean {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const a = points[i]!;
    const b = points[j]!;
    if (a.lat > lat !== b.lat > lat && lng < ((b.lng - a.lng) * (lat - a.lat)) / (b.lat - a.lat) + a.lng) inside = !inside;
  }
  return inside;
}
