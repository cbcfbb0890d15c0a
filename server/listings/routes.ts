import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { ListingsFilling } from '../../contract/relay-api.ts';
import type { Config } from '../config.ts';
import { corsPolicy, publicOrigins } from '../cors.ts';
import { HttpError } from '../errors.ts';
import type { PhotoMirror } from '../photos/mirror.ts';
import type { ListingCache } from './cache.ts';
import { publicListings, type PublicListings } from './public-listings.ts';
import { parseListingsQuery, queryKey } from './query.ts';

export interface ListingsRouterDeps {
  config: Pick<Config, 'ALLOWED_ORIGINS' | 'PUBLIC_URL' | 'demoMode'>;
  cache: ListingCache;
  mirror: PhotoMirror;
  /** The public listing shape (shared with the server-rendered pages); built from cache and mirror when not given. */
  listings?: PublicListings;
  now?: () => number;
}

/** Browsers and CDNs may reuse an answer for a minute and serve it stale while they revalidate. */
const LIST_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=600, stale-if-error=86400';
const AGENTS_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=3600, stale-if-error=86400';
const RESPONSE_CACHE_ENTRIES = 1_000;
/** How long a page should wait before asking again while the first sync fills the cache. */
export const FILLING_RETRY_AFTER_SECONDS = 5;

interface Rendered {
  /** Encoded once: a busy page is sent many times. */
  body: Buffer;
  etag: string;
}

/**
 * The public listing API: GET /api/v1/listings, /api/v1/listings/:id and /api/v1/agents. Every
 * answer comes from the cache in SQLite; no request here ever reaches the CRM. Rendered bodies are
 * kept in memory with their strong ETag until the sync changes something.
 */
export function listingsRouter(deps: ListingsRouterDeps): Router {
  const { cache, mirror } = deps;
  const now = deps.now ?? Date.now;
  const rendered = new Map<string, Rendered>();
  cache.onChange(() => rendered.clear());

  const router = Router({ caseSensitive: true, strict: true });
  const cors = corsPolicy({ allowedOrigins: deps.config.ALLOWED_ORIGINS, ownOrigins: publicOrigins(deps.config), allowAnyOrigin: deps.config.demoMode });
  // Absolute URLs come from PUBLIC_URL only; without it (demo mode) they are relay-relative, which
  // the elements resolve against the relay. The Host header never enters an answer or a cache key.
  const base = deps.config.PUBLIC_URL ?? '';
  const listings = deps.listings ?? publicListings({ cache, mirror, base, now });
  router.use(['/api/v1/listings', '/api/v1/agents'], cors);

  // Until the first sync has filled the cache, an empty answer would be a false "no match": say
  // the listings are on their way instead, and when to ask again. Once filled it stays filled.
  // On the routes themselves, not a prefix `use`: that would answer 503 for /api/v1/listings/ too,
  // which strict routing makes a 404.
  let filled = false;
  router.get(['/api/v1/listings', '/api/v1/listings/:id', '/api/v1/agents'], (_req, res, next) => {
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
  });

  router.get('/api/v1/listings', (req, res) => {
    // The exact URL seen before skips parsing; a new one is parsed (400 if bad) and keyed by meaning.
    const seen = `url|${req.originalUrl}`;
    const known = rendered.get(seen);
    if (known) return respond(req, res, known, LIST_CACHE_CONTROL);
    const query = parseListingsQuery(req.query as Record<string, unknown>);
    const entry = send(req, res, `list|${queryKey(query)}`, LIST_CACHE_CONTROL, () => listings.page(query));
    remember(seen, entry);
  });

  router.get('/api/v1/listings/:id', (req, res) => {
    const raw = String(req.params.id);
    if (!/^\d{1,15}$/.test(raw)) throw new HttpError(400, 'invalid_id', 'The listing id must be a number.', { id: 'must be a whole number' });
    const id = Number(raw);
    // The minute in the key: open homes that have finished drop out.
    send(req, res, `detail|${id}|${Math.floor(now() / 60_000)}`, LIST_CACHE_CONTROL, () => {
      const listing = listings.detail(id);
      if (!listing) throw new HttpError(404, 'listing_not_found', 'No such listing (it may have been sold, leased or withdrawn).');
      return listing;
    });
  });

  router.get('/api/v1/agents', (req, res) => {
    send(req, res, 'agents', AGENTS_CACHE_CONTROL, () => ({ items: listings.agents() }));
  });

  function remember(key: string, entry: Rendered): void {
    if (rendered.size >= RESPONSE_CACHE_ENTRIES) rendered.delete(rendered.keys().next().value!);
    rendered.set(key, entry);
  }

  /** Answers from the response cache (rendering once), with a strong ETag and 304s; returns the entry sent. */
  function send(req: Request, res: Response, key: string, cacheControl: string, render: () => unknown): Rendered {
    let entry = rendered.get(key);
    if (!entry) {
      const body = Buffer.from(JSON.stringify(render()));
      entry = { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
      remember(key, entry);
    }
    respond(req, res, entry, cacheControl);
    return entry;
  }

  function respond(req: Request, res: Response, entry: Rendered, cacheControl: string): void {
    res.set('Cache-Control', cacheControl);
    res.set('ETag', entry.etag);
    const { lastSuccessAt } = cache.readState();
    if (lastSuccessAt !== null) res.set('X-Listings-Age', String(Math.max(0, Math.round((now() - lastSuccessAt) / 1000))));
    if (res.get('Access-Control-Allow-Origin')) res.set('Access-Control-Expose-Headers', 'ETag, Retry-After, X-Listings-Age');
    if (matchesIfNoneMatch(req.get('If-None-Match'), entry.etag)) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(entry.body);
  }

  return router;
}

/**
 * RFC 9110 If-None-Match at the origin (weak comparison). Unlike Express's req.fresh this ignores a
 * request's `Cache-Control: no-cache`, which fetch() adds to every conditional request it is given.
 */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
