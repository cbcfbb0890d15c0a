import type { BoundingBox } from '../../contract/listing-filters.ts';
import { areaWindow } from '../../contract/map-area.ts';
import type { ListingPosition, MapBounds, PlacementSummary } from '../../contract/relay-api.ts';
import type { Store } from '../store/store.ts';
import { hasTable, tablesOf } from '../store/tables.ts';
import type { GeocodeAnswer } from './geocoder.ts';

/*
 * The places module's tables (migration 110): places_geocodes, every geocoder answer by normalised
 * query, and places_listings, each cached listing's place and position. Only this file reads them.
 */

/** The tables relays on one database copy from the agency's sync holder (cluster/replica.ts): the positions, not the answers. */
export const PLACES_LISTING_TABLES = ['places_listings'] as const;

/** A known answer (null: asked, nothing found), or undefined: never asked. */
export function knownAnswer(store: Store, key: string): GeocodeAnswer | undefined {
  const row = tablesOf(store).prepare('SELECT lat, lng FROM places_geocodes WHERE query_key = ?').get(key) as
    { lat: number | null; lng: number | null } | undefined;
  if (!row) return undefined;
  return row.lat === null || row.lng === null ? null : { lat: row.lat, lng: row.lng };
}

export function saveAnswer(store: Store, key: string, answer: GeocodeAnswer, now: number): void {
  tablesOf(store)
    .prepare(
      `INSERT INTO places_geocodes (query_key, lat, lng, asked_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (query_key) DO UPDATE SET lat = excluded.lat, lng = excluded.lng, asked_at = excluded.asked_at`,
    )
    .run(key, answer?.lat ?? null, answer?.lng ?? null, now);
}

/** A found answer turned "not found" (its time of asking kept: nothing was asked); false when it was not a found one. */
export function dismissAnswer(store: Store, key: string): boolean {
  return tablesOf(store).prepare('UPDATE places_geocodes SET lat = NULL, lng = NULL WHERE query_key = ? AND lat IS NOT NULL').run(key).changes > 0;
}

/** When the geocoder was last asked (by any process on this store): the next request keeps its distance. */
export function lastAskedAt(store: Store): number | null {
  return (tablesOf(store).prepare('SELECT MAX(asked_at) FROM places_geocodes').pluck().get() as number | null) ?? null;
}

export interface PlacedRow {
  listingId: number;
  placeJson: string;
  position: ListingPosition | null;
  pending: boolean;
}

interface RawRow {
  listing_id: number;
  place_json: string;
  lat: number | null;
  lng: number | null;
  precision: ListingPosition['precision'] | null;
  pending: number;
}

/** A row's position: null unless all three columns are set. */
function positionOf(raw: Pick<RawRow, 'lat' | 'lng' | 'precision'>): ListingPosition | null {
  return raw.lat !== null && raw.lng !== null && raw.precision ? { lat: raw.lat, lng: raw.lng, precision: raw.precision } : null;
}

function toRow(raw: RawRow): PlacedRow {
  return {
    listingId: raw.listing_id,
    placeJson: raw.place_json,
    position: positionOf(raw),
    pending: raw.pending === 1,
  };
}

export function placedRow(store: Store, listingId: number): PlacedRow | undefined {
  const raw = tablesOf(store).prepare('SELECT * FROM places_listings WHERE listing_id = ?').get(listingId) as RawRow | undefined;
  return raw && toRow(raw);
}

export function savePlacement(store: Store, row: PlacedRow, now: number): void {
  tablesOf(store)
    .prepare(
      `INSERT INTO places_listings (listing_id, place_json, lat, lng, precision, pending, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (listing_id) DO UPDATE SET place_json = excluded.place_json, lat = excluded.lat, lng = excluded.lng,
         precision = excluded.precision, pending = excluded.pending, updated_at = excluded.updated_at`,
    )
    .run(row.listingId, row.placeJson, row.position?.lat ?? null, row.position?.lng ?? null, row.position?.precision ?? null, row.pending ? 1 : 0, now);
}

/** A pending row tried and failed: to the back of the queue. */
export function touchPlacement(store: Store, listingId: number, now: number): void {
  tablesOf(store).prepare('UPDATE places_listings SET updated_at = ? WHERE listing_id = ?').run(now, listingId);
}

export function removePlacements(store: Store, ids: readonly number[]): void {
  if (ids.length === 0) return;
  tablesOf(store).prepare('DELETE FROM places_listings WHERE listing_id IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids));
}

/** The next listing waiting for the geocoder, longest untouched first. */
export function nextPending(store: Store): PlacedRow | undefined {
  const raw = tablesOf(store).prepare('SELECT * FROM places_listings WHERE pending = 1 ORDER BY updated_at, listing_id LIMIT 1').get() as RawRow | undefined;
  return raw && toRow(raw);
}

/** Listings left without a position: asked again (from the answers kept, the geocoder only for what was never asked). */
export function reopenUnplaced(store: Store): number {
  return tablesOf(store).prepare('UPDATE places_listings SET pending = 1 WHERE pending = 0 AND lat IS NULL').run().changes;
}

export function positionsOf(store: Store, ids: readonly number[]): Map<number, ListingPosition> {
  if (ids.length === 0) return new Map();
  // The position's columns only: the map asks for thousands at once, and their place_json is of no use here.
  const rows = tablesOf(store)
    .prepare('SELECT listing_id, lat, lng, precision FROM places_listings WHERE lat IS NOT NULL AND listing_id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(ids)) as Array<Pick<RawRow, 'listing_id' | 'lat' | 'lng' | 'precision'>>;
  const positions = new Map<number, ListingPosition>();
  for (const raw of rows) {
    const position = positionOf(raw);
    if (position) positions.set(raw.listing_id, position);
  }
  return positions;
}

/** Placed listings inside a box (west above east: the box crosses the antimeridian, so either side of it). */
export function placedWithin(store: Store, box: BoundingBox): number[] {
  if (!hasTable(store, 'places_listings')) return [];
  const longitude = box.west <= box.east ? 'lng BETWEEN ? AND ?' : '(lng >= ? OR lng <= ?)';
  return tablesOf(store)
    .prepare(`SELECT listing_id FROM places_listings WHERE lat IS NOT NULL AND lat BETWEEN ? AND ? AND ${longitude} ORDER BY listing_id`)
    .pluck()
    .all(box.south, box.north, box.west, box.east) as number[];
}

/** Each suburb of the placed listings (its name, state, postcode and country as the listings give them) and how many there are. */
export function placedSuburbs(store: Store): Array<{ placeJson: string; count: number; lat: number; lng: number }> {
  if (!hasTable(store, 'places_listings')) return [];
  return tablesOf(store)
    .prepare(
      `SELECT json_object('suburb', json_extract(place_json, '$.suburb'), 'state', json_extract(place_json, '$.state'),
           'postcode', json_extract(place_json, '$.postcode'), 'country', json_extract(place_json, '$.country')) AS placeJson,
         COUNT(*) AS count, AVG(lat) AS lat, AVG(lng) AS lng
       FROM places_listings WHERE lat IS NOT NULL AND lng IS NOT NULL AND json_extract(place_json, '$.suburb') IS NOT NULL
       GROUP BY placeJson ORDER BY placeJson`,
    )
    .all() as Array<{ placeJson: string; count: number; lat: number; lng: number }>;
}

/** The distinct latitudes and longitudes of placed listings, ascending. */
export function placedEdges(store: Store): { lats: number[]; lngs: number[] } {
  if (!hasTable(store, 'places_listings')) return { lats: [], lngs: [] };
  const column = (name: 'lat' | 'lng') =>
    tablesOf(store)
      .prepare(`SELECT DISTINCT ${name} FROM places_listings WHERE lat IS NOT NULL AND lng IS NOT NULL ORDER BY ${name}`)
      .pluck()
      .all() as number[];
  return { lats: column('lat'), lngs: column('lng') };
}

/** The figures of GET /api/v1/listings/placement and `relay status` (a store older than the module: all zero). */
export function placementSummary(store: Store): PlacementSummary {
  const summary: PlacementSummary = { listings: 0, placed: { crm: 0, address: 0, suburb: 0 }, pending: 0, unplaced: 0 };
  if (!hasTable(store, 'places_listings')) return summary;
  const rows = tablesOf(store)
    .prepare('SELECT precision, pending, lat IS NULL AS missing, COUNT(*) AS n FROM places_listings GROUP BY precision, pending, missing')
    .all() as Array<{ precision: ListingPosition['precision'] | null; pending: number; missing: number; n: number }>;
  for (const row of rows) {
    summary.listings += row.n;
    if (row.pending === 1) summary.pending += row.n;
    if (row.missing === 0 && row.precision) summary.placed[row.precision] += row.n;
    else if (row.pending === 0) summary.unplaced += row.n;
  }
  return summary;
}

/**
 * The box of the placed listings near the middle of the agency's listings (null while none is
 * placed, or on a store older than the module): the middle is the median latitude and the median
 * longitude, which stay among the agency's listings however far a few stray positions lie, and
 * only listings within MAX_AREA_RADIUS_KM of it (contract/map-area.ts, areaWindow) count. Listings
 * beyond it keep their positions (their markers show); they only do not widen the map's area.
 */
export function positionBounds(store: Store): MapBounds | null {
  if (!hasTable(store, 'places_listings')) return null;
  const db = tablesOf(store);
  const placed = 'FROM places_listings WHERE lat IS NOT NULL AND lng IS NOT NULL';
  const count = db.prepare(`SELECT COUNT(*) ${placed}`).pluck().get() as number;
  if (count === 0) return null;
  const median = (column: 'lat' | 'lng') =>
    db
      .prepare(`SELECT ${column} ${placed} ORDER BY ${column} LIMIT 1 OFFSET ?`)
      .pluck()
      .get(Math.floor((count - 1) / 2)) as number;
  const window = areaWindow({ lat: median('lat'), lng: median('lng') });
  const row = db
    .prepare(
      `SELECT MIN(lat) AS south, MIN(lng) AS west, MAX(lat) AS north, MAX(lng) AS east ${placed}
         AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ?`,
    )
    .get(window.south, window.north, window.west, window.east) as { south: number | null; west: number | null; north: number | null; east: number | null };
  // The medians of two far-apart groups of equal size may fall between them, with no listing near: no area (the open zooms only).
  if (row.south === null || row.west === null || row.north === null || row.east === null) return null;
  return { south: row.south, west: row.west, north: row.north, east: row.east };
}
