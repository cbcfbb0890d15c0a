import type { BoundingBox } from './listing-filters.ts';
import type { Suburb } from './relay-api.ts';

/**
 * A map area in a saved search: the CRM's requirement holds suburbs, not areas, so an alert for
 * "homes in this box" follows the suburbs the box covers. The one rule for the relay (which finds
 * them: `GET /api/v1/suburbs?bbox=`, and refuses a longer list in `POST /api/v1/saved-searches`)
 * and the widget (which shows them before sending and sends them as `search.suburbs`).
 *
 * A suburb is in the area when one of the agency's placed listings of that suburb (any status: a
 * sold home still says where the suburb is) lies inside the box; a listing the relay could place
 * only at its suburb stands at the suburb's middle (server/places/). Suburbs without any placed
 * listing are not found: the relay knows no suburb boundaries, and an agency's alerts are about the
 * suburbs it lists in.
 */

/**
 * The most suburbs an alert follows. Past it, the suburbs with the most listings in the box are
 * kept, and the form says how many more the box covers and that zooming in chooses fewer: an alert
 * for a whole city's worth of suburbs is no longer "this area", and a requirement this long is
 * hard for an agent to read.
 */
export const AREA_SUBURBS_MAX = 12;

/** `GET /api/v1/suburbs?bbox=…`: the suburbs an alert for this area follows, and how many more it covers past the cap. */
export interface AreaSuburbs {
  /** Most listings in the box first (then A-Z), at most AREA_SUBURBS_MAX. */
  items: Suburb[];
  /** Suburbs in the box past the cap, not followed (0 when none). */
  more: number;
}

/**
 * "Include surrounding suburbs" in a saved search: the requirement holds the chosen suburbs and
 * those around them, named (`GET /api/v1/suburbs?around=Kew,Hawthorn` gives the ones around,
 * nearest first; the widget shows them before sending). The chosen come first, then the nearest
 * around them, AREA_SUBURBS_MAX in all; the rest counted, as for a map area.
 */
export function withSurrounding(chosen: readonly string[], around: AreaSuburbs): { names: string[]; more: number } {
  const names = [...new Map(chosen.map((name) => [suburbKey(name), name.trim()])).values()];
  const taken = new Set(names.map(suburbKey));
  const extra = around.items.map((suburb) => suburb.name).filter((name) => !taken.has(suburbKey(name)));
  const room = Math.max(0, AREA_SUBURBS_MAX - names.length);
  return { names: [...names, ...extra.slice(0, room)], more: Math.max(0, extra.length - room) + around.more };
}

/** A place the relay knows: a listing's suburb and its position. */
export interface SuburbPlace {
  suburb: Suburb;
  lat: number;
  lng: number;
}

/** How two spellings of one suburb compare: blanks folded, letter case ignored. */
export function suburbKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Whether the point lies in the box (edges included; a west above east crosses the antimeridian). */
export function inBox(box: BoundingBox, lat: number, lng: number): boolean {
  if (lat < box.south || lat > box.north) return false;
  return box.west <= box.east ? lng >= box.west && lng <= box.east : lng >= box.west || lng <= box.east;
}

/** The suburbs the box covers (the rule above), most listings in the box first, capped at AREA_SUBURBS_MAX. */
export function suburbsInArea(places: Iterable<SuburbPlace>, box: BoundingBox): AreaSuburbs {
  const found = new Map<string, { suburb: Suburb; count: number }>();
  for (const place of places) {
    if (!place.suburb.name.trim() || !inBox(box, place.lat, place.lng)) continue;
    const key = suburbKey(place.suburb.name);
    const held = found.get(key);
    if (held) held.count++;
    else found.set(key, { suburb: place.suburb, count: 1 });
  }
  const ranked = [...found.values()].sort((a, b) => b.count - a.count || a.suburb.name.localeCompare(b.suburb.name, 'en'));
  return { items: ranked.slice(0, AREA_SUBURBS_MAX).map((entry) => entry.suburb), more: Math.max(0, ranked.length - AREA_SUBURBS_MAX) };
}
