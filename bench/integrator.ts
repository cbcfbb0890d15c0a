/**
 * Integrator scale (issue #11): 200 agencies of 100 listings (one photo each) on one API key,
 * against the CRM simulator over real HTTP, one relay serving them all from an AGENCIES_FILE
 * (written 0600 to a temp folder) started through startRelay with its workers running.
 *
 * Two runs of the whole set-up (test/support/integrator-rig.ts):
 *
 * 1. Real time, the CRM's limits (10 a second, 10,000 a day) and the relay's defaults:
 *    - the first sync of every agency at once, timed until each agency's listing API lists all its
 *      listings for sale; meanwhile an enquiry every BENCH_INTEGRATOR_ENQUIRY_MS to a different
 *      agency, timed from its 202 to the CRM holding it (enquiry delivery p95 while all sync);
 *    - changes driven through the simulator (POST /__sim/drive: round robin over the agencies,
 *      webhooks delivered), each timed from the CRM change to the agency's listing API.
 * 2. A compressed clock, for the changes whose webhooks are lost: the relay's plan reads each
 *    agency's event stream every 8 h at 200 × 100, which no bench can wait for. The relay and
 *    the simulator get COMPRESSION× the daily limit and SYNC_INTERVAL_MINUTES of the planned
 *    interval / COMPRESSION, so the plan's interval comes out COMPRESSION× shorter. Two figures:
 *    the measured times multiplied back (pessimistic: the processing after the read, slowed by
 *    200 agencies reading every minute at 10 requests a second, is scaled too), and a bound that
 *    scales only the wait for the read (at most one interval): p95 + interval × (COMPRESSION − 1).
 *
 * The first fill's order (issue 23): agencies never filled fill one after another at the key's gate,
 * the smallest first, not all in turns; (issue 33) each serves before its photos are mirrored, and
 * the start-up checks wait for every fill. Reported as the first, median and last agency serving
 * against the floor the CRM's per-second limit sets in the same run: the cold start's requests
 * (counted by the simulator once the relay goes quiet, start-up checks included) at 10 a second;
 * and, stricter, against the requests made before the last agency served. Before the order,
 * 200 × 100 filled first at 339 s, median 371 s, all 383 s, against a floor of about 272 s.
 *
 * CRM calls per day: a day cannot run in real time here, so, as the freshness bench does, each
 * activity's cost is measured at the simulator and multiplied by its daily count in the plan
 * (planAgencies): one sweep per agency (measured: the first sync's requests / agencies), the
 * planned stream reads, the key's usage reads, and the day's changes (2 % of listings) at their
 * measured cost with webhooks delivered and lost. Baseline in the same run: today's way, one relay
 * per agency at default settings (planBudget for one agency of the same size, × agencies), each
 * with its own limiter on the shared key.
 *
 * The peak requests in any second is the simulator's own count for the key (every arrival,
 * refused ones included) over both runs.
 *
 * Env: BENCH_INTEGRATOR_AGENCIES (200), BENCH_INTEGRATOR_LISTINGS (100), BENCH_INTEGRATOR_CHANGES
 * (60 per case), BENCH_INTEGRATOR_COMPRESSION (480), BENCH_INTEGRATOR_ENQUIRY_MS (2000).
 */
import { loadConfig } from '../server/runtime/config.ts';
import { planAgencies, planBudget, type AgencyToPlan } from '../server/listings/budget.ts';
import {
  crmEnquiryTexts,
  crmListings,
  getJson,
  isOnSale,
  listedCount,
  postEnquiry,
  publicListingId,
  RelayCloseTimeout,
  startIntegratorRig,
  type IntegratorRig,
  type RigAgency,
} from '../test/support/integrator-rig.ts';
import type { DrivenChange } from '../crm-sim/drive.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const DAILY_CHANGE_SHARE = 0.02;
/** The CRM's per-second limit per key (the rig's simulator and relay default): the floor of the first fill. */
const REQUESTS_PER_SECOND = 10;
/** How long the fill may make no progress before the agencies still empty are reported instead of waited for. */
const STALL_MS = 180_000;
const CLOSE_TIMEOUT_MS = 120_000;
/** No CRM request for this long: the cold start's requests are through. */
const QUIET_MS = 5_000;
/** Relays that had not closed CLOSE_TIMEOUT_MS after close(): reported with the figures. */
let slowCloses = 0;
/** The relay's defaults, for the plan (a single-agency config: planAgencies reads only its budget and listing settings). */
const DEFAULT_ENV = { CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token', PUBLIC_URL: 'https://relay.agency.test' };

export interface IntegratorBenchOptions {
  agencies: number;
  listings: number;
  changes: number;
  compression: number;
  enquiryEveryMs: number;
  /** Skip the compressed run (the small variant in npm test). */
  skipLost?: boolean;
  note(message: string): void;
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const options: IntegratorBenchOptions = {
    agencies: positive('BENCH_INTEGRATOR_AGENCIES', 200),
    listings: positive('BENCH_INTEGRATOR_LISTINGS', 100),
    changes: positive('BENCH_INTEGRATOR_CHANGES', 60),
    compression: positive('BENCH_INTEGRATOR_COMPRESSION', 480),
    enquiryEveryMs: positive('BENCH_INTEGRATOR_ENQUIRY_MS', 2000),
    note: context.note,
  };
  return measureIntegrator(options);
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`${name} must be a positive whole number (got "${raw}")`);
  return value;
}

export async function measureIntegrator(options: IntegratorBenchOptions): Promise<BenchFigure[]> {
  const { note } = options;
  const defaults = loadConfig(DEFAULT_ENV);
  slowCloses = 0;

  // 1. Real time.
  const rig = await startIntegratorRig({
    agencies: options.agencies,
    listings: options.listings,
    dataDirPrefix: 'estate-bench-integrator-',
    closeTimeoutMs: CLOSE_TIMEOUT_MS,
  });
  let realTime: Awaited<ReturnType<typeof realTimeRun>>;
  try {
    note(`simulator: ${options.agencies} accounts × ${options.listings} listings built in ${round(rig.simulatorStartSeconds)} s; relay started`);
    realTime = await realTimeRun(rig, options);
  } finally {
    await closeRig(rig, note);
  }

  // 2. Compressed clock, webhooks lost. The plan as the relay makes it, from the agencies' cached sizes.
  const plan = planAgencies(defaults, realTime.lists, realTime.sizes);
  const plannedInterval = plan.catchUpIntervalMinutes;
  let lost: Awaited<ReturnType<typeof lostRun>> | undefined;
  if (!options.skipLost && plannedInterval !== null) {
    // The same plan with COMPRESSION× the day's limit and the stream floor at the compressed interval: the interval the relay will use.
    const compressedEnv = { CRM_DAILY_LIMIT: String(10_000 * options.compression), SYNC_INTERVAL_MINUTES: String(plannedInterval / options.compression) };
    const compressed = planAgencies(loadConfig({ ...DEFAULT_ENV, ...compressedEnv }), realTime.lists, realTime.sizes);
    if (compressed.catchUpIntervalMinutes === null) throw new Error('the compressed plan has no stream reads: lower BENCH_INTEGRATOR_COMPRESSION');
    lost = await lostRun(options, compressedEnv, plannedInterval / compressed.catchUpIntervalMinutes, compressed.catchUpIntervalMinutes);
  }

  // 3. A day, from measured costs and the plan's counts.
  const agencies = options.agencies;
  const sweepCost = realTime.sweepRequests;
  const readsPerAgency = plan.agencies[0]?.catchUpReads ?? 0;
  const usageReads = plan.keyRequests;
  const changesPerDay = Math.round(agencies * options.listings * DAILY_CHANGE_SHARE);
  const changesPerAgency = changesPerDay / agencies;
  const base = agencies * sweepCost + agencies * readsPerAgency + usageReads;
  const perDayDelivered = Math.round(base + changesPerDay * realTime.requestsPerChangeDelivered);
  // With every webhook lost, a stream read that names changes costs one refresh, however many it names.
  const refreshesPerAgency = Math.min(changesPerAgency, readsPerAgency);
  const perDayLost = lost ? Math.round(base + agencies * refreshesPerAgency * lost.requestsPerChange) : null;
  const onePlan = planBudget(defaults, realTime.lists, realTime.sizes[0]!.sizes);
  const separateRelaysPerDay = onePlan.perDay * agencies;
  const peak = Math.max(realTime.peakPerSecond, lost?.peakPerSecond ?? 0);
  const promisedLostSeconds = plan.agencies[0]?.freshness.withoutWebhooksSeconds ?? null;

  return [
    {
      name: 'integrator-calls',
      agencies,
      listingsPerAgency: options.listings,
      perDayWebhooksDelivered: perDayDelivered,
      perDayWebhooksLost: perDayLost,
      perAgencyPerDay: round((perDayLost ?? perDayDelivered) / agencies),
      goalPerDay: 5_000,
      plannedPerDay: plan.perDay,
      baselineSeparateRelaysPerDay: separateRelaysPerDay,
      vsBaseline: round((perDayLost ?? perDayDelivered) / separateRelaysPerDay, 3),
      sweepRequestsPerAgency: round(sweepCost),
      startUpRequestsPerAgency: round((realTime.firstSyncRequests - agencies * sweepCost) / agencies),
      streamReadsPerAgencyPerDay: readsPerAgency,
      usageReadsPerDay: usageReads,
      changesPerDay,
      requestsPerChangeDelivered: round(realTime.requestsPerChangeDelivered),
      requestsPerChangeLost: lost ? round(lost.requestsPerChange) : null,
      clock: 'per-activity costs measured at the simulator over real HTTP, times their daily counts in the relay’s plan (extrapolated, not a day run)',
    },
    {
      name: 'integrator-rate',
      peakRequestsInAnySecond: peak,
      goalPerSecond: 10,
      refusedPerSecond: realTime.refusedPerSecond + (lost?.refusedPerSecond ?? 0),
      relaysSlowToClose: slowCloses,
      clock: 'counted by the simulator for the key over both runs (real time and compressed), refused arrivals included',
    },
    {
      name: 'integrator-freshness',
      samples: realTime.delivered.samples,
      deliveredP50Seconds: realTime.delivered.p50,
      deliveredP95Seconds: realTime.delivered.p95,
      deliveredGoalSeconds: 10,
      lostSamples: lost?.latency.samples ?? 0,
      lostP50Seconds: lost ? round(lost.latency.p50 * lost.compression) : null,
      lostP95Seconds: lost ? round(lost.latency.p95 * lost.compression) : null,
      // A change waits at most one stream interval for the read that finds it; the rest is processing, which the CRM's real pace would not stretch.
      lostP95BoundSeconds: lost ? round(lost.latency.p95 + lost.intervalMinutes * 60 * (lost.compression - 1)) : null,
      lostPromisedSeconds: promisedLostSeconds,
      lostMeasuredP95CompressedSeconds: lost?.latency.p95 ?? null,
      plannedCatchUpMinutes: plannedInterval,
      compressedCatchUpMinutes: lost ? round(lost.intervalMinutes, 3) : null,
      compression: lost?.compression ?? null,
      clock: lost
        ? `delivered: real time; lost: stream read every ${round(lost.intervalMinutes * 60)} s instead of ${plannedInterval} min (${round(lost.compression)}× faster); ` +
          `lostP50/P95 are the measured times ×${round(lost.compression)} (processing scaled too: pessimistic), lostP95Bound scales only the wait (at most one interval)`
        : 'delivered: real time; lost: not run',
    },
    {
      name: 'integrator-first-sync',
      allFilledSeconds: realTime.allFilledSeconds,
      agenciesNotFilled: realTime.unfilled.length + (lost?.unfilled.length ?? 0),
      agenciesNotFilledNames: [...realTime.unfilled, ...(lost?.unfilled ?? []).map((slug) => `${slug} (compressed run)`)].join(', ') || null,
      firstAgencyFilledSeconds: realTime.firstFilledSeconds,
      medianAgencyFilledSeconds: realTime.filled.p50,
      lastAgencyFilledSeconds: realTime.lastFilledSeconds,
      // The time the first sync's requests need at the CRM's per-second limit, measured in this run.
      floorSeconds: realTime.floorSeconds,
      firstVsFloor: round(realTime.firstFilledSeconds / realTime.floorSeconds, 3),
      medianVsFloor: round(realTime.filled.p50 / realTime.floorSeconds, 3),
      lastVsFloor: round(realTime.lastFilledSeconds / realTime.floorSeconds, 3),
      // A stricter floor: only the requests made before the last agency served (the start-up checks after it left out).
      requestsBeforeLastServed: realTime.servedRequests,
      medianVsServedFloor: round(realTime.filled.p50 / (realTime.servedRequests / REQUESTS_PER_SECOND), 3),
      lastVsServedFloor: round(realTime.lastFilledSeconds / (realTime.servedRequests / REQUESTS_PER_SECOND), 3),
      fillOrder:
        'never-filled agencies one after another at the key’s gate, the smallest (first list page’s total) first; listings before photos; start-up checks after every fill',
      enquiries: realTime.enquiries.samples,
      enquiryDeliveryP50Seconds: realTime.enquiries.p50,
      enquiryDeliveryP95Seconds: realTime.enquiries.p95,
      enquiriesDeliveredBeforeAllFilled: realTime.enquiriesBeforeFilled,
      firstSyncRequests: realTime.firstSyncRequests,
      simulatorStartSeconds: round(rig.simulatorStartSeconds),
      simulatorHeapMiB: rig.simulatorHeapMiB,
      clock: 'real time, the CRM’s limits (10 a second, 10,000 a day)',
    },
  ];
}

/** CRM requests the key has spent today, as the CRM counts them against its daily limit (photo files are not the API's; refused ones do not count). */
async function apiRequests(rig: IntegratorRig): Promise<number> {
  return (await rig.sim.keyCounters()).usedToday;
}

/** The key's count once the relay has sent nothing for QUIET_MS (its cold start's requests are through; polls and stream reads are hours apart). */
async function requestsOnceQuiet(rig: IntegratorRig): Promise<number> {
  const deadline = performance.now() + 600_000;
  let count = await apiRequests(rig);
  let quietSince = performance.now();
  while (performance.now() - quietSince < QUIET_MS && performance.now() < deadline) {
    await sleep(500);
    const now = await apiRequests(rig);
    if (now !== count) [count, quietSince] = [now, performance.now()];
  }
  return count;
}

/** Each agency's listings in the CRM, and how many its listing API lists for sale once filled. */
async function crmSide(rig: IntegratorRig) {
  const listings = await Promise.all(rig.agencies.map((agency) => crmListings(rig, agency)));
  return { listings, expected: listings.map((items) => items.filter(isOnSale).length) };
}

async function realTimeRun(rig: IntegratorRig, options: IntegratorBenchOptions) {
  const { note } = options;
  const startedAt = performance.now();
  const { listings, expected } = await crmSide(rig);

  // Enquiries while every agency syncs: one every enquiryEveryMs, to agencies spread over the list.
  const enquiryTimes: number[] = [];
  let filled = false;
  let deliveredBeforeFilled = 0;
  const enquiries: Array<Promise<void>> = [];
  const enquiryLoop = (async () => {
    for (let index = 0; !filled; index++) {
      const agencyIndex = (index * 37) % rig.agencies.length;
      const agency = rig.agencies[agencyIndex]!;
      const listing = listings[agencyIndex]!.find((each) => isOnSale(each) && each.status === 'listing');
      if (listing) {
        const marker = `[bench-enquiry-${index}]`;
        const posted = await postEnquiry(agency, listing, marker);
        if (posted.status !== 202) throw new Error(`enquiry to ${agency.slug} answered ${posted.status}`);
        const acceptedAt = performance.now();
        enquiries.push(
          handledLater(async () => {
            while (!(await crmEnquiryTexts(rig, agency.accountId)).includes(marker)) {
              if (performance.now() - acceptedAt > 600_000) throw new Error(`enquiry ${marker} not delivered after 600 s`);
              await sleep(100);
            }
            enquiryTimes.push((performance.now() - acceptedAt) / 1000);
            if (!filled) deliveredBeforeFilled++;
          }),
        );
      }
      await sleep(options.enquiryEveryMs);
    }
  })();

  // Every agency filled: its listing API lists every listing it has for sale.
  const fill = await waitForFill(rig, expected, startedAt, note);
  const filledAt = fill.filledAt;
  filled = true;
  const allFilledSeconds = fill.unfilled.length === 0 ? round((performance.now() - startedAt) / 1000) : null;
  const servedRequests = await apiRequests(rig);
  await enquiryLoop;
  await Promise.all(enquiries);
  // The floor counts every request of the cold start: the start-up checks (account, scopes, proofs)
  // go after every agency's fill, so some are still to come when the last agency serves.
  const firstSyncRequests = await requestsOnceQuiet(rig);
  const floorSeconds = round(firstSyncRequests / REQUESTS_PER_SECOND);
  note(
    `${filledAt.length} of ${rig.agencies.length} agencies filled in ${round(Math.max(...filledAt))} s, ${servedRequests} CRM requests by then, ` +
      `${firstSyncRequests} with the start-up checks; ${enquiryTimes.length} enquiries delivered`,
  );

  // A daily sweep's cost, without the first sync's start-up checks: a few agencies swept once more.
  const running = rig.relay.agencies!.list();
  const sample = running.slice(0, 10);
  const beforeSweeps = await apiRequests(rig);
  for (const each of sample) {
    const report = await each.agency.listings.sync.run('full');
    if (report.error) throw new Error(`${each.entry.slug}: sweep failed: ${report.error}`);
  }
  const sweepRequests = ((await apiRequests(rig)) - beforeSweeps) / sample.length;
  const lists = running[0]!.agency.listings.budgetedLists;
  const sizes: AgencyToPlan[] = running.map((each) => ({ slug: each.entry.slug, sizes: each.agency.listings.sizes() }));

  // Changes with webhooks delivered, driven through the simulator's control surface.
  const requestsBefore = await apiRequests(rig);
  const delivered = await driveAndTime(rig, { perSecond: 2, changes: options.changes, webhookDropRate: 0, accounts: fill.filledAccounts }, 100, 120_000);
  // Everything the relay asked meanwhile is put on the changes (usage reads included: conservative).
  const requestsPerChangeDelivered = ((await apiRequests(rig)) - requestsBefore) / delivered.samples;
  note(`webhooks delivered: p50 ${delivered.p50} s, p95 ${delivered.p95} s`);
  const counters = await rig.sim.keyCounters();
  return {
    filled: percentiles(filledAt),
    unfilled: fill.unfilled,
    firstFilledSeconds: round(Math.min(...filledAt)),
    lastFilledSeconds: round(Math.max(...filledAt)),
    floorSeconds,
    servedRequests,
    lists,
    sizes,
    sweepRequests,
    allFilledSeconds,
    firstSyncRequests,
    enquiries: percentiles(enquiryTimes),
    enquiriesBeforeFilled: deliveredBeforeFilled,
    delivered,
    requestsPerChangeDelivered,
    peakPerSecond: counters.peakRequestsPerSecond,
    refusedPerSecond: counters.refusedPerSecond,
  };
}

async function lostRun(options: IntegratorBenchOptions, env: Record<string, string>, compression: number, intervalMinutes: number) {
  const { note } = options;
  const rig = await startIntegratorRig({
    agencies: options.agencies,
    listings: options.listings,
    dailyLimit: Number(env.CRM_DAILY_LIMIT),
    env,
    dataDirPrefix: 'estate-bench-integrator-lost-',
    closeTimeoutMs: CLOSE_TIMEOUT_MS,
  });
  try {
    const { expected } = await crmSide(rig);
    const fill = await waitForFill(rig, expected, performance.now(), note);
    note(`compressed run (${round(compression)}×, stream read every ${round(intervalMinutes * 60)} s): all agencies filled; changes with every webhook lost`);
    const counted = async (endpoint: string) => (await rig.sim.keyCounters()).requestsByEndpoint[endpoint] ?? 0;
    const streamBefore = await counted('GET /eventStream');
    const usageBefore = await counted('GET /integrator/usage');
    const requestsBefore = await apiRequests(rig);
    // Spread over two stream intervals, so the changes fall at every point of the wait.
    const perSecond = options.changes / (intervalMinutes * 60 * 2);
    const latency = await driveAndTime(
      rig,
      { perSecond, changes: options.changes, webhookDropRate: 1, accounts: fill.filledAccounts },
      250,
      intervalMinutes * 60_000 * 4 + 60_000,
    );
    const streamReads = (await counted('GET /eventStream')) - streamBefore;
    const usageReads = (await counted('GET /integrator/usage')) - usageBefore;
    const requestsPerChange = Math.max(0, (await apiRequests(rig)) - requestsBefore - streamReads - usageReads) / latency.samples;
    const counters = await rig.sim.keyCounters();
    note(
      `webhooks lost (compressed): p50 ${latency.p50} s, p95 ${latency.p95} s, ${round(requestsPerChange)} requests a change beyond ${streamReads} stream reads`,
    );
    return {
      latency,
      requestsPerChange,
      intervalMinutes,
      compression,
      unfilled: fill.unfilled,
      peakPerSecond: counters.peakRequestsPerSecond,
      refusedPerSecond: counters.refusedPerSecond,
    };
  } finally {
    await closeRig(rig, note);
  }
}

/** Closes a rig; a relay slow to shut down is noted and counted, not waited for (the bench's process exits after the figures). */
async function closeRig(rig: IntegratorRig, note: (message: string) => void): Promise<void> {
  try {
    await rig.close();
  } catch (error) {
    if (!(error instanceof RelayCloseTimeout)) throw error;
    slowCloses++;
    note(error.message);
  }
}

/**
 * Waits until every agency's listing API lists all it has for sale, or until no more agency has
 * filled for STALL_MS (an agency whose first sweep failed waits for the sync's next run, an hour
 * on): those are reported, not waited for, and the changes go to the filled ones.
 */
async function waitForFill(rig: IntegratorRig, expected: number[], startedAt: number, note: (message: string) => void) {
  const filledAt: number[] = [];
  const filledAccounts: number[] = [];
  let waiting = rig.agencies.map((agency, index) => ({ agency, index }));
  let lastNote = performance.now();
  let lastFilled = performance.now();
  while (waiting.length > 0) {
    if (performance.now() - lastFilled > STALL_MS && filledAt.length > 0) break;
    if (performance.now() - startedAt > 3_600_000) throw new Error(`${waiting.length} agencies still not filled after an hour`);
    const counts = await Promise.all(waiting.map(({ agency }) => listedCount(agency)));
    waiting = waiting.filter(({ agency, index }, position) => {
      if (counts[position]! < expected[index]!) return true;
      filledAt.push((performance.now() - startedAt) / 1000);
      filledAccounts.push(agency.accountId);
      lastFilled = performance.now();
      return false;
    });
    if (performance.now() - lastNote > 15_000) {
      note(
        `first sync: ${rig.agencies.length - waiting.length} of ${rig.agencies.length} agencies filled after ${Math.round((performance.now() - startedAt) / 1000)} s`,
      );
      lastNote = performance.now();
    }
    if (waiting.length > 0) await sleep(500);
  }
  const unfilled = waiting.map(({ agency }) => agency.slug);
  if (unfilled.length > 0) note(`not filled, ${STALL_MS / 1000} s after the last agency was: ${unfilled.join(', ')}`);
  return { filledAt, filledAccounts, unfilled };
}

/**
 * Starts a drive on the simulator's control surface (round robin over every agency, residential
 * listings on the web) and times each change until its agency's listing API shows the new heading.
 */
async function driveAndTime(
  rig: IntegratorRig,
  drive: { perSecond: number; changes: number; webhookDropRate: number; accounts: number[] },
  pollMs: number,
  timeoutMs: number,
) {
  const control = `${rig.sim.origin}/__sim/drive`;
  const started = await fetch(control, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...drive, propertyClass: 'residential', seed: 5 }),
  });
  if (started.status !== 202) throw new Error(`POST /__sim/drive answered ${started.status}: ${await started.text()}`);
  const latencies: number[] = [];
  const watchers: Array<Promise<void>> = [];
  let seen = 0;
  for (;;) {
    const { body } = await getJson<{ running: boolean; changes: DrivenChange[] }>(`${control}?since=${seen}`);
    for (const change of body.changes) {
      seen = change.seq;
      watchers.push(handledLater(async () => void latencies.push(await watch(rig.agencyOfAccount(change.accountId), change, pollMs, timeoutMs))));
    }
    if (!body.running && body.changes.length === 0) break;
    await sleep(200);
  }
  await Promise.all(watchers);
  return percentiles(latencies);
}

async function watch(agency: RigAgency, change: DrivenChange, pollMs: number, timeoutMs: number): Promise<number> {
  const url = `${agency.api}/listings/${publicListingId(change)}`;
  for (;;) {
    const { body } = await getJson<{ heading?: string }>(url);
    // A later change of the same listing also proves this one arrived.
    const heading = body?.heading ?? '';
    if (heading === change.heading || (heading.startsWith('drive ') && Number(heading.slice(6)) > change.seq)) return (Date.now() - change.at) / 1000;
    if (Date.now() - change.at > timeoutMs)
      throw new Error(`${agency.slug}: listing ${publicListingId(change)} not updated ${timeoutMs / 1000} s after change ${change.seq}`);
    await sleep(pollMs);
  }
}

function percentiles(values: number[]): { samples: number; p50: number; p95: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (share: number) => (sorted.length === 0 ? 0 : round(sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!, 3));
  return { samples: sorted.length, p50: at(0.5), p95: at(0.95) };
}

/** Runs `work` now; its failure surfaces where the promise is awaited (Promise.all later), not as an unhandled rejection meanwhile. */
function handledLater(work: () => Promise<void>): Promise<void> {
  const promise = work();
  promise.catch(() => undefined);
  return promise;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}
