import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createApp, projectRoot, requestListener, type AppDeps } from './app.ts';
import { ConfigError, type Config } from './config.ts';
import { publicOrigins } from './cors.ts';
import { crmAccessFeature, CrmAccess } from './crm/access.ts';
import { createCrmClientFromConfig, type CrmClient } from './crm/client.ts';
import { crmEnquiryTargets } from './crm/enquiry-targets.ts';
import { crmLeadSink } from './crm/lead-sink.ts';
import { crmListingSource } from './crm/listing-source.ts';
import { enquiriesFeature } from './enquiries/feature.ts';
import { createEnquiryService, type EnquiryService } from './enquiries/service.ts';
import type { EnquiryTargets } from './enquiries/targets.ts';
import type { Feature } from './feature.ts';
import { createListingsService, listingsFeature, type ListingsService } from './listings/index.ts';
import type { Logger } from './log.ts';
import { pagesFeature } from './pages/index.ts';
import { closeStore, openStore, type Store } from './store/store.ts';
import { attachPostgres } from './store/postgres.ts';
import type { Worker } from './worker.ts';

export interface RunningRelay {
  url: string;
  port: number;
  config: Config;
  store: Store;
  /** The one CRM client (one rate limiter and daily budget) every worker shares. */
  crm: CrmClient;
  enquiries: EnquiryService;
  /** Listing cache, sync worker and photo mirror. */
  listings: ListingsService;
  /** What the CRM key and token allow, and the key's usage by every tool. */
  access: CrmAccess;
  /** The embedded simulator in demo mode. */
  simulator?: {
    baseUrl: string;
    origin: string;
    webhookUrlSet: boolean;
    setWebhookUrl(url: string): void;
    /** The simulator's accounts on the one key (SIM_AGENCIES, default 1): the relay serves the first. */
    accounts(): Array<{ id: number; name: string; accessToken: string }>;
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
}

/**
 * Wires the whole relay: (in demo mode) the embedded CRM simulator, the store, the CRM client,
 * the workers and the HTTP server. main.ts, the end-to-end tests and the benchmarks all start
 * the relay through here, so they run the same thing.
 */
export async function startRelay(config: Config, options: StartRelayOptions): Promise<RunningRelay> {
  const { log } = options;
  let simulator: RunningRelay['simulator'];
  if (config.demoMode) {
    const { startSimulator } = await import('./sim/simulator.ts');
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
      close: () => sim.close(),
    };
    config = { ...config, crm: { ...config.crm, baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken } };
    log.warn(
      { crm: sim.baseUrl, listings: config.simListings },
      'DEMO MODE: no CRM credentials set, so the relay runs against its embedded CRM simulator. ' +
        'Set CRM_BASE_URL, CRM_API_KEY and CRM_ACCESS_TOKEN to use a real CRM account.',
    );
  }

  const store = openStore(config.dataDir, undefined, { warn: (message, fields) => log.warn(fields, message) });
  if (config.databaseUrl) await attachSharedStore(store, config.databaseUrl, log, simulator);
  const crm = createCrmClientFromConfig(config, store, log);
  let listings: ListingsService;
  try {
    listings = createListingsService({ config, store, log, source: crmListingSource({ client: crm, config }), defaultPhotoSources: [config.crm.baseUrl, simulator?.origin] });
  } catch (error) {
    // Refused settings (CRM budget): release what was opened, then let main.ts report and exit.
    crm.close();
    store.close();
    await simulator?.close();
    throw error;
  }
  // What the key and token allow (logged, and named by /readyz and the status CLI when refused), and the key's usage by every tool.
  const access = new CrmAccess({
    client: crm,
    store,
    log,
    listingClass: config.listings.classes[0]!,
    usageCheckMinutes: config.crm.usageCheckMinutes,
    onUsage: (usage) => listings.replan(usage.others),
  });
  const enquiries = createEnquiryService({
    settings: config.enquiries,
    store,
    log,
    sink: crmLeadSink(crm, { source: config.enquiries.source }),
    sinkTargets: crmEnquiryTargets(crm, { log }),
    targets: options.enquiryTargets ?? listings.enquiryTargets,
  });

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

  // The demo site is opened on this machine: its pages may post enquiries from these origins.
  const ownOrigins = config.demoMode ? [...publicOrigins(config), url, `http://localhost:${port}`] : publicOrigins(config);
  const features: Feature[] = [
    listingsFeature(listings),
    crmAccessFeature(access),
    enquiriesFeature(enquiries, { allowedOrigins: config.http.allowedOrigins, ownOrigins, limits: config.enquiries, log }),
    pagesFeature({
      config,
      store,
      log,
      listings: listings.publicListings,
      onListingsChange: (listener) => listings.cache.onChange(listener),
      filled: () => listings.cache.readState().lastSuccessAt !== null,
      ownUrl: url,
      widgetDir: options.app?.widgetDir ?? join(projectRoot, 'dist', 'widget'),
      maxUrlsPerSitemap: options.maxUrlsPerSitemap,
      demoDir: options.app?.demoDir === undefined ? join(projectRoot, 'demo') : options.app.demoDir,
    }),
  ];
  const workers: Worker[] = features.flatMap((feature) => feature.workers);
  const app = createApp({ config, store, log, features, ...options.app });
  server.on('request', requestListener(app));

  // Demo mode: the simulator sends its webhooks to this relay, as a real CRM would to the registered URL.
  if (simulator && !simulator.webhookUrlSet) simulator.setWebhookUrl(`${url}/hooks/crm`);
  if (options.workers !== false) for (const worker of workers) worker.start();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await Promise.all(workers.map((worker) => worker.stop()));
      crm.close();
      await closeStore(store);
      await simulator?.close();
    })());

  return { url, port, config, store, crm, enquiries, listings, access, simulator, close };
}

/** DATABASE_URL: the shared tables (the enquiry outbox so far) go to PostgreSQL; refused, nothing stays open. */
async function attachSharedStore(store: Store, url: string, log: Logger, simulator: RunningRelay['simulator']): Promise<void> {
  try {
    await attachPostgres(store, url, { warn: (message, fields) => log.warn(fields, message) });
  } catch (error) {
    store.close();
    await simulator?.close();
    // Reported like a bad setting (main.ts): one line naming DATABASE_URL, the password left out.
    throw new ConfigError([(error as Error).message]);
  }
  log.info({ shared: 'postgres' }, 'enquiry outbox in PostgreSQL (DATABASE_URL); the rest of the state in DATA_DIR');
}

/** SIM_AGENCIES (1-20 in demo mode): how many agency accounts the embedded simulator holds on its one key. */
function simAgencies(): number {
  const raw = process.env.SIM_AGENCIES;
  if (raw === undefined || raw === '') return 1;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > 20) throw new ConfigError([`SIM_AGENCIES: must be a whole number from 1 to 20 in demo mode (got "${raw}")`]);
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
