import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { MemoryStore, rateLimit, type Options as RateLimitOptions, type Store as RateLimitStore } from 'express-rate-limit';
import { corsPolicy } from '../http/cors.ts';
import type { LeadStatusResponse } from '../../contract/relay-api.ts';
import { HttpError } from '../http/errors.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { WriteHealth } from '../store/store.ts';
import { UtcDayStore, type DailyEnquiryBudget } from './daily-limits.ts';
import type { LeadQueueTable, SpamReason } from './table.ts';

/**
 * The 202 path a lead queue's form posts to (the enquiry form, "Get alerts for this search"), in
 * the pieces both routers put in the same order: CORS (a refused origin stores nothing), the body
 * parser and its errors, the per-client limits (repeats of an accepted originalId free), the spam
 * traps, the daily refusal, the store not answering (503), a repeat's answer (202 or 409), and the
 * status read. Each router brings its words, its schema and its steps.
 */

/** The per-client counts of a form's limits: per minute, and per UTC day (both in memory). */
export interface LimitStores {
  perMinute: RateLimitStore;
  daily: RateLimitStore;
}

export function limitStores(now: Clock = Date.now): LimitStores {
  return { perMinute: new MemoryStore(), daily: new UtcDayStore(now) };
}

/**
 * The same counts seen through a limiter of their own: express-rate-limit refuses one store
 * object in two limiters (ERR_ERL_STORE_REUSE), and a router built again on reload makes new
 * limiters over the counts the old one kept.
 */
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

/** The originalId a status read takes: a UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The counters the 202 path keeps (the queue's metrics.ts). */
export interface IntakeMetrics {
  rejected: number;
  rateLimited: number;
  duplicates: number;
  conflicts: number;
}

/** What the 202 path reads of its queue (lead-queue/table.ts). */
export interface IntakeQueue<Status extends string> {
  readonly kind: LeadQueueTable<{ seq: number }, Status, unknown>['kind'];
  readonly store: { writes: WriteHealth };
  state(originalId: string): Promise<{ status: Status; fingerprint: string } | undefined>;
}

export interface IntakeWords {
  /** The 415 for a body that is not JSON. */
  notJson: string;
  /** The per-minute limit's refusal. */
  tooMany: string;
  /** The per-day limit's reason, with that limit. */
  dailyLimit(limit: number): string;
  /** A daily refusal, from its reason and the seconds until it lifts. */
  refusal(what: string, seconds: number): string;
  /** The 503 when the store does not answer, and the log line when a write fails. */
  unavailable: string;
  storeFailed: string;
  /** The daily budget's refusal reason. */
  budgetSpent: string;
  /** The log line when a status read fails. */
  readFailed: string;
  /** The 409 for an originalId taken by different content, and what it says of the field. */
  conflict: string;
  conflictField: string;
}

export interface IntakeOptions<Status extends string> {
  /** Origins allowed to post (ALLOWED_ORIGINS), and the relay's own (see CorsPolicy.ownOrigins). */
  allowedOrigins: readonly string[];
  ownOrigins?: readonly string[];
  queue: IntakeQueue<Status>;
  metrics: IntakeMetrics;
  limits: { rateLimitPerMinute: number; dailyLimitPerClient: number };
  stores: LimitStores;
  log: Logger;
  now: Clock;
  words: IntakeWords;
  /**
   * A status read while the store refuses writes on PostgreSQL answers 503 at once rather than
   * wait on a database that does not answer (the enquiries' router).
   */
  heldReadsFailFast?: boolean;
}

export function leadIntake<Status extends string>(options: IntakeOptions<Status>) {
  const { queue, metrics, log, now, words } = options;
  const writes = queue.store.writes;
  // CORS first: a refused origin stores nothing.
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use(corsPolicy({ allowedOrigins: options.allowedOrigins, ownOrigins: options.ownOrigins, methods: ['GET', 'POST', 'OPTIONS'] }));

  // A widget re-sending a lead the relay already holds (its 202 was lost) must get its answer,
  // not a 429: repeats of a known originalId are free, for every limit below.
  // The store not answering: not a repeat as far as we can tell (the handler then answers 503).
  const isKnown = async (originalId: unknown) =>
    typeof originalId === 'string' && (await queue.state(originalId.trim().toLowerCase()).catch(() => undefined)) !== undefined;
  // A batch (the enquiries' /batch: a shortlist's homes) is a repeat when every home in it is.
  const isRepeat = async (req: Request) => {
    const homes: unknown = req.body?.homes;
    if (!Array.isArray(homes)) return isKnown(req.body?.originalId);
    if (homes.length === 0 || homes.length > 100) return false;
    return (await Promise.all(homes.map((home: { originalId?: unknown } | null) => isKnown(home?.originalId)))).every(Boolean);
  };

  function nextMidnight(): number {
    const today = new Date(now());
    return Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + 1);
  }

  /** A 429 until `resetsAt` (default the next 00:00 UTC), with Retry-After. */
  function dailyRefusal(code: string, what: string, resetsAt = nextMidnight()): HttpError {
    const seconds = Math.max(1, Math.ceil((resetsAt - now()) / 1000));
    return new HttpError(429, code, words.refusal(what, seconds), undefined, { 'Retry-After': String(seconds) });
  }

  /** The per-client limits, per minute then per UTC day, on the client's address. */
  const clientLimits: RequestHandler[] = [
    rateLimit({
      windowMs: 60_000,
      store: limiterView(options.stores.perMinute),
      limit: options.limits.rateLimitPerMinute,
      standardHeaders: 'draft-7',
      legacyHeaders: false,
      skip: isRepeat,
      handler: (_req, _res, next) => {
        metrics.rateLimited++;
        // express-rate-limit has already set Retry-After (seconds until the window frees a slot).
        next(new HttpError(429, 'rate_limited', words.tooMany));
      },
    }),
    rateLimit({
      windowMs: 24 * 60 * 60_000,
      limit: options.limits.dailyLimitPerClient,
      store: limiterView(options.stores.daily),
      // The per-minute limit's RateLimit headers stay; this one sets only Retry-After, in its handler.
      standardHeaders: false,
      legacyHeaders: false,
      requestPropertyName: 'dailyRateLimit',
      skip: isRepeat,
      handler: (req, _res, next) => {
        metrics.rateLimited++;
        const resetsAt = (req as Request & { dailyRateLimit?: { resetTime?: Date } }).dailyRateLimit?.resetTime?.getTime();
        next(dailyRefusal('daily_limit', words.dailyLimit(options.limits.dailyLimitPerClient), resetsAt));
      },
    }),
  ];

  function storeUnavailable(): HttpError {
    const heldUntil = writes.heldUntil();
    // At least 5 s: the store checks a lock every second, but a form need not ask that often.
    const seconds = heldUntil === undefined ? 30 : Math.max(5, Math.ceil((heldUntil - Date.now()) / 1000));
    return new HttpError(503, 'unavailable', words.unavailable, undefined, { 'Retry-After': String(seconds) });
  }

  /** The queue's answer for one originalId. A store that does not answer is a 503 with Retry-After, as for a write, never a 500. */
  async function readState(originalId: string): Promise<{ status: Status; fingerprint: string } | undefined> {
    if (options.heldReadsFailFast && writes.heldUntil() !== undefined && queue.kind === 'postgres') throw storeUnavailable();
    try {
      return await queue.state(originalId);
    } catch (error) {
      if (!writes.failed(error)) throw error;
      log.error({ err: error, originalId }, words.readFailed);
      throw storeUnavailable();
    }
  }

  /** A repeat of an accepted originalId: counted and answered 202 with the same body, a 409 with another. */
  function answerRepeat(sameBody: boolean): void {
    if (sameBody) {
      metrics.duplicates++;
      return;
    }
    metrics.conflicts++;
    throw new HttpError(409, 'conflict', words.conflict, { originalId: words.conflictField });
  }

  /**
   * The one committed insert before the 202. A lead held back (quarantined, a repeat registration)
   * is answered as usual and costs the CRM nothing until released; a lead to forward needs budget left, taken before the insert is awaited (and given back unless
   * it is stored), so concurrent requests cannot both take the last one. The store having refused
   * writes a moment ago (a lock held by another process, a full disk) answers 503 at once rather
   * than stop the event loop for busy_timeout again: the widget keeps the lead. Resolves with the
   * insert's outcome, or undefined when it lost a race with a concurrent submission of the same
   * originalId (answered as a repeat: 202, or 409 with other content).
   */
  async function commit<Result extends { outcome: string }>(
    lead: { originalId: string; heldBack: boolean },
    budget: DailyEnquiryBudget,
    insert: () => Promise<Result>,
    onBudgetSpent?: (until: number) => void,
  ): Promise<Result | undefined> {
    await budget.refresh();
    const spentUntil = lead.heldBack ? undefined : budget.spentUntil();
    if (spentUntil !== undefined) {
      metrics.rateLimited++;
      onBudgetSpent?.(spentUntil);
      throw dailyRefusal('daily_budget', words.budgetSpent, spentUntil);
    }
    if (writes.heldUntil() !== undefined) throw storeUnavailable();
    if (!lead.heldBack) budget.record();
    let result: Result;
    try {
      result = await insert();
      writes.succeeded();
    } catch (error) {
      if (!lead.heldBack) budget.release();
      writes.failed(error);
      log.error({ err: error, originalId: lead.originalId }, words.storeFailed);
      throw storeUnavailable();
    }
    if (result.outcome !== 'duplicate' && result.outcome !== 'conflict') return result;
    if (!lead.heldBack) budget.release();
    answerRepeat(result.outcome === 'duplicate');
    return undefined;
  }

  /** A 415 unless the body came as JSON. */
  function requireJson(req: Request): void {
    if (req.is('application/json')) return;
    metrics.rejected++;
    throw new HttpError(415, 'unsupported_media_type', words.notJson, { body: 'must be JSON' });
  }

  /** A 400 naming each field and its fault. */
  function invalid(code: string, fields: Record<string, string>): HttpError {
    metrics.rejected++;
    return new HttpError(400, code, 'Some fields need attention.', fields);
  }

  /**
   * `GET /:originalId`: whether this relay accepted (and holds) a lead under this originalId, and
   * nothing more: `{ originalId, status: 'accepted' }`, or 404. Where the lead is on its way (queued,
   * in the CRM, dead-lettered) is not said: a quarantined lead, a flagged one and a repeat
   * registration (answered, not sent again) would each read differently from a delivered one, and so
   * tell anyone who can guess an originalId or an e-mail address the spam verdict, or that someone
   * registered already (docs/api.md). The answer depends only on the row's own acceptance.
   */
  function statusRoute(notFound: string): void {
    router.get('/:originalId', async (req, res) => {
      const originalId = typeof req.params.originalId === 'string' && UUID.test(req.params.originalId) ? req.params.originalId.toLowerCase() : undefined;
      const entry = originalId === undefined ? undefined : await readState(originalId);
      if (!originalId || !entry) throw new HttpError(404, 'not_found', notFound);
      res.set('Cache-Control', 'no-store');
      const answer: LeadStatusResponse = { originalId, status: 'accepted' };
      res.json(answer);
    });
  }

  return { router, clientLimits, dailyRefusal, storeUnavailable, readState, answerRepeat, commit, requireJson, invalid, statusRoute };
}

/** The JSON body parser (`bodyBytes` at most) and its failures, answered in the lead error shape (naming the body as the bad field). */
export function jsonBody(what: string, bodyBytes: number): [RequestHandler, ErrorRequestHandler] {
  const bodyErrors: ErrorRequestHandler = (error, _req, _res, next) => {
    const type = (error as { type?: string }).type;
    if (type === 'entity.too.large')
      return next(new HttpError(413, 'payload_too_large', `${what} is larger than ${bodyBytes / 1024} KB.`, { body: 'too large' }));
    if (type === 'entity.parse.failed')
      return next(new HttpError(400, 'invalid_json', 'The request body is not valid JSON.', { body: 'must be a JSON object' }));
    next(error);
  };
  return [express.json({ limit: bodyBytes, strict: true }), bodyErrors];
}

/**
 * The spam signals (lead-queue/table.ts SpamReason): the hidden field filled in (strong: the lead
 * is quarantined), or the form sent sooner than `minFillMs` after it was shown (weak: a person's
 * browser may fill a form in at once, so the lead is delivered, marked). Either is answered 202.
 */
export function spamTrap(lead: { website?: string; elapsedMs: number }, minFillMs: number): Exclude<SpamReason, 'repeat_registration'> | undefined {
  if (lead.website !== undefined && lead.website.trim() !== '') return 'honeypot';
  return lead.elapsedMs < minFillMs ? 'too_fast' : undefined;
}

/** "3 h 20 min", "12 min", "40 s": a wait as a refusal message gives it. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
