import { renderContact, renderRequirement } from '../contacts.ts';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { DriveInputError, DriveRefusedError, parseDriveSettings } from '../drive.ts';
import { FaultRuleError, parseFaultRule } from '../faults.ts';
import type { Market, SimListing } from '../model.ts';
import { requestOrigin } from '../query.ts';
import { CATEGORY_SHAPE, type Category } from '../seed.ts';
import { SimulatorError, type IntegratorKey, type ListingChange, type SimulatorState } from '../state.ts';
import { formatDateTime } from '../time.ts';
import { renderEnquiry, renderListing, renderPhoto, renderUser } from '../views.ts';
import { renderEvent } from '../events.ts';
import { renderBackOffice } from '../back-office.ts';
import type { MailCatcher } from '../mail-catcher.ts';

/**
 * The control surface for tests and demos, outside the API path and without API auth. Every route
 * calls the same SimulatorState method an in-process test would call. Routes about an account's
 * data take `?account=<id>` (default: the first account); counters, usage, limits and webhook
 * settings are the key's.
 *
 *   GET    /__sim/                            the back office: mail received, and per account its contacts and holding area (HTML)
 *   GET    /__sim/mail                        the mail the catcher received, oldest first: {url, items: [{id, receivedAt, from, to, subject, text, html?, links}]}
 *   GET    /__sim/accounts                    every account on the key: {id, name, accessToken, listings, users}
 *   POST   /__sim/accounts                    add one: {listings?, photosPerListing?, accessToken?}
 *   DELETE /__sim/accounts/:id                remove one (its tokens answer 401)
 *   GET    /__sim/counters                    requests by endpoint, peak requests/second per key...
 *   POST   /__sim/counters/reset
 *   POST   /__sim/reset                       back to the seeded account (data, faults, quota)
 *   GET    /__sim/listings                    a summary of every listing
 *   POST   /__sim/listings                    add one: {category?, status?, published?, fields?}
 *   PATCH  /__sim/listings/:id                change one: {status?, published?, fields?}; ?market=sale|lease picks
 *                                             one life of a property both for sale and for lease
 *   POST   /__sim/listings/:id/withdraw      (?market= as above)
 *   POST   /__sim/photos/:id/replace          new bytes, photo (and listing) modified bumped
 *   PATCH  /__sim/photos/:id                  {published?, caption?}
 *   GET|PUT|POST|DELETE /__sim/faults         list, replace ({rules}), add (a rule), clear
 *   GET    /__sim/enquiries                   enquiries received through the API
 *   GET    /__sim/contacts                    contacts created through the API, with their categories and requirements
 *   POST   /__sim/tokens                      {scopes} → a new access token
 *   PUT    /__sim/scopes                      {scopes} → what the main token may do (a scope left out: its endpoints answer 403)
 *   POST   /__sim/usage                       {requests} → another tool spends that many of the key's daily requests
 *   PUT    /__sim/limits                      {requestsPerSecond?, dailyLimit?}
 *   PATCH  /__sim/users/:id                   change a staff member: {fields?, showOnWeb?}
 *   DELETE /__sim/users/:id                   a staff member leaves the agency (gone from the users and from contactStaff)
 *   GET|PUT /__sim/webhooks                   {url, dropRate, itemBodies} and counts (sent, dropped, failed)
 *   GET    /__sim/events                      the event log as /eventStream serves it
 *   POST   /__sim/drive                       change listings across accounts at a rate: {perSecond, changes, accounts?,
 *                                             propertyClass?, webhookDropRate?, seed?} (drive.ts); one drive at a time
 *   GET    /__sim/drive?since=<seq>           its progress and the changes made (1,000 a page): account, property, heading, at
 *   DELETE /__sim/drive                       stop it
 *
 * Every listing or staff change (here or through state) is an event: on /eventStream, and POSTed as a
 * signed webhook to the webhook URL (SIM_WEBHOOK_URL) unless dropped (SIM_WEBHOOK_DROP_RATE).
 */

class ControlInputError extends Error {}

function parseListingChange(body: unknown): ListingChange & { category?: Category } {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw new ControlInputError('the body must be a JSON object');
  const raw = body as Record<string, unknown>;
  const change: ListingChange & { category?: Category } = {};
  if (raw.category !== undefined) {
    if (typeof raw.category !== 'string' || !Object.hasOwn(CATEGORY_SHAPE, raw.category)) {
      throw new ControlInputError(`category must be one of ${Object.keys(CATEGORY_SHAPE).join(', ')}`);
    }
    change.category = raw.category as Category;
  }
  if (raw.status !== undefined) {
    if (typeof raw.status !== 'string') throw new ControlInputError('status must be a string');
    change.status = raw.status;
  }
  if (raw.published !== undefined) {
    if (typeof raw.published !== 'boolean') throw new ControlInputError('published must be true or false');
    change.published = raw.published;
  }
  if (raw.fields !== undefined) {
    if (typeof raw.fields !== 'object' || raw.fields === null || Array.isArray(raw.fields)) throw new ControlInputError('fields must be an object');
    change.fields = raw.fields as Record<string, unknown>;
  }
  return change;
}

function idParam(req: Request): number {
  const value = String(req.params.id);
  if (!/^\d+$/.test(value)) throw new SimulatorError(404, `no record ${value}`);
  return Number(value);
}

function summary(listing: SimListing) {
  return {
    id: listing.id,
    class: listing.propertyClass,
    market: listing.market,
    lifeId: listing.lifeId,
    status: listing.status,
    published: listing.publishedToWeb !== null,
    modified: formatDateTime(listing.modified),
    displayAddress: listing.fields.displayAddress,
    photos: listing.photos.map((photo) => ({ id: photo.id, type: photo.type, published: photo.published, modified: formatDateTime(photo.modified) })),
  };
}

/** API keys appear masked: the control surface is unauthenticated. */
function maskKey(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

/** `?market=sale|lease`: which life of a property both for sale and for lease; absent, the first (the sale). */
function marketParam(req: Request): Market | undefined {
  const market = req.query.market;
  if (market === undefined) return undefined;
  if (market !== 'sale' && market !== 'lease') throw new ControlInputError('market must be sale or lease');
  return market;
}

/** `?account=<id>`: which account on the key a route addresses; absent, the first. */
function accountParam(key: IntegratorKey, req: Request): SimulatorState | undefined {
  const raw = req.query.account;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,12}$/.test(raw)) throw new ControlInputError('account must be an account id (a whole number)');
  const account = key.accountById(Number(raw));
  if (!account) throw new SimulatorError(404, `no account ${raw} on this key`);
  return account;
}

function accountSummary(account: SimulatorState) {
  return {
    id: account.accountId,
    name: account.agency.name,
    accessToken: account.options.accessToken,
    listings: account.listings.length,
    users: account.users.length,
  };
}

function optionalCount(body: Record<string, unknown>, name: string, min: number): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > 100_000)
    throw new ControlInputError(`${name} must be a whole number from ${min} to 100000`);
  return value as number;
}

/**
 * The key's routes (counters, limits, usage, webhooks, accounts) here; the rest address one account
 * (`?account=<id>`, default the first) and go to that account's router.
 */
export function controlRouter(key: IntegratorKey, options: { mail?: Pick<MailCatcher, 'messages' | 'url'> } = {}): Router {
  const router = express.Router();
  router.use(express.json({ limit: '256kb' }));

  // The mail catcher is the simulator's, not an account's: every relay pointed at it sends here.
  router.get('/mail', (_req, res) => {
    res.set('Cache-Control', 'no-store');
    res.json({ url: options.mail?.url ?? null, items: options.mail?.messages() ?? [] });
  });
  router.get('/', (req, res) => {
    res.set('Cache-Control', 'no-store').type('html');
    res.send(renderBackOffice(key, { mail: options.mail?.messages() ?? [], mailUrl: options.mail?.url, embedded: req.query.embed === '1' }));
  });
  const accountRouters = new WeakMap<SimulatorState, Router>();
  const first = (): SimulatorState => key.accounts[0]!;

  router.get('/counters', (_req, res) => {
    const counters = key.getCounters();
    res.json({ ...counters, perKey: Object.fromEntries(Object.entries(counters.perKey).map(([apiKey, value]) => [maskKey(apiKey), value])) });
  });
  router.post('/counters/reset', (_req, res) => {
    key.resetCounters();
    res.json({ ok: true });
  });
  router.post('/reset', (req, res) => {
    const account = accountParam(key, req);
    if (account) {
      account.resetData();
      return void res.json({ ok: true, listings: account.listings.length });
    }
    for (const each of key.accounts) each.resetData();
    key.resetShared();
    res.json({ ok: true, listings: first().listings.length });
  });

  router.get('/accounts', (_req, res) => {
    res.json({ items: key.accounts.map(accountSummary) });
  });
  router.post('/accounts', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw new ControlInputError('the body must be a JSON object');
    if (body.accessToken !== undefined && (typeof body.accessToken !== 'string' || !/^[\x21-\x7e]{16,200}$/.test(body.accessToken))) {
      throw new ControlInputError('accessToken must be 16 to 200 printable characters without spaces');
    }
    const listings = optionalCount(body, 'listings', 0);
    const photosPerListing = optionalCount(body, 'photosPerListing', 0);
    const account = key.addAccount({
      ...(listings === undefined ? {} : { listings }),
      ...(photosPerListing === undefined ? {} : { photosPerListing }),
      ...(typeof body.accessToken === 'string' ? { accessToken: body.accessToken } : {}),
    });
    res.status(201).json(accountSummary(account));
  });
  router.delete('/accounts/:id', (req, res) => {
    const removed = key.removeAccount(idParam(req));
    res.json({ ok: true, removed: removed.accountId });
  });

  router.post('/usage', (req, res) => {
    const requests = (req.body as { requests?: unknown } | undefined)?.requests;
    if (!Number.isInteger(requests) || (requests as number) < 1) throw new ControlInputError('requests must be a positive whole number');
    first().spendElsewhere(requests as number);
    res.json(key.limiter.dailyUsage(first().options.apiKey, key.now()));
  });

  router.put('/limits', (req, res) => {
    const body = (req.body ?? {}) as { requestsPerSecond?: unknown; dailyLimit?: unknown };
    for (const name of ['requestsPerSecond', 'dailyLimit'] as const) {
      const value = body[name];
      if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1)) throw new ControlInputError(`${name} must be a positive whole number`);
    }
    res.json(first().setLimits(body as { requestsPerSecond?: number; dailyLimit?: number }));
  });

  // The change driver: many accounts' listings changed at a chosen rate (drive.ts).
  router.post('/drive', (req, res) => {
    res.status(202).json(key.driver.start(parseDriveSettings(req.body)));
  });
  router.get('/drive', (req, res) => {
    const since = req.query.since;
    if (since !== undefined && (typeof since !== 'string' || !/^\d{1,9}$/.test(since)))
      throw new ControlInputError('since must be a change seq (a whole number)');
    res.json({ ...key.driver.status(), changes: key.driver.changes(Number(since ?? 0), 1000) });
  });
  router.delete('/drive', (_req, res) => {
    res.json(key.driver.stop());
  });

  // One registered URL for the key; counts for the key, or for one account with ?account=.
  router.get('/webhooks', (req, res) => {
    const account = accountParam(key, req);
    res.json({ ...key.webhooks.settings, ...(account ? key.webhooks.countsOf(account.accountId) : key.webhooks.counts) });
  });
  router.put('/webhooks', (req, res) => {
    const body = (req.body ?? {}) as { url?: unknown; dropRate?: unknown; itemBodies?: unknown };
    if (body.url !== undefined && body.url !== null && typeof body.url !== 'string') throw new ControlInputError('url must be a string or null');
    if (body.dropRate !== undefined && typeof body.dropRate !== 'number') throw new ControlInputError('dropRate must be a number from 0 to 1');
    if (body.itemBodies !== undefined && typeof body.itemBodies !== 'boolean') throw new ControlInputError('itemBodies must be true or false');
    try {
      res.json(key.webhooks.configure(body as Parameters<typeof key.webhooks.configure>[0]));
    } catch (error) {
      throw new ControlInputError((error as Error).message);
    }
  });

  router.use((req, res, next) => {
    const account = accountParam(key, req) ?? first();
    let accountRouter = accountRouters.get(account);
    if (!accountRouter) accountRouters.set(account, (accountRouter = accountControlRouter(account)));
    accountRouter(req, res, next);
  });
  return withErrors(router);
}

/** One account's control routes: its listings, photos, staff, enquiries, faults, tokens, scopes and events. */
function accountControlRouter(state: SimulatorState): Router {
  const router = express.Router();

  router.get('/listings', (_req, res) => {
    res.json({ items: state.listings.map(summary) });
  });
  router.post('/listings', (req, res) => {
    const listing = state.addListing(parseListingChange(req.body));
    res.status(201).json(renderListing(listing, state, requestOrigin(req), 'single'));
  });
  router.patch('/listings/:id', (req, res) => {
    const { category: _ignored, ...change } = parseListingChange(req.body);
    const listing = state.changeListing(idParam(req), change, marketParam(req));
    res.json(renderListing(listing, state, requestOrigin(req), 'single'));
  });
  router.post('/listings/:id/withdraw', (req, res) => {
    const listing = state.withdrawListing(idParam(req), marketParam(req));
    res.json(renderListing(listing, state, requestOrigin(req), 'single'));
  });

  router.post('/photos/:id/replace', async (req, res) => {
    const bumpListing = (req.body as { bumpListing?: unknown } | undefined)?.bumpListing !== false;
    const photo = await state.replacePhoto(idParam(req), { bumpListing });
    res.json(await renderPhoto(photo, requestOrigin(req)));
  });
  router.patch('/photos/:id', async (req, res) => {
    const body = (req.body ?? {}) as { published?: unknown; caption?: unknown };
    if (body.published !== undefined && typeof body.published !== 'boolean') throw new ControlInputError('published must be true or false');
    if (body.caption !== undefined && body.caption !== null && typeof body.caption !== 'string')
      throw new ControlInputError('caption must be a string or null');
    const photo = state.changePhoto(idParam(req), body as { published?: boolean; caption?: string | null });
    res.json(await renderPhoto(photo, requestOrigin(req)));
  });

  router.get('/faults', (_req, res) => {
    res.json({ rules: state.faults.list() });
  });
  router.put('/faults', (req, res) => {
    const rules = (req.body as { rules?: unknown } | undefined)?.rules;
    if (!Array.isArray(rules)) throw new ControlInputError('the body must be {"rules": [...]}');
    state.setFaults(rules.map(parseFaultRule));
    res.json({ rules: state.faults.list() });
  });
  router.post('/faults', (req, res) => {
    state.addFault(parseFaultRule(req.body));
    res.status(201).json({ rules: state.faults.list() });
  });
  router.delete('/faults', (_req, res) => {
    state.clearFaults();
    res.json({ rules: [] });
  });

  router.get('/contacts', (_req, res) => {
    res.json({
      items: state.contacts.posted().map((contact) => ({
        ...renderContact(contact),
        categories: [...contact.categories],
        requirements: contact.requirements.map(renderRequirement),
      })),
    });
  });

  router.get('/enquiries', (req, res) => {
    const origin = requestOrigin(req);
    res.json({
      items: state.postedEnquiries().map((enquiry) => ({
        ...renderEnquiry(enquiry, state, origin),
        // What was posted, beyond what the Enquiry shape echoes back.
        received: {
          propertyReference: enquiry.propertyReference,
          fullName: enquiry.fullName,
          firstName: enquiry.firstName,
          lastName: enquiry.lastName,
          email: enquiry.email,
          mobile: enquiry.mobile,
          telephone: enquiry.telephone,
          userId: enquiry.userId,
          metaData: enquiry.metaData,
        },
      })),
    });
  });

  router.post('/tokens', (req, res) => {
    const scopes = (req.body as { scopes?: unknown } | undefined)?.scopes;
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) throw new ControlInputError('scopes must be a list of strings');
    res.status(201).json(state.addToken(scopes as string[]));
  });

  router.put('/scopes', (req, res) => {
    const scopes = (req.body as { scopes?: unknown } | undefined)?.scopes;
    if (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string')) throw new ControlInputError('scopes must be a list of strings');
    res.json(state.setScopes(scopes as string[]));
  });

  router.patch('/users/:id', (req, res) => {
    const body = (req.body ?? {}) as { fields?: unknown; showOnWeb?: unknown };
    if (body.fields !== undefined && (typeof body.fields !== 'object' || body.fields === null || Array.isArray(body.fields)))
      throw new ControlInputError('fields must be an object');
    if (body.showOnWeb !== undefined && typeof body.showOnWeb !== 'boolean') throw new ControlInputError('showOnWeb must be true or false');
    const user = state.changeUser(idParam(req), body as { fields?: Record<string, unknown>; showOnWeb?: boolean });
    res.json(renderUser(user, requestOrigin(req)));
  });

  router.delete('/users/:id', (req, res) => {
    state.removeUser(idParam(req));
    res.status(204).end();
  });

  router.get('/events', (_req, res) => {
    res.json({ items: state.events.read({ since: 0 }, Number.MAX_SAFE_INTEGER).events.map(renderEvent) });
  });

  return withErrors(router);
}

/** The control surface's 404 and error answers (a clear message naming what to fix). */
function withErrors(router: Router): Router {
  router.use((req, res) => {
    res.status(404).json({ error: `No control route ${req.method} ${req.baseUrl}${req.path}` });
  });
  router.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof ControlInputError || error instanceof FaultRuleError || error instanceof DriveInputError)
      return void res.status(400).json({ error: error.message });
    if (error instanceof SimulatorError || error instanceof DriveRefusedError) return void res.status(error.status).json({ error: error.message });
    if ((error as { type?: string }).type === 'entity.parse.failed') return void res.status(400).json({ error: 'the body is not valid JSON' });
    console.error('[crm-sim] control error', error);
    res.status(500).json({ error: 'internal error' });
  });
  return router;
}
