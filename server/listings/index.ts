import { Router } from 'express';
import type { Office } from '../../contract/relay-api.ts';
import type { Config } from '../runtime/config.ts';
import type { AnswerCache } from '../http/answer-cache.ts';
import type { AgentTarget, EnquiryTargets, ListingTarget } from '../enquiries/targets.ts';
import type { Logger } from '../runtime/log.ts';
import { photoHosts, PhotoHostAllowList } from '../photos/hosts.ts';
import type { PhotoFolderGuard } from '../photos/folder-guard.ts';
import { forgetMissingPhotoFiles, PhotoMirror } from '../photos/mirror.ts';
import { photosRouter } from '../photos/routes.ts';
import { PhotoFill } from '../photos/fill.ts';
import { inTransaction, type Store } from '../store/store.ts';
import type { Feature } from '../runtime/feature.ts';
import { assertBudget, planBudget, type BudgetedLists, type BudgetPlan, type KnownSizes } from './budget.ts';
import { ListingCache } from './cache.ts';
import { listingsRouter } from './routes.ts';
import { publicListings, type PublicListings } from './public-listings.ts';
import { ChangeStore } from './event-store.ts';
import { CrmChangeWorker, renderPushMetrics } from './events.ts';
import { ListingSync } from './sync.ts';
import { TeamRules } from './team.ts';
import type { ListingSource } from './source.ts';
import { AgencyAccount } from './account.ts';
import { webhookRouter, type WebhookCounts, type WebhookTarget } from './webhook.ts';
import type { Clock } from '../runtime/clock.ts';
import type { WebhookInbox } from './inbox.ts';
import type { ListingPlacements } from './placement.ts';
import type { FillTurns } from './fill-turns.ts';

export { BudgetRefusedError, planBudget, type BudgetPlan } from './budget.ts';
export { ListingCache } from './cache.ts';
export { ListingSync, type SyncReport } from './sync.ts';
export { FillTurns } from './fill-turns.ts';
export { CrmChangeWorker } from './events.ts';
export { AgencyAccount } from './account.ts';
export type { PublicListings } from './public-listings.ts';
export { webhookRouter, type WebhookCounts, type WebhookTarget } from './webhook.ts';

export interface ListingsService {
  cache: ListingCache;
  mirror: PhotoMirror;
  /** Relays on one database: fills the photo files of the copied index from the file host (photos/fill.ts). */
  photoFill?: PhotoFill;
  /** The background worker (start/stop); tests call `sync.run('full' | 'incremental')` directly. */
  sync: ListingSync;
  /** Applies the CRM's webhooks and reads its event stream (a worker, like sync). */
  changes: CrmChangeWorker;
  /** The agency's account id at the source, learned at start (a worker): webhooks of other accounts are ignored. */
  account: AgencyAccount;
  webhookCounts: WebhookCounts;
  /** Where a verified webhook for this agency is stored and applied (the shared webhook endpoint routes here). */
  webhookTarget: WebhookTarget;
  /** Change notices stored and not yet applied (a gauge of /metrics). */
  pendingChanges(): number;
  /** When the oldest change notice still waiting was received (undefined: none waits). */
  oldestPendingChangeAt(): number | undefined;
  /**
   * When the cache was last known in step with the CRM: the later of the last successful sync and
   * the last event-stream read (each brings every change up to then); null before the first fill.
   */
  syncedAt(): number | null;
  /** List sizes from the cache, for the plan of all agencies. */
  sizes(): KnownSizes;
  /** The source's lists and page size, for the plan. */
  budgetedLists: BudgetedLists;
  /** Prometheus lines for the CRM's push (appended to /metrics). */
  metrics(): string;
  /**
   * Forgets the images whose files are gone from the photo folder (any, judged by their largest
   * variant; or every variant of the one `hash`) and has
   * the next sync fetch their listings' photos again (a full sweep): no broken image is served.
   * Returns how many images were forgotten.
   */
  forgetMissingPhotos(only?: { hash: string }): number;
  plan: BudgetPlan;
  /**
   * Plans the budget again with the cached list sizes and, once known, what other tools spent today
   * with the same API key (GET /integrator/usage); logs the plan, saying so when the key is shared.
   */
  replan(othersToday?: number): BudgetPlan;
  allowList: PhotoHostAllowList;
  /** The public listing shape from the cache (what the API serves; the server-rendered pages read it too). */
  publicListings: PublicListings;
  /** GET /api/v1/listings[/:id], GET /api/v1/agents, and (one agency alone) GET /photos/:file, POST /hooks/crm. */
  router: Router;
  /** For the enquiry relay: the CRM ids of a cached listing (undefined: not a listing we show). */
  listingTarget(id: number): ListingTarget | undefined;
  /** For the enquiry relay: the CRM user of an agent shown on the web (undefined otherwise). */
  agentTarget(id: number): AgentTarget | undefined;
  /** The same look-ups as the enquiry service's EnquiryTargets (they throw while the cache has never been filled). */
  enquiryTargets: EnquiryTargets;
}

export interface ListingsServiceOptions {
  config: Config;
  store: Store;
  log: Logger;
  /** Where listings, staff, open homes and change notices come from (crm/listing-source.ts for this CRM). */
  source: ListingSource;
  /** Hosts photos may come from when PHOTO_HOSTS is unset (the CRM's, the demo simulator's). */
  defaultPhotoSources?: Array<string | undefined>;
  now?: Clock;
  /**
   * One of many agencies on the relay (AGENCIES_FILE): the budget is planned for all of them
   * together (not here), webhooks arrive at the relay's one endpoint and photos sit in one shared
   * folder served at /photos/, so this service mounts neither route.
   */
  shared?: {
    photoDir: string;
  };
  /** Whether another agency on this relay still refers to an image: its files are then kept by the clean-up. */
  photoInUseElsewhere?: (hash: string) => boolean;
  /** After each full sweep (the relay of many agencies plans them again once a guessed size is known). */
  afterSweep?: () => void;
  /** The guard of a photo folder several agencies write to (photos/folder-guard.ts). */
  photoGuard?: PhotoFolderGuard;
  /** One agency at the root beside others (demo mode with SIM_AGENCIES): a webhook naming another account goes to that agency, if served here. */
  otherAccount?: (account: string) => WebhookTarget | undefined;
  /** Relays on one database: whether this relay holds the agency's sync (ListingSync's holdsSync). */
  holdsSync?: () => boolean;
  /**
   * With DATABASE_URL: the agency's webhook inbox shared by every relay. Webhooks are stored there
   * (whichever relay the CRM reached) and the change worker, run by the agency's sync holder, takes
   * them into its queue. Without it, as before: the notice goes to this relay's own queue.
   */
  webhookInbox?: WebhookInbox;
  /** With webhookInbox: awaited before taken notices leave the inbox (CrmChangeWorker's beforeInboxTaken). */
  beforeInboxTaken?: () => Promise<void>;
  /** The relay's one answer cache, shared by every agency (http/answer-cache.ts; default: the service's own). */
  answers?: AnswerCache;
  /** Where listings are on a map (server/places/): told of every listing written, read by the public listing. */
  placements?: ListingPlacements;
  /** Many agencies on one relay: first fills write their listings a few at a time, the smallest first (fill-turns.ts). */
  fillTurns?: FillTurns;
  /** The office as the pages name it (default: SITE_NAME and SITE_PHONE as set; the demo's are the composition's to give). */
  office?: Office;
  /** Whether an agent's page was ever published (the pages' record): GET /api/v1/agents/{id} then answers 410 for one who left. */
  agentPagePublished?(id: number): boolean;
}

/**
 * The listings side of the relay: cache, sync worker, photo mirror and public routes. Checks the
 * CRM budget first: settings that would spend more than CRM_BUDGET_SHARE of the daily limit throw
 * a BudgetRefusedError (a ConfigError) naming the setting to change.
 */
export function createListingsService(options: ListingsServiceOptions): ListingsService {
  const { config, store, log, source } = options;
  const cache = new ListingCache(store, options.placements);

  const sizes = () => ({
    listingsBySource: cache.countsBySource(),
    agents: cache.counts().agents,
    openHomes: cache.countOpenHomes(),
  });
  const plan = planBudget(config, source, sizes());
  if (!options.shared) logAndAssertPlan();
  function logAndAssertPlan() {
    log.info(
      {
        crmRequestsPerDay: plan.perDay,
        allowed: plan.allowed,
        dailyLimit: config.crm.dailyLimit,
        eventStreamReads: plan.eventStreamReads,
        eventStreamIntervalMinutes: plan.eventStreamIntervalMinutes,
        freshness: plan.freshness,
        lines: plan.lines.map((line) => `${line.what}: ${line.perDay}`),
      },
      `listing sync budget: about ${plan.perDay} CRM requests a day of ${config.crm.dailyLimit} ` +
        `(${Math.round((plan.perDay / config.crm.dailyLimit) * 100)}%; allowed ${plan.allowed} by CRM_BUDGET_SHARE=${config.crm.budgetShare}); ` +
        `event stream read every ${plan.eventStreamIntervalMinutes} min (${plan.eventStreamReads} reads a day): a change reaches the listing API ` +
        `within ~${plan.freshness.withWebhooksSeconds} s with webhooks, within ${plan.freshness.withoutWebhooksSeconds} s when a webhook is lost`,
    );
    assertBudget(plan);
  }

  const allowList = new PhotoHostAllowList(photoHosts(config.photos.hosts, options.defaultPhotoSources ?? [config.crm.baseUrl]));
  // Said once per relay, not once per agency of many.
  if (!options.shared) log.info({ photoHosts: allowList.hosts }, 'photo mirror fetches only from these hosts (PHOTO_HOSTS)');
  const mirror = new PhotoMirror({
    store,
    log,
    allowList,
    widths: config.photos.widths,
    maxBytes: config.photos.maxBytes,
    now: options.now,
    photoDir: options.shared?.photoDir,
    inUseElsewhere: options.photoInUseElsewhere,
    guard: options.photoGuard,
  });
  // The plan at start knows list sizes only from the cache; after each sweep it is made again with
  // the real ones, and a plan that no longer fits is reported with the setting to change.
  let othersKnown: number | undefined;
  const replan = (othersToday?: number): BudgetPlan => {
    if (othersToday !== undefined) othersKnown = othersToday;
    const nowMs = options.now?.() ?? Date.now();
    const dayElapsed = (nowMs % 86_400_000) / 86_400_000;
    const current = planBudget(config, source, sizes(), othersKnown === undefined ? undefined : { othersToday: othersKnown, dayElapsed });
    const shared = current.sharedKey
      ? ` The API key is shared: other tools spent ${current.sharedKey.othersToday} requests so far today (about ${current.sharedKey.othersPerDay} a day at this pace), which leaves this relay ${current.allowed}.`
      : '';
    const fields = { crmRequestsPerDay: current.perDay, allowed: current.allowed, ...(current.sharedKey ? { sharedKey: current.sharedKey } : {}) };
    if (current.fits) log.info(fields, `listing sync budget re-planned: about ${current.perDay} CRM requests a day, ${current.allowed} allowed.${shared}`);
    else log.error(fields, `listing sync budget exceeded: ${current.advice}.${shared}`);
    return current;
  };
  // Many agencies: the relay plans them all together (server/compose/agency-set.ts).
  const sync = new ListingSync({
    source,
    cache,
    mirror,
    log,
    config,
    now: options.now,
    holdsSync: options.holdsSync,
    fillTurns: options.fillTurns,
    afterSweep: () => {
      if (!options.shared) replan();
      options.afterSweep?.();
    },
  });

  const changeStore = new ChangeStore(store);
  const changes = new CrmChangeWorker({
    store: changeStore,
    sync,
    cache,
    source,
    log,
    config,
    now: options.now,
    inbox: options.webhookInbox,
    beforeInboxTaken: options.beforeInboxTaken,
  });
  const webhookCounts: WebhookCounts = { accepted: 0, duplicates: 0, ignored: 0, unavailable: 0, otherAccount: 0, refused: 0 };
  const account = new AgencyAccount({ store: changeStore, source, log });

  const webhookTarget: WebhookTarget = options.webhookInbox
    ? { changes: changeStore, inbox: options.webhookInbox, onStored: () => changes.inboxArrived(), counts: webhookCounts }
    : { changes: changeStore, onStored: () => changes.kick(), counts: webhookCounts };

  const router = Router({ caseSensitive: true, strict: true });
  if (!options.shared) {
    router.use(
      webhookRouter({
        feed: source.changes,
        toleranceSeconds: config.listings.webhookToleranceSeconds,
        targetOf: (named) => (!account.isOther(named) ? webhookTarget : named === undefined ? undefined : options.otherAccount?.(named)),
        counts: webhookCounts,
        log,
        now: options.now,
      }),
    );
  }
  const listings = publicListings({
    cache,
    mirror,
    base: config.http.publicUrl ?? '',
    now: options.now,
    placements: options.placements,
    team: config.team,
    office: options.office ?? { name: config.site.name ?? null, phone: config.site.phone ?? null },
  });
  // A person the agency hides (TEAM_HIDDEN) has no card and no page, and takes no contact-me lead either.
  const teamRules = new TeamRules(config.team);
  const agentTarget = (id: number) => (teamRules.isHidden(id) ? undefined : cache.agentTarget(id));
  router.use(
    listingsRouter({
      config,
      cache,
      mirror,
      listings,
      answers: options.answers,
      now: options.now,
      placements: options.placements,
      agentPagePublished: options.agentPagePublished,
    }),
  );
  // Relays on one database: a relay that does not hold the sync gets the photo index copied, not the
  // files; it fetches them from the file host by content hash (byte for byte the holder's).
  const photoFill = options.holdsSync
    ? new PhotoFill({
        store,
        log,
        allowList,
        maxBytes: config.photos.maxBytes,
        photoDir: mirror.photoDir,
        guard: options.photoGuard,
        inUseElsewhere: options.photoInUseElsewhere,
      })
    : undefined;
  const forgetMissingPhotos = (only?: { hash: string }): number => {
    // Relays on one database: the photo index is the sync holder's to change; a missing file is filled instead.
    if (photoFill) return 0;
    const images = inTransaction(store, () => {
      const missing = forgetMissingPhotoFiles(store, mirror.photoDir, only ?? { largestOnly: true });
      if (missing.images > 0) cache.refetch(missing.listingIds);
      return missing.images;
    });
    // Rendered answers naming those images are dropped.
    if (images > 0) cache.changed();
    if (images > 0)
      log.warn({ images }, `${images} mirrored image(s) had no file in the photo folder: no longer shown, fetched again at the next sync (a full sweep)`);
    return images;
  };
  if (!options.shared)
    router.use(photosRouter(mirror.photoDir, { fill: photoFill && ((hash) => photoFill.fillOne(hash)), onMissing: (hash) => forgetMissingPhotos({ hash }) }));

  return {
    cache,
    mirror,
    photoFill,
    sync,
    changes,
    account,
    webhookCounts,
    webhookTarget,
    pendingChanges: () => changeStore.pending(),
    oldestPendingChangeAt: () => changeStore.oldestReceivedAt(),
    syncedAt: () => {
      const { lastSuccessAt } = cache.readState();
      const streamReadAt = changeStore.streamPosition().lastReadAt;
      if (lastSuccessAt === null) return null;
      return streamReadAt === undefined ? lastSuccessAt : Math.max(lastSuccessAt, streamReadAt);
    },
    sizes,
    budgetedLists: source,
    metrics: () => renderPushMetrics(webhookCounts, changes.counts, changeStore.pending()),
    forgetMissingPhotos,
    plan,
    replan,
    allowList,
    publicListings: listings,
    router,
    listingTarget: (id) => cache.listingTarget(id),
    agentTarget,
    enquiryTargets: {
      listing: async (id) => cache.listingTarget(id) ?? unlessNeverSynced(cache),
      agent: async (id) => agentTarget(id) ?? unlessNeverSynced(cache),
      openHome: async (listingId, openHomeId) => cache.openHome(listingId, openHomeId) ?? unlessNeverSynced(cache),
    },
  };
}

/** Before the first successful sync "not in the cache" proves nothing: say so (the enquiry is then resolved later). */
function unlessNeverSynced(cache: ListingCache): undefined {
  if (cache.readState().lastSuccessAt === null) throw new Error('The listing cache has not been filled from the CRM yet.');
  return undefined;
}

/** The listings feature as the relay mounts it: its routes, its two workers, ready once the cache was filled, the push metrics. */
export function listingsFeature(listings: ListingsService): Feature {
  return {
    name: 'listings',
    router: listings.router,
    workers: [listings.account, listings.sync, listings.changes],
    // Not ready until the listing cache has been filled once: before that, pages would show no
    // listings. Afterwards a CRM outage does not make the relay unready: it serves its cache.
    readiness: { listingCache: () => listings.cache.readState().lastSuccessAt !== null },
    metrics: () => listings.metrics(),
  };
}
