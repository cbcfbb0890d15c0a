import { createHash } from 'node:crypto';
import Supercluster, { type PointFeature } from 'supercluster';
import type { BoundingBox } from '../../contract/listing-filters.ts';
import type { ListingMap, ListingMapFeature, ListingPosition, ListingSummary, MapBounds, MapListingProperties } from '../../contract/relay-api.ts';

/**
 * What a pin shows of a listing, read for the map alone (PublicListings.mapPins): the card's own
 * fields, its smallest JPEG, and where it is (null: not placed).
 */
export type MapPin = Pick<ListingSummary, 'id' | 'displayPrice' | 'bed' | 'bath' | 'cars' | 'type' | 'status' | 'position'> & {
  title: string | null;
  thumbnail: string | null;
};

/*
 * The map answer (GET /api/v1/listings/map): the placed listings a filter set selects, clustered
 * with supercluster (Mapbox's point clustering, the one MapLibre and Leaflet plugins use) on the
 * relay, so a map of 5,000 homes downloads a few dozen clusters instead of 5,000 cards. One index
 * per filter set and cache change (routes.ts keeps it in the answer cache); each answer is the
 * index cut to a box at a zoom.
 */

/** Cluster radius in pixels of a 512-pixel tile, and the last zoom that clusters (past it, every listing is its own point). */
export const MAP_CLUSTER_RADIUS = 60;
export const MAP_MAX_ZOOM = 16;

/** Roughly what an index holds per listing: its properties, position and the trees' entries at each zoom. */
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
 * The index of the pins a filter set selects. Only the public card's own fields go in (never a
 * withheld price: displayPrice is the agency's own words), so the map shows nothing a card does not.
 */
export function listingMapIndex(cards: readonly MapPin[]): ListingMapIndex {
  const points: Array<PointFeature<MapListingProperties>> = [];
  const positions = new Map<number, ListingPosition>();
  for (const card of cards) {
    if (!card.position) continue;
    positions.set(card.id, card.position);
    points.push({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [card.position.lng, card.position.lat] },
      properties: mapProperties(card, card.position),
    });
  }
  const index = new Supercluster<MapListingProperties, Record<string, never>>({ radius: MAP_CLUSTER_RADIUS, maxZoom: MAP_MAX_ZOOM });
  index.load(points);
  const unplaced = cards.length - points.length;
  const bounds = boundsOf(points.map((point) => point.geometry.coordinates as [number, number]));

  return {
    unplaced,
    placed: points.length,
    bytes: points.length * INDEX_BYTES_PER_LISTING,
    cut(box, zoom) {
      const features: ListingMapFeature[] = [];
      const parts: string[] = [];
      for (const found of index.getClusters([box.west, box.south, box.east, box.north], zoom)) {
        const properties = found.properties;
        if ('cluster' in properties && properties.cluster) {
          const id = properties.cluster_id;
          parts.push(`c${id}`);
          features.push({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: found.geometry.coordinates as [number, number] },
            properties: { cluster: true, id, count: properties.point_count, expansionZoom: index.getClusterExpansionZoom(id) },
          });
        } else {
          const listing = properties as MapListingProperties;
          const position = positions.get(listing.id)!;
          parts.push(String(listing.id));
          // The listing's own position (the index keeps it to a few centimetres).
          features.push({ type: 'Feature', geometry: { type: 'Point', coordinates: [position.lng, position.lat] }, properties: listing });
        }
      }
      return { features, signature: createHash('sha1').update(parts.join(',')).digest('base64url') };
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
