import type { BoundingBox } from '../../contract/listing-filters.ts';
import type { ListingPosition, PlacementSummary } from '../../contract/relay-api.ts';
import type { ListingPlace } from './source.ts';

/*
 * Where listings are on a map: a port the listings feature calls and the places module
 * (server/places/) implements. The cache tells it each listing it writes or removes, the public
 * listing reads positions from it; it never calls anything that could delay a sync (placing by a
 * geocoder happens in its own worker).
 */
export interface ListingPlacements {
  /** The cache wrote these listings (synchronous: a look-up of known answers and a write). */
  written(listings: ReadonlyArray<{ id: number; place: ListingPlace }>): void;
  /** The cache removed these listings. */
  removed(ids: readonly number[]): void;
  /** The positions known now, by listing id (absent: none yet). */
  positionsOf(ids: readonly number[]): Map<number, ListingPosition>;
  /** The ids of the listings placed inside the box (edges included; west above east: across the antimeridian). */
  within(box: BoundingBox): number[];
  /** The distinct latitudes and longitudes of placed listings, ascending: where a box's edges may move without changing what it holds. */
  edges(): { lats: number[]; lngs: number[] };
  /** How many cached listings are placed, waiting or could not be placed. */
  summary(): PlacementSummary;
}
