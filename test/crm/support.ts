import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createCrmClient, type CrmClient, type CrmClientOptions } from '../../server/crm/client.ts';
import { RequestLimiter, type LimiterOptions } from '../../server/crm/limiter.ts';
import { redactedPaths, silentLogger, type Logger } from '../../server/runtime/log.ts';
import { startSimulator, type FaultRule, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { openStore, type Store } from '../../server/store/store.ts';

/** A real SQLite store in a fresh temp folder; `reopen()` opens the same file again (a restart). */
export function tempStore(): { dir: string; store: Store; reopen(): Store; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'estate-crm-'));
  const opened: Store[] = [];
  const open = () => {
    const store = openStore(dir);
    opened.push(store);
    return store;
  };
  return {
    dir,
    store: open(),
    reopen: open,
    cleanup() {
      for (const store of opened) store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The largest number of timestamps (ms) inside any window of `windowMs` (half-open). */
export function maxInAnyWindow(timestamps: number[], windowMs: number): number {
  const sorted = [...timestamps].sort((a, b) => a - b);
  let max = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

export type SimOptions = Parameters<typeof startSimulator>[0];

/** The CRM simulator on a free port, plus its control surface (/__sim/) over real HTTP. */
export async function startSim(options: SimOptions = {}) {
  const sim = await startSimulator({ listings: 12, ...options });
  const control = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sim.origin}/__sim${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`control ${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    sim,
    control,
    addFault: (rule: FaultRule) => control('POST', '/faults', rule),
    /** Counters as the simulator saw them; `key` is the one API key's usage (peak per second...). */
    async counters() {
      const counters = await control('GET', '/counters');
      const keys = Object.values(counters.perKey) as Array<{ peakRequestsPerSecond: number; refusedPerSecond: number; usedToday: number }>;
      return { ...counters, key: keys[0] ?? { peakRequestsPerSecond: 0, refusedPerSecond: 0, usedToday: 0 } } as {
        requestsByEndpoint: Record<string, number>;
        statusByEndpoint: Record<string, Record<string, number>>;
        totalRequests: number;
        enquiriesStored: number;
        key: { peakRequestsPerSecond: number; refusedPerSecond: number; usedToday: number };
      };
    },
  };
}

/** A client of `sim` on `store` (with a limiter of its own), with test-friendly backoff; any option can be overridden. */
export function clientFor(
  sim: RunningSimulator,
  store: Store,
  options: Partial<CrmClientOptions> & Partial<Pick<LimiterOptions, 'requestsPerSecond' | 'dailyLimit' | 'safetyMarginMs'>> = {},
): CrmClient {
  const { requestsPerSecond = 10, dailyLimit = 10_000, safetyMarginMs, ...clientOptions } = options;
  return createCrmClient({
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    accessToken: sim.accessToken,
    limiter: new RequestLimiter({ store, requestsPerSecond, dailyLimit, safetyMarginMs, now: options.now }),
    log: silentLogger,
    backoffBaseMs: 50,
    ...clientOptions,
  });
}

/** A logger (with the production redaction) whose lines are kept in memory, to check what gets logged. */
export function memoryLogger(): { log: Logger; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const log = pino({ level: 'debug', redact: { paths: redactedPaths, censor: '[redacted]' } }, stream);
  return { log, text: () => chunks.join('') };
}
