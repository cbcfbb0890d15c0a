/**
 * Child process of listings-api.ts: the relay with a synced cache (simulator with 200 listings,
 * workers off afterwards so no sync runs during the measurement) and a bare node:http server that
 * answers, for the same paths, the very bytes the relay answers. Reports URLs over IPC; stops on 'stop'.
 */
import { startListingRig } from '../test/listings/rig.ts';
import { headerBytes, listenBaseline } from './support.ts';

const { sim, relay, close } = await startListingRig({
  listings: 200,
  seed: 1,
  requestsPerSecond: 100,
  env: { PHOTO_WIDTHS: '480,960' },
  dataDirPrefix: 'estate-bench-listings-',
});
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
    headerBytes: headerBytes(response.headers),
  });
}

const baseline = await listenBaseline((req, res) => {
  const entry = bodies.get(req.url ?? '');
  if (!entry) return void res.writeHead(404).end();
  res.writeHead(200, { 'Content-Type': entry.type, 'Content-Length': entry.body.length });
  res.end(entry.body);
});

process.send!({
  relayOrigin: relay.url,
  baselineOrigin: baseline.origin,
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
  await Promise.all([baseline.close(), close()]);
  process.exit(0);
});
process.on('disconnect', () => process.exit(0));
