/**
 * The map answer (GET /api/v1/listings/map) at about 5,000 available listings (10,000 records of
 * all four classes seeded: about half are on the web and available) in the simulator's two cities, every
 * one placed (CRM coordinates, else the simulator answering as the geocoder), against the plain
 * listing page (24 cards) in the same run: cold (the listing cache has just changed, so the index
 * is built and the answer rendered and compressed) and cached, p50/p99, as a browser asks (brotli).
 * Also a map panned to a new box with the index already built (the answer alone rendered). Phases
 * alternate so background load weighs on both alike. One process, requests one at a time. The
 * city and street figures are held to issue #30's goal: cold p50 at most 3x the list page's.
 *
 * Then the pins of a warm /buy on a throttled phone (map-pins.ts).
 *
 * Env: BENCH_MAP_LISTINGS (records seeded, default 10000), BENCH_MAP_COLD (cold requests each, default 30),
 * BENCH_MAP_CACHED (cached requests each, default 500).
 */
import { availableParallelism, loadavg } from 'node:os';
import { request } from 'node:http';
import type { ListingMap, MapClusterProperties } from '../contract/relay-api.ts';
import { startListingRig } from '../test/listings/rig.ts';
import { runPins } from './map-pins.ts';
import type { BenchContext, BenchFigure } from './types.ts';

/** Melbourne: Kew, Hawthorn, Richmond, Fitzroy and the simulator's other Victorian suburbs, at a city's zoom. */
const CITY = '144.5,-38.2,145.5,-37.5';
const BROWSER = { 'accept-encoding': 'br, gzip' };
/** Issue #30's goal: a cold map answer (p50) at most this many times the cold list page's. */
const COLD_GOAL = 3;

async function runAnswers(context: BenchContext): Promise<BenchFigure[]> {
  const listings = Number(process.env.BENCH_MAP_LISTINGS ?? 10_000);
  const coldRuns = Number(process.env.BENCH_MAP_COLD ?? 30);
  const cachedRuns = Number(process.env.BENCH_MAP_CACHED ?? 500);
  const rig = await startListingRig({
    listings,
    seed: 1,
    requestsPerSecond: 1_000,
    dailyLimit: 1_000_000,
    photosPerListing: 1,
    geocoder: true,
    env: {
      CRM_DAILY_LIMIT: '1000000',
      LISTING_CLASSES: 'residential,land,commercial,rural',
      PHOTO_WIDTHS: '240,480',
      GEOCODER_REQUESTS_PER_SECOND: '100',
      UNCACHED_RENDERS_PER_MINUTE: '0',
    },
    dataDirPrefix: 'estate-bench-map-',
  });
  try {
    context.note(`${listings} records seeded; syncing`);
    let started = performance.now();
    const report = await rig.relay.listings.sync.run('full');
    if (report.error) throw new Error(`sync failed: ${report.error}`);
    context.note(`synced in ${((performance.now() - started) / 1000).toFixed(1)} s; placing the rest through the geocoder`);
    started = performance.now();
    await rig.relay.places.worker.drain();
    const placement = (await rig.get('/api/v1/listings/placement')).body as { listings: number; unplaced: number; pending: number };
    context.note(`placed in ${((performance.now() - started) / 1000).toFixed(1)} s: ${JSON.stringify(placement)}`);

    const cache = rig.relay.listings.cache;
    const origin = rig.relay.url;
    const paths = {
      list: '/api/v1/listings?pageSize=24',
      city: `/api/v1/listings/map?bbox=${CITY}&zoom=10`,
      street: '/api/v1/listings/map?bbox=145.02,-37.83,145.05,-37.81&zoom=15',
    };
    const available = (await rig.get('/api/v1/listings?pageSize=1')).body.total as number;
    const inCity = (await rig.get(`/api/v1/listings?pageSize=1&bbox=${CITY}`)).body.total as number;
    const shape = async (path: string) => {
      const { body, text } = await rig.get<ListingMap>(path);
      const clusters = body.features.filter((feature) => 'cluster' in feature.properties);
      const counted = body.features.length - clusters.length + clusters.reduce((sum, feature) => sum + (feature.properties as MapClusterProperties).count, 0);
      return { features: body.features.length, clusters: clusters.length, listingsCounted: counted, unplaced: body.unplaced, bodyBytes: text.length };
    };

    const timings: Record<string, { cold: number[]; cached: number[]; brotliBytes: number }> = {};
    for (const name of Object.keys(paths)) timings[name] = { cold: [], cached: [], brotliBytes: 0 };
    // Cold: each request after a cache change (the index and the answer built anew), phases alternating.
    for (let round = 0; round < coldRuns; round++) {
      for (const [name, path] of Object.entries(paths)) {
        cache.changed();
        const { ms, bytes } = await timed(origin + path);
        timings[name]!.cold.push(ms);
        timings[name]!.brotliBytes = bytes;
      }
    }
    // A pan: the index is built, the box is new (its answer rendered and compressed, nothing else).
    const pans: number[] = [];
    cache.changed();
    await timed(origin + paths.city);
    for (let step = 1; step <= coldRuns; step++) {
      const west = 144.5 + step * 0.013;
      pans.push((await timed(`${origin}/api/v1/listings/map?bbox=${west},-38.2,${west + 1},-37.5&zoom=10`)).ms);
    }
    // Cached: the same URL again, in blocks of 50 alternating.
    for (const path of Object.values(paths)) await timed(origin + path);
    for (let block = 0; block < cachedRuns / 50; block++) {
      for (const [name, path] of Object.entries(paths)) for (let index = 0; index < 50; index++) timings[name]!.cached.push((await timed(origin + path)).ms);
    }

    const list = timings.list!;
    const common = { listings: available, coldRuns, cachedRuns, loadAverage1m: Number(loadavg()[0]!.toFixed(2)), cpus: availableParallelism() };
    const figures: BenchFigure[] = [
      {
        name: 'listings-page-latency',
        endpoint: `GET ${paths.list}`,
        coldP50Ms: round(percentile(list.cold, 50)),
        coldP99Ms: round(percentile(list.cold, 99)),
        cachedP50Ms: round(percentile(list.cached, 50)),
        cachedP99Ms: round(percentile(list.cached, 99)),
        brotliBytes: list.brotliBytes,
        ...common,
      },
    ];
    for (const name of ['city', 'street'] as const) {
      const own = timings[name]!;
      figures.push({
        name: `map-${name}-latency`,
        endpoint: `GET ${paths[name]}`,
        coldP50Ms: round(percentile(own.cold, 50)),
        coldP99Ms: round(percentile(own.cold, 99)),
        cachedP50Ms: round(percentile(own.cached, 50)),
        cachedP99Ms: round(percentile(own.cached, 99)),
        coldP50VsListPage: round(percentile(own.cold, 50) / percentile(list.cold, 50)),
        // Issue #30: a cold map answer within 3x the cold list page.
        goalColdP50VsListPage: COLD_GOAL,
        withinGoal: percentile(own.cold, 50) / percentile(list.cold, 50) <= COLD_GOAL,
        cachedP50VsListPage: round(percentile(own.cached, 50) / percentile(list.cached, 50)),
        cachedP99VsListPage: round(percentile(own.cached, 99) / percentile(list.cached, 99)),
        ...(name === 'city'
          ? {
              panP50Ms: round(percentile(pans, 50)),
              panP99Ms: round(percentile(pans, 99)),
              listingsInBox: inCity,
              placed: placement.listings - placement.unplaced,
            }
          : {}),
        ...(await shape(paths[name])),
        brotliBytes: own.brotliBytes,
        ...common,
      });
    }
    return figures;
  } finally {
    await rig.close();
  }
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const answers = await runAnswers(context);
  context.note('the pins of a warm /buy on a throttled phone');
  return [...answers, ...(await runPins(context))];
}

/** One GET as a browser asks (brotli), timed to the last byte; throws on anything but a 200. */
function timed(url: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers: BROWSER, agent: false }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`${url} answered ${response.statusCode}`));
        resolve({ ms: performance.now() - started, bytes });
      });
    })
      .on('error', reject)
      .end();
  });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
