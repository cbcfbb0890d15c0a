import type { Config } from '../runtime/config.ts';
import type { AnswerCache } from '../http/answer-cache.ts';
import { ACCESS_TABLES, crmAccessFeature, CrmAccess, type KeyUsage } from '../crm/access.ts';
import { createCrmClientFromConfig, type CrmClient } from '../crm/client.ts';
import { crmEnquiryTargets } from '../crm/enquiry-targets.ts';
import { crmLeadSink } from '../crm/lead-sink.ts';
import { crmAlertSink } from '../crm/alert-sink.ts';
import { savedSearchesFeature } from '../saved-searches/feature.ts';
import type { Mailer } from '../mail/mailer.ts';
import { createSmtpMailer } from '../mail/smtp-mailer.ts';
import { parseMailFrom } from '../runtime/mail-settings.ts';
import { DEMO_SITE_NAME, DEMO_SITE_PHONE } from '../pages/index.ts';
import { savedSearchLimitStores, type SavedSearchLimitStores } from '../saved-searches/router.ts';
import { createSavedSearchService, type SavedSearchService } from '../saved-searches/service.ts';
import { crmListingSource } from '../crm/listing-source.ts';
import { enquiriesFeature } from '../enquiries/feature.ts';
import type { EnquiryLimitStores } from '../enquiries/router.ts';
import { createEnquiryService, type EnquiryService } from '../enquiries/service.ts';
import type { EnquiryTargets } from '../enquiries/targets.ts';
import type { Feature } from '../runtime/feature.ts';
import { createListingsService, listingsFeature, type ListingsService, type ListingsServiceOptions } from '../listings/index.ts';
import { SharedWebhookInbox } from '../cluster/webhook-inbox.ts';
import type { Logger } from '../runtime/log.ts';
import { agencySchema, type SharedDatabase } from '../store/shared-database.ts';
import { openStore, type Store } from '../store/store.ts';
import { shareAgencySync } from '../cluster/replica.ts';
import { LISTING_CACHE_TABLES } from '../listings/cache.ts';
import { CHANGE_TABLES } from '../listings/event-store.ts';
import { PHOTO_INDEX_TABLES } from '../photos/mirror.ts';
import { PUBLISHED_PAGES_TABLES, publishedPages } from '../pages/published.ts';
import { renderSharedSyncMetrics, SharedSync, type SyncBalance } from '../cluster/shared-sync.ts';
import type { Worker } from '../runtime/worker.ts';
import { sharedGateOfKey } from '../cluster/shared-gate.ts';
import { sharedGeocoderGate } from '../cluster/geocoder-gate.ts';
import { createGeocoding, createPlaces, PLACES_LISTING_TABLES, placesFeature, type Geocoding, type PlacesService } from '../places/index.ts';
import { tilesFeature, type MapTiles } from '../tiles/index.ts';
import { createVisitService, visitsFeature, type VisitService } from '../visits/index.ts';
import type { MapBounds } from '../../contract/relay-api.ts';
import { reportsFeature, type ReportsWiring } from '../reports/feature.ts';

/** The demo site's brand colour (demo/site.css --site-brand): the demo's seller reports wear it. */
const DEMO_SITE_ACCENT = '#0f4c5c';

/**
 * One agency as the relay serves it: its store, its CRM client (its access token, the key's one
 * gate), listing cache and sync, enquiry outbox and delivery, and access check. A relay without
 * AGENCIES_FILE is one of these at the root paths; with it, one per agency under /a/<slug>/.
 */
export interface Agency {
  /** Undefined: the one agency of a relay without AGENCIES_FILE. */
  slug: string | undefined;
  config: Config;
  store: Store;
  crm: CrmClient;
  listings: ListingsService;
  access: CrmAccess;
  enquiries: EnquiryService;
  /** Saved searches on their way into the CRM as contacts with requirements. */
  savedSearches: SavedSearchService;
  /** Where its listings are on the map, and the worker that asks the geocoder. */
  places: PlacesService;
  /** What happens to its listings on its site, counted without tracking (server/visits/). */
  visits: VisitService;
  /** Its SMTP mailer (its smtpUrl and mailFrom, or SMTP_URL and MAIL_FROM): undefined unless both are set. */
  mailer?: Mailer;
  /** The box around its placed listings (null while none is): the area its map tiles are served for. Recomputed after each change of the listing cache. */
  mapBounds(): MapBounds | null;
  /**
   * DATABASE_URL: the agency's sync, shared with the other relays on the database (one holds it
   * and runs the sync, change worker, account look-up and access check; the others copy and serve).
   */
  sharedSync?: SharedSync;
  /** Stops its workers, then closes its client and store. */
  close(): Promise<void>;
}

export interface ComposeAgencyOptions {
  log: Logger;
  slug?: string;
  /** The relay's key-wide store, whose limiter and daily budget every agency's client shares (default: the agency's own). */
  limiterStore?: Store;
  /** DATABASE_URL: the agency's shared tables go to its own schema there (prepared before: SharedDatabase.prepareAgencies). */
  sharedDatabase?: SharedDatabase;
  /** Hosts photos may come from when PHOTO_HOSTS is unset. */
  defaultPhotoSources?: Array<string | undefined>;
  enquiryTargets?: EnquiryTargets;
  /** One of many agencies: shared photo folder, one webhook endpoint, the plan made for all (listings/index.ts). */
  shared?: ListingsServiceOptions['shared'];
  photoInUseElsewhere?: ListingsServiceOptions['photoInUseElsewhere'];
  photoGuard?: ListingsServiceOptions['photoGuard'];
  afterSweep?: ListingsServiceOptions['afterSweep'];
  otherAccount?: ListingsServiceOptions['otherAccount'];
  /** Relays on one database with many agencies: how this relay shares the agencies' syncs with the others. */
  syncBalance?: SyncBalance;
  /** After each read of the key's usage (default: this agency's listing budget is planned again). */
  onUsage?: (usage: KeyUsage) => void;
  /** The relay's one answer cache: every agency's rendered answers share its bound (default: the agency's own). */
  answers?: AnswerCache;
  /** The relay's geocoding, shared by its agencies (default: the agency's own, its answers kept in the agency's store). */
  geocoding?: Geocoding;
  /** "estate-embed/<version>", for the geocoder (when this agency makes its own geocoding). */
  userAgent?: string;
  /** Until its cache is first filled, the agency takes its place in the key's fill order, the smallest first (default true; false: in turns). */
  firstFillOrder?: boolean;
  /** The relay's turns for writing first fills, shared by its agencies (listings/fill-turns.ts). */
  fillTurns?: ListingsServiceOptions['fillTurns'];
  /** The relay's public address (PUBLIC_URL, else the one it listens on, known once it does): links in its e-mails name it. */
  relayUrl?: () => string | undefined;
}

/** Opens and wires one agency; nothing runs until its features' workers start. Throws a ConfigError on refused settings, having released what it opened. */
export function composeAgency(config: Config, options: ComposeAgencyOptions): Agency {
  const log = options.slug ? options.log.child({ agency: options.slug }) : options.log;
  const store = openStore(config.dataDir, undefined, { warn: (message, fields) => log.warn(fields, message) });
  let crm: CrmClient | undefined;
  let listings: ListingsService;
  // Bound below, once the workers it runs exist: the sync asks it whether it may run.
  let sharedSync: SharedSync | undefined;
  let places: PlacesService;
  let agentPages: ReturnType<typeof publishedPages> | undefined;
  try {
    options.sharedDatabase?.attach(store, options.slug);
    // Any relay may receive the agency's webhooks; only its sync holder applies them (from this inbox).
    const webhookInbox = options.sharedDatabase
      ? new SharedWebhookInbox({ store, database: options.sharedDatabase, schema: agencySchema(options.slug), log })
      : undefined;
    // DATABASE_URL: its turns shared with every relay on the database (cluster/geocoder-gate.ts), else this relay's own spacing.
    const geocoding =
      options.geocoding ??
      createGeocoding({
        settings: config.places,
        store,
        log,
        userAgent: options.userAgent ?? 'estate-embed',
        gate: options.sharedDatabase && sharedGeocoderGate(config, options.sharedDatabase),
      });
    // A new position drops the rendered answers (the listing service is made just below).
    places = createPlaces({ store, geocoding, log, onPlaced: () => listings.cache.changed(), country: config.site.country });
    crm = createCrmClientFromConfig(config, store, log, {
      limiterStore: options.limiterStore,
      agency: options.slug,
      shared: options.sharedDatabase ? { database: options.sharedDatabase, gate: sharedGateOfKey(config, options.sharedDatabase) } : undefined,
      // Until its cache is first filled, the agency's place in the key's fill order (requests start once the workers do, after this).
      fillOrder: options.firstFillOrder === false ? undefined : () => listings.sync.fillOrder(),
    });
    listings = createListingsService({
      config,
      store,
      log,
      source: crmListingSource({ client: crm, config }),
      defaultPhotoSources: options.defaultPhotoSources,
      shared: options.shared,
      photoInUseElsewhere: options.photoInUseElsewhere,
      photoGuard: options.photoGuard,
      afterSweep: options.afterSweep,
      otherAccount: options.otherAccount,
      holdsSync: options.sharedDatabase ? () => sharedSync?.holdsSync ?? false : undefined,
      webhookInbox,
      // Notices taken from the inbox reach PostgreSQL (the replica) before the inbox forgets them.
      beforeInboxTaken: async () => {
        await sharedSync?.publishNow();
      },
      answers: options.answers,
      placements: places.placements,
      fillTurns: options.fillTurns,
      // The office a listing names when its agents have all left (and the team page): the demo's own when unset.
      office: {
        name: config.site.name ?? (config.demoMode ? DEMO_SITE_NAME : null),
        phone: config.site.phone ?? (config.demoMode ? DEMO_SITE_PHONE : null),
      },
      // The pages' record of published agent pages: an agent who had one and left answers 410 on the API too.
      agentPagePublished: (id) => (agentPages ??= publishedPages(store)).agentWasPublished(id),
    });
  } catch (error) {
    // Refused settings (CRM budget): release what was opened, then let the caller report it.
    crm?.close();
    store.close();
    throw error;
  }
  // What the key and token allow (logged, and named by /readyz and the status CLI when refused), and the key's usage by every tool.
  const access = new CrmAccess({
    client: crm,
    store,
    log,
    listingClass: config.listings.classes[0]!,
    usageCheckMinutes: config.crm.usageCheckMinutes,
    onUsage: options.onUsage ?? ((usage) => listings.replan(usage.others)),
  });
  const enquiries = createEnquiryService({
    settings: config.enquiries,
    store,
    log,
    sink: crmLeadSink(crm, { source: config.enquiries.source, sellerCategories: config.enquiries.sellerCategories, timeZone: config.site.timeZone }),
    sinkTargets: crmEnquiryTargets(crm, { log }),
    targets: options.enquiryTargets ?? listings.enquiryTargets,
    // Relays on one database: claims named by the relay's id (DATA_DIR/relay-id), not by its host and path, which two containers may share.
    owner: options.sharedDatabase?.relayId,
  });
  const mailer = agencyMailer(config, log);
  const savedSearches = createSavedSearchService({
    store,
    log,
    sink: crmAlertSink(crm, {
      categoryIds: config.savedSearches.categoryIds,
      holdingEnquiry: config.savedSearches.holdingEnquiry,
      source: config.enquiries.source,
      classes: config.listings.classes,
      log,
    }),
    settings: config.enquiries,
    owner: options.sharedDatabase?.relayId,
    confirmation: {
      mode: config.savedSearches.confirmation,
      mailer,
      validDays: config.savedSearches.confirmDays,
      // The name visitors know (SITE_NAME, the agency's `name`); the demo's own; else words that still read.
      agencyName: config.site.name ?? (config.demoMode ? DEMO_SITE_NAME : 'the agency'),
      timeZone: config.site.timeZone,
      language: config.site.language,
      relayBase: () => `${config.http.publicUrl ?? options.relayUrl?.() ?? `http://localhost:${config.http.port}`}${options.slug ? `/a/${options.slug}` : ''}`,
    },
  });
  if (options.sharedDatabase) {
    const { lease, replica } = shareAgencySync(store, {
      tables: [...PHOTO_INDEX_TABLES, ...LISTING_CACHE_TABLES, ...CHANGE_TABLES, ...ACCESS_TABLES, ...PUBLISHED_PAGES_TABLES, ...PLACES_LISTING_TABLES],
      holder: options.sharedDatabase.relayId,
      leaseMs: config.listings.syncLeaseMs,
      // Table, key and why, once per published row: never its values.
      onSetAside: (row) => log.warn(row, 'a row copied from PostgreSQL was set aside, not applied (the copy goes on without it)'),
    });
    // The service, as the closures below see it (`listings` is assigned in the try above).
    const agencyListings = listings;
    sharedSync = new SharedSync({
      agency: options.slug,
      schema: agencySchema(options.slug),
      lease,
      replica,
      database: options.sharedDatabase,
      leaderWorkers: [listings.account, listings.sync, listings.changes, access, places.worker],
      runSync: (kind) => void agencyListings.sync.run(kind),
      balance: options.syncBalance,
      maxLagSeconds: config.listings.replicaMaxLagSeconds,
      canHandOver: () => agencyListings.cache.readState().lastSuccessAt !== null,
      onCopied: (tables) => {
        agencyListings.cache.reloaded();
        agencyListings.account.reload();
        // Files of images the copy names and this relay lacks, from the file host; then files no agency names any more.
        const fill = agencyListings.photoFill;
        const photosChanged = tables.has('*') || PHOTO_INDEX_TABLES.some((table) => tables.has(table));
        if (fill && photosChanged)
          void fill
            .fillMissing()
            .then(() => fill.prune())
            .catch((error: unknown) => log.warn({ error: (error as Error).message }, 'photo fill failed; tried again at the next copy'));
      },
      onRoleChange: (leading) => {
        // A new holder's mirror counts an image on record as present: fill what this relay lacks first.
        const fill = agencyListings.photoFill;
        if (leading && fill) void fill.fillMissing({ retryFailed: true }).catch(() => undefined);
      },
      log,
    });
  }
  // Where the agency's mail goes (scheme, host and port) and how its alerts are confirmed: never the credentials.
  log.info(
    mailSummary({ mailer, config }),
    mailer
      ? 'saved searches: confirmation e-mails go through this SMTP server'
      : config.savedSearches.confirmation === 'email'
        ? 'saved searches: no SMTP server set (SMTP_URL and MAIL_FROM), so alerts are not offered'
        : 'saved searches: no SMTP server set; an agent confirms each new one',
  );
  const cache = listings.cache;
  const visits = createVisitService({
    store,
    settings: config.visits,
    timeZone: config.site.timeZone,
    agency: options.slug,
    knownListing: (id) => cache.listingTarget(id) !== undefined,
    log,
  });
  const client = crm;
  // Listings written, removed, placed or copied from the sync holder all say so through the cache.
  let bounds: MapBounds | null | undefined;
  listings.cache.onChange(() => (bounds = undefined));
  const placements = places.placements;
  return {
    slug: options.slug,
    config,
    store,
    crm: client,
    listings,
    access,
    enquiries,
    savedSearches,
    places,
    visits,
    mailer,
    mapBounds: () => (bounds === undefined ? (bounds = placements.bounds()) : bounds),
    sharedSync,
    async close() {
      await Promise.all(agencyWorkers(this).map((worker) => worker.stop()));
      await this.listings.photoFill?.stop();
      await mailer?.close();
      client.close();
      store.close();
    },
  };
}

export interface AgencyFeatureOptions {
  /** Origins of pages the relay serves itself (may post enquiries). */
  ownOrigins: string[];
  log: Logger;
  /** The per-client enquiry counts (default: the router's own); AGENCIES_FILE keeps them per agency across reloads. */
  enquiryLimitStores?: EnquiryLimitStores;
  /** The same for saved searches. */
  savedSearchLimitStores?: SavedSearchLimitStores;
  /** The relay's map tiles and labels layer (one set for every agency; undefined: MAP_TILE_URL unset), served within the area of this agency's listings. */
  tiles?: MapTiles;
  /** The seller's reports: where their visit counts come from (default: the agency's visits module) and their clock. */
  reports?: ReportsWiring;
}

/** The agency's HTTP features (listings, access, places and map tiles, enquiries; the relay adds pages for a root agency). */
export function agencyFeatures(agency: Agency, options: AgencyFeatureOptions): Feature[] {
  const { config } = agency;
  // Relays on one database: the sync's workers run under the shared sync, on the relay holding it.
  const shared = agency.sharedSync;
  const listings = listingsFeature(agency.listings);
  const access = crmAccessFeature(agency.access);
  return [
    shared
      ? {
          ...listings,
          workers: [shared],
          metrics: async () => `${(await listings.metrics?.()) ?? ''}${renderSharedSyncMetrics([shared])}`,
          // A relay whose copy of the holder's tables fell behind answers not ready: the load balancer sends visitors to one that is current.
          readiness: { ...listings.readiness, replicaCopy: () => shared.copyWithin(config.listings.replicaMaxLagSeconds) },
          readinessDetail: () => ({ ...listings.readinessDetail?.(), replica: replicaDetail(shared) }),
        }
      : listings,
    shared ? { ...access, workers: [] } : access,
    shared ? { ...placesFeature(agency.places), workers: [] } : placesFeature(agency.places),
    tilesFeature({ config, tiles: options.tiles, bounds: () => agency.mapBounds(), ownOrigins: options.ownOrigins }),
    enquiriesFeature(agency.enquiries, {
      allowedOrigins: config.http.allowedOrigins,
      ownOrigins: options.ownOrigins,
      limits: config.enquiries,
      limitStores: options.enquiryLimitStores,
      log: agency.slug ? options.log.child({ agency: agency.slug }) : options.log,
    }),
    savedSearchesFeature(agency.savedSearches, {
      allowedOrigins: config.http.allowedOrigins,
      ownOrigins: options.ownOrigins,
      limits: { ...config.enquiries, dailyBudget: config.savedSearches.dailyBudget },
      limitStores: options.savedSearchLimitStores ?? savedSearchLimitStores(),
      // Only once the first sync has filled the cache: a half-filled one would refuse suburbs still on their way.
      knownSuburbs: () => (agency.listings.cache.readState().lastSuccessAt === null ? [] : agency.listings.cache.suburbs()),
      log: agency.slug ? options.log.child({ agency: agency.slug }) : options.log,
    }),
    reportsFeature({
      store: agency.store,
      listings: agency.listings,
      visits: options.reports?.visits?.(agency) ?? agency.visits.counts,
      timeZone: config.site.timeZone,
      agencyName: config.site.name ?? (config.demoMode ? DEMO_SITE_NAME : 'Your agency'),
      accent: config.site.brandColour ?? (config.demoMode ? DEMO_SITE_ACCENT : undefined),
      photoOrigins: config.http.publicUrl ? [new URL(config.http.publicUrl).origin] : [],
      log: agency.slug ? options.log.child({ agency: agency.slug }) : options.log,
      now: options.reports?.now,
    }),
    visitsFeature(agency.visits, {
      allowedOrigins: config.http.allowedOrigins,
      ownOrigins: options.ownOrigins,
      beaconsPerMinute: config.visits.beaconsPerMinute,
    }),
  ];
}

/**
 * The agency's mailer when both an SMTP URL and a From are set (checked by config.ts or
 * AGENCIES_FILE already). A From without a name goes out under the agency's name, so the visitor
 * sees who writes.
 */
export function agencyMailer(config: Config, log: Logger): Mailer | undefined {
  const { smtpUrl, from } = config.mail;
  if (smtpUrl === undefined || from === undefined) return undefined;
  const sender = parseMailFrom(from);
  if (typeof sender === 'string') throw new Error(`MAIL_FROM: ${sender}`);
  const name = sender.name ?? config.site.name ?? (config.demoMode ? DEMO_SITE_NAME : undefined);
  return createSmtpMailer({ url: smtpUrl, from: name ? { name, address: sender.address } : sender, log });
}

/** What an operator is told of an agency's mail (the status CLI, the startup log): where it goes and how alerts are confirmed, never the credentials. */
export function mailSummary(agency: Pick<Agency, 'mailer' | 'config'>): { mail: string | null; alertConfirmation: 'email' | 'agent' } {
  return { mail: agency.mailer?.describe ?? null, alertConfirmation: agency.config.savedSearches.confirmation };
}

/** The /readyz body's account of a relay's copy (DATABASE_URL). */
export function replicaDetail(shared: SharedSync): { lagSeconds: number | null; rowsSetAside: number } {
  const lag = shared.replicaLagSeconds;
  let rowsSetAside = 0;
  for (const count of shared.rowsSetAside.values()) rowsSetAside += count;
  // JSON has no Infinity: null before a first copy.
  return { lagSeconds: Number.isFinite(lag) ? Math.round(lag) : null, rowsSetAside };
}

/** Every background job of an agency: the account look-up, sync, change stream, access check, delivery. */
export function agencyWorkers(agency: Agency): Worker[] {
  // Every relay counts the beacons it takes: its flushes add to the agency's shared counts.
  if (agency.sharedSync) return [agency.sharedSync, agency.enquiries.worker, agency.savedSearches.worker, agency.savedSearches.confirmer, agency.visits.worker];
  return [
    agency.listings.account,
    agency.listings.sync,
    agency.listings.changes,
    agency.access,
    agency.places.worker,
    agency.enquiries.worker,
    agency.savedSearches.worker,
    agency.savedSearches.confirmer,
    agency.visits.worker,
  ];
}
