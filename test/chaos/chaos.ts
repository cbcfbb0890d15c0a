/**
 * The enquiry chaos run: N enquiries sent to a relay running as a separate process (so SIGKILL is
 * real), while the CRM simulator (in this process) injects 500s, 429s, latency beyond the relay's
 * CRM timeout and dropped responses (enquiry stored, connection cut), and the relay is killed with
 * SIGKILL and restarted on the same DATA_DIR several times, while accepting and while delivering.
 *
 * The sender behaves like the widget: one originalId per enquiry, the same body re-sent on a lost
 * connection, 429 or 5xx until it gets its 202.
 *
 * The verdict: every originalId that got a 202 is in the simulator's holding area exactly once,
 * and nothing else is (no duplicates, no strays), and the outbox holds no queued or dead entry.
 *
 * Two fault profiles: 'mixed' (rough and slow spells alternating, with short relay timeouts and
 * retry delays so a large N runs quickly) and 'issue9' (the outside review's run: the relay with its
 * production retry settings, the CRM failing 15 % of POSTs with 500, 10 % with 429, dropping 10 %
 * of responses after storing and answering 5 % after 4 s; 150 enquiries, 3 SIGKILLs).
 *
 * With `issue28`, the lead funnel's paths in the same stream and under the same faults and kills:
 * too-fast leads, honeypot leads (quarantined, listed and partly released with the relay's CLI),
 * resends under a new originalId (one lead per intent) and shortlist batches (ChaosOptions.issue28).
 *
 * Also measured: the wait of each enquiry from its 202 to its arrival in the CRM (p50, p95, max),
 * and how long after the last 202 the last enquiry arrived.
 *
 * Used by `npm run test:chaos` (test/chaos/run.ts, N = CHAOS_N, default 1000;
 * `npm run test:chaos -- --profile issue9` for the review's run) and by a small version inside
 * `npm test` (test/chaos/chaos.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EnquiryBatchAnswer, EnquiryBatchRequest, EnquiryRequest } from '../../contract/relay-api.ts';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import type { FaultRule } from '../../crm-sim/faults.ts';
import { startSimulator } from '../../crm-sim/simulator.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { closeStore, openStore } from '../../server/store/store.ts';
import { rawRows } from '../support/raw-rows.ts';
import { listingId } from '../../server/crm/public-fields.ts';
import { describeBreakdown, sampleRequests, timeBreakdown, type TimeBreakdown } from './time-breakdown.ts';

const projectRoot = join(import.meta.dirname, '..', '..');

export interface ChaosOptions {
  /** Enquiries to send. */
  n: number;
  /** SIGKILLs of the relay (about half while accepting, half while delivering). */
  kills: number;
  /** Enquiries in flight from the sender at once. */
  senders?: number;
  /** Give up (and fail) after this long. */
  timeoutMs?: number;
  note?: (message: string) => void;
  /** Keep DATA_DIR and the relay's log (for a post-mortem). */
  keepDataDir?: boolean;
  /** Fault profile and relay settings (default 'mixed'). */
  profile?: ChaosProfile;
  /** DATABASE_URL for the relay: the outbox in PostgreSQL (an empty database). Default: SQLite alone. */
  databaseUrl?: string;
  /**
   * Every kind of lead (issue 22): questions, appraisal requests, open-home registrations (every
   * fourth of them a repeat of an earlier one under a new originalId, which must not reach the
   * CRM) and inspection requests, in turn; each stored lead's kind and fields are checked too.
   */
  leads?: boolean;
  /**
   * The lead funnel's paths of issue 28, mixed into the same stream (issue28Role): leads sent too
   * fast (delivered once, marked spamSignal too_fast), honeypot leads (quarantined: listed with the
   * relay CLI, half of them released with it, one batch of releases while the relay is down; the
   * released delivered once, marked, the rest never), resends of an earlier lead under a new
   * originalId (one lead per intent: never sent again) and shortlist batches of three homes (POST
   * /api/v1/enquiries/batch: each home once).
   */
  issue28?: boolean;
  /** false: no faults injected (the baseline of a bench: the same leads, the same key). Default true. */
  faults?: boolean;
}

/** With `issue28`, what index i of the stream sends (by i % 10; never an index `leads` repeats, which are even). */
export type Issue28Role = 'plain' | 'batch' | 'too-fast' | 'honeypot' | 'resend';
export function issue28Role(index: number): Issue28Role {
  return ({ 1: 'batch', 3: 'too-fast', 7: 'honeypot', 9: 'resend' } as Record<number, Issue28Role>)[index % 10] ?? 'plain';
}
/** A resend repeats index - 4's lead (a plain one: i % 10 === 5). */
const RESEND_OF = 4;
/** Homes in each shortlist batch. */
const BATCH_HOMES = 3;
/** elapsedMs of a too-fast lead, and the relay's ENQUIRY_MIN_FILL_MS in an `issue28` run. */
const TOO_FAST_MS = 800;
const MIN_FILL_MS = 3_000;

/** The issue 28 figures and findings of a run (empty lists when all is well). */
export interface Issue28Report {
  /** Too-fast leads accepted (each must arrive once, marked too_fast). */
  flagged: number;
  /** Honeypot leads accepted (quarantined), how many the CLI listed, released, left in the quarantine. */
  quarantined: number;
  listed: number;
  released: number;
  /** Of those released, released while the relay was down (killed). */
  releasedWhileDown: number;
  unreleased: number;
  /** Resends under a new originalId accepted, and the intent repeats the relay's store holds. */
  intentRepeats: number;
  intentRepeatsStored: number;
  batches: number;
  batchHomes: number;
  /** Honeypot leads the CLI did not list as quarantined. */
  notListed: string[];
  /** Honeypot leads in the CRM while quarantined, or never released and in the CRM at the end. */
  quarantineLeaks: string[];
  /** Leads in the CRM with a spamSignal mark they should not have, or without the one they should. */
  wrongMarks: string[];
  /** Releases the CLI refused. */
  releaseFailures: string[];
}

export type ChaosProfile = 'mixed' | 'issue9';

/** Waits from a 202 to the CRM, in seconds. */
export interface ChaosLatency {
  p50: number;
  p95: number;
  max: number;
  /** From the last 202 to the last accepted enquiry's arrival in the CRM. */
  afterLastAccepted: number;
}

export interface ChaosReport {
  n: number;
  accepted: number;
  notAccepted: number;
  /** Distinct accepted originalIds found in the simulator. */
  delivered: number;
  missing: string[];
  duplicates: string[];
  strays: number;
  /** With `leads`: accepted repeat registrations the CRM holds (must be none), and leads stored with the wrong kind or fields. */
  repeatsSent: string[];
  wrongFields: string[];
  /** With `issue28` (else undefined). */
  issue28?: Issue28Report;
  kills: number;
  restarts: number;
  /** Client-side retries of POST /api/v1/enquiries (lost connections, 5xx, 429). */
  senderRetries: number;
  outbox: Record<string, number>;
  foundByReconcile: number;
  simulator: { postsSeen: number; injectedErrors: number; injected429s: number; droppedResponses: number; stored: number };
  /** The simulator's own highest count of the key's requests in any one second. */
  peakRequestsPerSecond: number;
  faults: FaultRule[];
  profile: ChaosProfile;
  latency: ChaosLatency;
  /** Where the enquiries' time went from 202 to the CRM (time-breakdown.ts). */
  breakdown: TimeBreakdown;
  seconds: number;
  dataDir: string;
  ok: boolean;
}

/** The relay's CRM timeout in the run; the "slow" fault phases answer later than this. */
export const CRM_TIMEOUT_MS = 1_000;

/** The relay's settings in the 'mixed' profile: short timeouts and retry delays so a large N runs quickly. */
export const MIXED_RELAY_SETTINGS = {
  CRM_TIMEOUT_MS: String(CRM_TIMEOUT_MS),
  ENQUIRY_RETRY_BASE_MS: '200',
  ENQUIRY_RETRY_MAX_MS: '2000',
  // Longer than the slow profile's latency beyond the timeout: a slow POST lands before the look-up.
  ENQUIRY_RECONCILE_DELAY_MS: '1500',
  ENQUIRY_DELIVERY_CONCURRENCY: '4',
  ENQUIRY_POLL_MS: '250',
};

/** The faults while the run lasts: two profiles that alternate every few seconds. */
export const FAULT_PROFILES: Record<'rough' | 'slow', FaultRule[]> = {
  rough: [
    { match: 'POST /enquiries', errorRate: 0.1, rate429: 0.05, retryAfterSeconds: 1, latencyMs: 40, dropResponseRate: 0.12 },
    { match: 'GET /enquiries', errorRate: 0.1, rate429: 0.05, retryAfterSeconds: 1, latencyMs: 30 },
  ],
  // Latency beyond the relay's CRM timeout: the relay gives up, the CRM stores the enquiry anyway.
  slow: [
    { match: 'POST /enquiries', latencyMs: CRM_TIMEOUT_MS + 400, dropResponseRate: 0.1 },
    { match: 'GET /enquiries', errorRate: 0.05, latencyMs: 50 },
  ],
};

/**
 * The outside review's fault profile (issue 9, item 5), as one rule: the 429s carry Retry-After: 1.
 * The drop roll comes after the error roll, so "10 % dropped" is 10 % of the POSTs that got through.
 */
export const ISSUE9_FAULTS: FaultRule[] = [
  { match: 'POST /enquiries', errorRate: 0.15, rate429: 0.1, retryAfterSeconds: 1, dropResponseRate: 0.1, slowRate: 0.05, slowLatencyMs: 4_000 },
];

/** The goals of issue 9 for the 'issue9' profile: all in within 2 min of the last 202, p95 <= 60 s. */
export const ISSUE9_GOALS = { afterLastAcceptedSeconds: 120, p95Seconds: 60 };

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const profile = options.profile ?? 'mixed';
  const started = Date.now();
  const note = options.note ?? (() => {});
  const senders = options.senders ?? 8;
  const timeoutMs = options.timeoutMs ?? 15 * 60_000;
  const deadline = started + timeoutMs;
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-chaos-'));
  const logFile = join(dataDir, 'relay.log');

  // Requests per second as the real CRM; the daily limit out of the way (N = 1000 with retries).
  const sim = await startSimulator({ listings: 24, seed: 20_250_101, requestsPerSecond: 10, dailyLimit: 1_000_000 });
  const targets = await loadTargets(sim.baseUrl, sim.apiKey, sim.accessToken);
  const port = await freePort();
  // The sender is one address sending far more than a visitor would: the per-client limits are lifted.
  const common = {
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    CRM_BASE_URL: sim.baseUrl,
    CRM_API_KEY: sim.apiKey,
    CRM_ACCESS_TOKEN: sim.accessToken,
    CRM_DAILY_LIMIT: '1000000',
    // info: the look-ups not yet believed, for the breakdown of the waits.
    LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'info',
    ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000000',
    ENQUIRY_DAILY_LIMIT_PER_CLIENT: '1000000',
    ENQUIRY_DAILY_BUDGET: '1000000',
    ENQUIRY_MIN_FILL_MS: options.issue28 ? String(MIN_FILL_MS) : '0',
  };
  // issue9: the production defaults for timeouts, retries, reconciliation and concurrency.
  const relay = new RelayProcess(profile === 'issue9' ? common : { ...common, ...MIXED_RELAY_SETTINGS }, logFile);
  const url = `http://127.0.0.1:${port}`;

  // Mostly rough, with short slow spells (every POST then times out at the relay).
  let faultTimer: NodeJS.Timeout | undefined;
  const applyProfile = (spell: keyof typeof FAULT_PROFILES) => {
    sim.state.faults.set(FAULT_PROFILES[spell]);
    faultTimer = setTimeout(() => applyProfile(spell === 'rough' ? 'slow' : 'rough'), spell === 'rough' ? 4_000 : 1_500);
  };
  if (options.faults === false) sim.state.faults.set([]);
  else if (profile === 'issue9') sim.state.faults.set(ISSUE9_FAULTS);
  else applyProfile('rough');

  const accepted = new Set<string>();
  /** Indexes of the stream answered 202 (a batch: every home). */
  const acceptedIndexes = new Set<number>();
  const bodiesByIndex = new Map<number, EnquiryRequest>();
  // Issue 28 (options.issue28): ids by what should become of them.
  const tooFast = new Set<string>();
  const honeypots = new Set<string>();
  const intentRepeats = new Set<string>();
  const batchHomes = new Set<string>();
  let batches = 0;
  const released = new Set<string>();
  let releasedWhileDown = 0;
  const pendingReleases: string[] = [];
  const releaseFailures: string[] = [];
  const quarantineLeaks = new Set<string>();
  let notListed: string[] = [];
  let listed = 0;
  /** Repeat registrations the relay accepted: answered 202, never to reach the CRM. */
  const acceptedRepeats = new Set<string>();
  const bodies = new Map<string, EnquiryRequest>();
  /** Indexes answered for good (202, or refused): a repeat waits for its first registration's. */
  const settledIndexes = new Set<number>();
  // When each enquiry got its 202, and when it was first seen in the CRM (sampled every 100 ms).
  const acceptedAt = new Map<string, number>();
  const arrivals = watchArrivals(sim.state);
  const { arrivedAt } = arrivals;
  let notAccepted = 0;
  let senderRetries = 0;
  let kills = 0;
  let restarts = 0;
  const sendKills = Math.ceil(options.kills / 2);
  const drainKills = options.kills - sendKills;
  let restarting: Promise<void> | undefined;
  /** When the relay was down: [killed, back]. */
  const downs: Array<[number, number]> = [];

  // The operator's CLI, as `npm run relay --` runs it, on the relay's DATA_DIR (and database).
  const relayEnv = profile === 'issue9' ? common : { ...common, ...MIXED_RELAY_SETTINGS };
  /** Releases what pendingReleases holds with the CLI; how many it released. */
  const releasePending = async (): Promise<number> => {
    const before = released.size;
    const stored = storedIds();
    // One CLI process each, one at a time, as an operator would: each takes seconds of CPU to
    // start, and side by side they starve the relay on a small machine.
    for (const id of pendingReleases.splice(0)) {
      // Still quarantined up to its release: nothing of it in the CRM yet.
      if (stored.has(id)) quarantineLeaks.add(id);
      const result = await relayCli(relayEnv, ['outbox', 'release', id]);
      if (result.code === 0) {
        released.add(id);
        // Its wait to the CRM counts from the release, when the relay may first send it: the time
        // it sat in the quarantine is the operator's, not delivery's.
        acceptedAt.set(id, Date.now());
      } else releaseFailures.push(`${id}: exit ${result.code} ${result.err.slice(0, 200)}`);
    }
    return released.size - before;
  };

  const killAndRestart = (why: string, whileDown?: () => Promise<void>) =>
    (restarting ??= (async () => {
      kills++;
      note(`kill -9 #${kills} (${why})`);
      const down = Date.now();
      await relay.kill();
      await whileDown?.();
      await sleep(100);
      const restartedAt = Date.now();
      await relay.start();
      downs.push([down, Date.now()]);
      restarts++;
      note(`relay back after ${Date.now() - restartedAt} ms`);
    })().finally(() => {
      restarting = undefined;
    }));

  const storedIds = () => new Set(sim.state.postedEnquiries().map((enquiry) => enquiry.originalId));

  let report: ChaosReport | undefined;
  const requests = sampleRequests(() => Object.values(sim.state.counters.requestsByEndpoint).reduce((total, count) => total + count, 0));
  try {
    await relay.start();
    note(`relay pid ${relay.pid} on ${url}; sim ${sim.baseUrl}; ${targets.listings.length} listings, ${targets.agents.length} agents`);

    // Phase 1: send, killing the relay at even steps of acceptance.
    const killAt = evenSteps(0, options.n, sendKills);
    let nextIndex = 0;
    const onAccepted = (index: number, body: EnquiryRequest) => {
      bodies.set(body.originalId, body);
      accepted.add(body.originalId);
      acceptedAt.set(body.originalId, Date.now());
      if (killAt.length > 0 && accepted.size >= killAt[0]!) {
        killAt.shift();
        void killAndRestart(`after ${accepted.size} accepted`);
      }
    };
    /** POSTs until answered for good: the answer, or undefined past the deadline. Lost connections, 429 and 5xx are retried as the widget does. */
    const postUntilAnswered = async (path: string, body: unknown): Promise<{ status: number; text: string } | undefined> => {
      for (;;) {
        if (Date.now() > deadline) return undefined;
        try {
          const response = await fetch(`${url}${path}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(5_000),
          });
          const text = await response.text();
          if (response.status !== 429 && response.status < 500) return { status: response.status, text };
        } catch {
          // Connection refused or cut: the relay is down or was killed mid-request.
        }
        senderRetries++;
        await sleep(100 + Math.random() * 200);
      }
    };
    const sendOne = async (index: number) => {
      const role = options.issue28 ? issue28Role(index) : 'plain';
      if (role === 'batch') return sendBatch(index);
      const base = options.leads ? leadBody(index, targets) : enquiryBody(index, targets);
      const repeat = options.leads && isRepeat(index);
      // A repeat goes once the registration it repeats was accepted (else it would be the first);
      // a resend once the lead it resends was.
      const waitFor = repeat ? index - 4 : role === 'resend' ? index - RESEND_OF : undefined;
      while (waitFor !== undefined && !settledIndexes.has(waitFor) && Date.now() < deadline) await sleep(50);
      const earlier = role === 'resend' ? bodiesByIndex.get(index - RESEND_OF) : undefined;
      const body: EnquiryRequest =
        role === 'too-fast'
          ? { ...base, elapsedMs: TOO_FAST_MS }
          : role === 'honeypot'
            ? { ...base, website: 'http://spam.example/' }
            : earlier
              ? { ...earlier, originalId: randomUUID() }
              : base;
      bodiesByIndex.set(index, body);
      const answer = await postUntilAnswered('/api/v1/enquiries', body);
      if (!answer) {
        notAccepted++;
        return;
      }
      settledIndexes.add(index);
      if (answer.status !== 202) {
        // 400/409/413 would be a relay bug for these bodies: count it, do not retry.
        note(`enquiry ${index} refused with ${answer.status}: ${answer.text.slice(0, 200)}`);
        notAccepted++;
        return;
      }
      acceptedIndexes.add(index);
      bodies.set(body.originalId, body);
      if (repeat) acceptedRepeats.add(body.originalId);
      else if (role === 'resend') intentRepeats.add(body.originalId);
      else if (role === 'honeypot') honeypots.add(body.originalId);
      else {
        if (role === 'too-fast') tooFast.add(body.originalId);
        onAccepted(index, body);
      }
    };
    /** A shortlist's question about BATCH_HOMES homes in one request; the whole batch sent again (same originalIds) until every home has its 202. */
    const sendBatch = async (index: number) => {
      const {
        originalId: _unused,
        listingId: _listing,
        agentId: _agent,
        ...question
      } = enquiryBody(index, targets) as EnquiryRequest & { listingId?: number; agentId?: number };
      const homes = Array.from({ length: BATCH_HOMES }, (_, home) => ({
        originalId: randomUUID(),
        listingId: targets.listings[(index + home) % targets.listings.length]!,
      }));
      const batch = { ...question, homes } as EnquiryBatchRequest;
      for (;;) {
        const answer = await postUntilAnswered('/api/v1/enquiries/batch', batch);
        if (!answer || answer.status !== 200) {
          if (answer) note(`batch ${index} refused with ${answer.status}: ${answer.text.slice(0, 200)}`);
          notAccepted++;
          settledIndexes.add(index);
          return;
        }
        const { results } = JSON.parse(answer.text) as EnquiryBatchAnswer;
        const refused = results.filter((result) => result.httpStatus !== 202 && result.httpStatus !== 429 && result.httpStatus < 500);
        if (refused.length > 0) {
          note(`batch ${index}: homes refused with ${refused.map((result) => result.httpStatus).join(', ')}`);
          notAccepted++;
          settledIndexes.add(index);
          return;
        }
        if (results.length === BATCH_HOMES && results.every((result) => result.httpStatus === 202)) break;
        senderRetries++;
        await sleep(100 + Math.random() * 200);
      }
      batches++;
      settledIndexes.add(index);
      acceptedIndexes.add(index);
      for (const home of homes) {
        const body = { ...question, originalId: home.originalId, listingId: home.listingId } as EnquiryRequest;
        batchHomes.add(home.originalId);
        onAccepted(index, body);
      }
    };
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (nextIndex < options.n) await sendOne(nextIndex++);
      }),
    );
    note(`sent: ${accepted.size} accepted, ${notAccepted} not, ${senderRetries} sender retries, ${storedIds().size} already in the CRM`);

    // The operator lists the quarantine with the CLI (while the delivery goes on): every honeypot
    // lead accepted must be there, none of them in the CRM. Every other one is then released: all
    // but one at once, the last while the relay is down at the delivery phase's first kill (or at
    // once, with no kill to come). One only: a CLI takes seconds to start, and a relay kept down
    // longer than a restart takes would stretch the waits the issue 9 goals measure.
    let quarantineDone = !options.issue28;
    const quarantineWork = (async () => {
      if (!options.issue28) return;
      const answer = await relayCli(relayEnv, ['outbox', 'quarantine', '--json', '--limit', String(options.n + 1)]);
      const rows = answer.code === 0 ? (JSON.parse(answer.out) as Array<{ originalId: string; status: string }>) : [];
      if (answer.code !== 0) note(`outbox quarantine: exit ${answer.code}: ${answer.err.slice(0, 300)}`);
      const quarantinedIds = new Set(rows.filter((row) => row.status === 'quarantined').map((row) => row.originalId));
      listed = [...honeypots].filter((id) => quarantinedIds.has(id)).length;
      notListed = [...honeypots].filter((id) => !quarantinedIds.has(id));
      const stored = storedIds();
      for (const id of honeypots) if (stored.has(id)) quarantineLeaks.add(id);
      const toRelease = [...honeypots].filter((_, order) => order % 2 === 1);
      const now = drainKills > 0 ? toRelease.slice(0, -1) : toRelease;
      pendingReleases.push(...now);
      await releasePending();
      pendingReleases.push(...toRelease.slice(now.length));
      note(`quarantine: ${honeypots.size} accepted, ${listed} listed, ${released.size} released, ${pendingReleases.length} to release while the relay is down`);
    })()
      .catch((error: unknown) => {
        releaseFailures.push(`listing or releasing the quarantine failed: ${String(error)}`);
      })
      .finally(() => {
        quarantineDone = true;
      });

    // Phase 2: delivery, killing the relay at even steps of what is left.
    const atDrainStart = storedIds().size;
    const drainKillAt = evenSteps(atDrainStart, accepted.size, drainKills);
    let lastProgress = '';
    for (;;) {
      if (Date.now() > deadline) throw new Error(`chaos run timed out after ${Math.round(timeoutMs / 1000)} s`);
      const stored = storedIds();
      if (drainKillAt.length > 0 && stored.size >= drainKillAt[0]!) {
        drainKillAt.shift();
        // The listing and first releases finish first, with the relay up.
        await quarantineWork;
        await killAndRestart(`while delivering, ${stored.size} in the CRM`, async () => {
          releasedWhileDown += await releasePending();
        });
        // Should the kill have been another's (none is by now), release what is left anyway.
        await releasePending();
      }
      await restarting;
      const queued = await queuedInRelay(url);
      const progress = `${stored.size}/${accepted.size} in the CRM, ${queued ?? '?'} queued`;
      if (progress !== lastProgress && Math.random() < 0.2) note(progress);
      lastProgress = progress;
      if (queued === 0 && drainKillAt.length === 0 && quarantineDone && pendingReleases.length === 0) break;
      await sleep(250);
    }
    clearTimeout(faultTimer);
    arrivals.sample();
    arrivals.stop();
    requests.stop();
    await relay.stop();
    const breakdown = timeBreakdown({
      leads: [...acceptedAt].flatMap(([originalId, at]) => {
        const arrived = arrivedAt.get(originalId);
        return arrived === undefined ? [] : [{ originalId, acceptedAt: at, arrivedAt: arrived }];
      }),
      logFiles: [logFile],
      downs,
      requestSamples: requests.samples,
    });
    note(`where the time went: ${describeBreakdown(breakdown)}`);

    // The verdict, from the simulator's holding area and the relay's outbox.
    // Expected in the CRM: every accepted lead and every released one. Repeats (of a registration or
    // an intent) and the unreleased quarantined leads are known, not strays, but must not be there.
    const expected = new Set([...accepted, ...released]);
    const unreleased = [...honeypots].filter((id) => !released.has(id));
    const verdict = deliveryVerdict(sim.state, new Set([...expected, ...acceptedRepeats, ...intentRepeats, ...unreleased]));
    const { duplicates, strays } = verdict;
    const missing = verdict.missing.filter((id) => expected.has(id));
    const stored = new Set(sim.state.postedEnquiries().map((enquiry) => enquiry.originalId));
    const repeatsSent = [...acceptedRepeats, ...intentRepeats].filter((id) => stored.has(id));
    for (const id of unreleased) if (stored.has(id)) quarantineLeaks.add(id);
    const wrongMarks = options.issue28 ? spamMarkProblems(sim.state, expected, tooFast, released) : [];
    const wrongFields = options.leads ? leadFieldProblems(sim.state, accepted, bodies) : [];
    const store = openStore(dataDir);
    let outbox: Record<string, number>;
    let foundByReconcile: number;
    let intentRepeatsStored = 0;
    try {
      if (options.databaseUrl) await attachPostgres(store, options.databaseUrl);
      outbox = await new EnquiryOutbox(store).counts();
      foundByReconcile = (await rawRows(store, 'enquiry_outbox')).filter((row) => row.found_by_reconcile === 1).length;
      if (options.issue28) intentRepeatsStored = (await rawRows(store, 'enquiry_repeats')).length;
    } finally {
      await closeStore(store);
    }
    const counters = sim.state.counters;
    const issue28: Issue28Report | undefined = options.issue28
      ? {
          flagged: tooFast.size,
          quarantined: honeypots.size,
          listed,
          released: released.size,
          releasedWhileDown,
          unreleased: unreleased.length,
          intentRepeats: intentRepeats.size,
          intentRepeatsStored,
          batches,
          batchHomes: batchHomes.size,
          notListed,
          quarantineLeaks: [...quarantineLeaks],
          wrongMarks,
          releaseFailures,
        }
      : undefined;
    report = {
      n: options.n,
      accepted: accepted.size,
      notAccepted,
      delivered: expected.size - missing.length,
      missing,
      duplicates,
      strays,
      repeatsSent,
      wrongFields,
      issue28,
      kills,
      restarts,
      senderRetries,
      outbox,
      foundByReconcile,
      simulator: { ...simulatorCounts(counters), stored: counters.enquiriesStored },
      peakRequestsPerSecond: sim.state.peakRequestsPerSecond(sim.apiKey),
      faults: profile === 'issue9' ? ISSUE9_FAULTS : [...FAULT_PROFILES.rough, ...FAULT_PROFILES.slow],
      profile,
      latency: latencyOf(acceptedAt, arrivedAt),
      breakdown,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      dataDir,
      ok:
        notAccepted === 0 &&
        acceptedIndexes.size === options.n &&
        missing.length === 0 &&
        repeatsSent.length === 0 &&
        wrongFields.length === 0 &&
        duplicates.length === 0 &&
        strays === 0 &&
        outbox.queued === 0 &&
        outbox.dead === 0 &&
        (!issue28 ||
          (issue28.notListed.length === 0 &&
            issue28.quarantineLeaks.length === 0 &&
            issue28.wrongMarks.length === 0 &&
            issue28.releaseFailures.length === 0 &&
            issue28.intentRepeatsStored === issue28.intentRepeats &&
            outbox.quarantined === issue28.unreleased)),
    };
    return report;
  } finally {
    clearTimeout(faultTimer);
    arrivals.stop();
    requests.stop();
    await relay.kill().catch(() => {});
    await sim.close();
    if (!report?.ok) {
      try {
        note(`relay log tail:\n${readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n')}`);
      } catch {
        // No log yet.
      }
    }
    if (!options.keepDataDir && report?.ok) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The verdict from the simulator's holding area: accepted originalIds not there (missing), ids
 * there more than once (duplicates), and how many there were never accepted (strays).
 */
export function deliveryVerdict(
  state: Pick<SimulatorState, 'postedEnquiries'>,
  accepted: ReadonlySet<string>,
): { missing: string[]; duplicates: string[]; strays: number } {
  const counts = new Map<string, number>();
  for (const enquiry of state.postedEnquiries()) {
    const id = enquiry.originalId ?? '(none)';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return {
    missing: [...accepted].filter((id) => !counts.has(id)),
    duplicates: [...counts].filter(([, count]) => count > 1).map(([id]) => id),
    strays: [...counts.keys()].filter((id) => !accepted.has(id)).length,
  };
}

/** The simulator's own counts of what it was sent and what faults it injected, as a run reports them. */
export function simulatorCounts(counters: SimulatorState['counters']): {
  postsSeen: number;
  injectedErrors: number;
  injected429s: number;
  droppedResponses: number;
} {
  return {
    postsSeen: counters.requestsByEndpoint['POST /enquiries'] ?? 0,
    injectedErrors: counters.injectedErrors,
    injected429s: counters.injected429s,
    droppedResponses: counters.droppedResponses,
  };
}

/** `count` points at even steps strictly between `from` and `to` (rounded down): where a run's kills fall. */
export function evenSteps(from: number, to: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => from + Math.floor(((to - from) * (index + 1)) / (count + 1)));
}

/** When each enquiry was first seen in the CRM: sampled every 100 ms until stop(). */
export function watchArrivals(state: Pick<SimulatorState, 'postedEnquiries'>): { arrivedAt: Map<string, number>; sample(): void; stop(): void } {
  const arrivedAt = new Map<string, number>();
  const sample = () => {
    const at = Date.now();
    for (const enquiry of state.postedEnquiries()) {
      if (enquiry.originalId && !arrivedAt.has(enquiry.originalId)) arrivedAt.set(enquiry.originalId, at);
    }
  };
  const timer = setInterval(sample, 100);
  return { arrivedAt, sample, stop: () => clearInterval(timer) };
}

export function latencyOf(acceptedAt: Map<string, number>, arrivedAt: Map<string, number>): ChaosLatency {
  const waits: number[] = [];
  let lastArrival = 0;
  for (const [id, at] of acceptedAt) {
    const arrived = arrivedAt.get(id);
    if (arrived === undefined) continue;
    // An enquiry stored before its 202 reached the sender (a kill mid-answer) waited nothing.
    waits.push(Math.max(0, arrived - at) / 1000);
    lastArrival = Math.max(lastArrival, arrived);
  }
  waits.sort((a, b) => a - b);
  const lastAccepted = Math.max(0, ...acceptedAt.values());
  const round = (seconds: number) => Math.round(seconds * 10) / 10;
  return {
    p50: round(percentile(waits, 0.5)),
    p95: round(percentile(waits, 0.95)),
    max: round(waits.at(-1) ?? 0),
    afterLastAccepted: round(Math.max(0, lastArrival - lastAccepted) / 1000),
  };
}

export interface Targets {
  listings: number[];
  agents: number[];
  /** Open homes starting more than an hour from now: [listing (property) id, open home id]. */
  openHomes?: Array<[number, number]>;
}

/** With `leads`, every fourth open-home registration (index 14 of each 16) repeats index - 4's (same e-mail and open home). */
const isRepeat = (index: number) => index % 16 === 14;

/**
 * The leads of a `leads` run, in turn: a question, an appraisal request (every other one to an
 * agent), an open-home registration, an inspection request. Index 14 of every 16 (an open-home
 * one) repeats index 10's registration under a new originalId.
 */
export function leadBody(index: number, targets: Targets): EnquiryRequest {
  const contact = {
    originalId: randomUUID(),
    fullName: `Chaos Tester ${index}`,
    email: `chaos.${index}@example.com`,
    mobile: '0412 345 678',
    consent: true,
    website: '',
    elapsedMs: 20_000 + index,
  };
  const listingId = targets.listings[index % targets.listings.length]!;
  switch (index % 4) {
    case 0:
      return enquiryBody(index, targets);
    case 1:
      return {
        kind: 'appraisal',
        ...contact,
        ...(index % 8 === 5 && targets.agents.length ? { agentId: targets.agents[index % targets.agents.length]! } : {}),
        street: `${index} Chaos Street`,
        suburb: 'Kew',
        postcode: '3101',
        bedrooms: index % 6,
        sellingWhen: '6-months',
      };
    case 2: {
      const openHomes = targets.openHomes ?? [];
      if (openHomes.length === 0) throw new Error('the simulator has no upcoming open homes');
      // A repeat registers index - 4's person for index - 4's open home again.
      const base = isRepeat(index) ? index - 4 : index;
      const [listing, openHomeId] = openHomes[base % openHomes.length]!;
      return { kind: 'open-home', ...contact, email: `chaos.${base}@example.com`, listingId: listing, openHomeId, attendees: 1 + (index % 3) };
    }
    default: {
      const day = 24 * 60 * 60_000;
      const at = (days: number) => new Date(Math.floor((Date.now() + days * day) / 60_000) * 60_000).toISOString();
      return { kind: 'inspection', ...contact, listingId, preferredTimes: [at(2), at(3 + (index % 5))] };
    }
  }
}

/** Each accepted lead as the CRM holds it: its kind in metaData and the words an agent sees first. */
function leadFieldProblems(state: Pick<SimulatorState, 'postedEnquiries'>, accepted: ReadonlySet<string>, bodies: Map<string, EnquiryRequest>): string[] {
  const problems: string[] = [];
  const subjects: Record<string, RegExp> = {
    appraisal: /^Appraisal request: \d+ Chaos Street, Kew 3101$/,
    'open-home': /^Open home registration/,
    inspection: /^Private inspection request/,
  };
  for (const enquiry of state.postedEnquiries()) {
    const body = enquiry.originalId ? bodies.get(enquiry.originalId) : undefined;
    if (!body || !accepted.has(body.originalId)) continue;
    const kind = body.kind ?? 'enquiry';
    const leadType = enquiry.metaData.find((entry) => entry.key === 'leadType')?.value;
    const ok =
      kind === 'enquiry'
        ? leadType === undefined && enquiry.body === body.message
        : leadType === kind &&
          subjects[kind]!.test(enquiry.subject ?? '') &&
          (kind !== 'appraisal' || !('agentId' in body && body.agentId !== undefined) === (enquiry.userId === null)) &&
          (kind !== 'open-home' ||
            enquiry.metaData.some((entry) => entry.key === 'attendees' && entry.value === String((body as { attendees: number }).attendees)));
    if (!ok) problems.push(`${body.originalId} (${kind}): subject ${JSON.stringify(enquiry.subject)}, leadType ${leadType}`);
  }
  return problems;
}

/**
 * The spamSignal marks of the leads expected in the CRM: a too-fast one marked too_fast, a released
 * one honeypot, every other one none.
 */
function spamMarkProblems(
  state: Pick<SimulatorState, 'postedEnquiries'>,
  expected: ReadonlySet<string>,
  tooFast: ReadonlySet<string>,
  released: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const enquiry of state.postedEnquiries()) {
    const id = enquiry.originalId;
    if (!id || !expected.has(id)) continue;
    const mark = enquiry.metaData.find((entry) => entry.key === 'spamSignal')?.value;
    const want = tooFast.has(id) ? 'too_fast:' : released.has(id) ? 'honeypot:' : undefined;
    if (want === undefined ? mark !== undefined : !mark?.startsWith(want))
      problems.push(`${id}: spamSignal ${JSON.stringify(mark ?? null)}, expected ${want ?? 'none'}`);
  }
  return problems;
}

/** `npm run relay -- <args>` in its own process, on the relay's settings (DATA_DIR, DATABASE_URL). */
async function relayCli(env: Record<string, string>, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const child = spawn(process.execPath, ['scripts/relay-cli.mjs', ...args], { cwd: projectRoot, env: { ...process.env, ...env, NODE_ENV: 'production' } });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const code = await new Promise<number>((resolve) => child.once('close', (exitCode) => resolve(exitCode ?? 1)));
  return { code, out, err };
}

export function enquiryBody(index: number, targets: Targets): EnquiryRequest {
  // One in five is a contact-me enquiry, the rest spread over the listings.
  const agent = index % 5 === 4 && targets.agents.length > 0;
  return {
    originalId: randomUUID(),
    ...(agent ? { agentId: targets.agents[index % targets.agents.length]! } : { listingId: targets.listings[index % targets.listings.length]! }),
    fullName: `Chaos Tester ${index}`,
    email: `chaos.${index}@example.com`,
    mobile: '0412 345 678',
    message: `Enquiry number ${index} of the chaos run.`,
    consent: index % 2 === 0,
    website: '',
    elapsedMs: 20_000 + index,
  };
}

/** Listing and agent ids the relay will accept, read from the simulator as the relay reads them. */
export async function loadTargets(baseUrl: string, apiKey: string, accessToken: string): Promise<Targets> {
  const get = async (path: string) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { 'X-Api-Key': apiKey, Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } });
    if (!response.ok) throw new Error(`simulator ${path}: ${response.status}`);
    return (await response.json()) as { items: Array<Record<string, unknown>> };
  };
  const listings: number[] = [];
  for (const list of ['sale', 'lease']) {
    const page = await get(`/properties/residential/${list}/available?pagesize=100`);
    for (const item of page.items) if (item.saleLifeId != null || item.leaseLifeId != null) listings.push(item.id as number);
  }
  const users = await get('/account/users?pagesize=100');
  const agents = users.items.filter((user) => user.showOnWeb === true).map((user) => user.id as number);
  if (listings.length === 0) throw new Error('the simulator has no available residential listings');
  // The CRM filters open homes by day: the hour is checked here (an open home starting soon could be over before its lead is sent).
  // Only the listings the relay caches (the residential lists above) show their open homes.
  // An open home is the listing's of its life (a rental inspection: the lease's), named by that listing's own id, as the page has it.
  type OpenHomeProperty = { id: number; saleLifeId: number | null; leaseLifeId: number | null };
  const openHomes = (await get('/openHomes?pagesize=100')).items
    .filter((item) => Date.parse(item.start as string) > Date.now() + 60 * 60_000 && listings.includes((item.property as OpenHomeProperty).id))
    .map((item): [number, number] => {
      const property = item.property as OpenHomeProperty;
      return [listingId(item.isRental === true ? 'lease' : 'sale', property), item.id as number];
    });
  return { listings, agents, openHomes };
}

export async function queuedInRelay(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(2_000) });
    const text = await response.text();
    const match = /^estate_enquiry_outbox\{status="queued"\} (\d+)$/m.exec(text);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * How the harness runs the relay: 'tsx' as `npm start` does (`node --import tsx server/main.ts`,
 * the default: nothing to build), or 'compiled' as the deployment does (`node --enable-source-maps
 * dist/server/main.js`, deploy/estate-embed-relay.service; dist/server must be built from this
 * checkout: `npm run build:server`). A restart's time is mostly loading the modules, and tsx
 * compiles each on the way through a loader thread: on two busy cores 11-14 s against 4.5-5 s
 * compiled, so a kill measured through tsx keeps the relay down about twice as long as a kill in
 * production. CHAOS_RELAY names it.
 */
export type RelayBuild = 'tsx' | 'compiled';

export function relayBuildFromEnv(): RelayBuild {
  const value = process.env.CHAOS_RELAY ?? 'tsx';
  if (value !== 'tsx' && value !== 'compiled') throw new Error(`CHAOS_RELAY must be tsx or compiled (got "${value}")`);
  return value;
}

/** How long a relay process may take to answer /healthz after its spawn. */
const START_TIMEOUT_MS = 90_000;

/** The relay in its own process, run as `build` says (RelayBuild; default CHAOS_RELAY, else tsx). */
export class RelayProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: Record<string, string>,
    private readonly logFile: string,
    private readonly build: RelayBuild = relayBuildFromEnv(),
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const log = openSync(this.logFile, 'a');
    // node itself, not the tsx wrapper: the signal must reach the process that holds the store.
    const entry = this.build === 'compiled' ? ['--enable-source-maps', 'dist/server/main.js'] : ['--import', 'tsx', 'server/main.ts'];
    const child = spawn(process.execPath, entry, {
      cwd: projectRoot,
      env: { ...process.env, ...this.env, NODE_ENV: 'production' },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const url = `http://127.0.0.1:${this.env.PORT}/healthz`;
    // Generous: on two cores shared with other work a start has taken over 30 s (the run then measures it, rather than dying of it).
    const until = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < until) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`relay exited during start (${child.exitCode ?? child.signalCode}); see ${this.logFile}`);
      try {
        if ((await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok) return;
      } catch {
        // Not listening yet.
      }
      await sleep(50);
    }
    throw new Error(`relay did not start within ${START_TIMEOUT_MS / 1000} s; see ${this.logFile}`);
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await Promise.race([this.exited, sleep(15_000).then(() => this.kill())]);
  }
}
