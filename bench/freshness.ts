/**
 * Freshness of the listing API against the CRM's push, for an agency of 500 listings with 2% of
 * them changing a day, at the default settings (event stream every SYNC_INTERVAL_MINUTES=5, list
 * polls hourly, a full sweep every 6 hours):
 *
 * - CRM requests a day, with webhooks delivered and with all of them lost. Each activity's cost is
 *   measured on the real relay against the simulator (a full sweep, a list poll, an event-stream
 *   read, a change applied from a webhook, a change found by the stream), then multiplied by how
 *   often it happens in a day at the default settings. Baseline in the same run: what polling
 *   every list at the stream's interval would cost (the relay's behaviour before the event stream).
 * - Time from a change in the CRM to the listing API, p50/p95, webhooks delivered (real time: the
 *   simulator POSTs the signed webhook to the relay, which applies it), and all webhooks lost. The
 *   lost case runs on a compressed clock: the stream is read every 5 s instead of 5 min (60×), and
 *   the measured times are multiplied by 60 (conservative: the processing time is scaled too).
 *
 * Env: BENCH_FRESHNESS_LISTINGS (500 on the website: the simulator is seeded with about 2.2 times
 * as many records, since prospects, withdrawn and older sold ones are not shown), BENCH_FRESHNESS_SAMPLES
 * (20 changes per case).
 */
import { loadConfig } from '../server/runtime/config.ts';
import { startListingRig, type ListingRig } from '../test/listings/rig.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const COMPRESSION = 60;

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const onWeb = Number(process.env.BENCH_FRESHNESS_LISTINGS ?? 500);
  // About 46% of the simulator's records are on the website (available, recent sold/leased).
  const listings = Math.round(onWeb / 0.464);
  const samples = Number(process.env.BENCH_FRESHNESS_SAMPLES ?? 20);
  const defaults = loadConfig({
    CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3',
    CRM_API_KEY: 'key',
    CRM_ACCESS_TOKEN: 'token',
    PUBLIC_URL: 'https://relay.agency.test',
  });
  const compressedInterval = defaults.listings.syncIntervalMinutes / COMPRESSION;
  const rig = await startListingRig({
    listings,
    seed: 3,
    requestsPerSecond: 50,
    dailyLimit: 1_000_000,
    env: { CRM_DAILY_LIMIT: '1000000', PHOTO_WIDTHS: '480', SYNC_INTERVAL_MINUTES: String(compressedInterval), LIST_POLL_MINUTES: '100000' },
    dataDirPrefix: 'estate-bench-freshness-',
  });
  try {
    const { relay, sim } = rig;
    const first = await relay.listings.sync.run('full');
    if (first.error) throw new Error(`first sync failed: ${first.error}`);
    const cached = [...relay.listings.cache.countsBySource().values()].reduce((sum, count) => sum + count, 0);
    context.note(`${listings} listings in the CRM, ${cached} on the website; first sync ${first.seconds} s`);

    // 1. What each activity costs, in CRM API requests.
    const apiRequests = () =>
      Object.entries(sim.state.getCounters().requestsByEndpoint)
        .filter(([label]) => !label.includes(' /files/'))
        .reduce((sum, [, count]) => sum + count, 0);
    const cost = async (work: () => Promise<unknown>) => {
      const before = apiRequests();
      await work();
      return apiRequests() - before;
    };
    const sweepCost = await cost(() => relay.listings.sync.run('full'));
    const pollCost = await cost(() => relay.listings.sync.run('incremental'));
    const streamReadCost = await cost(() => relay.listings.changes.readStream());
    const ids = (rig.expectedIds('sale').length ? rig.expectedIds('sale') : rig.expectedIds('lease')).slice(0, samples);

    // 2. Webhooks delivered: real time, the relay's worker running.
    sim.state.webhooks.configure({ url: `${relay.url}/hooks/crm`, dropRate: 0 });
    relay.listings.changes.start();
    const delivered = await measureChanges(rig, ids, 'delivered', 300);
    await sim.state.webhooks.settled();
    await relay.listings.changes.drain();
    // The compressed stream reads go on meanwhile: their requests are not the changes'.
    const perChangeDelivered = Math.max(0, delivered.requests - delivered.streamReads * streamReadCost) / ids.length;
    context.note(`webhooks delivered: p50 ${delivered.p50} s, p95 ${delivered.p95} s, ${perChangeDelivered} requests a change`);

    // 3. Every webhook lost: the event stream (compressed clock) finds each change.
    sim.state.webhooks.configure({ dropRate: 1 });
    const lost = await measureChanges(rig, ids, 'lost', (compressedInterval * 60_000) / 4);
    // Requests beyond the stream reads themselves: the refreshes of what the stream named.
    const perChangeLost = Math.max(0, lost.requests - lost.streamReads * streamReadCost) / ids.length;
    context.note(`webhooks lost: p50 ${lost.p50} s, p95 ${lost.p95} s (compressed ${COMPRESSION}×), ${perChangeLost} requests a change`);

    // 4. A day at the default settings.
    const changesPerDay = Math.round(cached * 0.02);
    const streamReads = Math.ceil((24 * 60) / defaults.listings.syncIntervalMinutes);
    const sweeps = Math.ceil(24 / defaults.listings.fullSweepHours);
    const listRuns = Math.ceil((24 * 60) / defaults.listings.listPollMinutes);
    const openHomesPages = 1;
    // Open homes are read hourly: with each sweep (in sweepCost) and on the other hourly polls.
    // The key's usage (GET /integrator/usage) is read every CRM_USAGE_CHECK_MINUTES: one request each.
    const usageReads = Math.ceil((24 * 60) / defaults.crm.usageCheckMinutes);
    const base = streamReads * streamReadCost + sweeps * sweepCost + (listRuns - sweeps) * (pollCost + openHomesPages) + usageReads;
    const perDayDelivered = Math.round(base + changesPerDay * perChangeDelivered);
    const perDayLost = Math.round(base + changesPerDay * perChangeLost);
    const pollingEveryListAtStreamInterval = Math.round(streamReads * relay.listings.sync.specs.length + sweeps * sweepCost + 24 * openHomesPages);
    const promisedLostSeconds = defaults.listings.syncIntervalMinutes * 60 + Math.min(60, defaults.listings.syncIntervalMinutes * 60);
    return [
      {
        name: 'freshness-requests',
        listingsInCrm: listings,
        listingsOnWeb: cached,
        changesPerDay,
        perDayWebhooksDelivered: perDayDelivered,
        perDayWebhooksLost: perDayLost,
        baselinePollingEveryListPerDay: pollingEveryListAtStreamInterval,
        vsBaseline: round(perDayLost / pollingEveryListAtStreamInterval, 3),
        sweepRequests: sweepCost,
        listPollRequests: pollCost,
        streamReadRequests: streamReadCost,
        usageReadRequests: usageReads,
        requestsPerChangeDelivered: round(perChangeDelivered),
        requestsPerChangeLost: round(perChangeLost),
        aimUnder: 600,
        clock: 'per-activity costs measured, multiplied by their daily counts at default settings',
      },
      {
        name: 'freshness-latency',
        samples: ids.length,
        deliveredP50Seconds: delivered.p50,
        deliveredP95Seconds: delivered.p95,
        deliveredAimSeconds: 5,
        lostP50Seconds: round(lost.p50 * COMPRESSION),
        lostP95Seconds: round(lost.p95 * COMPRESSION),
        lostPromisedSeconds: promisedLostSeconds,
        lostMeasuredP95CompressedSeconds: lost.p95,
        compressedStreamIntervalSeconds: round(compressedInterval * 60),
        compression: COMPRESSION,
        clock: `delivered: real time; lost: stream read every ${round(compressedInterval * 60)} s (${COMPRESSION}× faster), times ×${COMPRESSION}`,
      },
    ];
  } finally {
    await rig.close();
  }
}

/** Changes each listing's heading at `spacingMs` intervals and times until the listing API shows it. */
async function measureChanges(rig: ListingRig, ids: number[], tag: string, spacingMs: number) {
  const before = Object.entries(rig.sim.state.getCounters().requestsByEndpoint).filter(([label]) => !label.includes(' /files/'));
  const requestsBefore = before.reduce((sum, [, count]) => sum + count, 0);
  const streamBefore = rig.sim.state.getCounters().requestsByEndpoint['GET /eventStream'] ?? 0;
  const latencies = await Promise.all(
    ids.map(async (id, index) => {
      await new Promise((resolve) => setTimeout(resolve, index * spacingMs));
      const heading = `${tag} ${index} ${Date.now()}`;
      const changedAt = performance.now();
      // A listing is one sale or lease life of a CRM property: change that life.
      const life = rig.simListing(id);
      rig.sim.state.changeListing(life.id, { fields: { heading } }, life.market);
      for (;;) {
        const response = await fetch(`${rig.relay.url}/api/v1/listings/${id}`);
        const body = (await response.json()) as { heading?: string };
        if (body.heading === heading) return (performance.now() - changedAt) / 1000;
        if (performance.now() - changedAt > 120_000) throw new Error(`listing ${id} not updated after 120 s (${tag})`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }),
  );
  const after = Object.entries(rig.sim.state.getCounters().requestsByEndpoint).filter(([label]) => !label.includes(' /files/'));
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (share: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!, 3);
  return {
    p50: at(0.5),
    p95: at(0.95),
    requests: after.reduce((sum, [, count]) => sum + count, 0) - requestsBefore,
    streamReads: (rig.sim.state.getCounters().requestsByEndpoint['GET /eventStream'] ?? 0) - streamBefore,
  };
}

function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}
