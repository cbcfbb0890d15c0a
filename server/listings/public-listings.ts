import type { Agent, ListingDetail, ListingPosition, ListingSummary, Page, Photo } from '../../contract/relay-api.ts';
import type { ListingPlacements } from './placement.ts';
import type { PhotoMirror } from '../photos/mirror.ts';
import { publicPhoto } from '../photos/public.ts';
import type { CachedListing, ListingCache } from './cache.ts';
import {
  listingsSql,
  parseListingsQuery,
  snapBoxFilter,
  snapPriceFilters,
  type FilterContext,
  type ParsedListingsQuery,
  type PlaceEdges,
  type PriceEdges,
} from './query.ts';
import type { Clock } from '../runtime/clock.ts';

/**
 * The public listing shape, read from the cache: what GET /api/v1/listings[/:id] answers and what
 * the server-rendered pages show. One builder for both, so a page can never show a field the API
 * keeps back (withheld prices, confidential CRM fields). Never calls the CRM.
 */
export interface PublicListings {
  /** A listing by its id (or an old CRM property id); undefined when not in the cache. */
  detail(id: number): ListingDetail | undefined;
  /** The query as the cache keys it: its price filters and bbox at the edges that select the same listings (query.ts, snapPriceFilters, snapBoxFilter). */
  canonical(query: ParsedListingsQuery): ParsedListingsQuery;
  /** A page of cards for a parsed query. */
  page(query: ParsedListingsQuery): Page<ListingSummary>;
  /** Every card the query selects, unpaged, in its order (for the map). */
  all(query: ParsedListingsQuery): ListingSummary[];
  /** A page of cards for raw query parameters (validated as the API does: a 400 names each bad one). */
  pageFor(parameters: Record<string, string>): Page<ListingSummary>;
  /** Every current listing's id, type, status, suburb and last change (for sitemaps). */
  index(): Array<Pick<ListingSummary, 'id' | 'type' | 'status' | 'address' | 'modified'>>;
  agents(): Agent[];
}

export interface PublicListingsDeps {
  cache: ListingCache;
  mirror: PhotoMirror;
  /** Absolute URL prefix of photos (PUBLIC_URL), or '' for relay-relative ones. */
  base: string;
  now?: Clock;
  /** Where listings are on a map (server/places/); without it, no listing has a position. */
  placements?: ListingPlacements;
}

export function publicListings(deps: PublicListingsDeps): PublicListings {
  const { cache, mirror, base } = deps;
  const now = deps.now ?? Date.now;
  // Read once per change of the cache: a flood of price filters costs one query, not one each.
  let edges: PriceEdges | undefined;
  let placeEdges: PlaceEdges | undefined;
  cache.onChange(() => {
    edges = undefined;
    placeEdges = undefined;
  });
  const positionsOf = (ids: readonly number[]) => deps.placements?.positionsOf(ids) ?? new Map<number, ListingPosition>();
  const context: FilterContext = { placedWithin: (box) => deps.placements?.within(box) ?? [] };

  function agentsById(ids: readonly number[] | undefined): Agent[] {
    const agents = cache.visibleAgents(ids);
    const portraits = mirror.photosOf(
      'agent',
      agents.map((agent) => agent.id),
    );
    const byId = new Map(
      agents.map((agent): [number, Agent] => {
        const portrait = portraits.get(agent.id)?.[0];
        const { id, name, position, phone, email } = agent.fields;
        return [agent.id, { id, name, position, phone, email, photo: portrait ? publicPhoto(portrait, base) : null }];
      }),
    );
    // Keep the listing's own order of agents.
    return ids === undefined ? [...byId.values()] : ids.map((id) => byId.get(id)).filter((agent): agent is Agent => agent !== undefined);
  }

  const cards = (query: ParsedListingsQuery, limit: number, offset: number): { items: ListingSummary[]; total: number } => {
    const sql = listingsSql(query, context);
    const { rows, total } = cache.findListings(sql.where, sql.params, sql.orderBy, limit, offset);
    const ids = rows.map((row) => row.id);
    const photos = mirror.photosOf('listing', ids);
    const positions = positionsOf(ids);
    return {
      items: rows.map((row) =>
        summary(
          row,
          (photos.get(row.id) ?? []).map((photo) => ({ kind: photo.kind, photo: publicPhoto(photo, base) })),
          positions.get(row.id) ?? null,
        ),
      ),
      total,
    };
  };
  const page = (query: ParsedListingsQuery): Page<ListingSummary> => ({
    ...cards(query, query.pageSize, (query.page - 1) * query.pageSize),
    page: query.page,
    pageSize: query.pageSize,
  });

  return {
    detail(id) {
      const listing = cache.getListing(id);
      if (!listing) return undefined;
      // listing.id, not id: an old link may name the CRM property (see ListingCache.getListing).
      const photos = (mirror.photosOf('listing', [listing.id]).get(listing.id) ?? []).map((photo) => ({ kind: photo.kind, photo: publicPhoto(photo, base) }));
      const agents = agentsById(listing.agentIds);
      // Open homes that have not finished.
      const openHomes = cache.openHomesOf(listing.id, new Date(now()).toISOString()).map((row) => ({ id: row.id, start: row.start, end: row.end }));
      return detail(listing, photos, agents, openHomes, positionsOf([listing.id]).get(listing.id) ?? null);
    },
    canonical: (query) =>
      snapBoxFilter(snapPriceFilters(query, (edges ??= cache.priceEdges())), (placeEdges ??= deps.placements?.edges() ?? { lats: [], lngs: [] })),
    page,
    all: (query) => cards(query, -1, 0).items,
    pageFor: (parameters) => page(parseListingsQuery(parameters)),
    index() {
      const result: ReturnType<PublicListings['index']> = [];
      for (const status of ['available', 'sold', 'leased'] as const) {
        const sql = listingsSql(parseListingsQuery({ status }), context);
        const { rows } = cache.findListings(sql.where, sql.params, sql.orderBy, -1, 0);
        for (const row of rows)
          result.push({ id: row.fields.id, type: row.fields.type, status: row.fields.status, address: row.fields.address, modified: row.fields.modified });
      }
      return result;
    },
    agents: () => agentsById(undefined),
  };
}

interface KindedPhoto {
  kind: string;
  photo: Photo;
}

/** One card: picked field by field from the cached public fields. */
function summary(listing: CachedListing, photos: KindedPhoto[], position: ListingPosition | null): ListingSummary {
  const f = listing.fields;
  const photographs = photos.filter((entry) => entry.kind === 'photograph');
  return {
    id: f.id,
    type: f.type,
    status: f.status,
    badge: f.badge,
    heading: f.heading,
    address: f.address,
    displayPrice: f.displayPrice,
    propertyType: f.propertyType,
    bed: f.bed,
    bath: f.bath,
    cars: f.cars,
    landArea: f.landArea,
    floorArea: f.floorArea,
    methodOfSale: f.methodOfSale,
    auctionDateTime: f.auctionDateTime,
    photo: photographs[0]?.photo ?? null,
    photoCount: photographs.length,
    modified: f.modified,
    position: position && { lat: position.lat, lng: position.lng, precision: position.precision },
  };
}

function detail(
  listing: CachedListing,
  photos: KindedPhoto[],
  agents: Agent[],
  openHomes: ListingDetail['openHomes'],
  position: ListingPosition | null,
): ListingDetail {
  const f = listing.fields;
  return {
    ...summary(listing, photos, position),
    description: f.description,
    photos: photos.filter((entry) => entry.kind === 'photograph').map((entry) => entry.photo),
    floorplans: photos.filter((entry) => entry.kind === 'floorplan').map((entry) => entry.photo),
    links: f.links,
    openHomes,
    auction: f.auction,
    agents,
    features: f.features,
    ensuites: f.ensuites,
    toilets: f.toilets,
    geolocation: f.geolocation,
    inserted: f.inserted,
  };
}
