// The geocoder's rate held in PostgreSQL (server/cluster/geocoder-gate.ts) against the test run's
// real server: two relays (two Geocoding instances, each with its own SQLite store and its own
// pool) on one database, asking a fixture Nominatim over real HTTP that records when each query
// arrives. With the gate they keep GEOCODER_REQUESTS_PER_SECOND together; without it each keeps
// its own and the queries come in pairs. With the database out of reach nothing is sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { SharedGeocoderGate } from '../../server/cluster/geocoder-gate.ts';
import { nominatimGeocoder, type PlaceQuery } from '../../server/places/geocoder.ts';
import { Geocoding } from '../../server/places/geocoding.ts';
import { GeocoderGateError, geocoderIntervalMs, type GeocoderGate } from '../../server/places/gate.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { openPool } from '../../server/store/postgres.ts';
import { SharedDatabase } from '../../server/store/shared-database.ts';
import { openStore } from '../../server/store/store.ts';
import { cuttableProxy, freshDatabase } from '../support/postgres.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
const INTERVAL_MS = geocoderIntervalMs(1);
/**
 * Timers and two trips through the gate are not exact. On a quiet machine the 5 % margin of the
 * interval covers them; on a loaded 2-core one a request's timer can wake 100 ms late, which narrows
 * one gap at the geocoder while widening the one before (the turns themselves, on the database's
 * clock, are one interval apart: the waits above).
 */
const TOLERANCE_MS = 100;

/** The fixture Nominatim: when each query arrived (ms, this process's monotonic clock). */
let server: Server;
let origin: string;
const arrivals: Array<{ at: number; q: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    arrivals.push({ at: performance.now(), q: new URL(req.url ?? '/', origin).searchParams.get('q') ?? '' });
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify([{ lat: '-37.8064', lon: '145.0311', display_name: 'Kew', address: { country_code: 'au' } }]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  arrivals.length = 0;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database with the key-wide tables (geocoder_gate among them). */
async function keyDatabase(): Promise<string> {
  const url = await freshDatabase((postgres as { url: string }).url, 'geogate');
  const database = await SharedDatabase.open(url);
  cleanups.push(() => database.close());
  return url;
}

function poolOn(url: string): pg.Pool {
  const pool = openPool(url, { warn: () => {} });
  cleanups.push(() => pool.end());
  return pool;
}

const gateOn = (pool: pg.Pool, holder: string) => new SharedGeocoderGate({ pool, geocoderUrl: origin, intervalMs: INTERVAL_MS, holder });

/** One relay's geocoding: its own store, the fixture geocoder at 1 request a second, the gate if given. */
function relayGeocoding(gate?: GeocoderGate): Geocoding {
  const dir = mkdtempSync(join(tmpdir(), 'estate-geogate-'));
  const store = openStore(dir);
  cleanups.push(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const geocoder = nominatimGeocoder({ baseUrl: `${origin}/`, userAgent: 'estate-embed/test', timeoutMs: 5_000 });
  return new Geocoding({ store, geocoder, requestsPerSecond: 1, log: silentLogger, gate });
}

const address = (relay: string, n: number): PlaceQuery => ({
  kind: 'address',
  street: `${n} ${relay} Street`,
  suburb: 'Kew',
  state: 'VIC',
  postcode: '3101',
  country: 'AU',
});

/** Both relays ask `perRelay` different addresses each, all at once; answers the gaps between arrivals (ms), in order. */
async function askTogether(relays: Geocoding[], perRelay: number): Promise<number[]> {
  await Promise.all(relays.flatMap((geocoding, r) => Array.from({ length: perRelay }, (_, n) => geocoding.locate(address(`Relay${r}`, n)))));
  expect(arrivals).toHaveLength(relays.length * perRelay);
  expect(new Set(arrivals.map((arrival) => arrival.q)).size).toBe(relays.length * perRelay);
  const times = arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
  return times.slice(1).map((at, i) => at - times[i]!);
}

describe.skipIf(skipped)(`the geocoder's rate shared on PostgreSQL${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  it('two gates on one database take turns one interval apart, whichever takes them', async () => {
    const url = await keyDatabase();
    const [a, b] = [gateOn(poolOn(url), 'relay-a'), gateOn(poolOn(url), 'relay-b')];
    const waits = [await a.next(), await b.next(), await a.next(), await b.next()];
    expect(waits[0]).toBe(0);
    for (let i = 1; i < waits.length; i++) {
      // Each turn one interval after the last, less the time the statements took (a few ms; over
      // 100 on this shared two-core machine under load: the bound catches a turn not spaced at all).
      expect(waits[i]! - waits[i - 1]!).toBeGreaterThan(INTERVAL_MS - 300);
      expect(waits[i]! - waits[i - 1]!).toBeLessThanOrEqual(INTERVAL_MS);
    }
    const [row] = (await poolOn(url).query<{ turns: number; holder: string }>('SELECT turns, holder FROM relay_key.geocoder_gate')).rows;
    expect(row).toEqual({ turns: 4, holder: 'relay-b' });
  });

  it('two relays geocoding at once: the geocoder hears one query per interval overall', async () => {
    const url = await keyDatabase();
    const relays = [relayGeocoding(gateOn(poolOn(url), 'relay-a')), relayGeocoding(gateOn(poolOn(url), 'relay-b'))];
    const gaps = await askTogether(relays, 3);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 - TOLERANCE_MS);
  }, 20_000);

  it('without the gate (the proof that the test can fail) each relay keeps only its own rate: the queries come in pairs', async () => {
    const gaps = await askTogether([relayGeocoding(), relayGeocoding()], 2);
    expect(Math.min(...gaps)).toBeLessThan(500);
  }, 20_000);

  it('with the database out of reach nothing is sent; once it is back the turns go on', async () => {
    const url = await keyDatabase();
    const proxy = await cuttableProxy(new URL(url));
    cleanups.push(() => proxy.close());
    const geocoding = relayGeocoding(gateOn(poolOn(proxy.url), 'relay-a'));
    await proxy.cut();
    await expect(geocoding.locate(address('Cut', 1))).rejects.toBeInstanceOf(GeocoderGateError);
    expect(arrivals).toHaveLength(0);
    await proxy.restore();
    expect(await geocoding.locate(address('Cut', 1))).toEqual({ lat: -37.8064, lng: 145.0311 });
    expect(arrivals).toHaveLength(1);
  }, 20_000);
});
