import type { MapBounds } from './relay-api.ts';

/**
 * Which tiles a map of one agency's listings may ask for, the one rule for the relay (which
 * refuses the others: server/tiles/area.ts, not an open tile proxy) and the map element (which
 * never asks for them: widget/map/tile-layer.ts). Zooms up to OPEN_ZOOM are served everywhere (a
 * whole-country view; 1,365 tiles in all), deeper ones only around the agency's placed listings:
 * their box, widened by AREA_MARGIN_KM or a quarter of its size (whichever is more). With no
 * listing placed, only the open zooms.
 *
 * The box is never more than MAX_AREA_RADIUS_KM each way from its middle: the relay gives the box
 * of the listings near the middle of the agency's listings (areaWindow), and mapArea cuts any box
 * down to that size, so one listing placed far away (a geocoder's wrong answer, a CRM record's
 * mistyped coordinates) cannot open a continent's or the world's tiles.
 */
export const OPEN_ZOOM = 5;
export const AREA_MARGIN_KM = 20;
/**
 * How far (km, each way) the listings' box may reach from its middle. Most agencies sell in one
 * metropolitan area or region (Greater Sydney is about 120 km from north to south), but one CRM
 * account may hold offices in two capitals: the demo's simulated agency sells in Melbourne and in
 * Sydney, 713 km apart. 1,000 km each way holds that with room to spare, and keeps out another
 * continent (London is 17,000 km from Manly), a stray position's usual distance
 * (a wrong answer names a place of the same name elsewhere in the world). A map of one city never
 * comes near it: its box is its listings'.
 */
export const MAX_AREA_RADIUS_KM = 1_000;
const AREA_MARGIN_SHARE = 0.25;
const KM_PER_DEGREE = 111.32;
/** Web Mercator's edge. */
const MAX_LAT = 85.05112878;

/** The tile column holding a longitude at zoom z. */
export function tileX(lng: number, z: number): number {
  const n = 2 ** z;
  return Math.min(n - 1, Math.max(0, Math.floor(((lng + 180) / 360) * n)));
}

/** The tile row holding a latitude at zoom z (row 0 at the north). */
export function tileY(lat: number, z: number): number {
  const n = 2 ** z;
  const rad = (Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180;
  return Math.min(n - 1, Math.max(0, Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n)));
}

/** Degrees of latitude and of longitude (at `lat`) that `km` spans. */
function degreesOf(km: number, lat: number): { lat: number; lng: number } {
  return { lat: km / KM_PER_DEGREE, lng: km / (KM_PER_DEGREE * Math.max(0.01, Math.cos((lat * Math.PI) / 180))) };
}

/** The box MAX_AREA_RADIUS_KM each way around `centre`: the listings inside it make the map's area. */
export function areaWindow(centre: { lat: number; lng: number }): MapBounds {
  const reach = degreesOf(MAX_AREA_RADIUS_KM, centre.lat);
  return {
    south: Math.max(-MAX_LAT, centre.lat - reach.lat),
    north: Math.min(MAX_LAT, centre.lat + reach.lat),
    west: Math.max(-180, centre.lng - reach.lng),
    east: Math.min(180, centre.lng + reach.lng),
  };
}

/** `bounds` cut down to MAX_AREA_RADIUS_KM each way around its middle (as it is when it is smaller). */
export function cappedBounds(bounds: MapBounds): MapBounds {
  const window = areaWindow({ lat: (bounds.north + bounds.south) / 2, lng: (bounds.east + bounds.west) / 2 });
  return {
    south: Math.max(bounds.south, window.south),
    north: Math.min(bounds.north, window.north),
    west: Math.max(bounds.west, window.west),
    east: Math.min(bounds.east, window.east),
  };
}

/** The listings' box, capped, widened by the margin: the area the map is for. */
export function mapArea(listingBounds: MapBounds): MapBounds {
  const bounds = cappedBounds(listingBounds);
  const midLat = (bounds.north + bounds.south) / 2;
  const latMargin = Math.max(AREA_MARGIN_KM / KM_PER_DEGREE, (bounds.north - bounds.south) * AREA_MARGIN_SHARE);
  const lngMargin = Math.max(
    AREA_MARGIN_KM / (KM_PER_DEGREE * Math.max(0.01, Math.cos((midLat * Math.PI) / 180))),
    (bounds.east - bounds.west) * AREA_MARGIN_SHARE,
  );
  return {
    south: Math.max(-MAX_LAT, bounds.south - latMargin),
    north: Math.min(MAX_LAT, bounds.north + latMargin),
    west: Math.max(-180, bounds.west - lngMargin),
    east: Math.min(180, bounds.east + lngMargin),
  };
}

/**
 * Whether the tile touches the area of listings in `bounds` (null: none placed), widened by `ring`
 * tiles on every side at its zoom (the relay serves one more, so the edges of a view zoomed out a
 * little are not blank; the element asks for none of those, keeping within what the relay serves).
 */
export function tileInMapArea({ z, x, y }: { z: number; x: number; y: number }, bounds: MapBounds | null, ring = 0): boolean {
  if (z <= OPEN_ZOOM) return true;
  if (!bounds) return false;
  const area = mapArea(bounds);
  const n = 2 ** z;
  const west = Math.max(0, tileX(area.west, z) - ring);
  const east = Math.min(n - 1, tileX(area.east, z) + ring);
  const north = Math.max(0, tileY(area.north, z) - ring);
  const south = Math.min(n - 1, tileY(area.south, z) + ring);
  return x >= west && x <= east && y >= north && y <= south;
}
