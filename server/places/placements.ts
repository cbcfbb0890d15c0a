import type { BoundingBox } from '../../contract/listing-filters.ts';
import type { ListingPosition, MapBounds, PlacementSummary } from '../../contract/relay-api.ts';
import type { ListingPlacements, SuburbCentre } from '../listings/placement.ts';
import type { ListingPlace } from '../listings/source.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Store } from '../store/store.ts';
import { distanceKm } from './distance.ts';
import { surroundingSuburbs } from './surrounding.ts';
import type { PlaceQuery } from './geocoder.ts';
import type { Geocoding } from './geocoding.ts';
import {
  nextPending,
  placedEdges,
  placedRow,
  placedSuburbs,
  placedWithin,
  placementSummary,
  positionBounds,
  positionsOf,
  removePlacements,
  reopenUnplaced,
  savePlacement,
  touchPlacement,
  type PlacedRow,
} from './repository.ts';

/**
 * How far (km) a street address the geocoder found may lie from its suburb's middle and still be
 * taken. A metropolitan suburb is a few km across and Australia's large rural localities some tens
 * of km; 30 km holds a farm at the far edge of a large locality, while a wrong match (a street of
 * the same name in another state, such as Manly QLD for Manly NSW, 750 km; another country) is
 * far outside. An answer beyond it is kept as "not found" and the listing sits at its suburb.
 */
export const NEAR_SUBURB_KM = 30;

/** What one step of the worker did: asked the geocoder, placed from kept answers, or found nothing to do. */
export type StepResult = 'asked' | 'resolved' | 'idle';

/**
 * One agency's listings on the map (implements the listings' ListingPlacements port). A listing is
 * placed, in this order: at the CRM's coordinates; at its street address as the geocoder found it;
 * at its suburb. A listing whose street is withheld carries neither street nor coordinates (the
 * adapter leaves them out), so it is placed at its suburb and its street is never asked for.
 * Writing a listing only reads kept answers; what still needs the geocoder is left pending for the
 * worker (worker.ts), and the listing meanwhile shows without a position or at its suburb.
 *
 * Every query names a country: the record's, else the agency's (SITE_COUNTRY, an agency's
 * `country` in AGENCIES_FILE), and the geocoder's answer must lie in it (geocoder.ts). A street
 * address is taken only within NEAR_SUBURB_KM of its suburb as the geocoder found it (so the
 * suburb is asked too); one farther, or whose suburb cannot be found, is kept as "not found".
 */
export class Placements implements ListingPlacements {
  private readonly listeners = new Set<() => void>();
  private readonly now: Clock;
  /** ISO 3166-1 alpha-2: the agency's country, asked for when the record names none (null: none named). */
  private readonly country: string | null;

  constructor(
    private readonly store: Store,
    private readonly geocoding: Geocoding,
    options: { country?: string | null; now?: Clock } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.country = options.country?.toUpperCase() ?? null;
  }

  /** Called when a listing starts waiting for the geocoder (the worker wakes up). */
  onPending(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  written(listings: ReadonlyArray<{ id: number; place: ListingPlace }>): void {
    let pending = false;
    for (const { id, place } of listings) {
      const placeJson = JSON.stringify(place);
      const previous = placedRow(this.store, id);
      // The same place as before: its position stands (a re-sync never asks again).
      if (previous && previous.placeJson === placeJson) continue;
      const row = this.resolve(id, place, placeJson);
      savePlacement(this.store, row, this.now());
      pending ||= row.pending;
    }
    if (pending) for (const listener of this.listeners) listener();
  }

  removed(ids: readonly number[]): void {
    removePlacements(this.store, ids);
  }

  positionsOf(ids: readonly number[]): Map<number, ListingPosition> {
    return positionsOf(this.store, ids);
  }

  within(box: BoundingBox): number[] {
    return placedWithin(this.store, box);
  }

  edges(): { lats: number[]; lngs: number[] } {
    return placedEdges(this.store);
  }

  summary(): PlacementSummary {
    return placementSummary(this.store);
  }

  surroundingSuburbs(named: readonly string[]): string[] {
    return surroundingSuburbs(named, this.suburbCentres());
  }

  /**
   * The middle of each suburb the agency's placed listings are in: where the geocoder found the
   * suburb (a kept answer: never asked here), else the mean of its placed listings (listings placed
   * by the CRM's coordinates need no suburb answer). A name in two states is two suburbs.
   */
  suburbCentres(): SuburbCentre[] {
    const centres = new Map<string, SuburbCentre>();
    for (const row of placedSuburbs(this.store)) {
      const place = JSON.parse(row.placeJson) as Pick<ListingPlace, 'suburb' | 'state' | 'postcode' | 'country'>;
      const query = this.suburbQuery({ ...place, street: null, coordinates: null });
      const found = query && this.geocoding.known(query);
      const key = `${place.suburb!.toLowerCase()}|${place.state ?? ''}`;
      const held = centres.get(key);
      // Spelled with and without a postcode: the spelling most listings give, and the found middle if either has one.
      if (held && held.count >= row.count && !found) continue;
      centres.set(key, {
        suburb: place.suburb!,
        state: place.state,
        postcode: place.postcode,
        lat: found?.lat ?? row.lat,
        lng: found?.lng ?? row.lng,
        count: row.count,
      });
    }
    return [...centres.values()];
  }

  /** The box around every placed listing (the map's area; null while none is placed). */
  bounds(): MapBounds | null {
    return positionBounds(this.store);
  }

  /** Listings left unplaced are looked at again (a geocoder configured since, say); true when some now wait. */
  reopen(): boolean {
    return this.geocoding.enabled && reopenUnplaced(this.store) > 0;
  }

  /**
   * Places the next waiting listing: from kept answers when they now suffice, else by asking the
   * geocoder one query (throws its errors; the listing goes to the back of the queue). Returns
   * whether a position changed through `changed`.
   */
  async step(signal?: AbortSignal): Promise<{ result: StepResult; changed: boolean }> {
    const row = nextPending(this.store);
    if (!row) return { result: 'idle', changed: false };
    const place = JSON.parse(row.placeJson) as ListingPlace;
    const resolved = this.resolve(row.listingId, place, row.placeJson);
    if (!resolved.pending) return { result: 'resolved', changed: this.save(row, resolved) };
    const query = this.nextQuery(place)!;
    try {
      await this.geocoding.locate(query, signal);
    } catch (error) {
      touchPlacement(this.store, row.listingId, this.now());
      throw error;
    }
    // The row may have been rewritten or removed meanwhile: resolve what is there now.
    const current = placedRow(this.store, row.listingId);
    if (!current) return { result: 'asked', changed: false };
    const after = this.resolve(current.listingId, JSON.parse(current.placeJson) as ListingPlace, current.placeJson);
    return { result: 'asked', changed: this.save(current, after) };
  }

  private save(before: PlacedRow, after: PlacedRow): boolean {
    savePlacement(this.store, after, this.now());
    return JSON.stringify(before.position) !== JSON.stringify(after.position);
  }

  /** The position the kept answers give, and whether the geocoder has more to say. */
  private resolve(listingId: number, place: ListingPlace, placeJson: string): PlacedRow {
    const row = (position: ListingPosition | null, pending: boolean): PlacedRow => ({ listingId, placeJson, position, pending });
    if (place.coordinates) return row({ ...place.coordinates, precision: 'crm' }, false);
    const address = this.addressQuery(place);
    const suburb = this.suburbQuery(place);
    const suburbAnswer = suburb && this.geocoding.known(suburb);
    const addressAnswer = address && this.geocoding.known(address);
    if (address && addressAnswer) {
      if (suburbAnswer && distanceKm(addressAnswer, suburbAnswer) <= NEAR_SUBURB_KM) return row({ ...addressAnswer, precision: 'address' }, false);
      // Found far from its suburb, or with no suburb to check it against: a wrong match, kept as "not found".
      if (suburbAnswer !== undefined) this.geocoding.dismiss(address);
    }
    const atSuburb = suburbAnswer ? { ...suburbAnswer, precision: 'suburb' as const } : null;
    return row(atSuburb, this.geocoding.enabled && this.nextQuery(place) !== undefined);
  }

  /** The query the geocoder must still answer: the street first, then its suburb (where the listing sits without it, and what the street is checked against). */
  private nextQuery(place: ListingPlace): PlaceQuery | undefined {
    const address = this.addressQuery(place);
    if (address && this.geocoding.known(address) === undefined) return address;
    const suburb = this.suburbQuery(place);
    return suburb && this.geocoding.known(suburb) === undefined ? suburb : undefined;
  }

  /** The street address, only when the agency shows it (the adapter gives no street otherwise). */
  private addressQuery(place: ListingPlace): PlaceQuery | undefined {
    if (!place.street || !place.suburb) return undefined;
    return { kind: 'address', street: place.street, suburb: place.suburb, state: place.state, postcode: place.postcode, country: this.countryOf(place) };
  }

  /** The suburb alone: never a street. */
  private suburbQuery(place: ListingPlace): PlaceQuery | undefined {
    if (!place.suburb) return undefined;
    return { kind: 'suburb', suburb: place.suburb, state: place.state, postcode: place.postcode, country: this.countryOf(place) };
  }

  /** The record's country, else the agency's. */
  private countryOf(place: ListingPlace): string | null {
    return place.country?.toUpperCase() ?? this.country;
  }
}
