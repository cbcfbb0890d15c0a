/**
 * First sync and unchanged second syncs of an agency with 2,000 listings in the CRM simulator
 * (all four classes), through the real relay: CRM requests used, photos downloaded, seconds.
 *
 * Baselines measured in the same run:
 * - requests: the floor for a first sync is one page per 100 records of each list plus one photo
 *   list per listing (list items carry no photos), so `requestsVsFloor` shows any waste;
 * - seconds: the CRM's rate limit alone makes a sync last at least requests / CRM_REQUESTS_PER_SECOND,
 *   so `secondsVsRateLimitFloor` shows what the relay adds on top (photo downloads, WebP/JPEG
 *   variants, SQLite) and how much of that hides behind the unavoidable waiting.
 * Env: BENCH_SYNC_LISTINGS (default 2000), BENCH_CRM_RPS (default 10, the CRM's real limit),
 * BENCH_PHOTO_WIDTHS (default "480,960": two widths keep the run short; production uses three).
 */
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { startListingRig } from '../test/listings/rig.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const PAGE = 100;

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const listings = Number(process.env.BENCH_SYNC_LISTINGS ?? 2_000);
  const rps = Number(process.env.BENCH_CRM_RPS ?? 10);
  const widths = process.env.BENCH_PHOTO_WIDTHS ?? '480,960';
  const { sim, relay, close } = await startListingRig({
    listings,
    seed: 1,
    requestsPerSecond: rps,
    dailyLimit: 100_000,
    env: { CRM_DAILY_LIMIT: '100000', LISTING_CLASSES: 'residential,commercial,land,rural', PHOTO_WIDTHS: widths },
    dataDirPrefix: 'estate-bench-sync-',
  });
  try {
    context.note(`${listings} listings seeded; CRM limit ${rps} requests/s; photo widths ${widths}`);
    const measure = async (kind: 'full' | 'incremental') => {
      sim.state.resetCounters();
      const started = performance.now();
      const report = await relay.listings.sync.run(kind);
      const seconds = (performance.now() - started) / 1000;
      if (report.error) throw new Error(`${kind} sync failed: ${report.error}`);
      const counters = sim.state.getCounters();
      // The simulator counts its file host too; CRM requests are the API's (what the daily limit counts).
      const api = Object.entries(counters.requestsByEndpoint).filter(([label]) => !label.includes(' /files/'));
      const crmRequests = api.reduce((sum, [, count]) => sum + count, 0);
      return { report, seconds, crmRequests, photoDownloads: counters.photoDownloads, byEndpoint: Object.fromEntries(api) };
    };

    const first = await measure('full');
    context.note(`first sync: ${first.seconds.toFixed(1)} s, ${first.crmRequests} requests, ${first.photoDownloads} photos`);
    const cached = relay.listings.cache.countsBySource();
    const cachedListings = [...cached.values()].reduce((sum, count) => sum + count, 0);
    const specs = relay.listings.sync.specs;
    const listPages = specs.reduce((sum, spec) => sum + Math.max(1, Math.ceil((cached.get(spec.source) ?? 0) / PAGE)), 0);
    const staff = sim.state.users.length;
    const floor = listPages + cachedListings + Math.max(1, Math.ceil(staff / PAGE)) + 1;

    const secondFull = await measure('full');
    context.note(`unchanged full sweep: ${secondFull.seconds.toFixed(1)} s, ${secondFull.crmRequests} requests`);
    const secondIncremental = await measure('incremental');
    context.note(`unchanged incremental: ${JSON.stringify(secondIncremental.byEndpoint)}`);
    const photoFiles = countFiles(relay.listings.mirror.photoDir);

    return [
      {
        name: 'sync-first',
        listingsInCrm: listings,
        listingsCached: cachedListings,
        seconds: round(first.seconds),
        crmRequests: first.crmRequests,
        requestsFloor: floor,
        requestsVsFloor: round(first.crmRequests / floor, 3),
        rateLimitFloorSeconds: round(first.crmRequests / rps),
        secondsVsRateLimitFloor: round(first.seconds / (first.crmRequests / rps), 3),
        photosDownloaded: first.photoDownloads,
        uniqueImages: photoFiles.images,
        variantFiles: photoFiles.files,
        variantMegabytes: round(photoFiles.bytes / 1e6),
        photoWidths: widths,
        crmRequestsPerSecond: rps,
        loadAverage1m: round(loadavg()[0]!),
        cpus: availableParallelism(),
      },
      {
        name: 'sync-unchanged',
        fullSweepSeconds: round(secondFull.seconds),
        fullSweepCrmRequests: secondFull.crmRequests,
        fullSweepPhotosDownloaded: secondFull.photoDownloads,
        fullSweepRequestsVsFirst: round(secondFull.crmRequests / first.crmRequests, 3),
        incrementalSeconds: round(secondIncremental.seconds),
        incrementalCrmRequests: secondIncremental.crmRequests,
        incrementalPhotosDownloaded: secondIncremental.photoDownloads,
        dailyPlanRequests: relay.listings.plan.perDay,
      },
    ];
  } finally {
    await close();
  }
}

function countFiles(dir: string): { files: number; images: number; bytes: number } {
  const entries = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const images = new Set(entries.map((entry) => entry.name.split('-')[0]));
  const bytes = entries.reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
  return { files: entries.length, images: images.size, bytes };
}

function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}
