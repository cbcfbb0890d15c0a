/**
 * The two-relay chaos run (issue 14): two relay processes on one PostgreSQL database (DATABASE_URL)
 * and one CRM simulator with the 'mixed' faults of chaos.ts (500s, 429s, dropped responses, answers
 * slower than the relay's timeout). The sender spreads enquiries over both relays as a load balancer
 * would (round robin, the other relay on a refused connection). Relay B is killed with SIGKILL
 * several times, while accepting and while delivering, and stays down until relay A has taken over
 * every enquiry B had claimed; then it is restarted.
 *
 * The verdict:
 * - every originalId that got a 202 (from either relay) is in the CRM exactly once, nothing else is;
 * - the simulator's own counter saw at most 10 requests of the API key in any second, both relays
 *   together (the shared gate in PostgreSQL);
 * - after each kill, the claims B held were taken over by A within the claim lease plus the
 *   enquiry's own retry delay (a claim lapses at the lease; a row whose retry is not yet due is
 *   claimed when it is) plus a margin for a loaded machine;
 * - before each kill the agency's sync is handed to relay B (its lease row given to B, as when A's
 *   lease lapses), so every kill kills the sync holder; relay A took the sync over within the
 *   lease (SYNC_LEASE_MS) plus a renewal interval and a margin, and then served a listing change
 *   made in the CRM after the kill (synced by A, the new holder);
 * - relay A, never killed, answered every listing request while B was down.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { startSimulator } from '../../crm-sim/simulator.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { closeStore, openStore } from '../../server/store/store.ts';
import { relayIdOf } from '../../server/store/relay-identity.ts';
import {
  deliveryVerdict,
  enquiryBody,
  evenSteps,
  FAULT_PROFILES,
  freePort,
  ISSUE9_FAULTS,
  latencyOf,
  loadTargets,
  MIXED_RELAY_SETTINGS,
  queuedInRelay,
  RelayProcess,
  simulatorCounts,
  watchArrivals,
  type ChaosLatency,
  type ChaosProfile,
} from './chaos.ts';
import { describeBreakdown, sampleRequests, timeBreakdown, type TimeBreakdown } from './time-breakdown.ts';

/** ENQUIRY_RECONCILE_DELAY_MS's default: the longest a row with an unknown outcome waits in the 'issue9' profile before it is claimed again. */
const PRODUCTION_LOOKUP_DELAY_MS = 30_000;

export interface TwoRelayChaosOptions {
  n: number;
  /** SIGKILLs of relay B (about half while accepting, half while delivering). */
  kills: number;
  /** An empty PostgreSQL database both relays share. */
  databaseUrl: string;
  /** ENQUIRY_CLAIM_LEASE_MS of both relays. Default 3 s. */
  claimLeaseMs?: number;
  senders?: number;
  timeoutMs?: number;
  keepDataDir?: boolean;
  note?: (message: string) => void;
  /**
   * 'mixed' (default): chaos.ts's alternating rough and slow spells with short relay timeouts and
   * retry delays; 'issue9': the review's faults (ISSUE9_FAULTS) with the relays' production retry settings.
   */
  profile?: ChaosProfile;
  /** false: no faults injected (a bench's baseline). Default true. */
  faults?: boolean;
}

export interface Takeover {
  kill: number;
  /** Undelivered enquiries relay B had claimed when it was killed. */
  held: number;
  /** From the kill until none of them was still claimed by B (0 when it held none). */
  ms: number;
}

export interface SyncTakeover {
  kill: number;
  /** Whether relay B held the agency's sync when it was killed (it should, every time). */
  heldByB: boolean;
  /** From the kill until relay A held the sync (-1: never within the wait). */
  ms: number;
}

export interface TwoRelayChaosReport {
  n: number;
  accepted: number;
  /** 202s answered by relay A and relay B. */
  acceptedBy: [number, number];
  notAccepted: number;
  missing: string[];
  duplicates: string[];
  strays: number;
  kills: number;
  senderRetries: number;
  outbox: Record<string, number>;
  /** The simulator's own highest count of the key's requests in any one second. */
  peakRequestsPerSecond: number;
  requestsPerSecondLimit: number;
  simulator: { postsSeen: number; injectedErrors: number; injected429s: number; droppedResponses: number };
  claimLeaseMs: number;
  /** The longest a takeover may take: the lease, the longest retry delay and a margin. */
  takeoverBoundMs: number;
  takeovers: Takeover[];
  /** SYNC_LEASE_MS of both relays. */
  syncLeaseMs: number;
  /** The longest a sync takeover may take: the lease, a renewal interval and a margin. */
  syncTakeoverBoundMs: number;
  syncTakeovers: SyncTakeover[];
  /** Listing requests to relay A (never killed) while the run lasted, and the ones not answered 200. */
  listingRequests: number;
  listingFailures: number;
  /** After each kill: ms until relay A served a listing change made in the CRM (-1: never). */
  syncLagsMs: number[];
  latency: ChaosLatency;
  /** Where the enquiries' time went from 202 to the CRM (time-breakdown.ts). */
  breakdown: TimeBreakdown;
  seconds: number;
  dataDirs: string[];
  ok: boolean;
}

const SYNC_INTERVAL_MINUTES = 0.05; // 3 s: each relay reads the CRM's event stream that often.
const SYNC_WAIT_MS = 30_000;
const TAKEOVER_MARGIN_MS = 5_000;
const SYNC_LEASE_MS = 3_000;

export async function runTwoRelayChaos(options: TwoRelayChaosOptions): Promise<TwoRelayChaosReport> {
  const started = Date.now();
  const note = options.note ?? (() => {});
  const senders = options.senders ?? 8;
  const deadline = started + (options.timeoutMs ?? 15 * 60_000);
  const claimLeaseMs = options.claimLeaseMs ?? 3_000;
  const profile = options.profile ?? 'mixed';
  const takeoverBoundMs =
    claimLeaseMs + (profile === 'mixed' ? Number(MIXED_RELAY_SETTINGS.ENQUIRY_RETRY_MAX_MS) : PRODUCTION_LOOKUP_DELAY_MS) + TAKEOVER_MARGIN_MS;
  const syncTakeoverBoundMs = SYNC_LEASE_MS + SYNC_LEASE_MS / 3 + TAKEOVER_MARGIN_MS;
  const requestsPerSecondLimit = 10;
  const dataDirs = [mkdtempSync(join(tmpdir(), 'estate-chaos-a-')), mkdtempSync(join(tmpdir(), 'estate-chaos-b-'))];
  const logFiles = dataDirs.map((dir) => join(dir, 'relay.log'));

  const sim = await startSimulator({ listings: 24, seed: 20_250_202, requestsPerSecond: requestsPerSecondLimit, dailyLimit: 1_000_000 });
  const targets = await loadTargets(sim.baseUrl, sim.apiKey, sim.accessToken);
  const ports = [await freePort(), await freePort()];
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const relays = ports.map(
    (port, index) =>
      new RelayProcess(
        {
          ...(profile === 'mixed' ? MIXED_RELAY_SETTINGS : {}),
          PORT: String(port),
          HOST: '127.0.0.1',
          PUBLIC_URL: urls[index]!,
          DATA_DIR: dataDirs[index]!,
          DATABASE_URL: options.databaseUrl,
          CRM_BASE_URL: sim.baseUrl,
          CRM_API_KEY: sim.apiKey,
          CRM_ACCESS_TOKEN: sim.accessToken,
          CRM_DAILY_LIMIT: '1000000',
          LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'info',
          ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000000',
          ENQUIRY_DAILY_LIMIT_PER_CLIENT: '1000000',
          ENQUIRY_DAILY_BUDGET: '1000000',
          ENQUIRY_MIN_FILL_MS: '0',
          ENQUIRY_CLAIM_LEASE_MS: String(claimLeaseMs),
          SYNC_LEASE_MS: String(SYNC_LEASE_MS),
          SYNC_INTERVAL_MINUTES: String(SYNC_INTERVAL_MINUTES),
        },
        logFiles[index]!,
      ),
  );
  const [relayA, relayB] = relays as [RelayProcess, RelayProcess];
  const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 2 });

  let faultTimer: NodeJS.Timeout | undefined;
  const applyProfile = (spell: keyof typeof FAULT_PROFILES) => {
    sim.state.faults.set(FAULT_PROFILES[spell]);
    faultTimer = setTimeout(() => applyProfile(spell === 'rough' ? 'slow' : 'rough'), spell === 'rough' ? 4_000 : 1_500);
  };

  // Relay A's listings, asked for every 300 ms for the whole run: it must never fail to answer.
  let listingRequests = 0;
  let listingFailures = 0;
  let watching = true;
  let listingWatch: Promise<void> = Promise.resolve();
  const watchListings = async () => {
    while (watching) {
      listingRequests++;
      try {
        const response = await fetch(`${urls[0]}/api/v1/listings`, { signal: AbortSignal.timeout(5_000) });
        await response.arrayBuffer();
        if (response.status !== 200) listingFailures++;
      } catch {
        listingFailures++;
      }
      await sleep(300);
    }
  };

  const acceptedBy: [number, number] = [0, 0];
  const accepted = new Set<string>();
  const acceptedAt = new Map<string, number>();
  const arrivals = watchArrivals(sim.state);
  const { arrivedAt } = arrivals;
  let notAccepted = 0;
  let senderRetries = 0;
  let kills = 0;
  const takeovers: Takeover[] = [];
  const syncTakeovers: SyncTakeover[] = [];
  const syncLagsMs: number[] = [];
  const sendKills = Math.ceil(options.kills / 2);
  const drainKills = options.kills - sendKills;
  let restarting: Promise<void> | undefined;
  const syncListing = targets.listings[0]!;

  // The relays' registry ids (server/store/relay-identity.ts: the random id in DATA_DIR/relay-id, made
  // here first, which each relay then reads): what the outbox's claims and sync_lease name as holder.
  const [holderA, holderB] = [relayIdOf(dataDirs[0]!), relayIdOf(dataDirs[1]!)];
  const ownerB = holderB;
  /** Undelivered enquiries whose claim names relay B (its owner id is its registry id). */
  const heldByB = async (): Promise<number> => {
    const { rows: tables } = await pool.query<{ schema: string }>(
      `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'enquiry_outbox'`,
    );
    let held = 0;
    for (const { schema } of tables) {
      const { rows } = await pool.query<{ held: string }>(
        `SELECT count(*) AS held FROM ${pg.escapeIdentifier(schema)}.enquiry_outbox WHERE status = 'queued' AND claimed_by = $1`,
        [ownerB],
      );
      held += Number(rows[0]!.held);
    }
    return held;
  };

  const syncHolder = async (): Promise<string | undefined> => {
    const { rows } = await pool.query<{ holder: string }>(
      `SELECT holder FROM public.sync_lease WHERE name = 'listings-sync' AND expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`,
    );
    return rows[0]?.holder;
  };
  /** Whether relay B says (in /metrics) that it holds the agency's sync. */
  const bHoldsSync = async (): Promise<boolean> => {
    try {
      const response = await fetch(`${urls[1]}/metrics`, { signal: AbortSignal.timeout(2_000) });
      return /^estate_agency_syncs_held 1$/m.test(await response.text());
    } catch {
      return false;
    }
  };
  /** Hands the agency's sync to relay B, as when A's lease lapses and B takes it: A steps down at its next renewal, B takes it at its next try. */
  const handSyncToB = async (): Promise<boolean> => {
    await pool.query(
      `UPDATE public.sync_lease SET holder = $1, epoch = epoch + 1, expires_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $2 WHERE name = 'listings-sync'`,
      [holderB, SYNC_LEASE_MS],
    );
    for (const until = Date.now() + 3 * SYNC_LEASE_MS; Date.now() < until; await sleep(100)) if (await bHoldsSync()) return true;
    return false;
  };

  /** Relay A serves a heading changed in the CRM now: its sync (A holds it again after the kill) runs. */
  const waitForSync = async (kill: number): Promise<number> => {
    const heading = `Changed after kill ${kill}`;
    const changedAt = Date.now();
    sim.state.changeListing(syncListing, { fields: { heading } });
    while (Date.now() - changedAt < SYNC_WAIT_MS) {
      try {
        const response = await fetch(`${urls[0]}/api/v1/listings/${syncListing}`, { signal: AbortSignal.timeout(5_000) });
        if (response.ok && ((await response.json()) as { heading?: string }).heading === heading) return Date.now() - changedAt;
      } catch {
        // Counted by the listing watch.
      }
      await sleep(200);
    }
    return -1;
  };

  /** When relay B was down: [killed, back]. */
  const downs: Array<[number, number]> = [];
  const requests = sampleRequests(() => Object.values(sim.state.counters.requestsByEndpoint).reduce((total, count) => total + count, 0));
  const killAndRestart = (why: string) =>
    (restarting ??= (async () => {
      kills++;
      const kill = kills;
      // A kill is worth most while B holds claims: wait a little for it to take some (not forever:
      // near the end of a drain there may be nothing left to claim).
      for (const until = Date.now() + 5_000; Date.now() < until && (await heldByB()) === 0;) await sleep(50);
      const held = await heldByB();
      const syncHeldByB = await handSyncToB();
      note(`kill -9 #${kill} of relay B (${why}); it held ${held} claim(s)${syncHeldByB ? ' and the sync' : ' (but not the sync)'}`);
      const killedAt = Date.now();
      await relayB.kill();
      const syncTakeover = (async () => {
        while (Date.now() - killedAt < syncTakeoverBoundMs * 3) {
          if ((await syncHolder()) === holderA) return Date.now() - killedAt;
          await sleep(100);
        }
        return -1;
      })();
      const synced = waitForSync(kill);
      // B stays down until A has taken over what it held (or the bound has long passed).
      let remaining = held;
      while (remaining > 0 && Date.now() - killedAt < takeoverBoundMs * 3) {
        await sleep(100);
        remaining = await heldByB();
      }
      const ms = remaining === 0 ? (held === 0 ? 0 : Date.now() - killedAt) : -1;
      takeovers.push({ kill, held, ms });
      syncLagsMs.push(await synced);
      syncTakeovers.push({ kill, heldByB: syncHeldByB, ms: await syncTakeover });
      note(
        `kill #${kill}: ${held} claim(s) taken over in ${ms} ms; the sync taken over by A in ${syncTakeovers.at(-1)!.ms} ms; relay A served a change in ${syncLagsMs.at(-1)} ms`,
      );
      await relayB.start();
      downs.push([killedAt, Date.now()]);
      note('relay B back');
    })().finally(() => {
      restarting = undefined;
    }));

  const storedIds = () => new Set(sim.state.postedEnquiries().map((enquiry) => enquiry.originalId));

  let report: TwoRelayChaosReport | undefined;
  try {
    // Both at once: the migrations must be safe when several relays start together.
    await Promise.all([relayA.start(), relayB.start()]);
    // Watched from its first full answer on (before its first sync it says 503, as it should).
    for (const until = Date.now() + 60_000; ; await sleep(200)) {
      const response = await fetch(`${urls[0]}/api/v1/listings`).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 200) break;
      if (Date.now() > until) throw new Error('relay A served no listings within 60 s of its start');
    }
    listingWatch = watchListings();
    if (options.faults === false) sim.state.faults.set([]);
    else if (profile === 'issue9') sim.state.faults.set(ISSUE9_FAULTS);
    else applyProfile('rough');
    note(`relay A pid ${relayA.pid} on ${urls[0]}, relay B pid ${relayB.pid} on ${urls[1]}; sim ${sim.baseUrl}`);

    const killAt = evenSteps(0, options.n, sendKills);
    let nextIndex = 0;
    const sendOne = async (index: number) => {
      const body = enquiryBody(index, targets);
      for (let attempt = 0; ; attempt++) {
        if (Date.now() > deadline) {
          notAccepted++;
          return;
        }
        // Round robin, and the other relay on the next attempt (what an upstream does on a refused connection).
        const relayIndex = (index + attempt) % 2;
        try {
          const response = await fetch(`${urls[relayIndex]}/api/v1/enquiries`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(5_000),
          });
          if (response.status === 202) {
            await response.arrayBuffer();
            if (!accepted.has(body.originalId)) acceptedBy[relayIndex]!++;
            accepted.add(body.originalId);
            acceptedAt.set(body.originalId, Date.now());
            return;
          }
          const text = await response.text();
          if (response.status !== 429 && response.status < 500) {
            note(`enquiry ${index} refused by relay ${'AB'[relayIndex]} with ${response.status}: ${text.slice(0, 200)}`);
            notAccepted++;
            return;
          }
        } catch {
          // Refused or cut: relay B is down or was killed mid-request.
        }
        senderRetries++;
        await sleep(50 + Math.random() * 100);
      }
    };
    // The kills while accepting, one after the other (B stays down until its claims are taken over).
    const killer = (async () => {
      for (const at of killAt) {
        while (accepted.size < at && Date.now() < deadline) await sleep(50);
        await killAndRestart(`after ${accepted.size} accepted`);
      }
    })();
    await Promise.all([
      killer,
      ...Array.from({ length: senders }, async () => {
        while (nextIndex < options.n) await sendOne(nextIndex++);
      }),
    ]);
    note(`sent: ${accepted.size} accepted (A ${acceptedBy[0]}, B ${acceptedBy[1]}), ${senderRetries} sender retries, ${storedIds().size} already in the CRM`);

    const atDrainStart = storedIds().size;
    const drainKillAt = evenSteps(atDrainStart, accepted.size, drainKills);
    for (;;) {
      if (Date.now() > deadline) throw new Error(`two-relay chaos run timed out after ${Math.round((Date.now() - started) / 1000)} s`);
      const stored = storedIds();
      if (drainKillAt.length > 0 && stored.size >= drainKillAt[0]!) {
        drainKillAt.shift();
        await killAndRestart(`while delivering, ${stored.size} in the CRM`);
      }
      await restarting;
      // The outbox is shared: either relay's count is the whole queue.
      const queued = await queuedInRelay(urls[0]!);
      if (queued === 0 && drainKillAt.length === 0) break;
      await sleep(250);
    }
    clearTimeout(faultTimer);
    arrivals.sample();
    arrivals.stop();
    requests.stop();
    watching = false;
    await listingWatch;
    await Promise.all(relays.map((relay) => relay.stop()));
    const breakdown = timeBreakdown({
      leads: [...acceptedAt].flatMap(([originalId, at]) => {
        const arrived = arrivedAt.get(originalId);
        return arrived === undefined ? [] : [{ originalId, acceptedAt: at, arrivedAt: arrived }];
      }),
      logFiles,
      downs,
      requestSamples: requests.samples,
    });
    note(`where the time went: ${describeBreakdown(breakdown)}`);

    const { missing, duplicates, strays } = deliveryVerdict(sim.state, accepted);
    const store = openStore(dataDirs[0]!);
    let outbox: Record<string, number>;
    try {
      await attachPostgres(store, options.databaseUrl);
      outbox = await new EnquiryOutbox(store).counts();
    } finally {
      await closeStore(store);
    }
    const peakRequestsPerSecond = sim.state.peakRequestsPerSecond(sim.apiKey);
    report = {
      n: options.n,
      accepted: accepted.size,
      acceptedBy,
      notAccepted,
      missing,
      duplicates,
      strays,
      kills,
      senderRetries,
      outbox,
      peakRequestsPerSecond,
      requestsPerSecondLimit,
      simulator: simulatorCounts(sim.state.counters),
      claimLeaseMs,
      takeoverBoundMs,
      takeovers,
      syncLeaseMs: SYNC_LEASE_MS,
      syncTakeoverBoundMs,
      syncTakeovers,
      listingRequests,
      listingFailures,
      syncLagsMs,
      latency: latencyOf(acceptedAt, arrivedAt),
      breakdown,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      dataDirs,
      ok:
        notAccepted === 0 &&
        accepted.size === options.n &&
        missing.length === 0 &&
        duplicates.length === 0 &&
        strays === 0 &&
        outbox.queued === 0 &&
        outbox.dead === 0 &&
        peakRequestsPerSecond <= requestsPerSecondLimit &&
        takeovers.every((takeover) => takeover.ms >= 0 && takeover.ms <= takeoverBoundMs) &&
        syncTakeovers.length === kills &&
        syncTakeovers.every((takeover) => takeover.heldByB && takeover.ms >= 0 && takeover.ms <= syncTakeoverBoundMs) &&
        listingFailures === 0 &&
        syncLagsMs.every((lag) => lag >= 0),
    };
    return report;
  } finally {
    watching = false;
    clearTimeout(faultTimer);
    arrivals.stop();
    requests.stop();
    await Promise.all(relays.map((relay) => relay.kill().catch(() => {})));
    await listingWatch;
    await pool.end();
    await sim.close();
    if (!report?.ok) {
      for (const [index, logFile] of logFiles.entries()) {
        try {
          note(`relay ${'AB'[index]} log tail:\n${readFileSync(logFile, 'utf8').split('\n').slice(-30).join('\n')}`);
        } catch {
          // No log yet.
        }
      }
    }
    if (!options.keepDataDir && report?.ok) for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  }
}
