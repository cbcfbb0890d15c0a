/**
 * Child process of visits-load.ts: a relay with its workers running (the visits' flush among
 * them) on an in-process simulator of BENCH_VISITS_LISTINGS (260: about 100 of them for sale or lease) listings, filled before it reports.
 * Answers over IPC: 'rss' (its RSS and heap now), 'flush' (one visits pass now), 'counts' (every
 * listing's counts of today and the dropped ones). Stops on 'stop'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator } from '../crm-sim/simulator.ts';
import { startRelay } from '../server/compose/relay.ts';
import { loadConfig } from '../server/runtime/config.ts';
import { silentLogger } from '../server/runtime/log.ts';
import { dayIn } from '../server/visits/days.ts';

const listings = Number(process.env.BENCH_VISITS_LISTINGS ?? 260);
const sim = await startSimulator({ listings, seed: 32, requestsPerSecond: 500 });
const dataDir = mkdtempSync(join(tmpdir(), 'estate-bench-visits-'));
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  CRM_BASE_URL: sim.baseUrl,
  CRM_API_KEY: sim.apiKey,
  CRM_ACCESS_TOKEN: sim.accessToken,
  CRM_REQUESTS_PER_SECOND: '500',
  PHOTO_WIDTHS: '240',
  LOG_LEVEL: 'silent',
  PUBLIC_URL: 'https://relay.visits.test',
  // Every beacon and page comes from this one address: the per-client limits would measure themselves.
  UNCACHED_RENDERS_PER_MINUTE: '0',
  VISIT_BEACONS_PER_MINUTE: '0',
  ...(process.env.BENCH_VISITS_BUFFER ? { VISIT_BUFFER_EVENTS: process.env.BENCH_VISITS_BUFFER } : {}),
});
const relay = await startRelay(config, { log: silentLogger, app: { demoDir: null } });
const report = await relay.listings.sync.run('full');
if (report.error) throw new Error(`sync failed: ${report.error}`);
const ids: number[] = [];
for (let page = 1; ids.length < 100; page++) {
  const answer = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=100&page=${page}&status=available`)).json()) as { items: Array<{ id: number }> };
  if (answer.items.length === 0) break;
  ids.push(...answer.items.map((item) => item.id));
}
const visits = relay.visits;

process.send!({ relayOrigin: relay.url, listingIds: ids, timeZone: config.site.timeZone });

process.on('message', async (message: string) => {
  if (message === 'rss') {
    const usage = process.memoryUsage();
    process.send!({ rss: usage.rss, heapUsed: usage.heapUsed });
  } else if (message === 'flush') {
    await visits.tick();
    process.send!({ flushed: true });
  } else if (message === 'counts') {
    const day = dayIn(config.site.timeZone, Date.now());
    let counted = 0;
    let dropped = 0;
    for (const id of ids) {
      const answer = await visits.counts.forListing(id, { since: day, until: day });
      for (const row of answer.days) counted += row.detail + row.card + row.mapCard + row.photos + row.kept + row.calendar + row.shared;
      dropped = Math.max(dropped, answer.dropped);
    }
    process.send!({ counted, dropped, metrics: visits.metrics });
  } else if (message === 'stop') {
    await relay.close();
    await sim.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
