import { suburbKey } from '../../contract/saved-search-area.ts';
import type { SuburbCentre } from '../listings/placement.ts';
import { distanceKm } from './distance.ts';

/*
 * "Include surrounding suburbs" (the listing filter `surrounding`, server/listings/query.ts): the suburbs whose middles lie within SURROUNDING_KM of a chosen
 * suburb's middle (the places module's suburb centres: where the geocoder found the suburb, else
 * the middle of its placed listings). The relay knows no suburb boundaries, so neighbours are told
 * by distance: metropolitan suburbs that share a border are 1.5 to 4 km apart middle to middle (Kew
 * and Hawthorn 1.8 km, Kew and Richmond 3.5 km), the next ring out 4.5 km or more (Kew and Fitzroy
 * 4.7 km). A rural locality is tens of km across, so few rural suburbs have neighbours this way:
 * better a short list than a town 20 km off. Only the agency's suburbs are found (those it lists in).
 */

/** How far (km) a suburb's middle may lie from a chosen suburb's and count as surrounding it. */
export const SURROUNDING_KM = 4;

/** The suburbs around the named ones (each named once, the nearest first), the named ones not among them. */
export function surroundingSuburbs(named: readonly string[], centres: readonly SuburbCentre[]): string[] {
  const chosen = new Set(named.map(suburbKey));
  const middles = centres.filter((centre) => chosen.has(suburbKey(centre.suburb)));
  const found = new Map<string, { name: string; km: number }>();
  for (const centre of centres) {
    const key = suburbKey(centre.suburb);
    if (chosen.has(key)) continue;
    const km = Math.min(...middles.map((middle) => distanceKm(middle, centre)));
    if (km > SURROUNDING_KM) continue;
    const held = found.get(key);
    if (!held || km < held.km) found.set(key, { name: centre.suburb, km });
  }
  return [...found.values()].sort((a, b) => a.km - b.km || a.name.localeCompare(b.name, 'en')).map((entry) => entry.name);
}
