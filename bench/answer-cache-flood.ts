/**
 * Issue 24, item 4: the relay's memory under a flood of distinct listing queries. One relay, three
 * agencies of BENCH_FLOOD_LISTINGS (100) listings each on one simulator key, everything in this
 * process over real HTTP; after the first sync and a warm-up, BENCH_FLOOD_QUERIES (5,000) distinct
 * 100-card queries spread over the agencies, 16 at a time, as a browser asks (brotli): first as the
 * issue's flood (minPrice=0.01, 0.02, …), then queries that give distinct answers (sort, page size,
 * bedrooms, price edges), which snapping cannot merge. RSS and heap before, after each phase, and
 * after 5 s idle (with a GC when run with --expose-gc: NODE_OPTIONS=--expose-gc). The per-client
 * render limit is off (UNCACHED_RENDERS_PER_MINUTE=0) so the figures are the byte bound's alone
 * (the flood comes from one address: the default limit would refuse all but 120 a minute).
 * Absolute figures of one process, not a ratio: compare runs on the same machine (the issue's
 * before-and-after was 177 MB → 335 MB, kept).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../crm-sim/simulator.ts';
import { startRelay } from '../server/compose/relay.ts';
import { loadConfig } from '../server/runtime/config.ts';
import { silentLogger } from '../server/runtime/log.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const MB = 1024 * 1024;

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const listings = Number(process.env.BENCH_FLOOD_LISTINGS ?? 100);
  const queries = Number(process.env.BENCH_FLOOD_QUERIES ?? 5_000);
  const sim = await startSimulator({ listings, seed: 24, requestsPerSecond: 500, agencies: 3 });
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-flood-'));
  const file = join(dataDir, 'agencies.json');
  const slugs = ['agency-a', 'agency-b', 'agency-c'];
  const entries = sim.key.accounts.map((account, index) => ({
    slug: slugs[index]!,
    name: account.agency.name,
    accessToken: account.options.accessToken,
    allowedOrigins: [`https://${slugs[index]}.example`],
  }));
  writeFileSync(file, JSON.stringify({ agencies: entries }), { mode: 0o600 });
  chmodSync(file, 0o600);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    CRM_BASE_URL: sim.baseUrl,
    CRM_API_KEY: sim.apiKey,
    CRM_REQUESTS_PER_SECOND: '500',
    AGENCIES_FILE: file,
    PHOTO_WIDTHS: '240',
    LOG_LEVEL: 'silent',
    PUBLIC_URL: 'https://relay.flood.test',
    UNCACHED_RENDERS_PER_MINUTE: '0',
    ...(process.env.ANSWER_CACHE_MB ? { ANSWER_CACHE_MB: process.env.ANSWER_CACHE_MB } : {}),
  });
  const relay = await startRelay(config, { log: silentLogger, workers: false, app: { demoDir: null } });
  // The answer cache, where the relay has one (this bench also runs against the code before it).
  const answers = (relay as { answers?: { bytes: number; size: number; evictions: number; maxBytes: number } }).answers;
  try {
    for (const running of relay.agencies!.list()) {
      const report = await running.agency.listings.sync.run('full');
      if (report.error) throw new Error(`sync of ${running.entry.slug} failed: ${report.error}`);
    }
    const get = async (path: string) => {
      const response = await fetch(`${relay.url}${path}`, { headers: { 'Accept-Encoding': 'br, gzip' } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
    };
    const flood = async (paths: string[]) => {
      let next = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < paths.length) await get(paths[next++]!);
        }),
      );
      return (Date.now() - started) / 1000;
    };
    // Warm-up: every agency's first pages, as visitors would.
    await flood(slugs.flatMap((slug) => ['', '?sort=price', '?type=lease'].map((query) => `/a/${slug}/api/v1/listings${query}`)));
    const gc = (globalThis as { gc?: () => void }).gc;
    const memory = () => {
      gc?.();
      const { rss, heapUsed, arrayBuffers } = process.memoryUsage();
      return {
        rssMB: Math.round(rss / MB),
        heapMB: Math.round(heapUsed / MB),
        buffersMB: Math.round(arrayBuffers / MB),
        cacheMB: answers ? Number((answers.bytes / MB).toFixed(1)) : null,
      };
    };
    const before = memory();
    context.note(`before: ${JSON.stringify(before)}`);

    const issueFlood = Array.from({ length: queries }, (_, i) => `/a/${slugs[i % 3]}/api/v1/listings?minPrice=${((i + 1) / 100).toFixed(2)}&pageSize=100`);
    const issueSeconds = await flood(issueFlood);
    const afterIssueFlood = memory();
    context.note(`after ${queries} minPrice=0.01… queries in ${issueSeconds} s: ${JSON.stringify(afterIssueFlood)}`);

    const sorts = ['newest', 'price', '-price', 'suburb', 'landArea'];
    const distinct: string[] = [];
    for (let i = 0; distinct.length < queries; i++) {
      const sort = sorts[i % sorts.length]!;
      const pageSize = 50 + (Math.floor(i / sorts.length) % 51);
      const minBeds = Math.floor(i / (sorts.length * 51)) % 4;
      const maxPrice = 400_000 + 100_000 * Math.floor(i / (sorts.length * 51 * 4));
      distinct.push(`/a/${slugs[i % 3]}/api/v1/listings?sort=${sort}&pageSize=${pageSize}&minBeds=${minBeds}&maxPrice=${maxPrice}`);
    }
    const distinctSeconds = await flood(distinct);
    const afterDistinct = memory();
    context.note(`after ${queries} distinct-answer queries in ${distinctSeconds} s: ${JSON.stringify(afterDistinct)}`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idle = memory();
    context.note(`5 s later: ${JSON.stringify(idle)}`);
    return [
      {
        name: 'answer-cache-flood',
        agencies: 3,
        listingsEach: listings,
        queriesEachPhase: queries,
        answerCacheMB: answers ? answers.maxBytes / MB : null,
        gc: gc !== undefined,
        rssBeforeMB: before.rssMB,
        rssAfterPriceFloodMB: afterIssueFlood.rssMB,
        rssAfterDistinctFloodMB: afterDistinct.rssMB,
        rssIdleMB: idle.rssMB,
        heapBeforeMB: before.heapMB,
        heapAfterPriceFloodMB: afterIssueFlood.heapMB,
        heapAfterDistinctFloodMB: afterDistinct.heapMB,
        buffersBeforeMB: before.buffersMB,
        buffersAfterPriceFloodMB: afterIssueFlood.buffersMB,
        buffersAfterDistinctFloodMB: afterDistinct.buffersMB,
        cacheAfterPriceFloodMB: afterIssueFlood.cacheMB,
        cacheAfterDistinctFloodMB: afterDistinct.cacheMB,
        cacheEntries: answers?.size ?? null,
        evictions: answers?.evictions ?? null,
        priceFloodSeconds: issueSeconds,
        distinctFloodSeconds: distinctSeconds,
      },
    ];
  } finally {
    await relay.close();
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
