/**
 * Child process of enquiry-latency.ts: hosts the CRM simulator (POST /enquiries answering after
 * 2 s), the relay (startRelay, outbox and delivery worker running) and the pass-through baseline,
 * so the load generator in the parent does not share their event loop.
 *
 * The baseline is what a relay without an outbox would do: validate the same way, post to the CRM
 * through the same client (limiter included) and answer only when the CRM has answered.
 * Reports its URLs over IPC; 'relay-done' stops the relay's worker (so its deliveries do not
 * share the CRM rate limit with the baseline phase); 'stop' ends it.
 */
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../server/runtime/config.ts';
import { createCrmClient } from '../server/crm/client.ts';
import { limiterForKey } from '../server/crm/limiter.ts';
import { decodeDestination, listingDestination } from '../server/crm/lead-destination.ts';
import { toAddEnquiry } from '../server/crm/lead-sink.ts';
import { enquiryRequestSchema, fieldErrors, leadTarget } from '../server/enquiries/schema.ts';
import { staticEnquiryTargets, type ListingTarget } from '../server/enquiries/targets.ts';
import { silentLogger } from '../server/runtime/log.ts';
import { startRelay } from '../server/compose/relay.ts';
import { startSimulator } from '../crm-sim/simulator.ts';
import { openStore } from '../server/store/store.ts';

export const CRM_LATENCY_MS = 2_000;

const sim = await startSimulator({ listings: 12, seed: 5, requestsPerSecond: 10, dailyLimit: 1_000_000 });
const crmSettings = { CRM_BASE_URL: sim.baseUrl, CRM_API_KEY: sim.apiKey, CRM_ACCESS_TOKEN: sim.accessToken };

// The listings the load posts about, read once (a warm listing cache answers the same from SQLite).
const listResponse = await fetch(`${sim.baseUrl}/properties/residential/sale/available?pagesize=100`, {
  headers: { 'X-Api-Key': sim.apiKey, Authorization: `Bearer ${sim.accessToken}` },
});
const listings: Record<number, ListingTarget> = {};
for (const item of ((await listResponse.json()) as { items: Array<{ id: number; saleLifeId: number | null; referenceID: string | null }> }).items) {
  // Where the CRM adapter sends an enquiry about the listing (its sale life and reference).
  const destination = listingDestination('sale', item);
  if (destination !== null) listings[item.id] = { destination };
}
sim.state.faults.set([{ match: 'POST /enquiries', latencyMs: CRM_LATENCY_MS }]);

const relayDir = mkdtempSync(join(tmpdir(), 'estate-bench-enquiry-relay-'));
const config = loadConfig({
  PORT: '0',
  HOST: '127.0.0.1',
  DATA_DIR: relayDir,
  LOG_LEVEL: 'silent',
  ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000000',
  ENQUIRY_DAILY_LIMIT_PER_CLIENT: '1000000',
  ENQUIRY_DAILY_BUDGET: '1000000',
  ENQUIRY_MIN_FILL_MS: '0',
  PUBLIC_URL: 'https://relay.bench.test',
  ...crmSettings,
});
// Workers off: no listing sync traffic; the enquiry worker alone is started below.
const relay = await startRelay(config, { log: silentLogger, workers: false, enquiryTargets: staticEnquiryTargets(listings, {}) });
relay.enquiries.worker.start();

const baselineDir = mkdtempSync(join(tmpdir(), 'estate-bench-enquiry-baseline-'));
const baselineStore = openStore(baselineDir);
const crm = createCrmClient({
  baseUrl: sim.baseUrl,
  apiKey: sim.apiKey,
  accessToken: sim.accessToken,
  limiter: limiterForKey(sim.apiKey, { store: baselineStore, requestsPerSecond: 10, dailyLimit: 10_000 }),
  log: silentLogger,
  timeoutMs: 15_000,
});
const baselineApp = express();
baselineApp.post('/api/v1/enquiries', express.json({ limit: '16kb' }), async (req, res) => {
  const parsed = enquiryRequestSchema.safeParse(req.body);
  if (!parsed.success) {
    res.status(400).json({ error: 'invalid_enquiry', fields: fieldErrors(parsed.error) });
    return;
  }
  const listing = listings[leadTarget(parsed.data).listingId ?? -1];
  if (!listing?.destination) {
    res.status(400).json({ error: 'invalid_enquiry', fields: { listingId: 'No listing with this id' } });
    return;
  }
  try {
    await crm.addEnquiry(toAddEnquiry(parsed.data, decodeDestination(listing.destination), { source: 'OFFICEWEBSITE', acceptedAt: new Date() }));
    res.status(201).json({ originalId: parsed.data.originalId, status: 'delivered' });
  } catch {
    res.status(502).json({ error: 'crm_unavailable' });
  }
});
const baseline: Server = await new Promise((resolve) => {
  const server = baselineApp.listen(0, '127.0.0.1', () => resolve(server));
});

process.send!({
  relayUrl: `${relay.url}/api/v1/enquiries`,
  baselineUrl: `http://127.0.0.1:${(baseline.address() as AddressInfo).port}/api/v1/enquiries`,
  listingIds: Object.keys(listings).map(Number),
  crmLatencyMs: CRM_LATENCY_MS,
});

process.on('message', async (message) => {
  if (message === 'relay-done') {
    await relay.enquiries.worker.stop();
    process.send!({ relayDone: true, outbox: await relay.enquiries.outbox.counts() });
    return;
  }
  if (message !== 'stop') return;
  baseline.closeAllConnections();
  await Promise.all([new Promise((resolve) => baseline.close(resolve)), relay.close()]);
  crm.close();
  baselineStore.close();
  await sim.close();
  rmSync(relayDir, { recursive: true, force: true });
  rmSync(baselineDir, { recursive: true, force: true });
  process.exit(0);
});
