import { Router, type Request, type Response } from 'express';
import { formatBoundingBox, LISTING_FILTERS, listItems, parseBoundingBox, SUBURBS_MAX } from '../../contract/listing-filters.ts';
import { areaBox, formatArea, parseArea } from '../../contract/drawn-area.ts';
import type { AgentProfile, ListingsFilling, PlacementSummary, SimilarListings, Suburb, Team } from '../../contract/relay-api.ts';
import { AREA_SUBURBS_MAX, suburbKey, suburbsInArea, type AreaSuburbs, type SuburbPlace } from '../../contract/saved-search-area.ts';
import type { ListingPlacements } from './placement.ts';
import type { Config } from '../runtime/config.ts';
import { corsPolicy, publicOrigins } from '../http/cors.ts';
import { HttpError } from '../http/errors.ts';
import type { PhotoMirror } from '../photos/mirror.ts';
import { DYNAMIC_EFFORT, EncodedBody, sendEncoded } from '../http/precompressed.ts';
import type { ReplayOptions, ResponseCache } from '../http/response-cache.ts';
import { answerCacheFor, tooManyRenders, type AnswerCache } from '../http/answer-cache.ts';
import { clientOf } from '../http/client-limit.ts';
import { trustedHost } from '../http/request-host.ts';
import type { ListingCache } from './cache.ts';
import { publicListings, type PublicListings } from './public-listings.ts';
import { parseListingsQuery, parseMapQuery, queryKey } from './query.ts';
import { listingMapIndex, type ListingMapIndex } from './map.ts';
import type { Clock } from '../runtime/clock.ts';
import { openHomeCalendar } from './open-home-calendar.ts';
import { parseSimilarQuery, similarIndex, type SimilarIndex } from './similar.ts';
import { parseSuggestionQuery, suggestionsAnswer } from './suburb-suggestions.ts';

export interface ListingsRouterDeps {
  config: Pick<Config, 'http' | 'demoMode'> & Partial<Pick<Config, 'team'>>;
  cache: ListingCache;
  /** The relay's one answer cache, shared by every agency (default: one of the router's own, from config.http). */
  answers?: AnswerCache;
  mirror: PhotoMirror;
  /** The public listing shape (shared with the server-rendered pages); built from cache and mirror when not given. */
  listings?: PublicListings;
  now?: Clock;
  /** Where listings are on a map: GET /api/v1/listings/placement counts them (all unplaced without it). */
  placements?: ListingPlacements;
  /** Whether an agent's page was ever published (server/pages): such an agent, no longer public, answers 410, not 404. */
  agentPagePublished?(id: number): boolean;
}

/** Browsers and CDNs may reuse an answer for a minute and serve it stale while they revalidate. */
const LIST_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=600, stale-if-error=86400';
const AGENTS_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=3600, stale-if-error=86400';
const CALENDAR_PAGE_MAX = 2000;
/** RFC 7946's media type. */
const GEO_JSON = 'application/geo+json';
/** How long a page should wait before asking again while the first sync fills the cache. */
export const FILLING_RETRY_AFTER_SECONDS = 5;

/** An answer's JSON, ETag and compressed forms, made once per cache change: a busy page is sent many times. */
type Rendered = EncodedBody;

/**
 * The public listing API: GET /api/v1/listings, /api/v1/listings/:id (and its similar homes), /api/v1/agents and /api/v1/suburbs. Every
 * answer comes from the cache in SQLite; no request here ever reaches the CRM. Rendered bodies are
 * kept with their strong ETag and brotli/gzip forms until the sync changes something, in the
 * relay's answer cache (server/http/answer-cache.ts: bounded in bytes for all agencies, least
 * recently used evicted). An answer not in it is rendered within the client's per-minute limit
 * (UNCACHED_RENDERS_PER_MINUTE; 429 past it); one in it is always sent.
 */
export function listingsRouter(deps: ListingsRouterDeps): Router {
  const { cache, mirror } = deps;
  const now = deps.now ?? Date.now;
  const answers = deps.answers ?? answerCacheFor(deps.config.http);
  const rendered = answers.scope('listings');
  // Answers recorded for replay (server/http/response-cache.ts) are current while this stays the same.
  let cacheGeneration = 0;
  cache.onChange(() => {
    rendered.clear();
    cacheGeneration++;
  });

  const router = Router({ caseSensitive: true, strict: true });
  const cors = corsPolicy({ allowedOrigins: deps.config.http.allowedOrigins, ownOrigins: publicOrigins(deps.config), allowAnyOrigin: deps.config.demoMode });
  // Absolute URLs come from PUBLIC_URL only; without it (demo mode) they are relay-relative, which
  // the elements resolve against the relay. The Host header never enters an answer; it is in every
  // cache key (hostOf), since it chose the agency: an answer kept for one host is never sent at another.
  const base = deps.config.http.publicUrl ?? '';
  const listings = deps.listings ?? publicListings({ cache, mirror, base, now, team: deps.config.team });
  // Names the relay in calendar events' UIDs: PUBLIC_URL's host, never the Host header.
  const calendarHost = deps.config.http.publicUrl ? new URL(deps.config.http.publicUrl).host : 'estate-embed';
  const pageOrigins = new Set([...deps.config.http.allowedOrigins, ...publicOrigins(deps.config)].map((origin) => new URL(origin).origin));
  router.use(['/api/v1/listings', '/api/v1/agents', '/api/v1/team', '/api/v1/suburbs'], cors);

  // Until the first sync has filled the cache, an empty answer would be a false "no match": say
  // the listings are on their way instead, and when to ask again. Once filled it stays filled.
  // On the routes themselves, not a prefix `use`: that would answer 503 for /api/v1/listings/ too,
  // which strict routing makes a 404.
  let filled = false;
  router.get(
    [
      '/api/v1/listings',
      '/api/v1/listings/:id',
      '/api/v1/listings/:id/similar',
      '/api/v1/listings/:id/open-homes/:file',
      '/api/v1/agents',
      '/api/v1/agents/:id',
      '/api/v1/team',
      '/api/v1/suburbs',
      '/api/v1/suburbs/suggestions',
    ],
    (_req, res, next) => {
      filled ||= cache.readState().lastSuccessAt !== null;
      if (filled) return next();
      res.set('Retry-After', String(FILLING_RETRY_AFTER_SECONDS));
      res.set('Cache-Control', 'no-store');
      const body: ListingsFilling = {
        error: 'listings_filling',
        message: 'The relay is loading the listings from the CRM for the first time. Ask again after Retry-After seconds.',
        state: 'filling',
        retryAfterSeconds: FILLING_RETRY_AFTER_SECONDS,
      };
      res.status(503).json(body);
    },
  );

  router.get('/api/v1/listings', (req, res) => {
    // The exact URL seen before skips parsing; a new one is parsed (400 if bad) and keyed by meaning,
    // its price filters moved to the edges that select the same listings (query.ts, snapPriceFilters).
    const host = hostOf(req);
    const seen = `url|${host}|${req.originalUrl}`;
    const known = rendered.get<string>(seen);
    const knownEntry = known === undefined ? undefined : rendered.get<Rendered>(known);
    if (knownEntry) return respond(req, res, knownEntry, LIST_CACHE_CONTROL, Infinity);
    const query = listings.canonical(parseListingsQuery(req.query as Record<string, unknown>));
    const key = `list|${host}|${queryKey(query)}`;
    send(req, res, key, LIST_CACHE_CONTROL, Infinity, () => listings.page(query));
    // Names the entry, not its body: an evicted entry leaves no body behind.
    rendered.set(seen, key, undefined, 2 * key.length);
  });

  // Before /:id: the map (map.ts). The exact URL seen before skips parsing and clustering; a new one
  // is cut from the filter set's index (built once per cache change, kept in the answer cache with
  // the answers), and its body is keyed by what the cut holds: every box holding the same clusters
  // and listings at a zoom shares one body, as snapped filters do for the list.
  router.get('/api/v1/listings/map', (req, res) => {
    const host = hostOf(req);
    const seen = `url|${host}|${req.originalUrl}`;
    const known = rendered.get<string>(seen);
    const knownEntry = known === undefined ? undefined : rendered.get<Rendered>(known);
    if (knownEntry) return respond(req, res, knownEntry, LIST_CACHE_CONTROL, Infinity, GEO_JSON);
    const { filters, box, zoom } = parseMapQuery(req.query as Record<string, unknown>);
    // The index is this agency's listings cut by filters, not an answer: shared by its hosts. Answers are keyed by host.
    const indexKey = `map-index|${queryKey(listings.canonical(filters))}`;
    let index = rendered.get<ListingMapIndex>(indexKey);
    if (!index) {
      const retryAfter = answers.renders.take(clientOf(req));
      if (retryAfter !== undefined) throw tooManyRenders(retryAfter);
      index = listingMapIndex(listings.mapPoints(filters), (ids) => listings.mapPins(ids));
      rendered.set(indexKey, index, undefined, index.bytes);
    }
    const cut = index.cut(box, zoom);
    const built = index;
    const key = `map|${host}|${indexKey}|${cut.signature}`;
    send(req, res, key, LIST_CACHE_CONTROL, Infinity, () => built.collection(cut), GEO_JSON);
    rendered.set(seen, key, undefined, 2 * key.length);
  });

  // Before /:id: how many listings are on the map, and how many could not be placed. Counted anew
  // at each request (cheap: one grouped count), as places arrive from the geocoder between syncs.
  router.get('/api/v1/listings/placement', (_req, res) => {
    const body: PlacementSummary = deps.placements?.summary() ?? unplacedSummary(cache.counts());
    res.set('Cache-Control', 'public, max-age=60');
    res.json(body);
  });

  router.get('/api/v1/listings/:id', (req, res) => {
    const raw = String(req.params.id);
    if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, 'invalid_id', 'The listing id must be a number.', { id: 'must be a whole number' });
    const id = Number(raw);
    // Open homes end: a detail is rendered again each minute.
    const minute = Math.floor(now() / 60_000);
    send(req, res, `detail|${hostOf(req)}|${id}|${minute}`, LIST_CACHE_CONTROL, (minute + 1) * 60_000, () => {
      const listing = listings.detail(id);
      if (!listing) throw new HttpError(404, 'listing_not_found', 'No such listing (it may have been sold, leased or withdrawn).');
      return listing;
    });
  });

  // Similar homes (similar.ts): chosen from the current cards, read once per cache change into an
  // index kept in the answer cache beside the answers; each answer is one pass over it, kept until
  // the cache changes. Shared by the agency's hosts, as the map's index is; answers keyed by host.
  router.get('/api/v1/listings/:id/similar', (req, res) => {
    const raw = String(req.params.id);
    if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, 'invalid_id', 'The listing id must be a number.', { id: 'must be a whole number' });
    const { limit } = parseSimilarQuery(req.query as Record<string, unknown>);
    send(req, res, `similar|${hostOf(req)}|${raw}|${limit}`, LIST_CACHE_CONTROL, Infinity, () => {
      const subject = listings.detail(Number(raw));
      if (!subject) throw new HttpError(404, 'listing_not_found', 'No such listing (it may have been sold, leased or withdrawn).');
      let index = rendered.get<SimilarIndex>('similar-index');
      if (!index) {
        index = similarIndex(listings.all(parseListingsQuery({ status: 'available' })));
        rendered.set('similar-index', index, undefined, index.bytes);
      }
      return { items: index.similarTo(subject, limit) } satisfies SimilarListings;
    });
  });

  // An open home's calendar file (open-home-calendar.ts), linked by the listing's "Add to calendar":
  // `page` is the page it was on (linked only when it is one of the agency's own). Its title and
  // everything else come from the listing and the open home: a `summary` in the link (which the
  // element sent before) is ignored, so a link made anywhere cannot put its words ("call 04… to
  // confirm") in a file served from the agency's relay. Made at each request, within the client's
  // render limit: a visitor asks for one now and then.
  router.get('/api/v1/listings/:id/open-homes/:file', (req, res) => {
    const id = /^\d{1,15}$/.test(String(req.params.id)) ? Number(req.params.id) : undefined;
    const openHomeId = /^(\d{1,15})\.ics$/.exec(String(req.params.file))?.[1];
    if (id === undefined) throw new HttpError(400, 'invalid_id', 'The listing id must be a number.', { id: 'must be a whole number' });
    if (openHomeId === undefined) {
      throw new HttpError(400, 'invalid_open_home', 'The open home must be named as <id>.ics.', { openHomeId: 'must be a whole number followed by .ics' });
    }
    const { page } = req.query as Record<string, unknown>;
    const pageUrl = page === undefined ? null : httpUrl(page);
    if (pageUrl === undefined) {
      throw new HttpError(400, 'invalid_page', 'The page address is not usable.', {
        page: `must be an http(s) URL of at most ${CALENDAR_PAGE_MAX} characters`,
      });
    }
    // A file from the relay's origin linking anywhere would lend the agency's name to any site: only
    // the agency's own pages (the origins it may call from, the relay's own) are linked, else none.
    const linkedPage = pageUrl !== null && (deps.config.demoMode || pageOrigins.has(new URL(pageUrl).origin)) ? pageUrl : null;
    const retryAfter = answers.renders.take(clientOf(req));
    if (retryAfter !== undefined) throw tooManyRenders(retryAfter);
    const listing = listings.detail(id);
    const calendar =
      listing &&
      openHomeCalendar(listing, Number(openHomeId), {
        pageUrl: linkedPage,
        host: calendarHost,
        now: new Date(now()),
      });
    if (!calendar) throw new HttpError(404, 'open_home_not_found', 'No such open home still to come (it may be over or cancelled, or the listing sold).');
    res.set('Cache-Control', 'public, max-age=60');
    res.set('Content-Disposition', `attachment; filename="open-home-${id}-${openHomeId}.ics"`);
    res.type('text/calendar; charset=utf-8');
    res.send(calendar);
  });

  router.get('/api/v1/agents', (req, res) => {
    send(req, res, `agents|${hostOf(req)}`, AGENTS_CACHE_CONTROL, Infinity, () => ({ items: listings.agents() }));
  });

  // The agency's people who face the public, in its order (listings/team.ts).
  router.get('/api/v1/team', (req, res) => {
    send(req, res, `team|${hostOf(req)}`, AGENTS_CACHE_CONTROL, Infinity, () => listings.team() satisfies Team);
  });

  // One of them, with their listings and results. Someone who never faced the public (hidden,
  // back office, unknown) is not found; someone whose page was published and who has left or
  // stopped facing the public is gone, so a crawler drops the page instead of retrying it.
  router.get('/api/v1/agents/:id', (req, res) => {
    const raw = String(req.params.id);
    if (!/^[1-9]\d{0,14}$/.test(raw)) throw new HttpError(400, 'invalid_id', 'The agent id must be a number.', { id: 'must be a whole number from 1' });
    const id = Number(raw);
    send(req, res, `agent|${hostOf(req)}|${id}`, AGENTS_CACHE_CONTROL, Infinity, () => {
      const agent = listings.agent(id);
      if (agent) return agent satisfies AgentProfile;
      if (deps.agentPagePublished?.(id)) throw new HttpError(410, 'agent_gone', 'This agent is no longer with the agency.');
      throw new HttpError(404, 'not_found', 'No such agent.');
    });
  });

  // The suburbs the agency has listed in: an appraisal form's suggestions (`<estate-appraisal>`).
  // With `bbox`, or `area` (a drawn outline): the suburbs a saved search of that map area follows (contract/saved-search-area.ts);
  // with `around`: the suburbs around the named ones, which a saved search with "include surrounding suburbs" follows too.
  router.get('/api/v1/suburbs', (req, res) => {
    const { bbox, area, around } = req.query;
    if (around !== undefined) {
      const named = aroundNames(around);
      send(req, res, `suburbs-around|${hostOf(req)}|${named.map(suburbKey).join(',')}`, LIST_CACHE_CONTROL, Infinity, () => suburbsAround(named));
      return;
    }
    if (bbox === undefined && area === undefined) {
      send(req, res, `suburbs|${hostOf(req)}`, AGENTS_CACHE_CONTROL, Infinity, () => ({ items: cache.suburbs() satisfies Suburb[] }));
      return;
    }
    if (bbox !== undefined && area !== undefined) {
      throw new HttpError(400, 'invalid_query', 'Some query parameters need attention.', { area: 'must not be given with bbox (one area at a time)' });
    }
    if (area !== undefined) {
      const outline = typeof area === 'string' ? parseArea(area) : 'must be given once, as a plain value';
      if (typeof outline === 'string') throw new HttpError(400, 'invalid_query', 'Some query parameters need attention.', { area: outline });
      const filter = { area: formatArea(outline) };
      send(
        req,
        res,
        `suburbs|${hostOf(req)}|area|${filter.area}`,
        LIST_CACHE_CONTROL,
        Infinity,
        () => suburbsInArea(placedSuburbs(filter), areaBox(outline)) satisfies AreaSuburbs,
      );
      return;
    }
    const box = typeof bbox === 'string' ? parseBoundingBox(bbox) : 'must be given once, as a plain value';
    if (typeof box === 'string') throw new HttpError(400, 'invalid_query', 'Some query parameters need attention.', { bbox: box });
    send(
      req,
      res,
      `suburbs|${hostOf(req)}|${formatBoundingBox(box)}`,
      LIST_CACHE_CONTROL,
      Infinity,
      () => suburbsInArea(placedSuburbs({ bbox: formatBoundingBox(box) }), box) satisfies AreaSuburbs,
    );
  });

  // Suggestions as a buyer types a place (suburb-suggestions.ts): from the agency's suburbs only,
  // read once per cache change; each answer kept by its words, as typed again by the next buyer.
  let knownSuburbs: Suburb[] | undefined;
  cache.onChange(() => (knownSuburbs = undefined));
  const suburbsKnown = (): Suburb[] =>
    (knownSuburbs ??= [
      ...cache.suburbs(),
      ...(deps.placements?.suburbCentres() ?? []).map((centre) => ({ name: centre.suburb, postcode: centre.postcode, state: centre.state })),
    ]);
  router.get('/api/v1/suburbs/suggestions', (req, res) => {
    const q = parseSuggestionQuery(req.query as Record<string, unknown>);
    send(req, res, `suburb-suggestions|${hostOf(req)}|${q.toLowerCase()}`, LIST_CACHE_CONTROL, Infinity, () => suggestionsAnswer(q, suburbsKnown()));
  });

  /** `around`'s suburb names: one to SUBURBS_MAX, comma-separated, each a suburb's name as the `suburb` filter takes it. */
  function aroundNames(value: unknown): string[] {
    const problem = (message: string) => new HttpError(400, 'invalid_query', 'Some query parameters need attention.', { around: message });
    if (typeof value !== 'string') throw problem('must be given once, as a plain value');
    const names = listItems(value);
    if (names.length === 0) throw problem('must name at least one suburb');
    if (names.length > SUBURBS_MAX) throw problem(`must name at most ${SUBURBS_MAX} suburbs`);
    if (names.some((name) => name.length > LISTING_FILTERS.suburb.maxLength))
      throw problem(`each suburb must be at most ${LISTING_FILTERS.suburb.maxLength} characters`);
    return names;
  }

  /** The agency's suburbs around the named ones (server/places/surrounding.ts), nearest first, capped as a map area's. */
  function suburbsAround(named: readonly string[]): AreaSuburbs {
    const known = new Map(suburbsKnown().map((suburb) => [suburbKey(suburb.name), suburb]));
    const around = (deps.placements?.surroundingSuburbs(named) ?? []).map((name) => known.get(suburbKey(name)) ?? { name, postcode: null, state: null });
    return { items: around.slice(0, AREA_SUBURBS_MAX), more: Math.max(0, around.length - AREA_SUBURBS_MAX) };
  }

  /** The suburbs of the placed listings in the box or drawn area, of every status (a sold home still says where its suburb is). */
  function* placedSuburbs(area: { bbox: string } | { area: string }): Generator<SuburbPlace> {
    for (const status of ['available', 'sold', 'leased'] as const) {
      for (const listing of listings.all(parseListingsQuery({ ...area, status }))) {
        const { position, address } = listing;
        if (position && address.suburb)
          yield { suburb: { name: address.suburb, postcode: address.postcode, state: address.state }, lat: position.lat, lng: position.lng };
      }
    }
  }

  /**
   * Answers from the response cache (rendering once), with a strong ETag and 304s; returns the entry
   * sent. `validUntil` (epoch ms) bounds how long a replay of the answer may be sent.
   */
  function send(
    req: Request,
    res: Response,
    key: string,
    cacheControl: string,
    validUntil: number,
    render: () => unknown,
    contentType = 'application/json',
  ): Rendered {
    let entry = rendered.get<Rendered>(key);
    if (!entry) {
      const retryAfter = answers.renders.take(clientOf(req));
      if (retryAfter !== undefined) throw tooManyRenders(retryAfter);
      entry = new EncodedBody(Buffer.from(JSON.stringify(render())), DYNAMIC_EFFORT);
      rendered.set(key, entry, entry);
    }
    respond(req, res, entry, cacheControl, validUntil, contentType);
    return entry;
  }

  function respond(req: Request, res: Response, entry: Rendered, cacheControl: string, validUntil: number, contentType = 'application/json'): void {
    res.set('Cache-Control', cacheControl);
    res.set('X-Listings-Age', listingsAge());
    if (res.get('Access-Control-Allow-Origin')) res.set('Access-Control-Expose-Headers', 'ETag, Retry-After, X-Listings-Age');
    res.type(contentType);
    const replay = res.locals.replay as ResponseCache | undefined;
    const options = replayOptions(cacheGeneration, validUntil);
    sendEncoded(req, res, entry, (bytes) => replay?.remember(req, res, entry, bytes, options));
  }

  /**
   * Made apart from respond(): closures made there would keep its whole scope (the request and the
   * response) alive for as long as the replay is kept.
   */
  function replayOptions(generation: number, validUntil: number): ReplayOptions {
    return {
      isCurrent: () => generation === cacheGeneration && now() < validUntil,
      refresh: () => ({ 'x-listings-age': listingsAge() }),
    };
  }

  /** Seconds since the last successful sync (the guard above makes sure there was one). */
  function listingsAge(): string {
    const { lastSuccessAt } = cache.readState();
    return String(Math.max(0, Math.round((now() - (lastSuccessAt ?? now())) / 1000)));
  }

  return router;
}

/** The host a request was made to (Host, or a trusted proxy's X-Forwarded-Host), for cache keys. */
function hostOf(req: Request): string {
  return trustedHost(req) ?? '';
}

/** An http(s) URL given as a query parameter, or undefined when it is not one (or too long). */
function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > CALENDAR_PAGE_MAX || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
}

/** Without the places module, no listing is placed. */
function unplacedSummary(counts: { available: number; sold: number; leased: number }): PlacementSummary {
  const listings = counts.available + counts.sold + counts.leased;
  return { listings, placed: { crm: 0, address: 0, suburb: 0 }, pending: 0, unplaced: listings };
}
