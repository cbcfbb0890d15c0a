/**
 * Child process of listings-api.ts: the relay with a synced cache (simulator with 200 listings,
 * workers off afterwards so no sync runs during the measurement) and a bare node:http server that
 * answers, for the same paths, the very bytes the relay answers (brotli ones to a browser-like request). Reports URLs over IPC; stops on 'stop'.
 */
import { startListingRig } from '../test/listings/rig.ts';
import { get } from 'node:http';
import { listenBaseline } from './support.ts';

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
/** How a browser asks: the bytes answered differ (brotli), so the baseline sends those bytes. */
const BROWSER_HEADERS = { 'accept-encoding': 'br, gzip' };
type Answer = { body: Buffer; headers: Record<string, string>; headerBytes: number };
/** The raw bytes on the wire (fetch would decode them). */
function rawGet(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`${url} answered ${response.statusCode}`));
        const kept: Record<string, string> = { 'content-type': String(response.headers['content-type'] ?? 'application/json') };
        if (response.headers['content-encoding']) kept['content-encoding'] = String(response.headers['content-encoding']);
        const headerBytes = Object.entries(response.headers).reduce((sum, [name, value]) => sum + name.length + String(value).length + 4, 0);
        resolve({ body: Buffer.concat(chunks), headers: kept, headerBytes });
      });
    }).on('error', reject);
  });
}
const bodies = new Map<string, Answer>();
const browserBodies = new Map<string, Answer>();
for (const path of Object.values(paths)) {
  bodies.set(path, await rawGet(`${relay.url}${path}`, {}));
  const browser = await rawGet(`${relay.url}${path}`, BROWSER_HEADERS);
  if (browser.headers['content-encoding'] !== 'br') throw new Error(`${path}: the relay did not answer brotli to a browser`);
  browserBodies.set(path, browser);
}

const baseline = await listenBaseline((req, res) => {
  const browserLike = /\bbr\b/.test(String(req.headers['accept-encoding'] ?? ''));
  const entry = (browserLike ? browserBodies : bodies).get(req.url ?? '');
  if (!entry) return void res.writeHead(404).end();
  res.writeHead(200, { ...entry.headers, 'Content-Length': entry.body.length });
  res.end(entry.body);
});

process.send!({
  relayOrigin: relay.url,
  baselineOrigin: baseline.origin,
  paths,
  listings: report.changed,
  browserHeaders: BROWSER_HEADERS,
  bodyBytes: Object.fromEntries([...bodies].map(([path, entry]) => [path, entry.body.length])),
  brotliBytes: Object.fromEntries([...browserBodies].map(([path, entry]) => [path, entry.body.length])),
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
