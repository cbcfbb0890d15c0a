import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/http/app.ts';
import { loadConfig, type VisitSettings } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { openStore, storeAnswers, type Store } from '../../server/store/store.ts';
import { createVisitService, visitsFeature, type VisitService } from '../../server/visits/index.ts';
import { freshDatabase } from '../support/postgres.ts';

/** A browser's user agent no test elsewhere sends: the store is searched for it. */
export const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 VisitProbe/7.3';

export interface VisitsHarness {
  service: VisitService;
  store: Store;
  dataDir: string;
  /** The clock the service reads: a test moves it. */
  clock: { at: number };
  /** Listings the "cache" knows. */
  known: Set<number>;
  /** A beacon over real HTTP; `from` is the client address (X-Forwarded-For; the relay trusts loopback proxies). */
  beacon(
    body: unknown,
    options?: { from?: string; userAgent?: string | null; headers?: Record<string, string>; raw?: string },
  ): Promise<{ status: number; body: any; retryAfter?: string }>;
  metrics(): Promise<string>;
  close(): Promise<void>;
}

/**
 * createApp with the visits feature alone, on a real SQLite file (and PostgreSQL when given), over
 * real HTTP on a free port. The worker is not started: tests run its tick.
 */
export async function visitsHarness(options: {
  postgresServer?: string;
  settings?: Partial<VisitSettings>;
  start: string;
  timeZone?: string;
}): Promise<VisitsHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-visits-'));
  const env: Record<string, string> = { DATA_DIR: dataDir, TRUST_PROXY: 'loopback', SITE_TIME_ZONE: options.timeZone ?? 'Australia/Melbourne' };
  if (options.postgresServer) env.DATABASE_URL = await freshDatabase(options.postgresServer, 'estate_visits');
  const config = loadConfig(env);
  const store = openStore(dataDir);
  if (env.DATABASE_URL) await attachPostgres(store, env.DATABASE_URL);
  const clock = { at: Date.parse(options.start) };
  const known = new Set([101, 102, 103]);
  const settings = { ...config.visits, ...options.settings };
  const service = createVisitService({
    store,
    settings,
    timeZone: config.site.timeZone,
    agency: undefined,
    knownListing: (id) => known.has(id),
    log: silentLogger,
    now: () => clock.at,
  });
  const app = createApp({
    config,
    storeAnswers: () => storeAnswers(store),
    log: silentLogger,
    demoDir: null,
    features: [
      visitsFeature(service, { allowedOrigins: ['https://agency.example'], ownOrigins: [], beaconsPerMinute: settings.beaconsPerMinute, now: () => clock.at }),
    ],
  });
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    service,
    store,
    dataDir,
    clock,
    known,
    async beacon(body, beaconOptions = {}) {
      const headers: Record<string, string> = { 'Content-Type': 'text/plain;charset=UTF-8', ...beaconOptions.headers };
      if (beaconOptions.from) headers['X-Forwarded-For'] = beaconOptions.from;
      // fetch sends its own user agent when none is given: an empty one stands for "none" (the relay trims it).
      headers['User-Agent'] = beaconOptions.userAgent === null ? '' : (beaconOptions.userAgent ?? BROWSER_UA);
      const response = await fetch(`${base}/api/v1/visits`, { method: 'POST', headers, body: beaconOptions.raw ?? JSON.stringify(body) });
      const text = await response.text();
      const retryAfter = response.headers.get('Retry-After');
      return { status: response.status, body: text ? JSON.parse(text) : undefined, ...(retryAfter ? { retryAfter } : {}) };
    },
    async metrics() {
      return (await fetch(`${base}/metrics`)).text();
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await service.worker.stop();
      store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The value of one Prometheus sample in a /metrics text. */
export function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}
