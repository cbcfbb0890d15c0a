// Issue 9, item 3: a write lock on the store held by another process (a real second SQLite
// connection in a child process, BEGIN IMMEDIATE) for longer than busy_timeout must not end the
// relay. Meanwhile: listings are served from the cache, new enquiries get 503 with Retry-After,
// the delivery worker and a full sync that cannot write log and carry on; afterwards the enquiry
// accepted before the lock and the one refused during it both reach the CRM exactly once, and new
// enquiries are taken again within seconds of the lock's release.
//
// STORE_LOCK_SECONDS sets how long the lock is held (default 9: busy_timeout 5 s + 4 s); the
// outside review held it 75 s: `STORE_LOCK_SECONDS=75 npx vitest run test/store/store-lock.test.ts`.
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import { projectRoot } from '../../server/http/app.ts';
import { SYNC_REQUEST_FILE, SYNC_SIGNAL } from '../../server/ops/sync-request.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { validEnquiry } from '../enquiries/support.ts';

// Long enough that, on a loaded CI machine, the first write's busy wait (busy_timeout, 5 s, event loop
// stopped) and the refused POST both fall well inside the lock: at 9 s the lock was sometimes gone
// before the POST was handled, and it was taken (202).
const LOCK_SECONDS = Number(process.env.STORE_LOCK_SECONDS ?? 20);
const dataDir = mkdtempSync(join(tmpdir(), 'estate-lock-'));
let sim: RunningSimulator;
let relay: ChildProcess;
let url: string;
let output = '';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Relay output:\n${output.slice(-3000)}`);
    await sleep(100);
  }
}

const alive = () => relay.exitCode === null && relay.signalCode === null;

/**
 * One request on its own connection. While the relay's event loop waits on the lock (busy_timeout),
 * a kept-alive connection can time out on its side just as a client reuses it: a reset that says
 * nothing about the relay, so these requests never reuse one.
 */
function call(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: () => unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, agent: false, timeout: 20_000, headers: body ? { 'Content-Type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: () => JSON.parse(text) }));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 20 s`)));
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const postEnquiry = (body: EnquiryRequest) => call('POST', '/api/v1/enquiries', body);

beforeAll(async () => {
  sim = await startSimulator({ listings: 6, seed: 9 });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  relay = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'server', 'main.ts')], {
    cwd: projectRoot,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      ALLOWED_ORIGINS: 'https://agency.example',
      DATA_DIR: dataDir,
      CRM_BASE_URL: sim.baseUrl,
      CRM_API_KEY: sim.apiKey,
      CRM_ACCESS_TOKEN: sim.accessToken,
      LOG_LEVEL: 'info',
      ENQUIRY_MIN_FILL_MS: '0',
      // The test re-sends the refused enquiry every 100 ms until it is taken.
      ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000',
      ENQUIRY_DAILY_LIMIT_PER_CLIENT: '100000',
      ENQUIRY_RETRY_BASE_MS: '500',
      ENQUIRY_RETRY_MAX_MS: '1000',
      ENQUIRY_RECONCILE_DELAY_MS: '0',
      ENQUIRY_POLL_MS: '250',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  relay.stdout!.on('data', (chunk) => (output += String(chunk)));
  relay.stderr!.on('data', (chunk) => (output += String(chunk)));
  relay.on('exit', (code, signal) => (output += `\n[relay exited: code ${code}, signal ${signal}]\n`));
  // Started through tsx beside the other suites' relays on two cores: its start can take a minute.
  await until(
    async () => {
      if (!alive()) throw new Error(`relay exited during start:\n${output}`);
      return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
    },
    'the relay to be ready (first sync done)',
    150_000,
  );
}, 180_000);

afterAll(async () => {
  if (process.env.STORE_LOCK_LOG) writeFileSync(process.env.STORE_LOCK_LOG, output);
  if (relay && alive()) {
    const exited = new Promise((resolve) => relay.once('exit', resolve));
    relay.kill('SIGKILL');
    await exited;
  }
  await sim?.close();
  // The killed relay's image process may still be finishing a file as it exits (it leaves on the lost IPC channel).
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

describe('a write lock held by another process', () => {
  it(
    `for ${LOCK_SECONDS} s: the relay lives, serves listings, answers 503 to new enquiries, and loses nothing`,
    { timeout: 60_000 + LOCK_SECONDS * 2_000 },
    async () => {
      const listings = (await call('GET', '/api/v1/listings')).json() as { items: Array<{ id: number }> };
      const listingId = listings.items[0]!.id;
      // The CRM refuses POSTs for now, so the worker keeps retrying (and writing) through the lock.
      sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 500 }]);
      const before = validEnquiry({ listingId });
      expect((await postEnquiry(before)).status).toBe(202);

      const locker = spawn(
        process.execPath,
        ['--import', 'tsx', join(projectRoot, 'test', 'support', 'hold-write-lock.ts'), join(dataDir, 'relay.db'), String(LOCK_SECONDS)],
        {
          cwd: projectRoot,
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let lockerOut = '';
      locker.stdout!.on('data', (chunk) => (lockerOut += String(chunk)));
      await until(() => lockerOut.includes('locked'), 'the other process to take the lock', 20_000);
      const lockedAt = Date.now();

      // A full sync asked for by the operator CLI: its first write is refused.
      writeFileSync(join(dataDir, SYNC_REQUEST_FILE), JSON.stringify({ kind: 'full', requestedAt: Date.now() }));
      process.kill(relay.pid!, SYNC_SIGNAL);

      const during = validEnquiry({ listingId });
      const refused = await postEnquiry(during);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((refused.json() as { error: string }).error).toBe('unavailable');

      // Reads carry on from the cache while the lock lasts.
      let reads = 0;
      while (Date.now() - lockedAt < (LOCK_SECONDS - 1) * 1000) {
        const response = await call('GET', '/api/v1/listings?pageSize=5');
        expect(response.status).toBe(200);
        expect((response.json() as { items: unknown[] }).items.length).toBeGreaterThan(0);
        reads++;
        expect(alive(), 'the relay is still running').toBe(true);
        await sleep(500);
      }
      expect(reads).toBeGreaterThan(0);

      await until(() => lockerOut.includes('released'), 'the lock to be released', LOCK_SECONDS * 1000 + 20_000);
      expect(alive()).toBe(true);
      // What happened was said in the log, and nothing escaped to the last-resort handler.
      expect(output).toMatch(/database is locked/);
      expect(output).not.toMatch(/uncaughtException|unhandledRejection/);

      // The CRM is back: the enquiry accepted before the lock and the one refused during it (sent
      // again, as the widget does after Retry-After) both arrive, once each.
      sim.state.faults.clear();
      const releasedAt = Date.now();
      await until(async () => (await postEnquiry(during)).status === 202, 'the relay to accept enquiries again', 30_000);
      // The lock is checked once a second without waiting for it: writes resume at once.
      expect(Date.now() - releasedAt).toBeLessThan(5_000);
      await until(
        () => [before, during].every((body) => sim.state.postedEnquiries().some((enquiry) => enquiry.originalId === body.originalId)),
        'both enquiries to reach the CRM',
        90_000,
      );
      const ids = sim.state.postedEnquiries().map((enquiry) => enquiry.originalId);
      expect(ids.filter((id) => id === before.originalId)).toHaveLength(1);
      expect(ids.filter((id) => id === during.originalId)).toHaveLength(1);
      expect(alive()).toBe(true);
    },
  );
});
