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
  /** The middle of each suburb the placed listings are in. */
  suburbCentres(): SuburbCentre[];
  /** The suburbs around the named ones, nearest first, the named ones not among them (server/places/surrounding.ts). */
  surroundingSuburbs(named: readonly string[]): string[];
}

/** Where a suburb is, as far as the agency's listings say. */
export interface SuburbCentre {
  suburb: string;
  state: string | null;
  postcode: string | null;
  lat: number;
  lng: number;
  /** The placed listings it is the suburb of. */
  count: number;
}
