import { createHash } from 'node:crypto';
import Supercluster, { type PointFeature } from 'supercluster';
import type { BoundingBox } from '../../contract/listing-filters.ts';
import type { ListingMap, ListingMapFeature, ListingPosition, ListingSummary, MapBounds, MapListingProperties } from '../../contract/relay-api.ts';

/**
 * What a pin shows of a listing, read for the map alone (PublicListings.mapPins): the card's own
 * fields and its smallest JPEG (where it is comes with the index's points).
 */
export type MapPin = Pick<ListingSummary, 'id' | 'displayPrice' | 'bed' | 'bath' | 'cars' | 'type' | 'status'> & {
  title: string | null;
  thumbnail: string | null;
};

/** The listings a filter set selects, as the index needs them (PublicListings.mapPoints): how many, and where the placed ones are, in the query's order. */
export interface MapPoints {
  /** Every listing the filters select, placed or not. */
  selected: number;
  placed: ReadonlyArray<{ id: number; position: ListingPosition }>;
}

/*
 * The map answer (GET /api/v1/listings/map): the placed listings a filter set selects, clustered
 * with supercluster (Mapbox's point clustering, the one MapLibre and Leaflet plugins use) on the
 * relay, so a map of 5,000 homes downloads a few dozen clusters instead of 5,000 cards. One index
 * per filter set and cache change (routes.ts keeps it in the answer cache); each answer is the
 * index cut to a box at a zoom.
 *
 * The index is built from ids and positions alone: a cut shows a listing's own fields only where
 * it is a point of its own, so those are read for the points a cut shows (a city at zoom 10 shows
 * a dozen clusters and no listing), once each per index, instead of for every listing the filter
 * set selects before its first answer (issue #30: a cold map answer within 3x a cold list page).
 */

/** Cluster radius in pixels of a 512-pixel tile, and the last zoom that clusters (past it, every listing is its own point). */
export const MAP_CLUSTER_RADIUS = 60;
export const MAP_MAX_ZOOM = 16;

/** Roughly what an index holds per listing: its position, the trees' entries at each zoom, and its properties once a cut has shown it. */
const INDEX_BYTES_PER_LISTING = 1_200;

/** One cut of the index: what it holds, and a short key that is the same exactly when the answer is. */
export interface MapCut {
  features: ListingMapFeature[];
  /** Equal for two cuts of one index exactly when their answers are equal (two boxes holding the same clusters). */
  signature: string;
}

export interface ListingMapIndex {
  /** Listings the filters select that have no position (left off the map). */
  unplaced: number;
  /** Listings on the map. */
  placed: number;
  /** Roughly the bytes it keeps alive (the answer cache counts it). */
  bytes: number;
  cut(box: BoundingBox, zoom: number): MapCut;
  /** The answer's body for a cut. */
  collection(cut: MapCut): ListingMap;
}

/**
 * The index of the listings a filter set selects; `pinsOf` reads what the pins show for listings
 * of `points` (those still cached). Only the public card's own fields go in (never a withheld
 * price: displayPrice is the agency's own words), so the map shows nothing a card does not.
 */
export function listingMapIndex(points: MapPoints, pinsOf: (ids: readonly number[]) => readonly MapPin[]): ListingMapIndex {
  const features: Array<PointFeature<{ id: number }>> = [];
  const positions = new Map<number, ListingPosition>();
  for (const { id, position } of points.placed) {
    positions.set(id, position);
    features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [position.lng, position.lat] }, properties: { id } });
  }
  const index = new Supercluster<{ id: number }, Record<string, never>>({ radius: MAP_CLUSTER_RADIUS, maxZoom: MAP_MAX_ZOOM });
  index.load(features);
  const unplaced = points.selected - features.length;
  const bounds = boundsOf(features.map((point) => point.geometry.coordinates as [number, number]));
  // The pins read so far, by id: each listing's fields are read once per index, when a cut first shows it alone.
  const pins = new Map<number, MapPin>();
  const pinsFor = (ids: readonly number[]) => {
    const missing = ids.filter((id) => !pins.has(id));
    if (missing.length > 0) for (const pin of pinsOf(missing)) pins.set(pin.id, pin);
  };

  return {
    unplaced,
    placed: features.length,
    bytes: features.length * INDEX_BYTES_PER_LISTING,
    cut(box, zoom) {
      const found = index.getClusters([box.west, box.south, box.east, box.north], zoom);
      pinsFor(found.flatMap((feature) => ('cluster' in feature.properties && feature.properties.cluster ? [] : [feature.properties.id])));
      const cutFeatures: ListingMapFeature[] = [];
      const parts: string[] = [];
      for (const feature of found) {
        const properties = feature.properties;
        if ('cluster' in properties && properties.cluster) {
          const id = properties.cluster_id;
          parts.push(`c${id}`);
          cutFeatures.push({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: feature.geometry.coordinates as [number, number] },
            properties: { cluster: true, id, count: properties.point_count, expansionZoom: index.getClusterExpansionZoom(id) },
          });
        } else {
          const { id } = properties as { id: number };
          const pin = pins.get(id);
          // Gone from the cache since the index was built (the change that removed it drops the index too): left out.
          if (!pin) continue;
          const position = positions.get(id)!;
          parts.push(String(id));
          // The listing's own position (the index keeps it to a few centimetres).
          cutFeatures.push({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [position.lng, position.lat] },
            properties: mapProperties(pin, position),
          });
        }
      }
      return { features: cutFeatures, signature: createHash('sha1').update(parts.join(',')).digest('base64url') };
    },
    collection: (cut) => ({ type: 'FeatureCollection', features: cut.features, unplaced, bounds }),
  };
}

/** The box around the points (`[lng, lat]`), or null for none. */
function boundsOf(points: ReadonlyArray<[number, number]>): MapBounds | null {
  if (points.length === 0) return null;
  const bounds: MapBounds = { west: Infinity, south: Infinity, east: -Infinity, north: -Infinity };
  for (const [lng, lat] of points) {
    bounds.west = Math.min(bounds.west, lng);
    bounds.east = Math.max(bounds.east, lng);
    bounds.south = Math.min(bounds.south, lat);
    bounds.north = Math.max(bounds.north, lat);
  }
  return bounds;
}

/** A single listing's properties: the card's own fields, its smallest photo. */
function mapProperties(card: MapPin, position: ListingPosition): MapListingProperties {
  return {
    id: card.id,
    title: card.title,
    price: card.displayPrice,
    bed: card.bed,
    bath: card.bath,
    cars: card.cars,
    thumbnail: card.thumbnail,
    type: card.type,
    status: card.status,
    precision: position.precision,
  };
}
