import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { agencyFeatures, composeAgency, type Agency } from './agency.ts';
import type { AgencyEntry } from './agencies-file.ts';
import { AgencySet } from './agency-set.ts';
import { demoBackOfficeFeature } from './demo-back-office.ts';
import { createApp, projectRoot, requestListener, type AppDeps } from '../http/app.ts';
import { answerCacheFor, type AnswerCache } from '../http/answer-cache.ts';
import { ConfigError, type Config } from '../runtime/config.ts';
import { publicOrigins } from '../http/cors.ts';
import type { CrmAccess } from '../crm/access.ts';
import type { CrmClient } from '../crm/client.ts';
import type { EnquiryService } from '../enquiries/service.ts';
import type { EnquiryTargets } from '../enquiries/targets.ts';
import type { Feature } from '../runtime/feature.ts';
import type { ListingsService } from '../listings/index.ts';
import type { PlacesService } from '../places/index.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Logger } from '../runtime/log.ts';
import { pagesFeature } from '../pages/index.ts';
import { createMapTiles } from '../tiles/index.ts';
import { CLOCK_OFFSET_WARN_MS, describeClockOffset, RelayIdConflictError, renderClockOffsetMetrics, SharedDatabase } from '../store/shared-database.ts';
import type { Clock } from '../runtime/clock.ts';
import type { VisitService } from '../visits/index.ts';
import { relayIdOf } from '../store/relay-identity.ts';
import type { SharedSync } from '../cluster/shared-sync.ts';
import { safeMessage } from '../store/postgres.ts';
import { PhotoFolderGuard } from '../photos/folder-guard.ts';
import { openStore, storeAnswers, type Store } from '../store/store.ts';
import type { Worker } from '../runtime/worker.ts';
import type { ReportsWiring } from '../reports/feature.ts';

export interface RunningRelay {
  url: string;
  port: number;
  config: Config;
  /** The agency's store; with AGENCIES_FILE, the key-wide store in DATA_DIR (the key's daily budget). */
  store: Store;
  /** The one CRM client (one rate limiter and daily budget) every worker shares. With AGENCIES_FILE: the first agency's at start (see `agencies`). */
  crm: CrmClient;
  /** With AGENCIES_FILE: the first agency's at start (see `agencies`). */
  enquiries: EnquiryService;
  /** Listing cache, sync worker and photo mirror. With AGENCIES_FILE: the first agency's at start (see `agencies`). */
  listings: ListingsService;
  /** What the CRM key and token allow, and the key's usage by every tool. With AGENCIES_FILE: the first agency's at start. */
  access: CrmAccess;
  /** Where listings are on the map and the geocoding worker. With AGENCIES_FILE: the first agency's at start. */
  places: PlacesService;
  /** What happens to its listings on the site, counted without tracking (server/visits/). With AGENCIES_FILE: the first agency's at start. */
  visits: VisitService;
  /** The agency's SMTP mailer (undefined: no SMTP_URL and MAIL_FROM; demo mode: the simulator's mail catcher). With AGENCIES_FILE: the first agency's at start. */
  mailer?: Mailer;
  /** DATABASE_URL: the agency's sync as shared with the other relays (with AGENCIES_FILE: the first agency's at start). */
  sharedSync?: SharedSync;
  /** AGENCIES_FILE: every agency, served under /a/<slug>/ (reload() re-reads the file). Demo mode with SIM_AGENCIES: the accounts after the first. */
  agencies?: AgencySet;
  /** Every rendered answer of every agency, in one byte bound (ANSWER_CACHE_MB), and the per-client render limit. */
  answers: AnswerCache;
  /** The embedded simulator in demo mode. */
  simulator?: {
    baseUrl: string;
    origin: string;
    webhookUrlSet: boolean;
    setWebhookUrl(url: string): void;
    /** The simulator's accounts on the one key (SIM_AGENCIES, default 1): the relay serves the first. */
    accounts(): Array<{ id: number; name: string; accessToken: string }>;
    /** Its mail catcher (smtp://127.0.0.1:<port>): the agencies' mail goes there unless SMTP_URL is set. */
    mailUrl: string;
    /** Its back office: the mail caught, and each account's contacts and holding area (`<origin>/__sim/`). */
    backOfficeUrl: string;
    close(): Promise<void>;
  };
  close(): Promise<void>;
}

export interface StartRelayOptions {
  log: Logger;
  /** Start the background workers (default true; tests may drive them by hand). */
  workers?: boolean;
  /** Overrides for createApp (demo folder, widget folder). */
  app?: Partial<Pick<AppDeps, 'widgetDir' | 'demoDir'>>;
  /** Listing and agent look-ups for enquiries (default: cached CRM lists, see enquiries/targets.ts). */
  enquiryTargets?: EnquiryTargets;
  /** URLs per sitemap file before /sitemap.xml becomes an index (default 50,000; tests use fewer). */
  maxUrlsPerSitemap?: number;
  /** The relay's clock as the heartbeat measures it against the database's (DATABASE_URL; tests skew it). Default the system clock. */
  clock?: Clock;
  /**
   * DATABASE_URL: another process took this relay's id while this one went unheard (logged as
   * fatal either way). main.ts stops the relay: two processes with one id would hold the same claims.
   */
  onDisplaced?: (error: RelayIdConflictError) => void;
  /**
   * Fill agencies that were never filled one after another, the smallest first (default true); false
   * takes them in turns, as before issue 23: the first-fill test compares the two.
   */
  firstFillOrder?: boolean;
  /** The seller's reports' visit counts and clock (tests: a fixture's counts; default each agency's visits module). */
  reports?: ReportsWiring;
}

/**
 * Wires the whole relay: (in demo mode) the embedded CRM simulator, the agencies (one at the root
 * paths, or every agency of AGENCIES_FILE under /a/<slug>/, each composed by agency.ts), the
 * workers and the HTTP server. main.ts, the end-to-end tests and the benchmarks all start the
 * relay through here, so they run the same thing.
 */
export async function startRelay(config: Config, options: StartRelayOptions): Promise<RunningRelay> {
  const { log } = options;
  let simulator: RunningRelay['simulator'];
  /** The address it listens on, once it does (the root agency's e-mail links name it when PUBLIC_URL is unset). */
  let listeningUrl: string | undefined;
  if (config.demoMode) {
    const { startSimulator } = await import('../../crm-sim/simulator.ts');
    const sim = await startSimulator({
      listings: config.simListings,
      webhookUrl: process.env.SIM_WEBHOOK_URL || undefined,
      webhookDropRate: simDropRate(),
      agencies: simAgencies(),
    });
    simulator = {
      baseUrl: sim.baseUrl,
      origin: sim.origin,
      webhookUrlSet: sim.state.webhooks.url !== null,
      setWebhookUrl: (webhookUrl) => sim.state.webhooks.configure({ url: webhookUrl }),
      accounts: () => sim.key.accounts.map((account) => ({ id: account.accountId, name: account.agency.name, accessToken: account.options.accessToken })),
      mailUrl: sim.mail.url,
      backOfficeUrl: `${sim.origin}/__sim/`,
      close: () => sim.close(),
    };
    config = { ...config, crm: { ...config.crm, baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken } };
    // The demo agency's team page opens with its principal and its director, as an agency sets TEAM_ORDER.
    if (config.team.order.length === 0) config = { ...config, team: { ...config.team, order: sim.state.teamLeads() } };
    // The simulator answers as a Nominatim-compatible geocoder too, from its own addresses.
    if (!config.places.geocoderUrl) config = { ...config, places: { ...config.places, geocoderUrl: sim.origin } };
    // And draws plain map tiles (256 px, and 512 px at @2x: `{r}`), so the demo's map works with no outside service: a
    // base without names and the names alone, which the map draws above its pins (as with CARTO's nolabels and only_labels).
    if (!config.tiles.url)
      config = {
        ...config,
        tiles: {
          ...config.tiles,
          url: `${sim.origin}/tiles/base/{z}/{x}/{y}{r}.png`,
          labelUrl: `${sim.origin}/tiles/labels/{z}/{x}/{y}{r}.png`,
          attribution: 'Demo tiles: estate-embed CRM simulator',
        },
      };
    // And catches the agencies' mail (the saved searches' confirmations), so the demo shows the whole loop; MAIL_FROM without a name goes out under the agency's.
    if (!config.mail.smtpUrl) config = { ...config, mail: { smtpUrl: sim.mail.url, from: config.mail.from ?? DEMO_MAIL_FROM } };
    // Said once: the start-up banner says it on a terminal, this line in a collected log (info: nothing is wrong).
    log.info(
      { crm: sim.baseUrl, listings: config.simListings },
      'DEMO MODE: no CRM credentials set, so the relay runs against its embedded CRM simulator. ' +
        'Set CRM_BASE_URL, CRM_API_KEY and CRM_ACCESS_TOKEN to use a real CRM account.',
    );
  }
  const defaultPhotoSources = [config.crm.baseUrl, simulator?.origin];
  const userAgent = `estate-embed/${relayVersion()}`;
  if (config.places.geocoderUrl)
    log.info(
      { geocoder: config.places.geocoderUrl, requestsPerSecond: config.places.requestsPerSecond },
      'listings without CRM coordinates are placed by the geocoder (GEOCODER_URL)',
    );
  const widgetDir = options.app?.widgetDir ?? join(projectRoot, 'dist', 'widget');
  // One set for the relay: every agency's map shows the same tiles and labels (one disk cache and per-client rate a layer); each agency its own area.
  const tiles = createMapTiles({ config, userAgent, log });

  // One agency at the root, or the agencies of AGENCIES_FILE beside the key-wide store.
  let root: Agency | undefined;
  let keyStore: Store | undefined;
  let agencies: AgencySet | undefined;
  const sharedDatabase = config.databaseUrl ? await openSharedDatabase(config, log, simulator, options.onDisplaced, options.clock) : undefined;
  // Demo mode with SIM_AGENCIES: the root agency and the others write to one photo folder.
  const photoGuard = new PhotoFolderGuard();
  // One bound in bytes for every rendered answer of every agency (ANSWER_CACHE_MB), and one per-client render limit.
  const answers = answerCacheFor(config.http);
  try {
    if (config.agenciesFile) {
      keyStore = openStore(config.dataDir, undefined, { warn: (message, fields) => log.warn(fields, message) });
      agencies = await AgencySet.open({
        config,
        log,
        keyStore,
        widgetDir,
        ownOrigins: publicOrigins(config),
        defaultPhotoSources,
        enquiryTargets: options.enquiryTargets,
        workers: options.workers,
        sharedDatabase,
        answers,
        userAgent,
        tiles,
        maxUrlsPerSitemap: options.maxUrlsPerSitemap,
        firstFillOrder: options.firstFillOrder,
        reports: options.reports,
      });
    } else {
      await sharedDatabase?.prepareAgencies([undefined]);
      root = composeAgency(config, {
        log,
        sharedDatabase,
        defaultPhotoSources,
        enquiryTargets: options.enquiryTargets,
        // Demo mode with SIM_AGENCIES: the other accounts' agencies, served beside this one under /a/<slug>/.
        photoInUseElsewhere: (hash) => agencies?.photoInUseElsewhere(undefined, hash) ?? false,
        photoGuard,
        otherAccount: (account) => agencies?.byAccount(account)?.agency.listings.webhookTarget,
        answers,
        userAgent,
        relayUrl: () => listeningUrl,
      });
    }
  } catch (error) {
    // Refused settings (CRM budget, agencies file): release what was opened, then let main.ts report and exit.
    keyStore?.close();
    await sharedDatabase?.close();
    await simulator?.close();
    if (sharedDatabase && !(error instanceof ConfigError) && /^DATABASE_URL: /.test((error as Error).message))
      throw new ConfigError([(error as Error).message]);
    throw error;
  }

  // Listen first: in demo mode the relay's own origin is the address it ends up on (PORT may be 0).
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.port, config.http.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Keep-alive sockets from browsers must not hold a shutdown open.
  server.keepAliveTimeout = 5_000;
  const port = (server.address() as AddressInfo).port;
  const host = config.http.host === '0.0.0.0' || config.http.host === '::' ? '127.0.0.1' : config.http.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  listeningUrl = url;

  // The demo site is opened on this machine: its pages may post enquiries from these origins.
  const ownOrigins = config.demoMode ? [...publicOrigins(config), url, `http://localhost:${port}`] : publicOrigins(config);
  const features: Feature[] = root
    ? [
        ...agencyFeatures(root, { ownOrigins, log, tiles, reports: options.reports }),
        pagesFeature({
          config,
          store: root.store,
          log,
          listings: root.listings.publicListings,
          onListingsChange: (listener) => root.listings.cache.onChange(listener),
          filled: () => root.listings.cache.readState().lastSuccessAt !== null,
          recordsPublished: root.sharedSync && (() => root.sharedSync!.holdsSync),
          ownUrl: url,
          widgetDir,
          maxUrlsPerSitemap: options.maxUrlsPerSitemap,
          answers,
          demoDir: options.app?.demoDir === undefined ? join(projectRoot, 'demo') : options.app.demoDir,
        }),
      ]
    : [
        {
          name: 'agencies',
          router: agencies!.router(),
          workers: [],
          // Ready once the relay can serve: some agency's cache filled (not every one's: one new agency must not take the rest out of a load balancer); each agency's own is /a/<slug>/readyz.
          readiness: { agencyServed: () => agencies!.servesSomeAgency(), replicaCopies: () => agencies!.allCopiesCurrent() },
          readinessDetail: () => agencies!.readinessDetail(),
          metrics: () => agencies!.metrics(),
        },
      ];
  if (simulator) features.push(demoBackOfficeFeature(simulator.origin));
  // DATABASE_URL: this relay's clock against the database's, in /metrics.
  if (sharedDatabase)
    features.push({ name: 'shared-database', workers: [], readiness: {}, metrics: () => renderClockOffsetMetrics(sharedDatabase.clockOffsetMs()) });
  // Demo mode with SIM_AGENCIES=2 or more: the demo site shows the first account; the others are agencies under /a/<slug>/.
  const demoAccounts = simulator?.accounts().slice(1) ?? [];
  if (root && demoAccounts.length > 0) {
    const rootStore = root.store;
    try {
      agencies = await AgencySet.open({
        config,
        log,
        keyStore: rootStore,
        widgetDir,
        ownOrigins,
        defaultPhotoSources,
        enquiryTargets: options.enquiryTargets,
        workers: options.workers,
        readEntries: () => demoAgencies(demoAccounts),
        alsoHolding: () => [rootStore],
        sharedDatabase,
        photoGuard,
        answers,
        geocoding: root.places.geocoding,
        tiles,
        reports: options.reports,
        // No PUBLIC_URL in the demo: the address it listens on.
        relayUrl: config.http.publicUrl ?? url,
        maxUrlsPerSitemap: options.maxUrlsPerSitemap,
      });
    } catch (error) {
      server.close();
      await root.close();
      await sharedDatabase?.close();
      await simulator?.close();
      throw error;
    }
    features.push({ name: 'demo-agencies', router: agencies.router({ shared: false }), workers: [], readiness: {} });
  }
  const workers: Worker[] = features.flatMap((feature) => feature.workers);
  const store = root?.store ?? keyStore!;
  const app = createApp({ config, storeAnswers: () => storeAnswers(store), log, features, answers, ...options.app });
  server.on('request', requestListener(app));

  // Demo mode: the simulator sends its webhooks to this relay, as a real CRM would to the registered URL.
  if (simulator && !simulator.webhookUrlSet) simulator.setWebhookUrl(`${url}/hooks/crm`);
  if (options.workers !== false) for (const worker of workers) worker.start();
  agencies?.start();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await Promise.all(workers.map((worker) => worker.stop()));
      await agencies?.close();
      await root?.close();
      keyStore?.close();
      await sharedDatabase?.close();
      await simulator?.close();
    })());

  const first = root ?? agencies!.list()[0]!.agency;
  return {
    url,
    port,
    config,
    store,
    crm: first.crm,
    enquiries: first.enquiries,
    listings: first.listings,
    access: first.access,
    places: first.places,
    visits: first.visits,
    mailer: first.mailer,
    sharedSync: first.sharedSync,
    agencies,
    answers,
    simulator,
    close,
  };
}

/** Demo mode's sender when MAIL_FROM is unset (a name-less address: each agency's name is shown). */
export const DEMO_MAIL_FROM = 'alerts@agency.example';

/** The demo's other simulator accounts as agencies: a slug from each name (unique), any origin (demo mode), the tokens the simulator made. */
function demoAgencies(accounts: Array<{ name: string; accessToken: string }>): AgencyEntry[] {
  const used = new Set<string>();
  return accounts.map((account, index) => {
    const base =
      account.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 36)
        .replace(/-+$/, '') || 'agency';
    const slug = used.has(base) ? `${base}-${index + 2}` : base;
    used.add(slug);
    return { slug, name: account.name, accessToken: account.accessToken, allowedOrigins: [], hosts: [] };
  });
}

/** DATABASE_URL: every agency's shared tables go to PostgreSQL; refused, nothing stays open. */
async function openSharedDatabase(
  config: Config,
  log: Logger,
  simulator: RunningRelay['simulator'],
  onDisplaced: StartRelayOptions['onDisplaced'],
  clock?: Clock,
): Promise<SharedDatabase> {
  let database: SharedDatabase;
  try {
    database = await SharedDatabase.open(config.databaseUrl!, { warn: (message, fields) => log.warn(fields, message), now: clock });
    // In the registry before any CRM request: the others' share without the database counts this one.
    // Its id is the random one in DATA_DIR (made at the first start), not the host and path: two containers may share both.
    const dataDir = resolve(config.dataDir);
    await database
      .startHeartbeat(
        { id: relayIdOf(dataDir), host: hostname(), dataDir, version: relayVersion(), nonce: randomUUID(), pid: process.pid },
        {
          onError: (error) =>
            log.warn({ shared: 'postgres', error: safeMessage(error, config.databaseUrl!) }, 'relay heartbeat failed (PostgreSQL out of reach?)'),
          onDisplaced: (error) => {
            log.fatal({ shared: 'postgres', relayId: error.relay.id, other: error.other }, error.message);
            onDisplaced?.(error);
          },
          onClockOffset: (offsetMs, tooLarge) => {
            const fields = { shared: 'postgres', clockOffsetMs: offsetMs, limitMs: CLOCK_OFFSET_WARN_MS };
            if (tooLarge)
              log.warn(
                fields,
                `this relay's clock is ${describeClockOffset(offsetMs)} (more than ${CLOCK_OFFSET_WARN_MS / 1000} s): times shared between relays come from the database, but check this host's time sync (NTP)`,
              );
            else log.info(fields, `this relay's clock is back within ${CLOCK_OFFSET_WARN_MS / 1000} s of the database's (${describeClockOffset(offsetMs)})`);
          },
        },
      )
      .catch(async (error: unknown) => {
        await database.close();
        if (error instanceof RelayIdConflictError) throw error;
        throw new Error(`DATABASE_URL: could not record this relay: ${safeMessage(error, config.databaseUrl!)}`);
      });
  } catch (error) {
    await simulator?.close();
    // Reported like a bad setting (main.ts): one line naming DATABASE_URL, the password left out.
    throw new ConfigError([(error as Error).message]);
  }
  log.info(
    { shared: 'postgres' },
    'shared state in PostgreSQL (DATABASE_URL, a schema per agency): enquiry outbox, CRM limits, sync leases and the listing cache each relay copies into DATA_DIR',
  );
  return database;
}

/** The package version, for the relay registry. */
function relayVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** SIM_AGENCIES (1-20 in demo mode): how many agency accounts the embedded simulator holds on its one key. */
function simAgencies(): number {
  const raw = process.env.SIM_AGENCIES;
  if (raw === undefined || raw === '') return 1;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > 20)
    throw new ConfigError([`SIM_AGENCIES: must be a whole number from 1 to 20 in demo mode (got "${raw}")`]);
  return count;
}

/** SIM_WEBHOOK_DROP_RATE (0-1): the share of demo webhooks the simulator drops, to watch the event stream catch up. */
function simDropRate(): number | undefined {
  const raw = process.env.SIM_WEBHOOK_DROP_RATE;
  if (raw === undefined || raw === '') return undefined;
  const rate = Number(raw);
  if (!(rate >= 0 && rate <= 1)) throw new ConfigError([`SIM_WEBHOOK_DROP_RATE: must be a number from 0 to 1 (got "${raw}")`]);
  return rate;
}
