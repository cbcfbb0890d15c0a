import { Router, type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SharedDatabase } from '../store/shared-database.ts';
import { renderSharedSyncMetrics, type SyncBalance } from '../cluster/shared-sync.ts';
import { sharedGeocoderGate } from '../cluster/geocoder-gate.ts';
import { fillFromAgencies } from '../photos/fill.ts';
import { agencyFeatures, agencyWorkers, composeAgency, type Agency } from './agency.ts';
import { readinessOf } from './agency-state.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import type { KeyUsage } from '../crm/access.ts';
import { crmWebhookFeed } from '../crm/listing-source.ts';
import { EnquiryOutbox } from '../enquiries/outbox.ts';
import { enquiryLimitStores, type EnquiryLimitStores } from '../enquiries/router.ts';
import { savedSearchLimitStores, type SavedSearchLimitStores } from '../saved-searches/router.ts';
import type { EnquiryTargets } from '../enquiries/targets.ts';
import { HttpError, notFoundHandler } from '../http/errors.ts';
import { AgenciesBudgetRefusedError, describeAgenciesPlan, planAgencies, type AgenciesPlan } from '../listings/budget.ts';
import { renderPushMetrics, type ChangeWorkerCounts } from '../listings/events.ts';
import { FillTurns, webhookRouter, type WebhookCounts } from '../listings/index.ts';
import type { Feature } from '../runtime/feature.ts';
import type { Logger } from '../runtime/log.ts';
import { metricsAccess, PROMETHEUS_CONTENT_TYPE } from '../http/metrics-access.ts';
import { PhotoFolderGuard } from '../photos/folder-guard.ts';
import { holdsPhoto } from '../photos/mirror.ts';
import { photosRouter } from '../photos/routes.ts';
import type { MapTiles } from '../tiles/index.ts';
import type { ResponseCache, ReplayOptions } from '../http/response-cache.ts';
import { answerCacheFor, type AnswerCache } from '../http/answer-cache.ts';
import { STORE_FILE_MODE, type Store } from '../store/store.ts';
import { widgetRouter } from '../http/widget-assets.ts';
import { trustedHostName, varyOnHost } from '../http/request-host.ts';
import { createGeocoding, type Geocoding } from '../places/index.ts';
import { elementRenderer, pageSite, pagesFeature } from '../pages/index.ts';
import type { ElementRenderer } from '../pages/render.ts';
import { agencyHostRobots, relayHostRobots } from '../pages/robots.ts';
import type { ReportsWiring } from '../reports/feature.ts';
import { agencyConfig, readAgenciesFile, type AgencyEntry } from './agencies-file.ts';
import { renderFleetMetrics } from './fleet-metrics.ts';

/** Written by the relay into DATA_DIR for `npm run relay -- agencies` (no token in it). */
export const AGENCIES_STATUS_FILE = 'agencies-status.json';
/** How often the relay refreshes that file (calls today move; a small file, even for hundreds of agencies). */
const STATUS_WRITE_MS = 5_000;
/** How often a removed agency's outbox and saved-search queue are checked for leads still to deliver. */
const DRAIN_CHECK_MS = 1_000;
/**
 * How long a replaced or removed agency's store stays open for the requests it was already
 * answering (a listing page, an enquiry being stored); requests that arrive meanwhile go to the
 * new composition. One still running after this meets a closed store and answers 503.
 */
export const REQUESTS_IN_FLIGHT_WAIT_MS = 10_000;

/** What `npm run relay -- agencies` reads of the running relay beside each agency's store. */
export interface AgenciesStatusFile {
  writtenAt: string;
  pid: number;
  plan: { perDay: number; allowed: number; floorPerDay: number; catchUpIntervalMinutes: number | null } | null;
  agencies: Array<{
    slug: string;
    name: string;
    state: 'serving' | 'draining';
    /** A change reaches the listing API within these (from the plan). */
    freshness: { withWebhooksSeconds: number; withoutWebhooksSeconds: number } | null;
    crmCallsToday: number;
    /** Enquiries waiting in the agency's outbox, counted where it lives (PostgreSQL with DATABASE_URL); null when the count failed. */
    outboxQueued: number | null;
    /** Its saved-search queue, counted the same way: waiting for the CRM, dead-lettered, when the oldest waiting was accepted (ms); null when the count failed. */
    savedSearches: { queued: number; dead: number; oldestQueuedAt: number | null } | null;
    accountId: string | null;
  }>;
}

/** An agency the relay runs: its composition, its routes under /a/<slug>/, and whether it is served. */
export interface RunningAgency {
  entry: AgencyEntry;
  agency: Agency;
  handler: RequestHandler;
  /** Its listing pages (server/pages), in `handler` under /a/<slug>/ and alone at the root paths of its hosts. */
  pages: RequestHandler;
  /** False once removed or replaced: its routes answer 404 and its recorded answers are not replayed. */
  serving: boolean;
  started: boolean;
  /** Requests handed to this composition and not answered yet (its store stays open for them). */
  inFlight: number;
  /** Called when inFlight reaches 0 (set while a retired composition waits for its requests). */
  onIdle?: () => void;
  /** Set when a replaced or removed composition's store is being closed: what still reaches it answers 503. */
  storeClosed?: boolean;
}

export interface AgencySetOptions {
  /** The relay's settings; agenciesFile names the file. */
  config: Config;
  /** The seller's reports' visit counts and clock (compose/agency.ts AgencyFeatureOptions). */
  reports?: ReportsWiring;
  log: Logger;
  /** The key-wide store in DATA_DIR: the key's one limiter and daily budget. */
  keyStore: Store;
  widgetDir: string;
  /** Origins of pages the relay serves itself. */
  ownOrigins: string[];
  defaultPhotoSources?: Array<string | undefined>;
  enquiryTargets?: EnquiryTargets;
  /** The relay's geocoding, shared by every agency (made on keyStore when not given). */
  geocoding?: Geocoding;
  /** "estate-embed/<version>", for the geocoder. */
  userAgent?: string;
  /** Start each agency's workers (default true; tests may drive them by hand). */
  workers?: boolean;
  /** The agencies (default: read AGENCIES_FILE). */
  readEntries?: () => AgencyEntry[];
  /** Stores of agencies served beside this set (the demo's root agency): their images are kept too. */
  alsoHolding?: () => Store[];
  /** DATABASE_URL: each agency's shared tables in its own schema of this database. */
  sharedDatabase?: SharedDatabase;
  /** The photo folder's guard, shared with an agency served beside the set (default: the set's own). */
  photoGuard?: PhotoFolderGuard;
  /** The relay's one answer cache (http/answer-cache.ts), bounded in bytes for every agency together (default: the set's own). */
  answers?: AnswerCache;
  /** The relay's map tiles (and labels layer), one disk cache and per-client rate a layer for every agency (undefined: MAP_TILE_URL unset). */
  tiles?: MapTiles;
  /** Where browsers reach the relay, for the agencies' listing pages (default PUBLIC_URL; the demo: the address it listens on). */
  relayUrl?: string;
  /** URLs per sitemap file before an agency's sitemap becomes an index (default 50,000; tests use fewer). */
  maxUrlsPerSitemap?: number;
  /** Agencies never filled fill one after another, the smallest first (default true; false: in turns). */
  firstFillOrder?: boolean;
}

export interface ReloadReport {
  ok: boolean;
  added: string[];
  changed: string[];
  removed: string[];
  /** Why the file was refused (the running set kept serving). */
  problems?: string[];
}

/**
 * Every agency of AGENCIES_FILE on one relay and one API key: each is served under /a/<slug>/
 * with its own store, token, origins and limits; the key's limiter and budget, the webhook
 * endpoint and the photo folder are shared. Re-reads the file on reload(): added agencies start,
 * changed ones are replaced, removed ones stop being served at once and are closed once their
 * queued enquiries are delivered.
 */
export class AgencySet {
  private readonly serving = new Map<string, RunningAgency>();
  private readonly draining = new Set<RunningAgency>();
  /** Replaced compositions whose store closes once their requests in flight are answered. */
  private readonly retiring = new Map<RunningAgency, Promise<void>>();
  /**
   * Each agency's per-client enquiry counts, by slug: a reload builds the agency's routes again,
   * and a client at its limit must stay there (it is the same agency to the client).
   */
  private readonly enquiryLimits = new Map<string, EnquiryLimitStores>();
  /** The same for saved searches. */
  private readonly savedSearchLimits = new Map<string, SavedSearchLimitStores>();
  private readonly log: Logger;
  private readonly photoDir: string;
  /** One for the folder: no agency's clean-up deletes an image another is recording (photos/folder-guard.ts). */
  private readonly photoGuard: PhotoFolderGuard;
  private readonly sharedWidget: RequestHandler;
  /** Every agency's rendered answers, in one byte bound: an agency added on reload shares it too. */
  private readonly answers: AnswerCache;
  /** Verified webhooks naming an account no agency here has, and refusals. */
  readonly webhookCounts: WebhookCounts = { accepted: 0, duplicates: 0, ignored: 0, unavailable: 0, otherAccount: 0, refused: 0 };
  plan: AgenciesPlan | undefined;
  private reloading: Promise<ReloadReport> = Promise.resolve({ ok: true, added: [], changed: [], removed: [] });
  private statusTimer: NodeJS.Timeout | undefined;
  private statusWriting: Promise<void> | undefined;
  private othersToday: number | undefined;
  private closed = false;
  /** One for the relay: every agency's listings are placed through it, at the geocoder's one pace. */
  private readonly geocoding: Geocoding;
  /** One for every agency's pages: the elements' server build is loaded once (and its absence said once). */
  private readonly renderer: ElementRenderer;
  /** The served agencies by the host names in their `hosts` (rebuilt whenever the served set changes). */
  private byHostName = new Map<string, RunningAgency>();
  /** First fills write their listings a few agencies at a time, the smallest first (undefined: firstFillOrder false, all at once). */
  private readonly fillTurns: FillTurns | undefined;

  private constructor(private readonly options: AgencySetOptions) {
    this.log = options.log.child({ component: 'agencies' });
    this.geocoding =
      options.geocoding ??
      createGeocoding({
        settings: options.config.places,
        store: options.keyStore,
        log: this.log,
        userAgent: options.userAgent ?? 'estate-embed',
        // DATABASE_URL: the turns shared with every relay on the database (cluster/geocoder-gate.ts).
        gate: options.sharedDatabase && sharedGeocoderGate(options.config, options.sharedDatabase),
      });
    this.photoDir = join(options.keyStore.dataDir, 'photos');
    this.photoGuard = options.photoGuard ?? new PhotoFolderGuard();
    this.sharedWidget = widgetRouter(options.widgetDir);
    this.answers = options.answers ?? answerCacheFor(options.config.http);
    this.renderer = elementRenderer(options.widgetDir, this.log);
    this.fillTurns = options.firstFillOrder === false ? undefined : new FillTurns();
  }

  /** Composes every agency of the file and plans them together; refuses (ConfigError) a file or a plan that does not fit, having closed what it opened. */
  static async open(options: AgencySetOptions): Promise<AgencySet> {
    const set = new AgencySet(options);
    const entries = set.readEntries();
    const composed: RunningAgency[] = [];
    try {
      await options.sharedDatabase?.prepareAgencies(entries.map((entry) => entry.slug));
      for (const entry of entries) composed.push(set.compose(entry));
      // Said once for every agency (each agency's service leaves it out).
      if (composed[0]) set.log.info({ photoHosts: composed[0].agency.listings.allowList.hosts }, 'photo mirror fetches only from these hosts (PHOTO_HOSTS)');
      const plan = set.planFor(composed);
      if (!plan.fits) throw new AgenciesBudgetRefusedError(plan);
      for (const running of composed) set.serving.set(running.entry.slug, running);
      set.indexHosts();
      set.applyPlan(plan);
    } catch (error) {
      await Promise.all(composed.map((running) => running.agency.close()));
      throw error;
    }
    return set;
  }

  private readEntries(): AgencyEntry[] {
    if (this.options.readEntries) return this.options.readEntries();
    if (!this.options.config.agenciesFile) throw new ConfigError(['AGENCIES_FILE: is not set']);
    return readAgenciesFile(this.options.config.agenciesFile, { publicUrl: this.options.config.http.publicUrl });
  }

  /** The served agency whose `hosts` name `host` (a request's host name as http/request-host.ts trusts it: Host, or the last X-Forwarded-Host from a TRUST_PROXY proxy). */
  byHost(host: string | undefined): RunningAgency | undefined {
    if (!host) return undefined;
    return this.byHostName.get(host.toLowerCase().replace(/\.$/, ''));
  }

  private indexHosts(): void {
    const index = new Map<string, RunningAgency>();
    for (const running of this.serving.values()) for (const host of running.entry.hosts) index.set(host, running);
    this.byHostName = index;
  }

  /** Starts every agency's workers and the status file. */
  start(): void {
    for (const running of this.serving.values()) this.startAgency(running);
    void this.writeStatus();
    this.statusTimer = setInterval(() => void this.writeStatus(), STATUS_WRITE_MS);
    this.statusTimer.unref();
  }

  /** The agencies served now, in file order. */
  list(): RunningAgency[] {
    return [...this.serving.values()];
  }

  get(slug: string): RunningAgency | undefined {
    return this.serving.get(slug);
  }

  /** Agencies removed from the file whose outbox is still being delivered. */
  drainingAgencies(): RunningAgency[] {
    return [...this.draining];
  }

  /**
   * Relays on one database share the agencies' syncs: each takes a free lease while it holds fewer
   * than its share (the agencies over the relays alive, rounded up), and one holding more (a relay
   * joined) hands agencies over, one per renewal, until it holds its share.
   */
  private readonly syncBalance: SyncBalance = {
    mayTakeMore: () => this.syncsHeld() < this.syncShare(),
    holdsTooMany: () => this.syncsHeld() > this.syncShare(),
  };

  private syncsHeld(): number {
    return this.list().filter((running) => running.agency.sharedSync?.leads).length;
  }

  private syncShare(): number {
    const relays = Math.max(1, this.options.sharedDatabase?.relaysAlive() ?? 1);
    return Math.ceil(this.list().length / relays);
  }

  /** The served agency whose learned CRM account id is `account`. */
  byAccount(account: string): RunningAgency | undefined {
    for (const running of this.serving.values()) if (running.agency.listings.account.id === account) return running;
    return undefined;
  }

  private compose(entry: AgencyEntry): RunningAgency {
    const { config } = this.options;
    // The interval is set by the plan of all agencies (applyPlan) before any worker starts.
    const agency = composeAgency(agencyConfig(config, entry, null), {
      log: this.options.log,
      slug: entry.slug,
      limiterStore: this.options.keyStore,
      sharedDatabase: this.options.sharedDatabase,
      defaultPhotoSources: this.options.defaultPhotoSources,
      enquiryTargets: this.options.enquiryTargets,
      shared: { photoDir: this.photoDir },
      photoInUseElsewhere: (hash) => this.photoInUseElsewhere(agency, hash),
      photoGuard: this.photoGuard,
      afterSweep: () => this.afterSweep(entry.slug),
      relayUrl: () => this.options.relayUrl ?? this.options.config.http.publicUrl,
      onUsage: (usage) => this.onUsage(usage),
      syncBalance: this.syncBalance,
      answers: this.answers,
      geocoding: this.geocoding,
      firstFillOrder: this.options.firstFillOrder,
      fillTurns: this.fillTurns,
    });
    // Back after a removal, its rows may name images another agency's clean-up deleted meanwhile: fetched again, never served broken.
    agency.listings.forgetMissingPhotos();
    const running: RunningAgency = { entry, agency, handler: () => undefined, pages: () => undefined, serving: true, started: false, inFlight: 0 };
    running.handler = this.agencyRouter(running);
    return running;
  }

  /** Whether an agency other than `self` (served, draining, or served beside the set) still refers to the image. */
  photoInUseElsewhere(self: Agency | undefined, hash: string): boolean {
    for (const running of [...this.serving.values(), ...this.draining]) {
      if (running.agency !== self && holdsPhoto(running.agency.store, hash)) return true;
    }
    return (this.options.alsoHolding?.() ?? []).some((store) => holdsPhoto(store, hash));
  }

  /** The routes of one agency, as mounted under /a/<slug>/. */
  private agencyRouter(running: RunningAgency): RequestHandler {
    const { agency } = running;
    let limitStores = this.enquiryLimits.get(running.entry.slug);
    if (!limitStores) this.enquiryLimits.set(running.entry.slug, (limitStores = enquiryLimitStores()));
    let savedSearchLimits = this.savedSearchLimits.get(running.entry.slug);
    if (!savedSearchLimits) this.savedSearchLimits.set(running.entry.slug, (savedSearchLimits = savedSearchLimitStores()));
    const pages = this.pagesOf(running);
    running.pages = this.pagesHandler(running, pages.router!);
    const features = [
      ...agencyFeatures(agency, {
        ownOrigins: this.options.ownOrigins,
        log: this.options.log,
        enquiryLimitStores: limitStores,
        savedSearchLimitStores: savedSearchLimits,
        tiles: this.options.tiles,
        reports: this.options.reports,
      }),
      pages,
    ];
    const router = Router({ caseSensitive: true, strict: true });
    // An answer recorded for replay is sent only while this very agency is served (not after a reload replaced or removed it).
    router.use((_req, res, next) => {
      const replay = res.locals.replay as ResponseCache | undefined;
      if (replay) {
        res.locals.replay = {
          remember: (
            req: Parameters<ResponseCache['remember']>[0],
            response: Parameters<ResponseCache['remember']>[1],
            body: Parameters<ResponseCache['remember']>[2],
            bytes: Buffer,
            replayOptions: ReplayOptions,
          ) => replay.remember(req, response, body, bytes, { ...replayOptions, isCurrent: () => running.serving && replayOptions.isCurrent() }),
        };
      }
      next();
    });
    // As a one-agency relay's /readyz (its features' checks: listing cache, CRM listings, with DATABASE_URL the replica), with the reason in one line.
    router.get('/readyz', async (_req, res) => {
      const checks: Record<string, boolean> = {};
      for (const [name, check] of features.flatMap((feature) => Object.entries(feature.readiness))) {
        try {
          checks[name] = Boolean(await check());
        } catch {
          checks[name] = false;
        }
      }
      const ready = Object.values(checks).every(Boolean);
      const detail = Object.assign({}, ...features.map((feature) => feature.readinessDetail?.() ?? {})) as Record<string, unknown>;
      // The reason once: a refusal is already in the detail (`refused`, `missing`); a first sync under way or failed is not.
      const { reason } = readinessOf(agency);
      const saidByAccess = agency.access.problems().some((problem) => problem.reason === reason);
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not-ready', checks, ...(reason && !saidByAccess ? { reason } : {}), ...detail });
    });
    for (const feature of features) if (feature.router) router.use(feature.router);
    router.use(this.sharedWidget);
    router.get('/metrics', metricsAccess(this.options.config.http.metricsToken), (_req, res) => {
      res.set('Content-Type', PROMETHEUS_CONTENT_TYPE).set('Cache-Control', 'no-store');
      res.send(features.map((feature) => feature.metrics?.() ?? '').join(''));
    });
    router.use(notFoundHandler);
    router.use(this.reloadedAnswer(running));
    return router;
  }

  /** A request that outlived its composition (replaced or removed, and its store closed after REQUESTS_IN_FLIGHT_WAIT_MS): 503 with Retry-After, which clients and the widget retry, never a 500. */
  private reloadedAnswer(running: RunningAgency): ErrorRequestHandler {
    return (error, _req, _res, next) => {
      if (!running.storeClosed) return next(error);
      next(new HttpError(503, 'unavailable', 'This agency was just reloaded; try again in a moment.', undefined, { 'Retry-After': '1' }));
    };
  }

  /** The agency's listing pages: its site, name, wrapper and time zone (agencyConfig), its store's published pages, its own page cache and render limit. */
  private pagesOf(running: RunningAgency): Feature {
    const { agency, entry } = running;
    return pagesFeature({
      config: agency.config,
      store: agency.store,
      log: this.options.log,
      listings: agency.listings.publicListings,
      onListingsChange: (listener) => agency.listings.cache.onChange(listener),
      filled: () => agency.listings.cache.readState().lastSuccessAt !== null,
      // A replaced composition leaves the record to the one serving now; relays on one database, to the sync holder.
      recordsPublished: () => running.serving && (!agency.sharedSync || agency.sharedSync.holdsSync),
      ownUrl: this.relayUrl(),
      widgetDir: this.options.widgetDir,
      demoDir: null,
      maxUrlsPerSitemap: this.options.maxUrlsPerSitemap,
      answers: this.answers,
      agency: { slug: entry.slug, hosts: entry.hosts },
      renderer: this.renderer,
    });
  }

  /** The pages alone, as served at the root paths of the agency's hosts: what they do not answer is a 404, never another route. */
  private pagesHandler(running: RunningAgency, pages: RequestHandler): RequestHandler {
    const router = Router({ caseSensitive: true, strict: true });
    router.use(pages);
    router.use(notFoundHandler);
    router.use(this.reloadedAnswer(running));
    return router;
  }

  private relayUrl(): string {
    const url = this.options.relayUrl ?? this.options.config.http.publicUrl;
    if (!url) throw new ConfigError(['PUBLIC_URL: is required with AGENCIES_FILE (the listing pages and script tags name it)']);
    return url;
  }

  /** Resolves once the composition answers no request (true), or after `timeoutMs` (false). */
  private whenIdle(running: RunningAgency, timeoutMs: number): Promise<boolean> {
    if (running.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        running.onIdle = undefined;
        resolve(false);
      }, timeoutMs);
      timer.unref();
      running.onIdle = () => {
        clearTimeout(timer);
        running.onIdle = undefined;
        resolve(true);
      };
    });
  }

  /** A composition replaced on reload: its workers have stopped; its store closes once its requests in flight are answered. */
  private retire(old: RunningAgency): void {
    const closing = (async () => {
      if (!(await this.whenIdle(old, REQUESTS_IN_FLIGHT_WAIT_MS)))
        this.log.warn(
          { agency: old.entry.slug, inFlight: old.inFlight },
          `replaced agency: requests still in flight after ${REQUESTS_IN_FLIGHT_WAIT_MS / 1000} s; closing its store (they answer 503)`,
        );
      old.storeClosed = true;
      await old.agency.close();
    })()
      .catch((error: unknown) =>
        this.log.error({ agency: old.entry.slug, error: (error as Error).message }, 'replaced agency: closing its store failed; it may still be open'),
      )
      .finally(() => this.retiring.delete(old));
    this.retiring.set(old, closing);
  }

  /**
   * The shared routes: POST /hooks/crm (verified once, routed by the notice's account id),
   * /photos/ (one content-addressed folder) and /a/<slug>/… (404 for a slug not served).
   */
  router(options: { shared?: boolean } = {}): RequestHandler {
    const router = Router({ caseSensitive: true, strict: true });
    // Beside a root agency (demo), the root's webhook, photo and page routes serve everyone.
    if (options.shared !== false) {
      this.mountShared(router);
      this.mountHostPages(router);
    }
    router.use('/a/:slug', (req, res, next) => {
      const running = this.serving.get((req.params as { slug: string }).slug);
      // At an agency's own host name, another agency's paths are not there: one site shows one agency.
      // So the host decides between an answer and a 404: a shared cache must key on it too.
      if (options.shared !== false) varyOnHost(req, res);
      const hostAgency = options.shared !== false ? this.byHost(trustedHostName(req)) : undefined;
      if (!running || (hostAgency && hostAgency !== running)) {
        next(new HttpError(404, 'unknown_agency', 'No agency with this slug is served by this relay.'));
        return;
      }
      this.dispatch(running, running.handler, req, res, next);
    });
    return router;
  }

  /** Hands a request to an agency's composition, counted until answered (or the connection gone): a composition replaced meanwhile keeps its store open for it. */
  private dispatch(running: RunningAgency, handler: RequestHandler, req: Request, res: Response, next: NextFunction): void {
    running.inFlight++;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      if (--running.inFlight === 0) running.onIdle?.();
    };
    res.once('finish', done);
    res.once('close', done);
    void handler(req, res, next);
  }

  /**
   * The root paths of the listing pages (/listings/…, /sitemap.xml, /fragments/…) and robots.txt,
   * by the request's host name (http/request-host.ts: the Host header, or the last value of
   * X-Forwarded-Host when TRUST_PROXY trusts the proxy next to the relay, the one it wrote). An
   * agency's host serves its pages; any other host has none there (each agency's are under
   * /a/<slug>/). Every such answer varies on what chose it.
   */
  private mountHostPages(router: Router): void {
    router.get('/robots.txt', (req, res) => {
      varyOnHost(req, res);
      const running = this.byHost(trustedHostName(req));
      // The relay's own host names no agency: the list of slugs would be the integrator's client list.
      const text = running ? agencyHostRobots(this.sitemapUrlOf(running)) : relayHostRobots();
      res.set('Cache-Control', 'public, max-age=300').type('text/plain').send(text);
    });
    router.use((req, res, next) => {
      if (!isPagePath(req.path)) return next();
      varyOnHost(req, res);
      const running = this.byHost(trustedHostName(req));
      if (running) {
        this.dispatch(running, running.pages, req, res, next);
        return;
      }
      next(
        new HttpError(
          404,
          'unknown_host',
          "No agency's listing pages are served at this host name: each agency's are under /a/<slug>/, and at the host names its entry lists.",
        ),
      );
    });
  }

  /** Where an agency's sitemap is, on its site (or the relay, without one). */
  private sitemapUrlOf(running: RunningAgency): string {
    const site = pageSite(running.agency.config, this.relayUrl(), { slug: running.entry.slug, hosts: running.entry.hosts });
    return `${site.url}${site.prefix}/sitemap.xml`;
  }

  private mountShared(router: Router): void {
    const { config } = this.options;
    router.use(
      webhookRouter({
        feed: crmWebhookFeed(config),
        toleranceSeconds: config.listings.webhookToleranceSeconds,
        // A notice naming no account, or one no agency here has (or has not learned yet), is acknowledged and counted: the event stream is the net.
        targetOf: (account) => (account === undefined ? undefined : this.byAccount(account)?.agency.listings.webhookTarget),
        counts: this.webhookCounts,
        log: this.log,
      }),
    );
    // A missing file: every agency showing that image forgets it and fetches it again.
    router.use(
      photosRouter(this.photoDir, {
        // Relays on one database: the first agency that records the image fetches its files from the file host.
        fill: this.options.sharedDatabase
          ? fillFromAgencies(() => this.list().flatMap((running) => (running.agency.listings.photoFill ? [running.agency.listings.photoFill] : [])))
          : undefined,
        onMissing: (hash) => this.list().forEach((running) => running.agency.listings.forgetMissingPhotos({ hash })),
      }),
    );
  }

  /**
   * Prometheus text for the relay's /metrics: every agency's push counts together, the agencies by
   * state, then a series per agency (fleet-metrics.ts: the dashboard's and alerting rules' view).
   */
  async metrics(): Promise<string> {
    const agencies = this.list().map((running) => running.agency);
    const sum = (pick: (agency: Agency) => number) => agencies.reduce((total, agency) => total + pick(agency), 0);
    const webhooks = {
      accepted: sum((agency) => agency.listings.webhookCounts.accepted),
      duplicates: sum((agency) => agency.listings.webhookCounts.duplicates),
      ignored: sum((agency) => agency.listings.webhookCounts.ignored),
      unavailable: sum((agency) => agency.listings.webhookCounts.unavailable),
      otherAccount: this.webhookCounts.otherAccount,
      refused: this.webhookCounts.refused,
    };
    const worker: ChangeWorkerCounts = {
      streamReads: sum((agency) => agency.listings.changes.counts.streamReads),
      streamEvents: sum((agency) => agency.listings.changes.counts.streamEvents),
      applied: sum((agency) => agency.listings.changes.counts.applied),
      overDailyCap: sum((agency) => agency.listings.changes.counts.overDailyCap),
      failures: sum((agency) => agency.listings.changes.counts.failures),
    };
    const push = renderPushMetrics(
      webhooks,
      worker,
      sum((agency) => agency.listings.pendingChanges()),
    );
    return (
      push +
      renderSharedSyncMetrics(agencies.flatMap((agency) => (agency.sharedSync ? [agency.sharedSync] : []))) +
      '# HELP estate_agencies Agencies of AGENCIES_FILE: serving, or removed and still delivering their queued enquiries and saved searches (draining).\n' +
      '# TYPE estate_agencies gauge\n' +
      `estate_agencies{state="serving"} ${this.serving.size}\nestate_agencies{state="draining"} ${this.draining.size}\n` +
      (await this.fleetMetrics())
    );
  }

  private fleetMetrics(): Promise<string> {
    const line = (slug: string) => this.plan?.agencies.find((agency) => agency.slug === slug);
    return renderFleetMetrics(
      [
        ...this.list().map((running) => ({
          slug: running.entry.slug,
          agency: running.agency,
          state: 'serving' as const,
          freshness: line(running.entry.slug)?.freshness ?? null,
        })),
        ...this.drainingAgencies().map((running) => ({ slug: running.entry.slug, agency: running.agency, state: 'draining' as const, freshness: null })),
      ],
      this.plan && { perDay: this.plan.perDay, allowed: this.plan.allowed },
    );
  }

  /**
   * The relay's /readyz detail: how many agencies are served and ready, and each agency not ready
   * and why (one line each; the relay may be ready meanwhile, see servesSomeAgency). A refused API
   * key is every agency's fault at once: said once, as `refused`, and each agency's line points to it.
   */
  readinessDetail(): { agencies: { served: number; ready: number }; refused?: string; notReady?: Record<string, string> } {
    const notReady: Record<string, string> = {};
    let refused: string | undefined;
    const served = this.list();
    for (const running of served) {
      const keyProblem = running.agency.access.problems().find((problem) => problem.cause === 'key');
      if (keyProblem) refused = keyProblem.reason;
      const { reason } = readinessOf(running.agency);
      if (reason) notReady[running.entry.slug] = reason === keyProblem?.reason ? 'the API key is refused (see "refused")' : reason;
    }
    return {
      agencies: { served: served.length, ready: served.length - Object.keys(notReady).length },
      ...(refused ? { refused } : {}),
      ...(Object.keys(notReady).length ? { notReady } : {}),
    };
  }

  /**
   * The relay's /readyz: whether it can serve, which is whether any agency's listing cache has been
   * filled (or it serves none). Not whether every one has: an agency just added, or one whose token
   * was refused before its first sync, would take every other agency out of the load balancer with
   * it. A relay none of whose agencies has filled yet (a cold start) is not ready: it could only
   * answer "filling". Each agency's own readiness is /a/<slug>/readyz (and `notReady` in the body).
   * With one agency in the file this is that agency's, as in single-agency mode.
   */
  servesSomeAgency(): boolean {
    const served = this.list();
    return served.length === 0 || served.some((running) => filled(running.agency));
  }

  /**
   * DATABASE_URL: whether this relay's copy of every served agency that has filled is within
   * REPLICA_MAX_LAG_SECONDS (the relay's /readyz: a relay serving old listings leaves the load
   * balancer for one whose copy is current). An agency never filled has no copy to be behind.
   */
  allCopiesCurrent(): boolean {
    return this.list().every(
      ({ agency }) => !agency.sharedSync || !filled(agency) || agency.sharedSync.copyWithin(agency.config.listings.replicaMaxLagSeconds),
    );
  }

  /** The plan of these agencies together, from their cached list sizes (and what other tools spend on the key). */
  private planFor(agencies: RunningAgency[]): AgenciesPlan {
    const { config } = this.options;
    const lists = agencies[0]?.agency.listings.budgetedLists;
    const nowMs = Date.now();
    return planAgencies(
      { listings: config.listings, crm: config.crm },
      lists ?? { lists: [], pageSize: 1 },
      agencies.map((running) => ({
        slug: running.entry.slug,
        sizes: running.agency.listings.sizes(),
        estimated: running.agency.listings.cache.readState().lastFullSweepAt === null,
      })),
      this.othersToday === undefined ? undefined : { othersToday: this.othersToday, dayElapsed: (nowMs % 86_400_000) / 86_400_000 },
    );
  }

  /** Gives each agency its catch-up interval (read at each scheduling) and prints the plan (with a line per agency unless `brief`). */
  private applyPlan(plan: AgenciesPlan, brief = false): void {
    this.plan = plan;
    for (const line of plan.agencies) {
      const running = this.serving.get(line.slug);
      if (running) running.agency.config.listings.syncIntervalMinutes = line.catchUpIntervalMinutes ?? 24 * 60;
    }
    const described = describeAgenciesPlan(plan);
    // After a usage read (hourly) the totals say enough; the lines per agency come at start and on reload.
    const lines = brief && plan.fits ? described.filter((line) => !line.startsWith('  ')) : described;
    const fields = {
      agencies: plan.agencies.length,
      crmRequestsPerDay: plan.perDay,
      allowed: plan.allowed,
      floor: plan.floorPerDay,
      catchUpIntervalMinutes: plan.catchUpIntervalMinutes,
    };
    if (plan.fits) this.log.info(fields, lines.join('\n'));
    else this.log.error(fields, lines.join('\n'));
  }

  /**
   * After an agency's full sweep: when the plan guessed its size (never synced), all agencies are
   * planned again with the size now known; the full plan is printed once no guess is left.
   */
  private afterSweep(slug: string): void {
    const line = this.plan?.agencies.find((agency) => agency.slug === slug);
    if (this.closed || !line?.estimated || !this.serving.has(slug)) return;
    const plan = this.planFor(this.list());
    this.applyPlan(
      plan,
      plan.agencies.some((agency) => agency.estimated),
    );
  }

  /** After a read of the key's usage: all agencies planned again with what other tools spend. */
  private onUsage(usage: KeyUsage): void {
    this.othersToday = usage.others;
    if (this.serving.size > 0) this.applyPlan(this.planFor(this.list()), true);
  }

  private startAgency(running: RunningAgency): void {
    if (this.options.workers === false || running.started) return;
    running.started = true;
    for (const worker of agencyWorkers(running.agency)) worker.start();
  }

  /** Re-reads AGENCIES_FILE (one reload at a time). A refused file or plan changes nothing: the running set keeps serving. */
  reload(): Promise<ReloadReport> {
    // A reload that failed must not stop the next one from running.
    this.reloading = this.reloading.catch(() => undefined).then(() => this.reloadNow());
    return this.reloading;
  }

  private async reloadNow(): Promise<ReloadReport> {
    if (this.closed) return { ok: false, added: [], changed: [], removed: [], problems: ['the relay is shutting down'] };
    let entries: AgencyEntry[];
    try {
      entries = this.readEntries();
    } catch (error) {
      return this.refuse(error);
    }
    const next = new Map(entries.map((entry) => [entry.slug, entry]));
    const added = entries.filter((entry) => !this.serving.has(entry.slug)).map((entry) => entry.slug);
    const changed = entries
      .filter((entry) => this.serving.has(entry.slug) && !sameEntry(this.serving.get(entry.slug)!.entry, entry))
      .map((entry) => entry.slug);
    const removed = [...this.serving.keys()].filter((slug) => !next.has(slug));

    // An agency removed earlier and back again: its old outbox worker stops before the new one opens the same store.
    for (const slug of added) {
      for (const old of [...this.draining].filter((running) => running.entry.slug === slug)) {
        this.draining.delete(old);
        old.storeClosed = true;
        await old.agency.close();
      }
    }
    const fresh: RunningAgency[] = [];
    try {
      await this.options.sharedDatabase?.prepareAgencies(added);
      for (const slug of [...added, ...changed]) fresh.push(this.compose(next.get(slug)!));
    } catch (error) {
      await Promise.all(fresh.map((running) => running.agency.close()));
      return this.refuse(error);
    }
    const kept = entries.filter((entry) => !added.includes(entry.slug) && !changed.includes(entry.slug)).map((entry) => this.serving.get(entry.slug)!);
    const byFile = (list: RunningAgency[]) => list.sort((a, b) => entries.indexOf(next.get(a.entry.slug)!) - entries.indexOf(next.get(b.entry.slug)!));
    const plan = this.planFor(byFile([...kept, ...fresh]));
    if (!plan.fits) {
      await Promise.all(fresh.map((running) => running.agency.close()));
      return this.refuse(new AgenciesBudgetRefusedError(plan));
    }

    // Removed: 404 at once; workers stop but the outbox's and the saved searches', which deliver what is queued, then the store closes.
    for (const slug of removed) {
      const running = this.serving.get(slug)!;
      running.serving = false;
      this.serving.delete(slug);
      this.draining.add(running);
      // In the background: a failure here (a store that will not close) is logged, never an unhandled rejection that would end the relay.
      this.drain(running).catch((error: unknown) =>
        this.log.error({ agency: slug, error: (error as Error).message }, 'removed agency: draining its queued leads failed; its store may still be open'),
      );
    }
    // Changed: the new composition serves at once (its intake writes to the same outbox); the old one's workers stop before the new one's start.
    const replaced: RunningAgency[] = [];
    for (const running of fresh) {
      const old = this.serving.get(running.entry.slug);
      if (old) {
        old.serving = false;
        replaced.push(old);
      }
    }
    const ordered = new Map<string, RunningAgency>();
    for (const entry of entries) ordered.set(entry.slug, fresh.find((running) => running.entry.slug === entry.slug) ?? this.serving.get(entry.slug)!);
    this.serving.clear();
    for (const [slug, running] of ordered) this.serving.set(slug, running);
    this.indexHosts();
    this.applyPlan(plan);
    // The old compositions' workers stop before the new ones' start; their stores stay open for the requests they are answering.
    await Promise.all(replaced.map((old) => Promise.all(agencyWorkers(old.agency).map((worker) => worker.stop()))));
    for (const old of replaced) this.retire(old);
    for (const running of fresh) this.startAgency(running);
    this.log.info(
      { added, changed, removed, agencies: this.serving.size },
      `agencies reloaded: ${added.length} added, ${changed.length} changed, ${removed.length} removed; ${this.serving.size} served`,
    );
    void this.writeStatus();
    return { ok: true, added, changed, removed };
  }

  private refuse(error: unknown): ReloadReport {
    // A ConfigError names field by field; anything else (a store that would not open) by its message.
    const problems = error instanceof ConfigError ? error.problems : [`AGENCIES_FILE: the reload failed: ${(error as Error).message}`];
    this.log.error(
      { problems },
      `AGENCIES_FILE refused on reload; the ${this.serving.size} agencies running keep serving:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    return { ok: false, added: [], changed: [], removed: [], problems };
  }

  /**
   * A removed agency: its workers stop but the two that deliver visitors' leads (enquiries, saved
   * searches), which run until neither queue holds anything queued (each ends in the CRM, or dead
   * once its retry window is over), then its store closes. A restart meanwhile forgets the drain:
   * the queued rows stay in its store, shown by `agencies` as removed, and go out if it comes back.
   */
  private async drain(running: RunningAgency): Promise<void> {
    const { agency } = running;
    const delivering = new Set<unknown>([agency.enquiries.worker, agency.savedSearches.worker]);
    await Promise.all(
      agencyWorkers(agency)
        .filter((worker) => !delivering.has(worker))
        .map((worker) => worker.stop()),
    );
    // Through the outbox and the saved-search store, not the SQLite file: with DATABASE_URL the queued rows are in PostgreSQL.
    const outbox = new EnquiryOutbox(agency.store);
    const queued = async () => ({ enquiries: (await outbox.counts()).queued, savedSearches: (await agency.savedSearches.store.counts()).queued });
    const atStart = await queued();
    if (atStart.enquiries + atStart.savedSearches > 0)
      this.log.info(
        { agency: running.entry.slug, queued: atStart.enquiries, savedSearchesQueued: atStart.savedSearches },
        'removed agency: delivering its queued enquiries and saved searches before closing its store',
      );
    while (this.draining.has(running) && !this.closed) {
      const left = await queued();
      if (left.enquiries + left.savedSearches === 0) break;
      await new Promise((resolve) => setTimeout(resolve, DRAIN_CHECK_MS).unref());
    }
    if (!this.draining.has(running)) return;
    // Requests it was answering when removed (new ones are 404s) finish before its store closes.
    if (!this.closed) await this.whenIdle(running, REQUESTS_IN_FLIGHT_WAIT_MS);
    if (!this.draining.has(running)) return;
    this.draining.delete(running);
    running.storeClosed = true;
    await agency.close();
    this.log.info({ agency: running.entry.slug }, 'removed agency closed: its outbox and saved searches are delivered');
  }

  /**
   * The operator view's figures the agency's SQLite file does not hold: the plan's promise, calls
   * today, and the outbox depth counted through the outbox itself (with DATABASE_URL it is not in
   * the file the CLI can open). No token.
   */
  async statusSnapshot(): Promise<AgenciesStatusFile> {
    const line = (slug: string) => this.plan?.agencies.find((agency) => agency.slug === slug);
    const queuedIn = async (running: RunningAgency) => {
      try {
        return (await new EnquiryOutbox(running.agency.store).counts()).queued;
      } catch {
        return null; // The store is unreachable for now: the CLI shows the figure as unknown.
      }
    };
    const savedSearchesIn = async (running: RunningAgency) => {
      try {
        const { store } = running.agency.savedSearches;
        const counts = await store.counts();
        return { queued: counts.queued, dead: counts.dead, oldestQueuedAt: (await store.oldestQueuedAt()) ?? null };
      } catch {
        return null;
      }
    };
    const row = async (running: RunningAgency, state: 'serving' | 'draining') => ({
      slug: running.entry.slug,
      name: running.entry.name,
      state,
      freshness: state === 'serving' ? (line(running.entry.slug)?.freshness ?? null) : null,
      crmCallsToday: running.agency.crm.requestsToday().requests,
      outboxQueued: await queuedIn(running),
      savedSearches: await savedSearchesIn(running),
      accountId: running.agency.listings.account.id ?? null,
    });
    return {
      writtenAt: new Date().toISOString(),
      pid: process.pid,
      plan: this.plan
        ? { perDay: this.plan.perDay, allowed: this.plan.allowed, floorPerDay: this.plan.floorPerDay, catchUpIntervalMinutes: this.plan.catchUpIntervalMinutes }
        : null,
      agencies: await Promise.all([
        ...this.list().map((running) => row(running, 'serving')),
        ...this.drainingAgencies().map((running) => row(running, 'draining')),
      ]),
    };
  }

  /** One write at a time (a slow outbox count must not let two writers share the temporary file). */
  private writeStatus(): Promise<void> {
    return (this.statusWriting ??= this.writeStatusNow().finally(() => {
      this.statusWriting = undefined;
    }));
  }

  private async writeStatusNow(): Promise<void> {
    if (this.closed) return;
    const file = join(this.options.keyStore.dataDir, AGENCIES_STATUS_FILE);
    try {
      const snapshot = await this.statusSnapshot();
      // Written whole then renamed: the CLI never reads half a file. Owner-only, like the store.
      writeFileSync(`${file}.tmp`, `${JSON.stringify(snapshot, null, 2)}\n`, { mode: STORE_FILE_MODE });
      chmodSync(`${file}.tmp`, STORE_FILE_MODE);
      renameSync(`${file}.tmp`, file);
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, 'could not write the agencies status file for the operator CLI');
    }
  }

  async close(): Promise<void> {
    await this.statusWriting;
    await this.writeStatus();
    this.closed = true;
    clearInterval(this.statusTimer);
    await this.reloading.catch(() => undefined);
    const all = [...this.serving.values(), ...this.draining];
    this.serving.clear();
    this.indexHosts();
    this.draining.clear();
    // Replaced ones waiting for their requests: the server has stopped answering, so they close now.
    const retiring = [...this.retiring];
    for (const [old] of retiring) old.onIdle?.();
    await Promise.all([...all.map((running) => running.agency.close()), ...retiring.map(([, closing]) => closing)]);
  }
}

/** Whether the agency's listing cache has been filled once (before, its listing API answers "filling"). */
function filled(agency: Agency): boolean {
  return agency.listings.cache.readState().lastSuccessAt !== null;
}

/** Whether a path is one of the listing pages' (server/pages/router.ts: /listings/…, /sitemap.xml, /fragments/…), as served at an agency's hosts. */
function isPagePath(path: string): boolean {
  return path === '/sitemap.xml' || /^\/(?:listings|fragments)(?:\/|$)/.test(path);
}

function sameEntry(a: AgencyEntry, b: AgencyEntry): boolean {
  return (
    a.name === b.name &&
    a.accessToken === b.accessToken &&
    a.siteUrl === b.siteUrl &&
    a.allowedOrigins.join(' ') === b.allowedOrigins.join(' ') &&
    a.hosts.join(' ') === b.hosts.join(' ') &&
    a.wrapperUrl === b.wrapperUrl &&
    a.timeZone === b.timeZone &&
    a.country === b.country &&
    a.listingPath === b.listingPath &&
    // A new mail server, sender or confirmation mode: the agency is composed again (its old mailer closed).
    a.smtpUrl === b.smtpUrl &&
    a.mailFrom === b.mailFrom &&
    a.alertConfirmation === b.alertConfirmation
  );
}
