/**
 * Issue 33: the compiled relay's memory against bare Node's, measured in the same run.
 *
 * - Bare Node: `node -e` that idles (a timer), its RSS after BARE_IDLE_MS.
 * - The relay as production runs it: `node dist/server/main.js` (built first with `npm run
 *   build:server`), NODE_ENV=production, forked with bench/memory-probe.mjs preloaded (it answers
 *   over IPC with process.memoryUsage(), V8's heap statistics, sharp's cache and queue, and the
 *   kernel's mappings), against the CRM simulator in a process of its own over real HTTP on
 *   loopback, as a real relay talks to a CRM elsewhere:
 *   (a) one agency (CRM_ACCESS_TOKEN, no AGENCIES_FILE), BENCH_MEMORY_LISTINGS (40) listings with
 *       the simulator's photos;
 *   (b) a fleet: BENCH_MEMORY_AGENCIES (200) agencies × BENCH_MEMORY_FLEET_LISTINGS (100) from an
 *       AGENCIES_FILE, BENCH_MEMORY_FLEET_PHOTOS (0) photos a listing besides the agents' portraits,
 *       PHOTO_WIDTHS=480 (as the integrator bench);
 *   (c) demo mode (DEMO_MODE=1, NODE_ENV=production: the embedded simulator in the relay's own
 *       process, what `npm start` runs), for the "before".
 *   Each is sampled idle after its first fill (every agency's /readyz 200, then the process quiet:
 *   under QUIET_CPU of a core for QUIET_SECONDS, then SETTLE_MS idle) and again idle after a warm-up of what visitors
 *   ask: list and detail answers, server-rendered list, team and listing pages, photo files.
 * The figures are the RSS ratios to bare Node's; the probe's breakdown rides along.
 *
 * The CRM's per-second limit is raised (simulator and relay: 1,000 a second; the daily limit is the
 * CRM's 10,000, so the sync plan is an operator's) so the fleet's fill is bound by the relay's own
 * work (about 4 minutes on two cores: never-filled agencies fill one after another), not by the
 * CRM's rate (bench/integrator.ts measures that); the
 * per-client render limit is off (every warm-up page comes from one address).
 *
 * Env: BENCH_MEMORY_CASES (one,fleet,demo), BENCH_MEMORY_AGENCIES, BENCH_MEMORY_LISTINGS,
 * BENCH_MEMORY_FLEET_LISTINGS, BENCH_MEMORY_PHOTOS (photos a listing of the one agency; 0 switches
 * the photo mirror's work off, for attribution), BENCH_MEMORY_RELAY_ENV ("NAME=value NAME=value": more relay
 * settings, for attributing memory by switching things off), BENCH_MEMORY_NODE_FLAGS (Node's own,
 * e.g. --enable-source-maps as deploy/estate-embed-relay.service runs it), BENCH_MEMORY_SNAPSHOT
 * (a path prefix: a V8 heap snapshot of each case once warm), BENCH_MEMORY_SKIP_BUILD=1.
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addressSlug } from '../contract/slug.ts';
import { freePort } from '../test/support/postgres.ts';
import { writeAgenciesFile } from '../test/support/integrator-rig.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const ROOT = join(import.meta.dirname, '..');
const MAIN = join(ROOT, 'dist', 'server', 'main.js');
const PROBE = join(import.meta.dirname, 'memory-probe.mjs');
const BARE_IDLE_MS = 3_000;
/** The process counts as idle once it used under this share of a core for QUIET_SECONDS in a row. */
const QUIET_CPU = 0.03;
const QUIET_SECONDS = 3;
/**
 * Then idle this long before sampling: an operator reads RSS of a relay that has been quiet for
 * minutes, and the relay gives memory back once it has been quiet for a check (10 s) after work, or
 * up to 30 s later when V8 kept its pages through a collection made while work went on
 * (server/runtime/idle-memory.ts).
 */
const SETTLE_MS = 45_000;
const RATE = 1_000;
/** The CRM's daily limit (the default): the relay's sync plan, and so its idle work, is what an operator's would be. */
const DAILY = 10_000;
const READY_TIMEOUT_MS = 600_000;

type Memory = Record<string, unknown> & { rssMB: number; heapUsedMB: number };

interface CaseResult {
  rssFilledMB: number;
  rssWarmMB: number;
  peakMB: number;
  filled: Memory;
  warm: Memory;
  fillSeconds: number;
  warmUpRequests: number;
  warmUpSeconds: number;
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const cases = (process.env.BENCH_MEMORY_CASES ?? 'one,fleet,demo').split(',').map((each) => each.trim());
  const agencies = positive('BENCH_MEMORY_AGENCIES', 200);
  const listings = positive('BENCH_MEMORY_LISTINGS', 40);
  const fleetListings = positive('BENCH_MEMORY_FLEET_LISTINGS', 100);
  // No listing photos by default (agents' portraits only): each agency mirrors its own copy of the simulator's photo pool, 50 s more of fill (288 s against 236 on two cores).
  const fleetPhotos = optional('BENCH_MEMORY_FLEET_PHOTOS') ?? 0;
  const extraEnv = parseEnv(process.env.BENCH_MEMORY_RELAY_ENV ?? '');
  if (process.env.BENCH_MEMORY_SKIP_BUILD !== '1') {
    context.note('npm run build:server');
    const built = spawnSync('npm', ['run', 'build:server', '--silent'], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`npm run build:server failed:\n${built.stdout}${built.stderr}`);
  }

  const bareMB = await bareNodeRss();
  context.note(`bare node: ${bareMB} MB`);
  const figures: BenchFigure[] = [];
  const settings = Object.entries(extraEnv)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
  const figure = (name: string, shape: Record<string, string | number | boolean | null>, result: CaseResult): BenchFigure => ({
    name,
    ...shape,
    bareNodeRssMB: bareMB,
    rssIdleFilledMB: result.rssFilledMB,
    rssIdleWarmMB: result.rssWarmMB,
    rssPeakMB: result.peakMB,
    // The figure the issue asks for: idle after visitors, against bare Node in the same run.
    ratioToBareNode: round(result.rssWarmMB / bareMB),
    ratioToBareNodeFilled: round(result.rssFilledMB / bareMB),
    fillSeconds: result.fillSeconds,
    warmUpRequests: result.warmUpRequests,
    warmUpSeconds: result.warmUpSeconds,
    relaySettings: settings || null,
    nodeFlags: process.env.BENCH_MEMORY_NODE_FLAGS || null,
    breakdownWarm: JSON.stringify(result.warm),
  });
  let one: CaseResult | undefined;
  if (cases.includes('one')) {
    one = await measureRelay(context, { agencies: 1, listings, photosPerListing: optional('BENCH_MEMORY_PHOTOS'), extraEnv });
    figures.push(figure('memory-one-agency', { agencies: 1, listingsEach: listings, goalRatio: 2.5 }, one));
  }
  if (cases.includes('fleet')) {
    const fleet = await measureRelay(context, { agencies, listings: fleetListings, photosPerListing: fleetPhotos, extraEnv });
    figures.push({
      ...figure('memory-fleet', { agencies, listingsEach: fleetListings, photosEach: fleetPhotos, goalMB: 400 }, fleet),
      vsGoal: round(fleet.rssWarmMB / 400),
      // What each agency beyond the first costs: against the one-agency run (its listing count differs: a bound, not a slope).
      perAgencyMB: one ? round((fleet.rssWarmMB - one.rssWarmMB) / (agencies - 1)) : null,
    });
  }
  if (cases.includes('demo')) {
    const demo = await measureRelay(context, { agencies: 0, listings: 0, photosPerListing: undefined, extraEnv });
    figures.push(figure('memory-demo', { agencies: 1, simulator: 'in the relay’s process (DEMO_MODE=1)' }, demo));
  }
  return figures;
}

interface RelayCase {
  /** 0: demo mode (the embedded simulator). */
  agencies: number;
  listings: number;
  photosPerListing: number | undefined;
  extraEnv: Record<string, string>;
}

async function measureRelay(context: BenchContext, shape: RelayCase): Promise<CaseResult> {
  const label = shape.agencies === 0 ? 'demo' : `${shape.agencies} × ${shape.listings}`;
  const folder = mkdtempSync(join(tmpdir(), 'estate-bench-memory-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? folder,
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: join(folder, 'data'),
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    UNCACHED_RENDERS_PER_MINUTE: '0',
  };
  let sim: { child: ChildProcess; baseUrl: string; apiKey: string; origin: string } | undefined;
  let bases: string[];
  try {
    if (shape.agencies === 0) {
      Object.assign(env, { DEMO_MODE: '1' });
      bases = [origin];
    } else {
      sim = await startSimulator({
        agencies: shape.agencies,
        listings: shape.listings,
        seed: 33,
        requestsPerSecond: RATE,
        dailyLimit: DAILY,
        ...(shape.photosPerListing === undefined ? {} : { photosPerListing: shape.photosPerListing }),
      });
      Object.assign(env, { CRM_BASE_URL: sim.baseUrl, CRM_API_KEY: sim.apiKey, CRM_REQUESTS_PER_SECOND: String(RATE), CRM_DAILY_LIMIT: String(DAILY) });
      env.PUBLIC_URL = origin;
      const accounts = (await getJson<{ items: Array<{ accessToken: string; name: string }> }>(`${sim.origin}/__sim/accounts`)).items;
      if (shape.agencies === 1) {
        env.CRM_ACCESS_TOKEN = accounts[0]!.accessToken;
        bases = [origin];
      } else {
        const { file, agencies } = writeAgenciesFile(folder, accounts);
        env.AGENCIES_FILE = file;
        // One width, as the integrator bench: each agency mirrors its own copy of the simulator's photo pool, 6 encodes a photo at the default widths.
        env.PHOTO_WIDTHS = '480';
        bases = agencies.map(({ slug }) => `${origin}/a/${slug}`);
      }
    }
    Object.assign(env, shape.extraEnv);
    const nodeFlags = (process.env.BENCH_MEMORY_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
    const relay = fork(MAIN, [], { execArgv: [...nodeFlags, '--import', PROBE], env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], cwd: ROOT });
    let stderr = '';
    relay.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_000)));
    try {
      const started = performance.now();
      await waitReady(relay, bases, () => stderr);
      await waitQuiet(relay.pid!);
      await sleep(SETTLE_MS);
      const fillSeconds = round((performance.now() - started) / 1000);
      const filled = await probe(relay);
      context.note(`${label}: filled in ${fillSeconds} s, idle RSS ${filled.rssMB} MB: ${JSON.stringify(filled)}`);
      const warmStarted = performance.now();
      const warmUpRequests = await warmUp(bases, shape.agencies <= 1 ? 12 : 2);
      const warmUpSeconds = round((performance.now() - warmStarted) / 1000);
      await waitQuiet(relay.pid!);
      await sleep(SETTLE_MS);
      const warm = await probe(relay);
      if (process.env.BENCH_MEMORY_SNAPSHOT) {
        const written = once(relay, 'message');
        relay.send({ snapshot: `${process.env.BENCH_MEMORY_SNAPSHOT}-${label.replace(/\W+/g, '')}.heapsnapshot` });
        context.note(`heap snapshot: ${JSON.stringify((await written)[0])}`);
      }
      // The most the relay held at once (its first fill, mostly): what the machine must have room for.
      const peakMB = kernelRssMB(relay.pid!, 'VmHWM');
      context.note(`${label}: ${warmUpRequests} warm-up requests in ${warmUpSeconds} s, idle RSS ${warm.rssMB} MB: ${JSON.stringify(warm)}`);
      return { rssFilledMB: filled.rssMB, rssWarmMB: warm.rssMB, peakMB, filled, warm, fillSeconds, warmUpRequests, warmUpSeconds };
    } finally {
      await stop(relay, 'SIGTERM');
    }
  } finally {
    if (sim) await stop(sim.child, 'stop');
    rmSync(folder, { recursive: true, force: true });
  }
}

/** RSS of a `node -e` that does nothing but wait, read by the kernel. */
async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore', env: { PATH: process.env.PATH ?? '' } });
  try {
    await sleep(BARE_IDLE_MS);
    return kernelRssMB(child.pid!);
  } finally {
    child.kill('SIGKILL');
  }
}

function kernelRssMB(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  if (!(kb > 0)) throw new Error(`no ${field} for process ${pid}`);
  return round(kb / 1024, 1);
}

/** CPU seconds the process has used (user + system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Waits until the process has used under QUIET_CPU of a core for QUIET_SECONDS seconds in a row (at most 120 s). */
async function waitQuiet(pid: number): Promise<void> {
  let quiet = 0;
  let last = cpuSeconds(pid);
  for (let waited = 0; quiet < QUIET_SECONDS && waited < 120; waited++) {
    await sleep(1_000);
    const now = cpuSeconds(pid);
    quiet = now - last < QUIET_CPU ? quiet + 1 : 0;
    last = now;
  }
}

async function probe(child: ChildProcess): Promise<Memory> {
  const answer = once(child, 'message') as Promise<[{ memory: Memory }]>;
  child.send('memory');
  const [{ memory }] = await answer;
  return memory;
}

/** Every agency's /readyz 200 (its first sync done and its CRM checks passed). */
async function waitReady(relay: ChildProcess, bases: string[], stderr: () => string): Promise<void> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  let waiting = [...bases];
  while (waiting.length > 0) {
    if (relay.exitCode !== null) throw new Error(`the relay exited (${relay.exitCode}) before it was ready:\n${stderr()}`);
    if (performance.now() > deadline) throw new Error(`${waiting.length} agencies not ready after ${READY_TIMEOUT_MS / 1000} s:\n${stderr()}`);
    const ready = await Promise.all(
      waiting.map((base) =>
        fetch(`${base}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        ),
      ),
    );
    waiting = waiting.filter((_, index) => !ready[index]);
    if (waiting.length > 0) await sleep(1_000);
  }
}

interface Listed {
  items: Array<{ id: number; address: { display: string }; photo: { url: string; variants: Array<{ url: string }> } | null }>;
}

/**
 * What visitors ask of each agency: list answers (sale, lease, sorted), `detailsEach` listings'
 * details, their server-rendered pages and every variant of their first photo, the server-rendered
 * list and team pages. Four at a time. Returns the number of requests.
 */
async function warmUp(bases: string[], detailsEach: number): Promise<number> {
  const paths: string[] = [];
  for (const base of bases) {
    const listed = await getJson<Listed>(`${base}/api/v1/listings?pageSize=50`);
    paths.push(
      `${base}/api/v1/listings?type=lease`,
      `${base}/api/v1/listings?sort=price`,
      `${base}/listings/buy`,
      `${base}/listings/rent`,
      `${base}/listings/agents`,
    );
    for (const item of listed.items.slice(0, detailsEach)) {
      paths.push(`${base}/api/v1/listings/${item.id}`, `${base}/listings/${item.id}/${addressSlug(item.address.display)}`);
      for (const variant of item.photo?.variants ?? []) paths.push(new URL(variant.url, base).href);
    }
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < paths.length) {
        const url = paths[next++]!;
        const response = await fetch(url, { headers: { 'Accept-Encoding': 'br, gzip' } });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`warm-up ${url}: ${response.status}`);
      }
    }),
  );
  return paths.length + bases.length;
}

async function startSimulator(options: Record<string, unknown>) {
  const child = fork(join(ROOT, 'test', 'support', 'sim-process.ts'), [JSON.stringify(options)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`the simulator exited (${code}) before it listened`))),
  ])) as [{ origin: string; baseUrl: string; apiKey: string }];
  return { child, ...ready };
}

/** Ends a child: SIGTERM (the relay's own shutdown) or the simulator's 'stop' message; SIGKILL after 15 s. */
async function stop(child: ChildProcess, how: 'SIGTERM' | 'stop'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  if (how === 'stop') child.send('stop');
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  return (await response.json()) as T;
}

function parseEnv(text: string): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const pair of text.split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_MEMORY_RELAY_ENV: "${pair}" is not NAME=value`);
    settings[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return settings;
}

/** A whole number ≥ 0 from the environment, or undefined when unset (the simulator's own default then). */
function optional(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!(Number.isInteger(value) && value >= 0)) throw new Error(`${name} must be a whole number (got "${raw}")`);
  return value;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!(Number.isInteger(value) && value > 0)) throw new Error(`${name} must be a positive whole number (got "${raw}")`);
  return value;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}
