// One limit across relays (DATABASE_URL): two relays on one API key, sharing four agencies' syncs
// from a cold start (the first takes every lease, then hands some to the second once filled), the
// second delivering enquiries meanwhile, take their CRM slots and count their requests in
// PostgreSQL, so the simulator (which counts per key on arrival) never sees more than 10 in a
// second, refuses none, and the day's budget holds every request of both relays once.
import { readRelayId } from '../../server/store/relay-identity.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../server/cli.ts';
import { budgetUsedOn, utcDay } from '../../server/crm/limiter.ts';
import { openStore } from '../../server/store/store.ts';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { freshDatabase } from '../support/postgres.ts';
import { anotherRelay, queryDatabase } from './pg-rig.ts';
import { startAgenciesRig, until, type AgenciesRig } from './rig.ts';
import { validEnquiry } from '../enquiries/support.ts';
import { onOneUtcDayFor } from '../support/test-clock.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

describe.skipIf(skipped)(`two relays on one key and one PostgreSQL database${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let rig: AgenciesRig;
  let second: RunningRelay;
  let databaseUrl: string;
  /** A fixture geocoder both relays ask (GEOCODER_URL): when each query arrived. */
  let geocoder: Server;
  const geocoderArrivals: number[] = [];
  /** This process's event loop (the relays, the fixture geocoder and the test share it): how late a timer or an arrival can be. */
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });

  beforeAll(async () => {
    // Relays on PostgreSQL (whose shared times are the database's) and the operator CLI take no
    // clock of the test's, yet the suite compares "today's" counts from its first fill to its last
    // CLI run (minutes at most): all on one UTC day.
    await onOneUtcDayFor(6 * 60_000);
    loopDelay.enable();
    databaseUrl = await freshDatabase((postgres as { url: string }).url, 'limits');
    geocoder = createServer((_req, res) => {
      geocoderArrivals.push(performance.now());
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify([{ lat: '-37.8064', lon: '145.0311' }]));
    });
    await new Promise<void>((resolve) => geocoder.listen(0, '127.0.0.1', resolve));
    const GEOCODER_URL = `http://127.0.0.1:${(geocoder.address() as AddressInfo).port}`;
    rig = await startAgenciesRig({
      agencies: 4,
      listings: 8,
      workers: true,
      requestsPerSecond: 10,
      env: { DATABASE_URL: databaseUrl, ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000', GEOCODER_URL },
    });
    second = await anotherRelay(rig, databaseUrl, { workers: true, env: { GEOCODER_URL } });
  }, 420_000); // 1 min, and up to 6 waiting out a UTC midnight
  afterAll(async () => {
    loopDelay.disable();
    await second?.close();
    await rig?.close();
    geocoder?.closeAllConnections();
    await new Promise((resolve) => geocoder?.close(resolve));
  });

  it("never more than 10 requests in a second at the CRM, no 429, and the day's budget counts each request of both relays once", async () => {
    const ready = (relay: RunningRelay) => Promise.all(rig.entries.map(async (entry) => (await fetch(`${relay.url}/a/${entry.slug}/readyz`)).status));
    const both = async () => [...(await ready(rig.relay)), ...(await ready(second))];
    // While the first relay fills the four agencies, the second delivers enquiries to them.
    const posts = rig.accounts.flatMap((account, index) =>
      [0, 1, 2].map(async () => {
        const listing = account.listings.find(
          (candidate) => candidate.publishedToWeb !== null && candidate.market === 'sale' && ['listing', 'conditional'].includes(candidate.status),
        )!;
        const body = validEnquiry({ listingId: listing.lifeId * 2 });
        for (;;) {
          const response = await fetch(`${second.url}/a/${rig.entries[index]!.slug}/api/v1/enquiries`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          });
          if (response.status === 202) return;
          await new Promise((resolve) => setTimeout(resolve, 200)); // 503 until its copy of the listings arrives
        }
      }),
    );
    expect(await until(both, (statuses) => statuses.every((status) => status === 200), 150_000)).toEqual(Array(8).fill(200));
    await Promise.all(posts);
    await until(
      () => rig.accounts.reduce((total, account) => total + account.postedEnquiries().length, 0),
      (count) => count >= 12,
      30_000,
    );
    const usage = rig.sim.key.getCounters().perKey[rig.sim.apiKey]!;
    expect(usage.usedToday, 'enough requests to have crowded the limit').toBeGreaterThan(40);
    expect(usage.peakRequestsPerSecond).toBeLessThanOrEqual(10);
    expect(usage.refusedPerSecond).toBe(0);

    const calls = (relay: RunningRelay) => relay.agencies!.list().reduce((sum, running) => sum + running.agency.crm.requestsToday().requests, 0);
    // A slot the gate granted whose lead write then stopped unsent (its "may be in the CRM" mark
    // could not be committed: a lease lost on a busy machine) is spent in the budget, never sent.
    const unsent = (relay: RunningRelay) => relay.agencies!.list().reduce((sum, running) => sum + running.agency.crm.requestsToday().unsent, 0);
    expect(calls(rig.relay)).toBeGreaterThan(0);
    expect(calls(second)).toBeGreaterThan(0);
    const used = async () =>
      (await queryDatabase<{ used: number }>(databaseUrl, 'SELECT used FROM relay_key.crm_budget WHERE day = $1', [utcDay(new Date())]))[0]!.used;
    // Polled: the relays keep syncing, and a request counted in the database may not yet be in its relay's own count.
    await expect.poll(async () => (await used()) - (calls(rig.relay) + calls(second) + unsent(rig.relay) + unsent(second)), { timeout: 15_000 }).toBe(0);
    const row = { used: await used() };
    // Every relay reads the key's one count.
    expect(second.crm.budget().used).toBeGreaterThan(calls(second));
    const arrived = rig.sim.key.getCounters().perKey[rig.sim.apiKey]!.usedToday;
    expect(arrived).toBeLessThanOrEqual(row!.used);
    expect(arrived).toBeGreaterThan(row!.used - 5);
    // Room for its own waits (150 s for both relays ready on a busy machine, the posts, 30 s for the
    // enquiries, 15 s for the counts) to fail with their message first.
  }, 300_000);

  it("the relays take the geocoder's turns from the database (GEOCODER_URL with DATABASE_URL): its queries arrive one interval apart", async () => {
    const turns = async () =>
      (await queryDatabase<{ turns: number }>(databaseUrl, 'SELECT turns FROM relay_key.geocoder_gate')).reduce((sum, row) => sum + Number(row.turns), 0);
    expect(await until(turns, (count) => count >= 2, 30_000)).toBeGreaterThanOrEqual(2);
    // (The simulator's listings without coordinates needed two queries in all when this was written: at least two.)
    expect(geocoderArrivals.length).toBeGreaterThanOrEqual(2);
    const times = [...geocoderArrivals].sort((a, b) => a - b);
    const gaps = times.slice(1).map((at, i) => at - times[i]!);
    // A request's timer may wake late on a loaded machine, narrowing one gap (test/cluster/geocoder-gate.test.ts TOLERANCE_MS):
    // by no more than the longest the event loop was held up (334 ms once at a load of 16).
    const lateness = Math.max(100, loopDelay.max / 1e6);
    expect(Math.min(...gaps), `the event loop was held up ${Math.round(loopDelay.max / 1e6)} ms at most`).toBeGreaterThanOrEqual(1000 - lateness);
  }, 40_000);

  it('lists both relays in the registry, seen within the heartbeat', async () => {
    const rows = await queryDatabase<{ id: string; last_seen: string; version: string }>(
      databaseUrl,
      'SELECT id, last_seen, version FROM relay_key.relays ORDER BY id',
    );
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.id)).size).toBe(2);
    for (const row of rows) expect(Date.now() - Number(row.last_seen)).toBeLessThan(15_000);
  });

  it("`npm run relay -- status` lists the relays on the shared store, their last seen, and the key's day across them", async () => {
    const { config } = rig.relay;
    const env = {
      DATA_DIR: rig.dataDir,
      DATABASE_URL: databaseUrl,
      CRM_BASE_URL: config.crm.baseUrl!,
      CRM_API_KEY: config.crm.apiKey!,
      AGENCIES_FILE: rig.file,
      PUBLIC_URL: 'https://relay.integrator.test',
      LOG_LEVEL: 'silent',
    };
    const out: string[] = [];
    const err: string[] = [];
    expect(await runCli(['status'], { env, out: (text) => out.push(text), err: (text) => err.push(text) }), err.join('\n')).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/Relays\s+2 seen, 2 alive/);
    // Each by its id (DATA_DIR/relay-id), then its host, DATA_DIR and pid.
    for (const relay of [rig.relay, second])
      expect(text).toContain(`alive  ${readRelayId(relay.config.dataDir)}  ${hostname()}:${resolve(relay.config.dataDir)} pid ${process.pid}, version `);
    expect(text).toMatch(/last seen \d+ s ago/);
    const [row] = await queryDatabase<{ used: number }>(databaseUrl, 'SELECT used FROM relay_key.crm_budget');
    expect(text).toContain(`CRM requests    ${row!.used} of `);
    // The password of DATABASE_URL is never shown.
    expect(text).not.toContain(new URL(databaseUrl).password);
    const json: string[] = [];
    expect(await runCli(['status', '--json'], { env, out: (text) => json.push(text), err: () => {} })).toBe(0);
    expect(JSON.parse(json.join('')).shared.relays.map((relay: { alive: boolean }) => relay.alive)).toEqual([true, true]);
    // One agency's status: its CRM line is the key's day from PostgreSQL (not the SQLite count, 0 here).
    const agencyJson: string[] = [];
    expect(await runCli(['status', '--agency', 'agency-a', '--json'], { env, out: (text) => agencyJson.push(text), err: () => {} })).toBe(0);
    const agencyStatus = JSON.parse(agencyJson.join(''));
    expect(agencyStatus.crm.used).toBe(agencyStatus.shared.crmUsedToday);
    expect(agencyStatus.crm.used).toBeGreaterThan(0);
  });

  it("a CLI sync with no relay on its DATA_DIR spends the key's shared limits, not a budget of its own", async () => {
    const { config } = rig.relay;
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-cli-sync-'));
    try {
      const env = {
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        CRM_BASE_URL: config.crm.baseUrl!,
        CRM_API_KEY: config.crm.apiKey!,
        AGENCIES_FILE: rig.file,
        PUBLIC_URL: 'https://relay.integrator.test',
        LOG_LEVEL: 'silent',
      };
      const day = utcDay(new Date());
      const usedBefore = (await queryDatabase<{ used: number }>(databaseUrl, 'SELECT used FROM relay_key.crm_budget WHERE day = $1', [day]))[0]!.used;
      const arrivedBefore = rig.sim.key.getCounters().perKey[rig.sim.apiKey]!.usedToday;
      const err: string[] = [];
      expect(await runCli(['sync', '--full', '--agency', 'agency-a'], { env, out: () => {}, err: (text) => err.push(text) }), err.join('\n')).toBe(0);
      const arrived = rig.sim.key.getCounters().perKey[rig.sim.apiKey]!.usedToday - arrivedBefore;
      const used = (await queryDatabase<{ used: number }>(databaseUrl, 'SELECT used FROM relay_key.crm_budget WHERE day = $1', [day]))[0]!.used;
      expect(arrived).toBeGreaterThan(0);
      // Counted in the key's shared day (the relays' workers may add a few of their own meanwhile).
      expect(used - usedBefore).toBeGreaterThanOrEqual(arrived);
      const keyStore = openStore(dataDir);
      expect(budgetUsedOn(keyStore, day)).toBe(0);
      keyStore.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
