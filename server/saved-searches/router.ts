import { createHash } from 'node:crypto';
import express, { type ErrorRequestHandler, type Request, type Response, type Router } from 'express';
import { MemoryStore, rateLimit, type Options as RateLimitOptions, type Store as RateLimitStore } from 'express-rate-limit';
import type { SavedSearchAccepted, SavedSearchStatusResponse } from '../../contract/saved-search.ts';
import { DailyEnquiryBudget, UtcDayStore } from '../lead-queue/daily-limits.ts';
import type { SpamReason } from '../enquiries/outbox.ts';
import { corsPolicy } from '../http/cors.ts';
import { HttpError } from '../http/errors.ts';
import type { Clock } from '../runtime/clock.ts';
import type { EnquirySettings } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import { addressKey, SAVED_SEARCH_LIMITS, savedSearchFieldErrors, savedSearchFingerprint, savedSearchRequestSchema, type ParsedSavedSearch } from './schema.ts';
import type { SavedSearchService } from './service.ts';
import type { SavedSearchStatus } from './store.ts';

export interface SavedSearchRouterOptions {
  /** Origins allowed to post (ALLOWED_ORIGINS); the relay's own pages always may. */
  allowedOrigins: readonly string[];
  ownOrigins?: readonly string[];
  /** Per client: the enquiry limits (counted apart from enquiries); for all: the saved searches' daily budget. */
  limits: Pick<EnquirySettings, 'rateLimitPerMinute' | 'dailyLimitPerClient' | 'minFillMs'> & { dailyBudget: number };
  log: Logger;
  now?: Clock;
  /** Kept per agency across AGENCIES_FILE reloads (as the enquiries'); default: the router's own. */
  limitStores?: SavedSearchLimitStores;
}

export interface SavedSearchLimitStores {
  perMinute: RateLimitStore;
  daily: RateLimitStore;
}

export function savedSearchLimitStores(now: Clock = Date.now): SavedSearchLimitStores {
  return { perMinute: new MemoryStore(), daily: new UtcDayStore(now) };
}

/** express-rate-limit refuses one store object in two limiters: a view of the same counts for each router built. */
function limiterView(store: RateLimitStore): RateLimitStore {
  return {
    localKeys: store.localKeys,
    init: (options: RateLimitOptions) => store.init?.(options),
    get: (key: string) => store.get?.(key),
    increment: (key: string) => store.increment(key),
    decrement: (key: string) => store.decrement(key),
    resetKey: (key: string) => store.resetKey(key),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a browser may learn: spam reads as saved (a bot learns nothing from it). */
const PUBLIC_STATUS: Record<SavedSearchStatus, SavedSearchStatusResponse['status']> = { queued: 'queued', saved: 'saved', dead: 'failed', spam: 'saved' };

/**
 * `POST /api/v1/saved-searches` and `GET /api/v1/saved-searches/:originalId`. The enquiry form's
 * protections in the same order: CORS (a refused origin stores nothing), the body parser (8 KB),
 * the per-client limits (repeats of an accepted originalId free), validation, the honeypot and the
 * fill time (answered 202, not forwarded), the daily budget, then one committed insert before 202.
 */
export function savedSearchRouter(service: SavedSearchService, options: SavedSearchRouterOptions): Router {
  const { store, metrics } = service;
  const settings = options.limits;
  const log = options.log.child({ component: 'saved-searches' });
  const now = options.now ?? Date.now;
  const router = express.Router({ caseSensitive: true, strict: true });

  router.use(corsPolicy({ allowedOrigins: options.allowedOrigins, ownOrigins: options.ownOrigins, methods: ['GET', 'POST', 'OPTIONS'] }));

  const isRepeat = async (req: Request) =>
    typeof req.body?.originalId === 'string' && (await store.state(req.body.originalId.trim().toLowerCase()).catch(() => undefined)) !== undefined;
  const stores = options.limitStores ?? savedSearchLimitStores(now);
  const perMinute = rateLimit({
    windowMs: 60_000,
    store: limiterView(stores.perMinute),
    limit: settings.rateLimitPerMinute,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skip: isRepeat,
    handler: (_req, _res, next) => {
      metrics.rateLimited++;
      next(new HttpError(429, 'rate_limited', 'Too many saved searches from this address; try again shortly.'));
    },
  });
  const daily = rateLimit({
    windowMs: 24 * 60 * 60_000,
    limit: settings.dailyLimitPerClient,
    store: limiterView(stores.daily),
    standardHeaders: false,
    legacyHeaders: false,
    requestPropertyName: 'dailyRateLimit',
    skip: isRepeat,
    handler: (req, _res, next) => {
      metrics.rateLimited++;
      const resetsAt = (req as Request & { dailyRateLimit?: { resetTime?: Date } }).dailyRateLimit?.resetTime?.getTime();
      next(
        dailyRefusal(
          'daily_limit',
          `This address has saved ${settings.dailyLimitPerClient} searches today, the most taken from one connection in a day`,
          resetsAt,
        ),
      );
    },
  });
  const budget = new DailyEnquiryBudget(store, settings.dailyBudget, now);

  function dailyRefusal(code: string, what: string, resetsAt?: number): HttpError {
    const today = new Date(now());
    const midnight = resetsAt ?? Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1);
    const seconds = Math.max(1, Math.ceil((midnight - now()) / 1000));
    return new HttpError(429, code, `${what}; try again after 00:00 UTC, or contact the agency directly.`, undefined, { 'Retry-After': String(seconds) });
  }

  function storeUnavailable(): HttpError {
    const heldUntil = store.store.writes.heldUntil();
    const seconds = heldUntil === undefined ? 30 : Math.max(5, Math.ceil((heldUntil - Date.now()) / 1000));
    return new HttpError(503, 'unavailable', 'The saved search could not be stored just now; please try again shortly.', undefined, {
      'Retry-After': String(seconds),
    });
  }

  async function readState(originalId: string) {
    try {
      return await store.state(originalId);
    } catch (error) {
      if (!store.store.writes.failed(error)) throw error;
      log.error({ err: error, originalId }, 'could not read the saved searches');
      throw storeUnavailable();
    }
  }

  function answerRepeat(sameBody: boolean): void {
    if (sameBody) {
      metrics.duplicates++;
      return;
    }
    metrics.conflicts++;
    throw new HttpError(409, 'conflict', 'A saved search with this originalId but different content was already accepted.', {
      originalId: 'already used for a different saved search; a new one needs a new originalId',
    });
  }

  router.post('/', express.json({ limit: SAVED_SEARCH_LIMITS.bodyBytes, strict: true }), bodyErrors, perMinute, daily, async (req: Request, res: Response) => {
    if (!req.is('application/json')) {
      metrics.rejected++;
      throw new HttpError(415, 'unsupported_media_type', 'Send the saved search as JSON (Content-Type: application/json).', { body: 'must be JSON' });
    }
    const parsed = savedSearchRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      metrics.rejected++;
      throw new HttpError(400, 'invalid_saved_search', 'Some fields need attention.', savedSearchFieldErrors(parsed.error));
    }
    const request = parsed.data as ParsedSavedSearch;
    const fingerprint = savedSearchFingerprint(request);
    const accepted: SavedSearchAccepted = { originalId: request.originalId, status: 'queued' };
    const existing = await readState(request.originalId);
    if (existing) {
      answerRepeat(existing.fingerprint === fingerprint);
      res.status(202).json(accepted);
      return;
    }
    const spamReason: SpamReason | undefined =
      request.website !== undefined && request.website.trim() !== '' ? 'honeypot' : request.elapsedMs < settings.minFillMs ? 'too_fast' : undefined;
    await budget.refresh();
    const spentUntil = spamReason ? undefined : budget.spentUntil();
    if (spentUntil !== undefined) {
      metrics.rateLimited++;
      throw dailyRefusal('daily_budget', 'The agency has taken all the saved searches it can through this form today', spentUntil);
    }
    if (store.store.writes.heldUntil() !== undefined) throw storeUnavailable();
    if (!spamReason) budget.record();
    let result;
    try {
      result = await store.accept({
        originalId: request.originalId,
        fingerprint,
        acceptedAt: now(),
        addressKey: createHash('sha256').update(addressKey(request.email)).digest('hex'),
        payload: {
          fullName: request.fullName,
          email: request.email,
          ...(request.mobile === undefined ? {} : { mobile: request.mobile }),
          consent: true,
          search: request.search,
        },
        spamReason,
      });
      store.store.writes.succeeded();
    } catch (error) {
      if (!spamReason) budget.release();
      store.store.writes.failed(error);
      log.error({ err: error, originalId: request.originalId }, 'could not store a saved search');
      throw storeUnavailable();
    }
    if (result.outcome !== 'created') {
      if (!spamReason) budget.release();
      answerRepeat(result.outcome === 'duplicate');
      res.status(202).json(accepted);
      return;
    }
    metrics.accepted++;
    if (spamReason) {
      metrics.spam[spamReason]++;
      log.info({ originalId: request.originalId, reason: spamReason }, 'saved search taken for spam: answered, not forwarded');
    } else {
      log.info({ originalId: request.originalId }, 'saved search accepted');
      service.worker.wake();
    }
    res.status(202).json(accepted);
  });

  router.get('/:originalId', async (req, res) => {
    const originalId = typeof req.params.originalId === 'string' && UUID.test(req.params.originalId) ? req.params.originalId.toLowerCase() : undefined;
    const entry = originalId === undefined ? undefined : await readState(originalId);
    if (!originalId || !entry) throw new HttpError(404, 'not_found', 'No saved search with this originalId was accepted here.');
    res.set('Cache-Control', 'no-store');
    res.json({ originalId, status: PUBLIC_STATUS[entry.status] } satisfies SavedSearchStatusResponse);
  });

  return router;
}

const bodyErrors: ErrorRequestHandler = (error, _req, _res, next) => {
  const type = (error as { type?: string }).type;
  if (type === 'entity.too.large') {
    return next(new HttpError(413, 'payload_too_large', `The saved search is larger than ${SAVED_SEARCH_LIMITS.bodyBytes / 1024} KB.`, { body: 'too large' }));
  }
  if (type === 'entity.parse.failed') return next(new HttpError(400, 'invalid_json', 'The request body is not valid JSON.', { body: 'must be a JSON object' }));
  next(error);
};
