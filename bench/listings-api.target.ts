/**
 * Child process of listings-api.ts: the relay with a synced cache (simulator with 200 listings,
 * workers off afterwards so no sync runs during the measurement) and a bare node:http server that
 * answers, for the same paths, the very bytes the relay answers. Reports URLs over IPC; stops on 'stop'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../server/config.ts';
import { silentLogger } from '../server/log.ts';
import { startRelay } from '../server/relay.ts';
import { startSimulator } from '../server/sim/simulator.ts';

const sim = await startSimulator({ listings: 200, requestsPerSecond: 100 });
const dataDir = mkdtempSync(join(tmpdir(), 'estate-bench-listings-'));
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  CRM_BASE_URL: sim.baseUrl,
  CRM_API_KEY: sim.apiKey,
  CRM_ACCESS_TOKEN: sim.accessToken,
  CRM_REQUESTS_PER_SECOND: '100',
  PHOTO_WIDTHS: '480,960',
  LOG_LEVEL: 'silent',
});
const relay = await startRelay(config, { log: silentLogger, workers: false, app: { demoDir: null } });
const report = await relay.listings.sync.run('full');
if (report.error) throw new Error(`sync failed: ${report.error}`);

const firstId = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=1`)).json()).items[0].id as number;
const paths = {
  list: '/api/v1/listings?type=sale&sort=price&pageSize=24',
  detail: `/api/v1/listings/${firstId}`,
};
const bodies = new Map<string, { body: Buffer; type: string; headerBytes: number }>();
for (const path of Object.values(paths)) {
  const response = await fetch(`${relay.url}${path}`);
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  bodies.set(path, {
    body: Buffer.from(await response.arrayBuffer()),
    type: response.headers.get('content-type') ?? 'application/json',
    headerBytes: [...response.headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0),
  });
}

const baseline = createServer((req, res) => {
  const entry = bodies.get(req.url ?? '');
  if (!entry) return void res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': entry.type, 'Content-Length': entry.body.length });
  res.end(entry.body);
});
await new Promise<void>((resolve) => baseline.listen(0, '127.0.0.1', resolve));
const baselineOrigin = `http://127.0.0.1:${(baseline.address() as AddressInfo).port}`;

process.send!({
  relayOrigin: relay.url,
  baselineOrigin,
  paths,
  listings: report.changed,
  bodyBytes: Object.fromEntries([...bodies].map(([path, entry]) => [path, entry.body.length])),
  relayHeaderBytes: Object.fromEntries([...bodies].map(([path, entry]) => [path, entry.headerBytes])),
  crmRequestsAfterSync: sim.state.getCounters().totalRequests,
});

process.on('message', async (message) => {
  if (message === 'crm-requests') {
    process.send!({ crmRequests: sim.state.getCounters().totalRequests });
    return;
  }
  if (message !== 'stop') return;
  baseline.closeAllConnections();
  await Promise.all([new Promise((resolve) => baseline.close(resolve)), relay.close()]);
  await sim.close();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
process.on('disconnect', () => process.exit(0));
