import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { Config } from '../runtime/config.ts';
import { parseRetryAfter } from '../runtime/retry-after.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { CrmError, type CrmErrorCode } from './errors.ts';
import type { KeyGate } from './key-gate.ts';
import { callsOn, countCall, limiterForKey, type BudgetStatus, type RequestLimiter, type SharedLimits } from './limiter.ts';
import type { SharedDatabase } from '../store/shared-database.ts';
import {
  addEnquirySchema,
  crmEnquirySchema,
  crmEnquirySourceSchema,
  crmErrorBodySchema,
  crmHoldingAreaTypeSchema,
  crmListEnvelopeSchema,
  crmOpenHomeSchema,
  crmPhotoSchema,
  crmPropertySchema,
  crmScopesSchema,
  crmUsageSchema,
  crmUserSchema,
  issuePaths,
  parseList,
  type AddEnquiry,
  type CrmEnquiry,
  type CrmEnquirySource,
  type CrmHoldingAreaType,
  type CrmList,
  type CrmOpenHome,
  type CrmPhoto,
  type CrmProperty,
  type CrmUsage,
  type CrmUser,
} from './schemas.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { DEFAULT_WORK_CLASS, workClassNow, type WorkClass } from '../runtime/work-class.ts';

export { CrmError, isCrmError, type CrmErrorCode } from './errors.ts';
export type { BudgetStatus } from './limiter.ts';
export type {
  AddEnquiry,
  CrmEnquiry,
  CrmEnquirySource,
  CrmHoldingAreaType,
  CrmList,
  CrmOpenHome,
  CrmPhoto,
  CrmProperty,
  CrmUsage,
  CrmUser,
} from './schemas.ts';

/*
 * Transport: the global fetch (undici). Its default dispatcher speaks HTTP/1.1 only (HTTP/2 is
 * opt-in through `allowH2`), which is what the CRM documents, keeps connections alive between
 * requests, and takes an AbortSignal for the whole exchange, body included. node:http would need
 * the same signal plumbing by hand for no gain at 10 requests per second.
 */

export interface CrmClientOptions {
  /** Base URL of the API, ending in /api/v1.3. */
  baseUrl: string;
  apiKey: string;
  accessToken: string;
  /**
   * The gate of this API key: its per-second limit and daily budget (limiterForKey). Handed in, not
   * built here, because the CRM limits per key: every client of one key must pass the same gate.
   */
  limiter: RequestLimiter;
  /**
   * The agency this client speaks for (one access token is one agency): the key's gate takes
   * agencies in turns. Default: a digest of the access token (the token itself is not kept there).
   */
  agency?: string;
  /** The agency's store, where its requests per UTC day are counted (requestsToday survives a restart). Default: counted in memory. */
  callsStore?: Store;
  /**
   * While the agency has never filled its listing cache: its size as far as known (lower fills
   * first at the key's gate); undefined once filled. Its sync's requests go in that order; its
   * other requests but enquiries after every first fill (start-up checks asked while it filled, even
   * once its own is done), or at once when asked after its own: a relay of many new agencies has
   * each one serving as early as it can.
   */
  fillOrder?: () => number | undefined;
  /** Where the operator sets the access token, for errors that say what to check. Default CRM_ACCESS_TOKEN. */
  tokenSetting?: string;
  log: Logger;
  /** Timeout of one attempt, body included. Default 15,000 ms. */
  timeoutMs?: number;
  /** Retries after a 429. Default 3. */
  maxRetries?: number;
  /** Retries of a GET after a 5xx, a timeout or a network error. Default 2. POSTs are never retried this way. */
  getRetries?: number;
  /** A 429 whose Retry-After asks for longer than this is not waited for: it fails with retryAt. Default 60 s. */
  maxRetryWaitMs?: number;
  /** First step of the exponential backoff (full jitter). Default 500 ms. */
  backoffBaseMs?: number;
  now?: Clock;
}

export type PropertyClass = 'residential' | 'commercial' | 'land' | 'rural';
export type SaleOrLease = 'sale' | 'lease';

export interface CallOptions {
  /** Cancels the call (waiting for a slot, backing off, or in flight). */
  signal?: AbortSignal;
  /**
   * Runs once the key's gate lets the request go, just before it first leaves (not again for a
   * retry of a 429): a lead queue commits its "may be in the CRM" mark here, so a write that was
   * still waiting at the gate when the relay died is known never to have left. A throw stops the
   * request, unsent.
   */
  beforeSend?: () => Promise<void>;
}

export interface PageParams {
  /** 1-based. */
  page?: number;
  /** Sent as `pagesize` (the CRM's default is 50). */
  pageSize?: number;
}

export interface ListPropertiesParams extends PageParams {
  class: PropertyClass;
  saleOrLease: SaleOrLease;
  /** The `/available` list: current listings only. */
  available?: boolean;
  /** The `/sold` list (residential sale only). */
  sold?: boolean;
  modifiedSince?: Date | string;
  modifiedBefore?: Date | string;
  published?: boolean;
  /** One status or several (sent comma-separated), e.g. 'listingOrConditional'. */
  status?: string | string[];
  sort?: 'inserted' | 'modified' | 'suburb' | 'searchPrice' | 'landArea' | 'floorArea';
  sortOrder?: 'asc' | 'desc';
}

export interface ListOpenHomesParams extends PageParams {
  /** Date, YYYY-MM-DD (or a Date). */
  startingAfter?: Date | string;
  startingBefore?: Date | string;
  userId?: number;
  propertyIds?: number[];
}

export interface ListEnquiriesParams extends PageParams {
  enquiryDateSince?: Date | string;
  enquiryDateBefore?: Date | string;
  saleLifeId?: number;
  leaseLifeId?: number;
  userId?: number;
  /** A holding area type API code (GET /types/holdingArea). */
  source?: string;
  processed?: boolean;
  sort?: 'enquiryDate';
  sortOrder?: 'asc' | 'desc';
}

type QueryValue = string | number | boolean | Date | null | undefined | Array<string | number>;

export interface CrmRequest<S extends z.ZodType> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base URL, starting with '/'. */
  path: string;
  query?: Record<string, QueryValue>;
  /** JSON body. */
  body?: unknown;
  /** Schema of a 2xx answer's body. */
  schema: S;
  signal?: AbortSignal;
  /** See CallOptions.beforeSend. */
  beforeSend?: () => Promise<void>;
  /**
   * May a 5xx, timeout or network failure be retried blindly? Default: GET only. A POST that may
   * have reached the CRM is reported (outcomeUnknown) and left to the caller.
   */
  idempotent?: boolean;
}

export interface CrmClient {
  request<S extends z.ZodType>(request: CrmRequest<S>): Promise<z.infer<S>>;
  /** A list endpoint: items checked one by one (invalid ones left out, counted and logged). */
  requestList<S extends z.ZodType>(itemSchema: S, request: Omit<CrmRequest<S>, 'schema'>): Promise<CrmList<z.infer<S>>>;

  listProperties(params: ListPropertiesParams, options?: CallOptions): Promise<CrmList<CrmProperty>>;
  getProperty(propertyClass: PropertyClass, saleOrLease: SaleOrLease, id: number, options?: CallOptions): Promise<CrmProperty>;
  listPhotos(propertyId: number, params?: PageParams, options?: CallOptions): Promise<CrmList<CrmPhoto>>;
  listOpenHomes(params?: ListOpenHomesParams, options?: CallOptions): Promise<CrmList<CrmOpenHome>>;
  listUsers(params?: PageParams, options?: CallOptions): Promise<CrmList<CrmUser>>;
  getScopes(options?: CallOptions): Promise<string[]>;
  getUsage(options?: CallOptions): Promise<CrmUsage>;
  /** Not idempotent: the CRM stores a second enquiry if this is sent twice. Never retried after it may have arrived. */
  addEnquiry(body: AddEnquiry, options?: CallOptions): Promise<CrmEnquiry>;
  listEnquiries(params?: ListEnquiriesParams, options?: CallOptions): Promise<CrmList<CrmEnquiry>>;
  getEnquiry(id: number, options?: CallOptions): Promise<CrmEnquiry>;
  listHoldingAreaTypes(params?: PageParams, options?: CallOptions): Promise<CrmList<CrmHoldingAreaType>>;
  listEnquirySources(options?: CallOptions): Promise<CrmList<CrmEnquirySource>>;

  /** Today's spending against the daily budget (read from the store). */
  budget(): BudgetStatus;
  /**
   * Asks the CRM for the day's usage of this API key (one request) and raises our count to it if
   * it is higher: other processes or integrations may share the key. Worth doing at start-up.
   */
  reconcileBudget(options?: CallOptions): Promise<BudgetStatus>;
  /** Raises today's count to `used` (the CRM's own count of the key's requests, from GET /integrator/usage) if that is higher. */
  recordKeyUsage(used: number): BudgetStatus;
  /** Whether to read the key's usage now: once per `intervalMs` for every client of the key (limiter.claimUsageRead). */
  claimKeyUsageRead(intervalMs: number): boolean;
  /** Requests the key's gate let through since it opened, by work class (every client of the key together). */
  requestsByClass(): Record<WorkClass, number>;
  /** Requests this client (one agency) sent today, UTC (counted in its store when it has one: a restart keeps them): the operator view's calls per agency. */
  requestsToday(): { day: string; requests: number; unsent: number };
  /** Calls `listener` whenever the CRM refuses a call with 401 or 403 (what the token allows may have changed); returns the unsubscribe. */
  onAccessRefused(listener: (status: 401 | 403) => void): () => void;
  /** Calls `listener` after every 2xx answer (a real call that succeeded proves what the token allows); returns the unsubscribe. */
  onCallSucceeded(listener: (call: { method: string; path: string }) => void): () => void;
  /** Callers waiting for a rate-limit slot. */
  readonly queued: number;
  /** Callers of every client of the key waiting at its gate, by work class. */
  queuedByClass(): Record<WorkClass, number>;
  /** Answers 429 (rate limited) this client received, each retry's too, since it was made. */
  readonly rateLimitedAnswers: number;
  /** A digest of the API key and access token (never them): what was learned with other credentials is not trusted. */
  readonly credentialsId: string;
  /** Where the operator sets this client's access token (CRM_ACCESS_TOKEN, or the agency's entry in AGENCIES_FILE), for messages that say what to fix. */
  readonly tokenSetting: string;
  /** Fails every waiting call and every later one. In-flight requests finish. */
  close(): void;
}

/** Where each failing status points the operator. */
const SETTING_BY_STATUS: Record<number, string> = { 401: 'CRM_ACCESS_TOKEN', 403: 'CRM_API_KEY' };

/** Connection errors that prove nothing was sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** The key's limits in the shared database; without it, this relay's share (relays last seen alive), logged when it changes. */
function sharedLimits(config: Config, { database, gate }: SharedKey, log: Logger): SharedLimits {
  return {
    gate,
    relaysAlive: () => database.relaysAlive(),
    onChange: (reachable, error) =>
      reachable
        ? log.warn({ shared: 'postgres' }, 'CRM limits: PostgreSQL is back; every relay on the key shares the limits again')
        : log.error(
            {
              shared: 'postgres',
              error: error instanceof Error ? error.message : String(error),
              share: Math.max(1, Math.floor(config.crm.requestsPerSecond / database.relaysAlive())),
            },
            `CRM limits: PostgreSQL is out of reach; this relay keeps to its share of the key's per second limit (1/${database.relaysAlive()} of ${config.crm.requestsPerSecond}) and counts its requests until it is back`,
          ),
  };
}

/**
 * The client with the relay's CRM settings (the CRM_* variables; the credentials must be set, as
 * they are once demo mode has filled them in), as the relay and the operator CLI's sync use it.
 */
/** The key's limits shared by every relay on it (DATABASE_URL): the database and its gate (cluster/shared-gate.ts). */
export interface SharedKey {
  database: SharedDatabase;
  gate: KeyGate;
}

export function createCrmClientFromConfig(
  config: Config,
  store: Store,
  log: Logger,
  options: { limiterStore?: Store; agency?: string; shared?: SharedKey; fillOrder?: () => number | undefined } = {},
): CrmClient {
  // Many agencies on one relay pass the relay's key-wide store: one gate and one daily budget for the key.
  const limiterStore = options.limiterStore ?? store;
  return createCrmClient({
    baseUrl: config.crm.baseUrl!,
    apiKey: config.crm.apiKey!,
    accessToken: config.crm.accessToken!,
    limiter: keyLimiter(config, limiterStore, log, options.shared),
    log,
    timeoutMs: config.crm.timeoutMs,
    agency: options.agency,
    callsStore: store,
    fillOrder: options.fillOrder,
    // Many agencies: the token is the agency's accessToken in AGENCIES_FILE (its value is never named).
    ...(options.agency ? { tokenSetting: agencyTokenSetting(options.agency) } : {}),
  });
}

/**
 * The API key's limiter, as every caller on the key must count: its per-second gate and its day's
 * budget in the key's store (`keyStore`: DATA_DIR's), or with DATABASE_URL (`shared`) in PostgreSQL,
 * where every relay on the key counts them. The operator CLI's calls (a sync, a token check) count
 * where the relays count theirs.
 */
export function keyLimiter(config: Config, keyStore: Store, log: Logger, shared?: SharedKey): RequestLimiter {
  return limiterForKey(config.crm.apiKey!, {
    store: keyStore,
    requestsPerSecond: config.crm.requestsPerSecond,
    dailyLimit: config.crm.dailyLimit,
    // DATABASE_URL: the per-second limit and the day's count held in PostgreSQL for every relay on the key.
    shared: shared ? sharedLimits(config, shared, log) : undefined,
  });
}

/** Where an agency of AGENCIES_FILE has its token set (its value is never named). */
export function agencyTokenSetting(slug: string): string {
  return `the accessToken of agency "${slug}" in AGENCIES_FILE`;
}

/**
 * The CRM client. Its limiter (one per API key) is what keeps every caller together under the
 * per-second limit (the daily budget is shared through the store even across processes; the
 * per-second limit is not). Closing the client releases its limiter (closed with the key's last client).
 */
export function createCrmClient(options: CrmClientOptions): CrmClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const log = options.log.child({ component: 'crm' });
  const clock = options.now ?? systemClock;
  const now = () => new Date(clock());
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxRetries = options.maxRetries ?? 3;
  const getRetries = options.getRetries ?? 2;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  const backoffBaseMs = options.backoffBaseMs ?? 500;
  const { limiter } = options;
  const tokenSetting = options.tokenSetting ?? 'CRM_ACCESS_TOKEN';
  const agency = options.agency ?? createHash('sha256').update(options.accessToken).digest('hex').slice(0, 16);
  // Built once; never logged (the logger would redact them anyway).
  const authHeaders = {
    'X-Api-Key': options.apiKey,
    Authorization: `Bearer ${options.accessToken}`,
    Accept: 'application/json',
    'User-Agent': 'estate-embed-relay',
  };

  // The fill order of one request: its sync's in the agency's place; start-up checks after every first fill (sweep is the sync's class).
  // A start-up check asked while its agency filled stays after every first fill once its own agency
  // has filled too: ahead of them, each agency's few checks would delay every fill still to come.
  const fillOrderOf = (workClass: WorkClass) => {
    const size = options.fillOrder;
    if (!size) return undefined;
    let askedWhileFilling = false;
    return () => {
      const order = size();
      if (workClass === 'sweep') return order;
      if (order !== undefined) askedWhileFilling = true;
      return order !== undefined || (askedWhileFilling && workClass === DEFAULT_WORK_CLASS) ? Number.MAX_SAFE_INTEGER : undefined;
    };
  };

  let rateLimitedAnswers = 0;
  const refusalListeners = new Set<(status: 401 | 403) => void>();
  const successListeners = new Set<(call: { method: string; path: string }) => void>();
  const { callsStore } = options;
  let today = { day: '', requests: 0 };
  /** Slots the key's gate granted (and counted in its budget) that were never used: a beforeSend threw. Per process, today. */
  let unsent = { day: '', requests: 0 };
  const countUnsent = () => {
    const day = now().toISOString().slice(0, 10);
    unsent = unsent.day === day ? { day, requests: unsent.requests + 1 } : { day, requests: 1 };
  };
  const countToday = () => {
    const day = now().toISOString().slice(0, 10);
    if (callsStore) {
      try {
        today = { day, requests: countCall(callsStore, day) };
        return;
      } catch (error) {
        // A store that cannot be written (full disk) must not fail the request: counted in memory then.
        log.warn({ err: (error as Error).message }, "could not count the request in the agency's store");
      }
    }
    today = today.day === day ? { day, requests: today.requests + 1 } : { day, requests: 1 };
  };

  async function request<S extends z.ZodType>(req: CrmRequest<S>): Promise<z.infer<S>> {
    const method = req.method ?? 'GET';
    const idempotent = req.idempotent ?? method === 'GET';
    const url = buildUrl(baseUrl, req.path, req.query);
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const where = { method, path: req.path };
    let rateLimitedRetries = 0;
    let failureRetries = 0;
    let beforeSend = req.beforeSend;

    for (let attempt = 1; ; attempt++) {
      // The work class of whichever worker made this call (work-class.ts): leads before syncs.
      const workClass = workClassNow();
      const releaseSlot = await limiter.acquire({ signal: req.signal, workClass, agency, fillOrder: fillOrderOf(workClass) });
      if (beforeSend) {
        try {
          await beforeSend();
        } catch (error) {
          releaseSlot();
          countUnsent();
          throw error;
        }
        beforeSend = undefined;
      }
      countToday();
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
      const started = performance.now();
      let status: number | undefined;
      let text: string;
      let retryAfterHeader: string | null = null;
      try {
        const response = await fetch(url, {
          method,
          headers: body === undefined ? authHeaders : { ...authHeaders, 'Content-Type': 'application/json' },
          body,
          signal,
        });
        status = response.status;
        retryAfterHeader = response.headers.get('retry-after');
        text = await response.text();
        releaseSlot();
      } catch (cause) {
        releaseSlot();
        const failure = transportFailure(cause, { status, callerSignal: req.signal, timeout, timeoutMs, ...where });
        const ms = Math.round(performance.now() - started);
        if (failure.code !== 'aborted' && idempotent && failureRetries < getRetries) {
          failureRetries++;
          const delay = fullJitter(backoffBaseMs, failureRetries);
          log.warn({ ...where, attempt, ms, reason: failure.code, retryInMs: Math.round(delay) }, 'CRM request failed; retrying');
          await pause(delay, req.signal);
          continue;
        }
        log.warn({ ...where, attempt, ms, reason: failure.code, outcomeUnknown: failure.outcomeUnknown }, 'CRM request failed');
        throw failure;
      }
      const ms = Math.round(performance.now() - started);

      if (status >= 200 && status < 300) {
        log.debug({ ...where, status, attempt, ms }, 'CRM request');
        const parsed = parseBody(req.schema, text, where);
        for (const listener of [...successListeners]) listener({ method, path: req.path });
        return parsed;
      }

      // The CRM's words stay here: only its code and the field it names leave (errors.ts).
      const refusal = errorBody(text, req.body);
      const { crmCode, crmField } = refusal;
      if (status === 429) {
        rateLimitedAnswers++;
        const retryAfterMs = parseRetryAfter(retryAfterHeader, now());
        const waitMs = retryAfterMs ?? fullJitter(backoffBaseMs, rateLimitedRetries + 1);
        if (rateLimitedRetries < maxRetries && waitMs <= maxRetryWaitMs) {
          rateLimitedRetries++;
          log.warn({ ...where, status, attempt, retryInMs: Math.round(waitMs), retryAfter: retryAfterMs !== undefined }, 'CRM rate limit hit; retrying');
          if (retryAfterMs !== undefined) {
            // The CRM said when: hold back every caller of this key, not just this one.
            limiter.pauseFor(retryAfterMs);
          } else {
            await pause(waitMs, req.signal);
          }
          continue;
        }
        const retryAt = new Date(now().getTime() + waitMs);
        log.warn({ ...where, status, attempt, retryAt, crmCode }, 'CRM rate limit hit; giving up');
        if (retryAfterMs !== undefined && retryAfterMs > maxRetryWaitMs) {
          // A long wait the CRM asked for (its daily quota, say) applies to every caller of the key.
          limiter.refuseUntil(retryAt, `The CRM refused requests with 429${crmCode ? ` (code ${crmCode})` : ''}.`);
        }
        throw new CrmError(
          `The CRM refused ${method} ${req.path} with 429 (rate limit) ${rateLimitedRetries + 1} time(s); retry after ${retryAt.toISOString()}.`,
          { code: 'rate_limited', status, retryable: true, retryAt, crmCode, ...where },
        );
      }

      if (status >= 500) {
        if (idempotent && failureRetries < getRetries) {
          failureRetries++;
          const delay = fullJitter(backoffBaseMs, failureRetries);
          log.warn({ ...where, status, attempt, ms, retryInMs: Math.round(delay) }, 'CRM server error; retrying');
          await pause(delay, req.signal);
          continue;
        }
        log.warn({ ...where, status, attempt, ms }, 'CRM server error');
        throw new CrmError(`The CRM answered ${method} ${req.path} with ${status}${refusalDetail(refusal)}.`, {
          code: 'server_error',
          status,
          retryable: true,
          // A 5xx to a request with effects does not prove the effect did not happen.
          outcomeUnknown: !idempotent,
          crmCode,
          crmField,
          ...where,
        });
      }

      log.warn({ ...where, status, attempt, ms }, 'CRM refused the request');
      if (status === 401 || status === 403) for (const listener of [...refusalListeners]) listener(status);
      throw clientError(status, refusal, where, tokenSetting);
    }
  }

  async function pause(ms: number, signal?: AbortSignal): Promise<void> {
    try {
      await sleep(ms, undefined, { signal });
    } catch (cause) {
      throw new CrmError('The CRM request was cancelled while waiting to retry.', { code: 'aborted', cause });
    }
  }

  async function requestList<S extends z.ZodType>(itemSchema: S, req: Omit<CrmRequest<S>, 'schema'>): Promise<CrmList<z.infer<S>>> {
    const envelope = await request({ ...req, schema: crmListEnvelopeSchema });
    const { list, issues } = parseList(itemSchema, envelope);
    if (issues.length > 0) {
      log.warn(
        { path: req.path, invalidItems: issues.length, fields: [...new Set(issues.flatMap((issue) => issue.paths))].slice(0, 20) },
        'CRM list items did not match the schema and were left out',
      );
    }
    return list;
  }

  const client: CrmClient = {
    request,
    requestList,

    listProperties(params, callOptions) {
      if (params.sold && !(params.class === 'residential' && params.saleOrLease === 'sale')) {
        throw new TypeError('The sold list exists for residential sale properties only');
      }
      const suffix = params.sold ? '/sold' : params.available ? '/available' : '';
      return requestList(crmPropertySchema, {
        path: `/properties/${params.class}/${params.saleOrLease}${suffix}`,
        query: {
          ...pageQuery(params),
          modifiedSince: params.modifiedSince,
          modifiedBefore: params.modifiedBefore,
          published: params.published,
          status: params.status === undefined ? undefined : [params.status].flat(),
          sort: params.sort,
          sortOrder: params.sortOrder,
        },
        signal: callOptions?.signal,
      });
    },

    getProperty(propertyClass, saleOrLease, id, callOptions) {
      return request({ path: `/properties/${propertyClass}/${saleOrLease}/${positiveId(id, 'id')}`, schema: crmPropertySchema, signal: callOptions?.signal });
    },

    listPhotos(propertyId, params, callOptions) {
      return requestList(crmPhotoSchema, {
        path: `/properties/${positiveId(propertyId, 'propertyId')}/photos`,
        query: pageQuery(params),
        signal: callOptions?.signal,
      });
    },

    listOpenHomes(params = {}, callOptions) {
      return requestList(crmOpenHomeSchema, {
        path: '/openHomes',
        query: {
          ...pageQuery(params),
          startingAfter: crmDate(params.startingAfter),
          startingBefore: crmDate(params.startingBefore),
          userid: params.userId,
          properties: params.propertyIds,
        },
        signal: callOptions?.signal,
      });
    },

    listUsers(params, callOptions) {
      return requestList(crmUserSchema, { path: '/account/users', query: pageQuery(params), signal: callOptions?.signal });
    },

    getScopes(callOptions) {
      return request({ path: '/scopes', schema: crmScopesSchema, signal: callOptions?.signal });
    },

    getUsage(callOptions) {
      return request({ path: '/integrator/usage', schema: crmUsageSchema, signal: callOptions?.signal });
    },

    async addEnquiry(body, callOptions) {
      const parsed = addEnquirySchema.safeParse(body);
      if (!parsed.success) {
        // Our own bug, caught before spending a request: say which fields, not their values.
        throw new CrmError(`The enquiry to send is malformed (fields: ${issuePaths(parsed.error).join(', ')}); nothing was sent.`, {
          code: 'bad_request',
          method: 'POST',
          path: '/enquiries',
        });
      }
      return request({
        method: 'POST',
        path: '/enquiries',
        body: parsed.data,
        schema: crmEnquirySchema,
        signal: callOptions?.signal,
        beforeSend: callOptions?.beforeSend,
      });
    },

    listEnquiries(params = {}, callOptions) {
      return requestList(crmEnquirySchema, {
        path: '/enquiries',
        query: {
          ...pageQuery(params),
          enquiryDateSince: params.enquiryDateSince,
          enquiryDateBefore: params.enquiryDateBefore,
          saleLifeId: params.saleLifeId,
          leaseLifeId: params.leaseLifeId,
          userId: params.userId,
          source: params.source,
          processed: params.processed,
          sort: params.sort,
          sortOrder: params.sortOrder,
        },
        signal: callOptions?.signal,
      });
    },

    getEnquiry(id, callOptions) {
      return request({ path: `/enquiries/${positiveId(id, 'id')}`, schema: crmEnquirySchema, signal: callOptions?.signal });
    },

    listHoldingAreaTypes(params, callOptions) {
      return requestList(crmHoldingAreaTypeSchema, { path: '/types/holdingArea', query: pageQuery(params), signal: callOptions?.signal });
    },

    listEnquirySources(callOptions) {
      return requestList(crmEnquirySourceSchema, { path: '/account/enquirySources', signal: callOptions?.signal });
    },

    budget: () => limiter.budget(),
    async reconcileBudget(callOptions) {
      const usage = await client.getUsage(callOptions);
      return usage.used == null ? limiter.budget() : limiter.raiseUsedTo(usage.used);
    },
    recordKeyUsage: (used) => limiter.raiseUsedTo(used),
    claimKeyUsageRead: (intervalMs) => limiter.claimUsageRead(intervalMs),
    requestsByClass: () => limiter.grantedByClass(),
    requestsToday: () => {
      const day = now().toISOString().slice(0, 10);
      const unsentToday = unsent.day === day ? unsent.requests : 0;
      if (today.day === day) return { ...today, unsent: unsentToday };
      return { day, requests: callsStore ? callsOn(callsStore, day) : 0, unsent: unsentToday };
    },
    onAccessRefused(listener) {
      refusalListeners.add(listener);
      return () => refusalListeners.delete(listener);
    },
    onCallSucceeded(listener) {
      successListeners.add(listener);
      return () => successListeners.delete(listener);
    },
    get queued() {
      return limiter.queued;
    },
    tokenSetting,
    queuedByClass: () => limiter.queuedByClass(),
    get rateLimitedAnswers() {
      return rateLimitedAnswers;
    },
    credentialsId: createHash('sha256').update(`${options.apiKey}\n${options.accessToken}`).digest('hex').slice(0, 16),
    // Its gate closes with the last client of the key (a second relay on the same store, in one process, keeps its own open).
    close: () => limiter.release(),
  };
  return client;
}

/**
 * Pages through a list operation until the last page, e.g.
 * `for await (const page of allPages((p) => crm.listProperties({ ...filters, ...p }), 100))`.
 * Every page is one request against the budget.
 */
export async function* allPages<T>(fetchPage: (page: { page: number; pageSize: number }) => Promise<CrmList<T>>, pageSize = 100): AsyncGenerator<CrmList<T>> {
  for (let page = 1; ; page++) {
    const result = await fetchPage({ page, pageSize });
    yield result;
    if (page >= result.totalPages || result.items.length + result.invalidItems === 0) return;
  }
}

/** DateTime as the CRM writes it: '2024-05-01T10:00:00+00:00' (UTC, no milliseconds). */
export function toCrmDateTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}

/** Exponential backoff with full jitter: uniform in [0, min(cap, base·2^(retry-1))]. */
export function fullJitter(baseMs: number, retry: number, capMs = 10_000): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** Math.max(0, retry - 1));
}

function buildUrl(baseUrl: string, path: string, query?: Record<string, QueryValue>): string {
  const url = new URL(`${baseUrl}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      // The CRM's array parameters are `style: form, explode: false`: one comma-separated value.
      if (value.length > 0) url.searchParams.set(name, value.join(','));
    } else if (value instanceof Date) {
      url.searchParams.set(name, toCrmDateTime(value));
    } else {
      url.searchParams.set(name, String(value));
    }
  }
  return url.toString();
}

function pageQuery(params?: PageParams): Record<string, QueryValue> {
  return {
    page: params?.page === undefined ? undefined : positiveId(params.page, 'page'),
    pagesize: params?.pageSize === undefined ? undefined : positiveId(params.pageSize, 'pageSize'),
  };
}

function positiveId(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive integer`);
  return value;
}

/** A Date parameter (open homes): YYYY-MM-DD. */
function crmDate(value: Date | string | undefined): string | undefined {
  return value instanceof Date ? value.toISOString().slice(0, 10) : value;
}

function parseBody<S extends z.ZodType>(schema: S, text: string, where: { method: string; path: string }): z.infer<S> {
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not the parser's error as cause: its message quotes the body, which may hold a lead's data.
    throw new CrmError(`The CRM answered ${where.method} ${where.path} with a body that is not JSON.`, { code: 'invalid_response', ...where });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new CrmError(
      `The CRM answered ${where.method} ${where.path} with an unexpected shape (fields: ${issuePaths(parsed.error).slice(0, 10).join(', ')}).`,
      { code: 'invalid_response', ...where },
    );
  }
  return parsed.data;
}

/** What the relay keeps of a CRM error body `{ success: false, msg, code }`: never its `msg` (errors.ts). */
interface CrmRefusal {
  /** The CRM's code, when it is an identifier (a code such as "INVALID_PHOTO_IDS: [12]" keeps its name). */
  crmCode?: string;
  /** The field of our request the refusal names: the body's `field`, or a key we sent that `msg` names. */
  crmField?: string;
  /** The refusal speaks of a scope (a 403 for a token not granted one). */
  aboutScope: boolean;
}

const IDENTIFIER = /^[A-Za-z0-9][\w.-]{0,63}/;
const FIELD_NAME = /^[A-Za-z_][\w.[\]]{0,99}$/;

/**
 * Reads a CRM error body for its code and the field it names, and leaves its message behind: a
 * refusal's message may echo what a visitor typed ("no suburb named …"). A field is taken from
 * the body's `field` when the CRM gives one that is a name, else it is the first key of our own
 * request (our words, never a value) that the message names as a whole word.
 */
function errorBody(text: string, requestBody: unknown): CrmRefusal {
  try {
    const parsed = crmErrorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const { msg, code, field } = parsed.data as { msg?: string | null; code?: string | number | null; field?: unknown };
      const crmCode = code == null ? undefined : IDENTIFIER.exec(String(code))?.[0];
      const named = typeof field === 'string' && FIELD_NAME.test(field) ? field : msg ? keyNamedIn(msg, requestBody) : undefined;
      return { crmCode, crmField: named, aboutScope: /scope/i.test(`${code ?? ''} ${msg ?? ''}`) };
    }
  } catch {
    // Not JSON (a proxy's HTML page, say): nothing of the CRM's to keep.
  }
  return { aboutScope: false };
}

/**
 * The one key of `body` (at any depth; keys only, never values) that `message` names as a word;
 * none when it names several (a message that quotes the whole request names them all).
 */
function keyNamedIn(message: string, body: unknown): string | undefined {
  const keys = new Set<string>();
  const collect = (value: unknown, depth: number): void => {
    if (depth > 4 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) for (const item of value) collect(item, depth + 1);
    else
      for (const [key, inner] of Object.entries(value)) {
        if (FIELD_NAME.test(key)) keys.add(key);
        collect(inner, depth + 1);
      }
  };
  collect(body, 0);
  const words = new Set(message.split(/[^\w]+/));
  const named = [...keys].filter((key) => words.has(key));
  return named.length === 1 ? named[0] : undefined;
}

/** " (code INVALID_DATA, field suburbs)": what an error's message says of the CRM's refusal. */
function refusalDetail({ crmCode, crmField }: CrmRefusal): string {
  const parts = [crmCode && `code ${crmCode}`, crmField && `field ${crmField}`].filter(Boolean);
  return parts.length ? ` (${parts.join(', ')})` : '';
}

function clientError(status: number, refusal: CrmRefusal, where: { method: string; path: string }, tokenSetting: string): CrmError {
  const detail = refusalDetail(refusal);
  const { crmCode, crmField } = refusal;
  if (status === 403 && refusal.aboutScope) {
    // A valid key, but the token was not granted this scope: the token is what must change.
    return new CrmError(
      `The access token lacks a scope needed for ${where.method} ${where.path} (403)${detail}. Ask the agency to grant it, or set ${tokenSetting} to a token that has it.`,
      { code: 'forbidden', status, setting: tokenSetting, crmCode, crmField, ...where },
    );
  }
  const setting = status === 401 ? tokenSetting : SETTING_BY_STATUS[status];
  if (status === 401) {
    return new CrmError(`The CRM rejected the access token (401)${detail}. Check ${tokenSetting}: it must be a current token of the agency's account.`, {
      code: 'unauthorized',
      status,
      setting,
      crmCode,
      crmField,
      ...where,
    });
  }
  if (status === 403) {
    return new CrmError(`The CRM rejected the API key (403)${detail}. Check CRM_API_KEY: it must be the integrator key issued for this relay.`, {
      code: 'forbidden',
      status,
      setting,
      crmCode,
      crmField,
      ...where,
    });
  }
  const code: CrmErrorCode = status === 400 ? 'bad_request' : status === 404 ? 'not_found' : 'http_error';
  return new CrmError(`The CRM answered ${where.method} ${where.path} with ${status}${detail}.`, { code, status, crmCode, crmField, ...where });
}

function transportFailure(
  cause: unknown,
  context: { status?: number; callerSignal?: AbortSignal; timeout: AbortSignal; timeoutMs: number; method: string; path: string },
): CrmError {
  const where = { method: context.method, path: context.path };
  if (context.callerSignal?.aborted) {
    return new CrmError(`The CRM request ${context.method} ${context.path} was cancelled.`, { code: 'aborted', outcomeUnknown: true, cause, ...where });
  }
  if (context.timeout.aborted) {
    return new CrmError(`The CRM did not answer ${context.method} ${context.path} within ${context.timeoutMs} ms; it may have acted on it.`, {
      code: 'timeout',
      status: context.status,
      retryable: true,
      outcomeUnknown: true,
      cause,
      ...where,
    });
  }
  const code = errorCode(cause);
  const notSent = context.status === undefined && code !== undefined && NOT_SENT_CODES.has(code);
  return new CrmError(
    `Could not reach the CRM for ${context.method} ${context.path} (${code ?? 'connection failed'})${notSent ? '; nothing was sent' : '; it may have acted on it'}.`,
    { code: 'network', status: context.status, retryable: true, outcomeUnknown: !notSent, cause, ...where },
  );
}

/** undici wraps the socket error: `TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })`. */
function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
