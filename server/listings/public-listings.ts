import type { Agent, AgentProfile, ListingDetail, ListingPosition, ListingSummary, Office, Page, Photo, Team } from '../../contract/relay-api.ts';
import { areaBox, areaTest } from '../../contract/drawn-area.ts';
import type { ListingPlacements } from './placement.ts';
import type { PhotoMirror } from '../photos/mirror.ts';
import { publicPhoto, variantUrl } from '../photos/public.ts';
import type { MapPin, MapPoints } from './map.ts';
import type { CachedAgent, CachedListing, ListingCache } from './cache.ts';
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
import { TeamRules } from './team.ts';
import type { TeamSettings } from '../runtime/config.ts';

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
  /** Every card the query selects, unpaged, in its order. */
  all(query: ParsedListingsQuery): ListingSummary[];
  /** How many listings the query selects, and the placed ones' ids and positions in its order: what the map's index is built from. */
  mapPoints(query: ParsedListingsQuery): MapPoints;
  /** What the map's pins show of these listings (those still cached, in no order): a few fields, read only for the pins a cut shows. */
  mapPins(ids: readonly number[]): MapPin[];
  /** A page of cards for raw query parameters (validated as the API does: a 400 names each bad one). */
  pageFor(parameters: Record<string, string>): Page<ListingSummary>;
  /** Every current listing's id, type, status, suburb and last change (for sitemaps). */
  index(): Array<Pick<ListingSummary, 'id' | 'type' | 'status' | 'address' | 'modified'>>;
  /** Every staff member shown on the web and not hidden by the agency (GET /api/v1/agents). */
  agents(): Agent[];
  /** The agency's public people, in its order (listings/team.ts), and the office. */
  team(): Team;
  /** One of the agency's public people with their listings; undefined for anyone else (hidden, back office, left, unknown). */
  agent(id: number): AgentProfile | undefined;
  /** The office (named where a listing's agents have all left, and on the team page). */
  office(): Office;
}

export interface PublicListingsDeps {
  cache: ListingCache;
  mirror: PhotoMirror;
  /** Absolute URL prefix of photos (PUBLIC_URL), or '' for relay-relative ones. */
  base: string;
  now?: Clock;
  /** Where listings are on a map (server/places/); without it, no listing has a position. */
  placements?: ListingPlacements;
  /** Who of the agency's people faces the public, in what order, how reached (default: everyone shown on the web with listings or a role, no direct contact). */
  team?: TeamSettings;
  /** The office (default: unnamed, no phone). */
  office?: Office;
}

/** How many sets of chosen suburbs keep their surrounding ones between two changes of the cache. */
const SURROUNDING_KEPT = 256;

export function publicListings(deps: PublicListingsDeps): PublicListings {
  const { cache, mirror, base } = deps;
  const now = deps.now ?? Date.now;
  // Read once per change of the cache: a flood of price filters costs one query, not one each.
  let edges: PriceEdges | undefined;
  let placeEdges: PlaceEdges | undefined;
  // The listings naming each agent and the team they make: one GROUP BY per change, not one per agent asked for.
  let agentCounts: ReturnType<ListingCache['listingCountsByAgent']> | undefined;
  let teamOf: Team | undefined;
  // The suburbs around the chosen ones, by the chosen ones: the list, the map's index and each page of a search ask alike.
  const surrounding = new Map<string, readonly string[]>();
  cache.onChange(() => {
    edges = undefined;
    placeEdges = undefined;
    surrounding.clear();
    agentCounts = undefined;
    teamOf = undefined;
  });
  const countsByAgent = () => (agentCounts ??= cache.listingCountsByAgent());
  const positionsOf = (ids: readonly number[]) => deps.placements?.positionsOf(ids) ?? new Map<number, ListingPosition>();
  const context: FilterContext = {
    placedWithin: (box) => deps.placements?.within(box) ?? [],
    placedInArea(area) {
      // The box around the outline narrows it (an indexed look-up), the outline decides, on the positions the cards show.
      const placements = deps.placements;
      if (!placements) return [];
      const positions = placements.positionsOf(placements.within(areaBox(area)));
      const inside = areaTest(area);
      return [...positions].filter(([, position]) => inside(position.lat, position.lng)).map(([id]) => id);
    },
    surroundingSuburbs(named) {
      const key = named.join(',');
      let around = surrounding.get(key);
      if (!around) {
        // Bounded: names come from queries (anyone's), and a cache change empties it anyway.
        if (surrounding.size >= SURROUNDING_KEPT) surrounding.clear();
        surrounding.set(key, (around = deps.placements?.surroundingSuburbs(named) ?? []));
      }
      return around;
    },
  };

  const office: Office = { name: deps.office?.name ?? null, phone: deps.office?.phone ?? null };
  const rules = new TeamRules(deps.team ?? { order: [], hidden: [], directContact: false }, office.phone);

  /** Staff shown on the web and not hidden, with their portraits (ids: in that order; undefined: all, by id). */
  function shownAgents(ids: readonly number[] | undefined): Array<{ agent: CachedAgent; photo: Photo | null }> {
    const agents = cache.visibleAgents(ids).filter((agent) => !rules.isHidden(agent.id));
    const portraits = mirror.photosOf(
      'agent',
      agents.map((agent) => agent.id),
    );
    const byId = new Map(
      agents.map((agent) => {
        const portrait = portraits.get(agent.id)?.[0];
        return [agent.id, { agent, photo: portrait ? publicPhoto(portrait, base) : null }] as const;
      }),
    );
    // Keep the listing's own order of agents.
    return ids === undefined ? [...byId.values()] : ids.flatMap((id) => byId.get(id) ?? []);
  }

  function agentsById(ids: readonly number[] | undefined): Agent[] {
    return shownAgents(ids).map(({ agent, photo }) => rules.agent(agent.fields, photo));
  }

  /** Cards of cached listings, in their order: photos and positions joined in. */
  function summaries(rows: readonly CachedListing[]): ListingSummary[] {
    const ids = rows.map((row) => row.id);
    const photos = mirror.photosOf('listing', ids);
    const positions = positionsOf(ids);
    return rows.map((row) =>
      summary(
        row,
        (photos.get(row.id) ?? []).map((photo) => ({ kind: photo.kind, photo: publicPhoto(photo, base) })),
        positions.get(row.id) ?? null,
      ),
    );
  }

  const cards = (query: ParsedListingsQuery, limit: number, offset: number): { items: ListingSummary[]; total: number } => {
    const sql = listingsSql(query, context);
    const { rows, total } = cache.findListings(sql.where, sql.params, sql.orderBy, limit, offset);
    return { items: summaries(rows), total };
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
      return detail(listing, photos, agents, openHomes, positionsOf([listing.id]).get(listing.id) ?? null, office);
    },
    canonical: (query) =>
      snapBoxFilter(snapPriceFilters(query, (edges ??= cache.priceEdges())), (placeEdges ??= deps.placements?.edges() ?? { lats: [], lngs: [] })),
    page,
    all: (query) => cards(query, -1, 0).items,
    mapPoints(query) {
      const sql = listingsSql(query, context);
      const ids = cache.findIds(sql.where, sql.params, sql.orderBy);
      const positions = positionsOf(ids);
      const placed: Array<{ id: number; position: ListingPosition }> = [];
      for (const id of ids) {
        const position = positions.get(id);
        if (position) placed.push({ id, position });
      }
      return { selected: ids.length, placed };
    },
    mapPins(ids) {
      const rows = cache.findMapRows(ids);
      const photos = mirror.firstPhotographsOf(rows.map((row) => row.id));
      return rows.map((row) => {
        const photo = photos.get(row.id);
        return {
          id: row.id,
          title: row.addressDisplay || row.heading || null,
          displayPrice: row.displayPrice,
          bed: row.bed,
          bath: row.bath,
          cars: row.cars,
          // The smallest JPEG, as the card's photo lists them.
          thumbnail: photo && photo.widths.length > 0 ? variantUrl(base, photo.hash, Math.min(...photo.widths), 'jpeg') : null,
          type: row.type,
          status: row.status,
        };
      });
    },
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
    team() {
      if (teamOf) return teamOf;
      const counts = countsByAgent();
      const members = shownAgents(undefined)
        .filter(({ agent }) => rules.facesPublic(agent, counts.get(agent.id)))
        .map(({ agent, photo }) => rules.member(agent.fields, photo, counts.get(agent.id)));
      return (teamOf = { items: rules.sort(members), office });
    },
    agent(id) {
      const [shown] = shownAgents([id]);
      if (!shown) return undefined;
      const counts = countsByAgent().get(id);
      if (!rules.facesPublic(shown.agent, counts)) return undefined;
      const { current, results } = cache.listingsOfAgent(id);
      return {
        ...rules.member(shown.agent.fields, shown.photo, counts),
        profile: shown.agent.fields.profile,
        current: summaries(current),
        results: summaries(results),
        office,
      };
    },
    office: () => office,
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
  office: Office,
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
    office,
  };
}
