import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import { EnquiryInputError, parseEnquiry } from '../enquiries.ts';
import { ContactInputError, ContactLookupError, contactRoutes } from './contacts.ts';
import type { Market, SimListing } from '../model.ts';
import {
  boolParam,
  dateParam,
  enumParam,
  intListParam,
  intParam,
  listParam,
  paginate,
  pagingParams,
  QueryError,
  requestOrigin,
  stringParam,
} from '../query.ts';
import { openHomesBetween } from '../seed.ts';
import { BRANCHES, CLASSES, ENQUIRY_SOURCES, HOLDING_AREA_TYPES, type PropertyClassName } from '../seed-data.ts';
import { CursorExpiredError, renderEvent } from '../events.ts';
import { SCOPES, SimulatorError, type IntegratorKey, type SimulatorState } from '../state.ts';
import { DAY, formatDateTime, startOfUtcDay } from '../time.ts';
import { renderAccess, renderEnquiry, renderListing, renderPhoto, renderUser, type ListingView } from '../views.ts';

/** The CRM's error body. `code` is a stable machine-readable name; `msg` says what to fix. */
export function sendError(res: Response, status: number, msg: string, code: string): void {
  res.status(status).json({ success: false, msg, code });
}

/** The request body's `field` as JSON, read from the raw body (the fault answers before any parser). */
async function echoed(req: Request, field: string): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  try {
    return JSON.stringify((JSON.parse(text) as Record<string, unknown>)[field]) ?? 'null';
  } catch {
    return 'null';
  }
}

/** "suburbs: no suburb named …": an input error's message, led by its field unless it starts with it. */
function inputProblem(error: EnquiryInputError | ContactInputError): string {
  return error.message.startsWith(error.field) ? error.message : `${error.field}: ${error.message}`;
}

/** "GET /properties/{id}/photos": the counter key of a request, ids folded so endpoints group. */
export function endpointLabel(method: string, path: string): string {
  const normalised = path.replace(/\/\d+(?=\/|$)/g, '/{id}').replace(/\/+$/, '') || '/';
  return `${method} ${normalised}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Counts the request and its final status (or the cut connection) under its endpoint label. */
export function countRequests(counter: Pick<IntegratorKey, 'countRequest' | 'countStatus'>, prefix = ''): RequestHandler {
  return (req, res, next) => {
    const endpoint = endpointLabel(req.method, prefix + req.path);
    counter.countRequest(endpoint);
    res.on('finish', () => counter.countStatus(endpoint, res.statusCode));
    res.on('close', () => {
      // Cut by an injected fault, or abandoned by the client (its timeout) before the answer.
      if (!res.writableFinished) counter.countStatus(endpoint, res.locals.simDropped ? 'dropped' : 'client-closed');
    });
    next();
  };
}

/**
 * Injected faults: delay, a 5xx or 429 instead of an answer, or "handle it, then cut the
 * connection" (the enquiry is stored, the client never hears so).
 */
export function injectFaults(state: SimulatorState, prefix = ''): RequestHandler {
  return async (req, res, next) => {
    const decision = state.faults.decide(req.method, prefix + req.path);
    if (decision.latencyMs > 0) await sleep(decision.latencyMs);
    if (decision.kind === 'error') {
      state.counters.injectedErrors++;
      if (decision.echoField && decision.status < 500) {
        sendError(res, decision.status, `Invalid data: ${decision.echoField} ${await echoed(req, decision.echoField)} is not accepted`, 'INVALID_DATA');
        return;
      }
      sendError(res, decision.status, 'The service is temporarily unavailable. Please try again.', 'INTERNAL_ERROR');
      return;
    }
    if (decision.kind === '429') {
      state.counters.injected429s++;
      if (decision.retryAfterSeconds !== null) res.set('Retry-After', String(decision.retryAfterSeconds));
      sendError(res, 429, 'Too many requests. Please slow down.', 'RATE_LIMIT_EXCEEDED');
      return;
    }
    if (decision.kind === 'drop') {
      // Let the handler do its work, then destroy the socket instead of sending the response.
      res.locals.simDropped = true;
      res.end = function dropInsteadOfEnd(this: Response) {
        state.counters.droppedResponses++;
        req.socket.destroy();
        return this;
      } as Response['end'];
    }
    next();
  };
}

function requireScope(state: SimulatorState, scope: string): RequestHandler {
  return (_req, res, next) => {
    const token = res.locals.simToken as { scopes: string[] } | undefined;
    if (!token?.scopes.includes(scope)) {
      sendError(res, 403, `This access token lacks the scope ${scope}. Ask the agency to grant it.`, 'INSUFFICIENT_SCOPE');
      return;
    }
    next();
  };
}

const SALE_STATUSES = [
  'prospect',
  'appraisal',
  'listing',
  'conditional',
  'listingOrConditional',
  'unconditional',
  'settled',
  'withdrawn',
  'withdrawnAppraisal',
] as const;
const LEASE_STATUSES = ['prospect', 'appraisal', 'management', 'listing', 'withdrawn', 'withdrawnAppraisal'] as const;
const SOLD_STATUSES = ['conditional', 'unconditional', 'settled'] as const;
const SORTS = ['inserted', 'modified', 'suburb', 'searchPrice', 'landArea', 'floorArea'] as const;
const SOLD_SORTS = [...SORTS, 'salePrice', 'conditional', 'unconditional', 'settlement'] as const;

type Preset = 'all' | 'available' | 'sold';

function expandStatuses(values: string[]): Set<string> {
  const set = new Set(values);
  if (set.delete('listingOrConditional')) {
    set.add('listing');
    set.add('conditional');
  }
  return set;
}

function areaValue(area: unknown): number | null {
  const value = (area as { value?: unknown } | null | undefined)?.value;
  return typeof value === 'number' ? value : null;
}

function sortValue(listing: SimListing, sort: string): number | string | null {
  switch (sort) {
    case 'inserted':
      return listing.inserted;
    case 'modified':
      return listing.modified;
    case 'suburb':
      return String((listing.fields.address as { suburb: { name: string } }).suburb.name);
    case 'searchPrice':
      return typeof listing.fields.searchPrice === 'number' ? listing.fields.searchPrice : null;
    case 'landArea':
      return areaValue(listing.fields.landArea);
    case 'floorArea':
      return areaValue(listing.fields.floorArea);
    case 'salePrice':
      return (listing.saleDetails?.salePrice as number | undefined) ?? null;
    default: {
      const date = listing.saleDetails?.[sort];
      return typeof date === 'string' ? Date.parse(date) : null;
    }
  }
}

/** Sorts by the field (nulls last either way), then by id so pages never shuffle. */
function sortListings(listings: SimListing[], sort: string | undefined, order: 'asc' | 'desc'): SimListing[] {
  const direction = order === 'desc' ? -1 : 1;
  return [...listings].sort((a, b) => {
    if (sort) {
      const left = sortValue(a, sort);
      const right = sortValue(b, sort);
      if (left !== right) {
        if (left === null) return 1;
        if (right === null) return -1;
        return (left < right ? -1 : 1) * direction;
      }
    }
    return (a.id - b.id) * (sort ? 1 : direction);
  });
}

function listingsHandler(state: SimulatorState, propertyClass: PropertyClassName, market: Market, preset: Preset): RequestHandler {
  return async (req, res) => {
    const { query } = req;
    const paging = pagingParams(query);
    let items = state.listings.filter((listing) => listing.propertyClass === propertyClass && listing.market === market);

    if (preset === 'available') {
      const current = market === 'sale' ? ['listing', 'conditional'] : ['listing'];
      // Current listings, on the web or not (off-market ones too): the caller's published=true filters those.
      items = items.filter((listing) => current.includes(listing.status));
    } else {
      const allowed = preset === 'sold' ? SOLD_STATUSES : market === 'sale' ? SALE_STATUSES : LEASE_STATUSES;
      const statusList = listParam(query, 'status');
      for (const status of statusList ?? []) {
        if (!(allowed as readonly string[]).includes(status)) throw new QueryError('status', `status must be among ${allowed.join(', ')}`);
      }
      let statuses = statusList ? expandStatuses(statusList) : undefined;
      if (preset === 'sold' && !statuses) {
        statuses = new Set(['unconditional', 'settled']);
        if (boolParam(query, 'includeConditional')) statuses.add('conditional');
      }
      if (statuses) items = items.filter((listing) => statuses.has(listing.status));
      const portalStatuses = listParam(query, 'portalStatus');
      if (portalStatuses) {
        const wanted = expandStatuses(portalStatuses);
        items = items.filter((listing) => listing.publishedToWeb !== null && wanted.has(listing.status));
      }
    }
    const published = boolParam(query, 'published');
    if (published !== undefined) items = items.filter((listing) => (listing.publishedToWeb !== null) === published);
    if (market === 'lease' && boolParam(query, 'availableOnly')) items = items.filter((listing) => listing.status === 'listing');

    const modifiedSince = dateParam(query, 'modifiedSince');
    const modifiedBefore = dateParam(query, 'modifiedBefore');
    if (modifiedSince !== undefined) items = items.filter((listing) => listing.modified >= modifiedSince);
    if (modifiedBefore !== undefined) items = items.filter((listing) => listing.modified < modifiedBefore);
    const contactStaff = intParam(query, 'contactStaff');
    if (contactStaff !== undefined) items = items.filter((listing) => listing.staffIds.includes(contactStaff));
    const suburbs = intListParam(query, 'suburbs');
    if (suburbs) items = items.filter((listing) => suburbs.includes((listing.fields.address as { suburb: { id: number } }).suburb.id));
    const types = intListParam(query, 'types');
    if (types) items = items.filter((listing) => types.includes((listing.fields.type as { id: number }).id));
    const propertyIds = intListParam(query, 'propertyIds');
    if (propertyIds) items = items.filter((listing) => propertyIds.includes(listing.id));
    const lifeIds = intListParam(query, 'lifeIds');
    if (lifeIds) items = items.filter((listing) => lifeIds.includes(listing.lifeId));

    const sort = enumParam(query, 'sort', preset === 'sold' ? SOLD_SORTS : SORTS);
    const order = enumParam(query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    const origin = requestOrigin(req);
    const view: ListingView = preset === 'sold' ? 'sold' : 'list';
    const envelope = paginate(req, sortListings(items, sort, order), paging, (listing) => listing);
    // Real list items carry their photos inline (every one, published or not), so a sync needs no photo call.
    const rendered = await Promise.all(
      envelope.items.map(async (listing) => ({
        ...renderListing(listing, state, origin, view),
        photos: await Promise.all(listing.photos.map((photo) => renderPhoto(photo, origin))),
      })),
    );
    res.json({ ...envelope, items: rendered });
  };
}

function singleListingHandler(state: SimulatorState, propertyClass: PropertyClassName, market: Market): RequestHandler {
  return (req, res) => {
    const id = Number(req.params.id);
    const listing = /^\d+$/.test(String(req.params.id)) ? state.listing(id, market) : undefined;
    if (!listing || listing.propertyClass !== propertyClass || listing.market !== market) {
      sendError(res, 404, `No ${propertyClass} ${market} property with id ${String(req.params.id)}`, 'NOT_FOUND');
      return;
    }
    res.json(renderListing(listing, state, requestOrigin(req), 'single'));
  };
}

/**
 * The API of every account on the key: the gate (key, the key's limits, then the token, which
 * names the account), then that account's routes.
 */
export function apiRouter(key: IntegratorKey): Router {
  const router = express.Router();
  router.use(countRequests(key));
  const accountRouters = new WeakMap<SimulatorState, Router>();

  // The gate, in the order an API gateway applies it: key, then throttle, then the token.
  router.use((req, res, next) => {
    const apiKey = req.get('x-api-key');
    if (!apiKey || !key.apiKeys.has(apiKey)) {
      sendError(res, 403, 'Forbidden: the X-Api-Key header is missing or not a valid API key.', 'INVALID_API_KEY');
      return;
    }
    const decision = key.limiter.check(apiKey, key.now());
    if (!decision.allowed) {
      res.set('Retry-After', String(decision.retryAfterSeconds));
      if (decision.reason === 'daily') {
        sendError(res, 429, `Daily quota of ${key.limiter.settings.dailyLimit} requests used up; it resets at 00:00 UTC.`, 'DAILY_QUOTA_EXCEEDED');
      } else {
        sendError(res, 429, `Rate limit exceeded: at most ${key.limiter.settings.requestsPerSecond} requests per second.`, 'RATE_LIMIT_EXCEEDED');
      }
      return;
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    const found = match ? key.accountOfToken(match[1]!) : undefined;
    if (!found) {
      res.set('WWW-Authenticate', 'Bearer');
      sendError(res, 401, 'Unauthorized: the bearer access token is missing, invalid or revoked.', 'INVALID_ACCESS_TOKEN');
      return;
    }
    res.locals.simToken = found.token;
    res.locals.apiKey = apiKey;
    let accountRouter = accountRouters.get(found.account);
    if (!accountRouter) accountRouters.set(found.account, (accountRouter = accountApiRouter(found.account)));
    accountRouter(req, res, next);
  });
  router.use((req, res) => {
    sendError(res, 404, `No endpoint ${req.method} ${req.baseUrl}${req.path}`, 'NOT_FOUND');
  });
  return router;
}

/** One account's endpoints, behind the gate: its faults, data, events and scopes. */
function accountApiRouter(state: SimulatorState): Router {
  const router = express.Router();
  router.use(injectFaults(state));

  const scope = (name: string) => requireScope(state, name);

  router.get('/scopes', (_req, res) => {
    res.json((res.locals.simToken as { scopes: string[] }).scopes);
  });

  router.get('/integrator/usage', (_req, res) => {
    res.json(state.limiter.dailyUsage(res.locals.apiKey as string, state.now()));
  });

  // -- Event stream: `{ items: [{ id, timestamp, type, action, data }], urls: { next } }` ----------
  router.get('/eventStream', (req, res) => {
    const { query } = req;
    const cursor = stringParam(query, 'cursor');
    const since = dateParam(query, 'eventsSince');
    if (cursor === undefined && since === undefined) {
      sendError(res, 400, 'Give eventsSince (a DateTime) or the cursor from urls.next.', 'INVALID_PARAMETER');
      return;
    }
    const pageSize = Math.min(100, intParam(query, 'pagesize') ?? 100);
    let read;
    try {
      read = state.events.read(cursor !== undefined ? { cursor } : { since: since! }, pageSize);
    } catch (error) {
      if (!(error instanceof CursorExpiredError)) throw error;
      sendError(res, 400, error.message, 'INVALID_CURSOR');
      return;
    }
    const next = new URL(`${requestOrigin(req)}${req.baseUrl}/eventStream`);
    next.searchParams.set('cursor', read.cursor);
    res.json({ items: read.events.map(renderEvent), urls: { next: next.toString() } });
  });

  // -- Properties -------------------------------------------------------------------------------
  const read = scope(SCOPES.propertiesRead);
  router.get('/properties/residential/sale/sold', read, listingsHandler(state, 'residential', 'sale', 'sold'));
  for (const propertyClass of Object.keys(CLASSES) as PropertyClassName[]) {
    for (const market of ['sale', 'lease'] as const) {
      if ((propertyClass === 'land' || propertyClass === 'rural') && market === 'lease') continue;
      const base = `/properties/${propertyClass}/${market}`;
      router.get(base, read, listingsHandler(state, propertyClass, market, 'all'));
      router.get(`${base}/available`, read, listingsHandler(state, propertyClass, market, 'available'));
      router.get(`${base}/:id`, read, singleListingHandler(state, propertyClass, market));
    }
  }

  router.get('/properties/:id/photos', read, async (req, res) => {
    const listing = /^\d+$/.test(String(req.params.id)) ? state.listing(Number(req.params.id)) : undefined;
    if (!listing) {
      sendError(res, 404, `No property with id ${String(req.params.id)}`, 'NOT_FOUND');
      return;
    }
    const paging = pagingParams(req.query);
    const origin = requestOrigin(req);
    const envelope = paginate(req, listing.photos, paging, (photo) => photo);
    res.json({ ...envelope, items: await Promise.all(envelope.items.map((photo) => renderPhoto(photo, origin))) });
  });

  router.get('/openHomes', read, (req, res) => {
    const { query } = req;
    const now = state.now();
    const today = startOfUtcDay(now);
    // Open homes exist from a week back to two weeks ahead of the clock.
    const horizonStart = today - 7 * DAY;
    const horizonEnd = now + 14 * DAY;
    const after = dateParam(query, 'startingAfter');
    const before = dateParam(query, 'startingBefore');
    const userId = intParam(query, 'userid');
    const properties = intListParam(query, 'properties');
    const from = Math.max(horizonStart, after ?? horizonStart);
    const to = Math.min(horizonEnd, before ?? horizonEnd);
    const origin = requestOrigin(req);
    const found = state.listings
      .filter((listing) => ['listing', 'conditional'].includes(listing.status) && listing.publishedToWeb !== null)
      .filter((listing) => !properties || properties.includes(listing.id))
      .flatMap((listing) => openHomesBetween(listing, from, to).map((openHome) => ({ listing, ...openHome })))
      .filter((openHome) => userId === undefined || openHome.slot.userId === userId)
      .sort((a, b) => a.start - b.start || a.listing.id - b.listing.id);
    res.json(
      paginate(req, found, pagingParams(query), ({ listing, start, end, slot }) => {
        const user = state.staffMember(slot.userId);
        return {
          id: listing.lifeId * 10_000 + (Math.floor(start / DAY) % 10_000),
          start: formatDateTime(start),
          end: formatDateTime(end),
          user: user ? renderUser(user, origin) : null,
          isRental: listing.market === 'lease',
          extraAgents: listing.staffIds
            .filter((id) => id !== slot.userId)
            .map((id) => state.staffMember(id))
            .filter((extra) => extra !== undefined)
            .map((extra) => renderAccess(extra, origin)),
          property: {
            id: listing.id,
            displayAddress: listing.fields.displayAddress,
            saleLifeId: listing.market === 'sale' ? listing.lifeId : null,
            leaseLifeId: listing.market === 'lease' ? listing.lifeId : null,
            class: { ...CLASSES[listing.propertyClass] },
          },
        };
      }),
    );
  });

  // -- Account ----------------------------------------------------------------------------------
  router.get('/account/users', scope(SCOPES.usersRead), (req, res) => {
    const { query } = req;
    const email = stringParam(query, 'email')?.toLowerCase();
    const sort = enumParam(query, 'sort', ['firstname', 'lastname', 'inserted'] as const);
    const order = enumParam(query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    let users = state.users.filter((user) => email === undefined || String(user.fields.email).toLowerCase() === email);
    if (sort && sort !== 'inserted') {
      const field = sort === 'firstname' ? 'firstName' : 'lastName';
      users = [...users].sort((a, b) => String(a.fields[field]).localeCompare(String(b.fields[field])) || a.id - b.id);
    }
    if (order === 'desc') users = [...users].reverse();
    const origin = requestOrigin(req);
    res.json(paginate(req, users, pagingParams(query), (user) => renderUser(user, origin)));
  });

  router.get('/account/users/:id', scope(SCOPES.usersRead), (req, res) => {
    const user = /^\d+$/.test(String(req.params.id)) ? state.user(Number(req.params.id)) : undefined;
    if (!user) {
      sendError(res, 404, `No user with id ${String(req.params.id)}`, 'NOT_FOUND');
      return;
    }
    res.json(renderUser(user, requestOrigin(req)));
  });

  router.get('/user', scope(SCOPES.accountRead), (req, res) => {
    res.json({ ...renderUser(state.users[0]!, requestOrigin(req)), teams: [{ id: 1, name: 'Sales' }] });
  });

  router.get('/account', scope(SCOPES.accountRead), (_req, res) => {
    const branch = BRANCHES.VIC;
    const { agency } = state;
    res.json({
      id: agency.id,
      name: agency.name,
      businessName: `${agency.name} Pty Ltd`,
      eMarketingName: agency.name,
      timezone: 'Australia/Melbourne',
      openDatabase: false,
      email: `hello@${agency.domain}`,
      phoneNumbers: [{ number: '(03) 5550 1000', typeCode: 'W', type: 'Work', comment: null }],
      address: {
        streetNumber: branch.address.streetNumber,
        street: branch.address.street,
        suburb: { name: branch.address.suburb, postcode: branch.address.postcode },
      },
      postalAddress: null,
      franchise: null,
      speciality: null,
      marketingUserOrders: [],
      websiteUrl: `https://${agency.domain}`,
      clientLoginUrl: null,
      openingHours: {
        sunday: 'Closed',
        monday: '9am-5:30pm',
        tuesday: '9am-5:30pm',
        wednesday: '9am-5:30pm',
        thursday: '9am-5:30pm',
        friday: '9am-5:30pm',
        saturday: '9am-4pm',
      },
    });
  });

  router.get('/account/enquirySources', scope(SCOPES.accountRead), (req, res) => {
    const order = enumParam(req.query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    let sources = ENQUIRY_SOURCES.map((source) => ({ ...source }));
    if (enumParam(req.query, 'sort', ['name'] as const)) sources.sort((a, b) => a.name.localeCompare(b.name));
    if (order === 'desc') sources = sources.reverse();
    res.json(paginate(req, sources, { page: 1, pagesize: Math.max(1, sources.length) }, (source) => source));
  });

  router.get('/types/holdingArea', (req, res) => {
    const order = enumParam(req.query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    let types = HOLDING_AREA_TYPES.map((type) => ({ ...type }));
    if (enumParam(req.query, 'sort', ['source'] as const)) types.sort((a, b) => a.source.localeCompare(b.source));
    if (order === 'desc') types = types.reverse();
    res.json(paginate(req, types, pagingParams(req.query), (type) => type));
  });

  // -- Enquiries --------------------------------------------------------------------------------
  router.post('/enquiries', scope(SCOPES.enquiriesWrite), express.json({ limit: '256kb', type: () => true }), (req, res) => {
    const enquiry = parseEnquiry(req.body, state);
    enquiry.id = state.nextEnquiryId();
    state.storeEnquiry(enquiry);
    res.status(201).json(renderEnquiry(enquiry, state, requestOrigin(req)));
  });

  router.get('/enquiries', scope(SCOPES.enquiriesRead), (req, res) => {
    const { query } = req;
    const since = dateParam(query, 'enquiryDateSince');
    const before = dateParam(query, 'enquiryDateBefore');
    const processed = boolParam(query, 'processed');
    const saleLifeId = intParam(query, 'saleLifeId');
    const leaseLifeId = intParam(query, 'leaseLifeId');
    const userId = intParam(query, 'userId');
    const source = stringParam(query, 'source');
    if (source !== undefined && !HOLDING_AREA_TYPES.some((type) => type.apiCode === source)) {
      throw new QueryError('source', 'source must be a holding area API code from GET /types/holdingArea');
    }
    enumParam(query, 'sort', ['enquiryDate'] as const);
    const order = enumParam(query, 'sortOrder', ['asc', 'desc'] as const) ?? 'asc';
    const found = state.enquiries
      .filter((enquiry) => since === undefined || enquiry.enquiryDate >= since)
      .filter((enquiry) => before === undefined || enquiry.enquiryDate < before)
      .filter((enquiry) => processed === undefined || enquiry.processed === processed)
      .filter((enquiry) => saleLifeId === undefined || enquiry.saleLifeId === saleLifeId)
      .filter((enquiry) => leaseLifeId === undefined || enquiry.leaseLifeId === leaseLifeId)
      .filter((enquiry) => userId === undefined || enquiry.userId === userId)
      .filter((enquiry) => source === undefined || enquiry.source === source)
      .sort((a, b) => (a.enquiryDate - b.enquiryDate || a.id - b.id) * (order === 'desc' ? -1 : 1));
    const origin = requestOrigin(req);
    res.json(paginate(req, found, pagingParams(query), (enquiry) => renderEnquiry(enquiry, state, origin)));
  });

  // -- Contacts, categories, requirements (routes/contacts.ts) ------------------------------------
  router.use(contactRoutes(state, scope));

  router.get('/enquiries/:id', scope(SCOPES.enquiriesRead), (req, res) => {
    const id = /^\d+$/.test(String(req.params.id)) ? Number(req.params.id) : Number.NaN;
    const enquiry = state.enquiries.find((candidate) => candidate.id === id);
    if (!enquiry) {
      sendError(res, 404, `No enquiry with id ${String(req.params.id)}`, 'NOT_FOUND');
      return;
    }
    res.json(renderEnquiry(enquiry, state, requestOrigin(req)));
  });

  router.use((req, res) => {
    sendError(res, 404, `No endpoint ${req.method} ${req.baseUrl}${req.path}`, 'NOT_FOUND');
  });

  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof QueryError) return sendError(res, 400, `Invalid parameter ${error.param}: ${error.message}`, 'INVALID_PARAMETER');
    // As real validation messages do, these name the field and may echo the value sent (a relay must not log them).
    if (error instanceof EnquiryInputError || error instanceof ContactInputError)
      return sendError(res, 400, `Invalid data: ${inputProblem(error)}`, 'INVALID_DATA');
    if (error instanceof ContactLookupError) return sendError(res, 404, error.message, 'NOT_FOUND');
    if (error instanceof SimulatorError) return sendError(res, error.status, error.message, 'INVALID_DATA');
    const type = (error as { type?: string }).type;
    if (type === 'entity.parse.failed') return sendError(res, 400, 'Invalid data: the body is not valid JSON', 'INVALID_DATA');
    if (type === 'entity.too.large') return sendError(res, 413, 'The request body is too large', 'PAYLOAD_TOO_LARGE');
    console.error('[crm-sim] unexpected error', error);
    sendError(res, 500, 'Internal server error', 'INTERNAL_ERROR');
  });
  return router;
}
