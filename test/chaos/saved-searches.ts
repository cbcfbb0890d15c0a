/**
 * The saved-search chaos run (issue 21): saved searches from many e-mail addresses (a second search
 * of an address sent at the same moment as its first, one pair in five with equal filters) sent to
 * one relay on SQLite, or spread over two relays on one PostgreSQL database, while the CRM
 * simulator fails every write (POST /contacts, POST .../requirements, PUT .../categories, POST
 * /enquiries) 15 % with 500, 10 % with 429 and drops 10 % of the answers after acting, and the
 * relay (relay B of two) is killed with SIGKILL several times, while accepting and while working.
 *
 * The verdict, from the simulator's records:
 * - exactly one contact per address;
 * - exactly one requirement per saved search, each with the search's fields (as many requirements
 *   equal to a search as there are saved searches with those filters for that address);
 * - every saved search's address in the agency's web-alert category, its holding-area note once;
 * - at most 10 requests of the key in any second at the CRM (both relays together);
 * - nothing left queued or dead in the relays' store.
 *
 * Also measured: before the faults, the CRM calls one saved search costs for a new and for a known
 * address (at the simulator, by endpoint), and under the faults the time from each 202 to its
 * requirement in the CRM (p50, p95).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { relayLogEntries } from './relay-log.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Suburb } from '../../contract/relay-api.ts';
import type { SavedSearchFilters, SavedSearchRequest } from '../../contract/saved-search.ts';
import type { FaultRule } from '../../crm-sim/faults.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { evenSteps, freePort, RelayProcess } from './chaos.ts';
import { contactsByAddress, requirementMatchesSearch } from '../saved-searches/support.ts';
import { describeBreakdown, sampleRequests, timeBreakdown, type TimeBreakdown } from './time-breakdown.ts';

export interface SavedSearchChaosOptions {
  /** Saved searches to send. */
  n: number;
  /** Distinct e-mail addresses they come from (n - addresses of them share an address with another, sent at the same moment). */
  addresses: number;
  /** SIGKILLs (of relay B when there are two). */
  kills: number;
  /** 2: two relays on `databaseUrl` (PostgreSQL). */
  relays?: 1 | 2;
  databaseUrl?: string;
  /** 'production': the relay's default retry settings (the report's figures); 'fast': short delays (npm test). */
  settings?: 'production' | 'fast';
  timeoutMs?: number;
  keepDataDir?: boolean;
  note?: (message: string) => void;
  /** false: no faults injected (the baseline of a bench: the same saved searches, the same key). Default true. */
  faults?: boolean;
  /** Start one address's saved searches every this many ms (visitors arriving over time); default 0: as fast as six senders go. */
  paceMs?: number;
}

export interface SavedSearchChaosReport {
  n: number;
  relays: number;
  accepted: number;
  notAccepted: number;
  kills: number;
  contacts: { addresses: number; withOneContact: number; duplicated: string[]; missing: string[] };
  requirements: { expected: number; held: number; mismatched: number; groupsWrong: string[] };
  categoriesMissing: number;
  notes: { expected: number; held: number; duplicates: number };
  peakRequestsPerSecond: number;
  /** CRM calls of one saved search with faults off, by endpoint, for a new and a known address (the vocabulary read apart). */
  callsPerSavedSearch: { newAddress: Record<string, number>; knownAddress: Record<string, number>; newTotal: number; knownTotal: number };
  latency: { p50: number; p95: number; max: number; afterLastAccepted: number };
  /** The same from each owner's confirmation (the click), when the relay may first send it, to the last confirmation. */
  fromConfirmation: { p50: number; p95: number; max: number; afterLastConfirmed: number };
  /** Where the saved searches' time went from 202 to requirement (time-breakdown.ts). */
  breakdown: TimeBreakdown;
  simulator: { injectedErrors: number; injected429s: number; droppedResponses: number };
  stores: Record<string, number>;
  seconds: number;
  ok: boolean;
}

export const WRITE_FAULTS: FaultRule[] = ['POST /contacts', 'POST /contacts/*/requirements', 'PUT /contacts/*/categories', 'POST /enquiries'].map((match) => ({
  match,
  errorRate: 0.15,
  rate429: 0.1,
  retryAfterSeconds: 1,
  dropResponseRate: 0.1,
}));

/** The web-alert category the run names (SAVED_SEARCH_CATEGORY_IDS). */
const ALERT_CATEGORY = 64;

const FAST_SETTINGS = {
  CRM_TIMEOUT_MS: '2000',
  ENQUIRY_RETRY_BASE_MS: '200',
  ENQUIRY_RETRY_MAX_MS: '2000',
  ENQUIRY_RECONCILE_DELAY_MS: '1500',
  ENQUIRY_POLL_MS: '250',
};

/**
 * The endpoints a saved search calls. GET /enquiries (the note's look-up after an unknown outcome)
 * is left out: with no faults the worker never reads it, and the relay's access check may at start.
 */
const CONTACT_ENDPOINT =
  /^(GET \/search\/contacts\/email|POST \/contacts$|GET \/contacts\/\{id\}\/requirements|POST \/contacts\/\{id\}\/requirements|GET \/contacts\/\{id\}\/categories|PUT \/contacts\/\{id\}\/categories|POST \/enquiries)$/;

function percentile(sorted: number[], share: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

/** Searches over the relay's suburbs and the residential types, one per index; the pair partner of every fifth address all but repeats its filters (bodiesFor). */
function searchOf(index: number, suburbs: string[]): SavedSearchFilters {
  const types = ['House', 'Unit', 'Townhouse', 'Apartment'];
  return {
    type: index % 3 === 0 ? 'lease' : 'sale',
    suburb: suburbs[index % suburbs.length]!,
    ...(index % 2 === 0 ? { propertyType: types[index % types.length]! } : {}),
    minBeds: 1 + (index % 4),
    ...(index % 5 === 1 ? { minBaths: 2 } : {}),
    ...(index % 7 === 2 ? { minCars: 1 } : {}),
    ...(index % 3 === 0 ? { maxPrice: 500 + index * 10 } : { minPrice: 300_000 + index * 1000, maxPrice: 2_000_000 + index * 1000 }),
  };
}

function bodiesFor(n: number, addresses: number, suburbs: string[]): SavedSearchRequest[][] {
  // Address a gets search a and, for a < n - addresses, a second one sent with it.
  const batches: SavedSearchRequest[][] = [];
  for (let address = 0; address < addresses; address++) {
    const email = `chaos.follower.${address}@example.com`;
    const body = (index: number, search: SavedSearchFilters): SavedSearchRequest => ({
      originalId: randomUUID(),
      fullName: `Chaos Follower ${address}`,
      email,
      ...(address % 2 === 0 ? { mobile: '0412 345 678' } : {}),
      consent: true,
      website: '',
      elapsedMs: 15_000 + index,
      search,
    });
    const batch = [body(address, searchOf(address, suburbs))];
    const second = addresses + address;
    // Every fifth pair: its partner's filters all but equal (a dollar apart: the very same search
    // within a day would be one saved search, one per intent).
    const nearlyTheSame = (): SavedSearchFilters => {
      const search = searchOf(address, suburbs);
      return { ...search, maxPrice: Number(search.maxPrice) + 1 };
    };
    if (second < n) batch.push(body(second, address % 5 === 0 ? nearlyTheSame() : searchOf(second, suburbs)));
    batches.push(batch);
  }
  return batches;
}

export async function runSavedSearchChaos(options: SavedSearchChaosOptions): Promise<SavedSearchChaosReport> {
  const started = Date.now();
  const note = options.note ?? (() => {});
  const relayCount = options.relays ?? 1;
  if (relayCount === 2 && !options.databaseUrl) throw new Error('two relays need a PostgreSQL database (databaseUrl)');
  const deadline = started + (options.timeoutMs ?? 15 * 60_000);
  const sim: RunningSimulator = await startSimulator({ listings: 30, seed: 21_2025, requestsPerSecond: 10, dailyLimit: 1_000_000 });
  const dataDirs = Array.from({ length: relayCount }, () => mkdtempSync(join(tmpdir(), 'estate-saved-chaos-')));
  const ports = [await freePort(), await freePort()].slice(0, relayCount);
  const relays = dataDirs.map(
    (dataDir, index) =>
      new RelayProcess(
        {
          PORT: String(ports[index]),
          HOST: '127.0.0.1',
          PUBLIC_URL: `http://127.0.0.1:${ports[index]}`,
          DATA_DIR: dataDir,
          ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
          CRM_BASE_URL: sim.baseUrl,
          CRM_API_KEY: sim.apiKey,
          CRM_ACCESS_TOKEN: sim.accessToken,
          CRM_DAILY_LIMIT: '1000000',
          // info: the confirmation e-mails' times, for the breakdown of the waits.
          LOG_LEVEL: process.env.CHAOS_LOG_LEVEL ?? 'info',
          ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000000',
          ENQUIRY_DAILY_LIMIT_PER_CLIENT: '1000000',
          ENQUIRY_MIN_FILL_MS: '0',
          SAVED_SEARCH_DAILY_BUDGET: '1000000',
          SAVED_SEARCH_CATEGORY_IDS: String(ALERT_CATEGORY),
          SAVED_SEARCH_HOLDING_ENQUIRY: '1',
          // Double opt-in: the confirmation e-mails go to the simulator's catcher, whose links the run follows as their owners would.
          SMTP_URL: sim.mail.url,
          MAIL_FROM: 'Chaos Realty <alerts@chaos.example>',
          ...(relayCount === 2 ? { ENQUIRY_CLAIM_LEASE_MS: '3000' } : {}),
          ...(options.settings === 'fast' ? FAST_SETTINGS : {}),
        },
        join(dataDir, 'relay.log'),
      ),
  );
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const victim = relays[relays.length - 1]!;
  const accepted = new Map<string, { body: SavedSearchRequest; at: number }>();
  let notAccepted = 0;
  let kills = 0;
  /** When relay B was down: [killed, back]. */
  const downs: Array<[number, number]> = [];
  let restarting: Promise<void> | undefined;
  let report: SavedSearchChaosReport | undefined;
  /** Kills the victim and restarts it; a kill asked for while one is under way follows it (none is lost). */
  const killAndRestart = async (why: string): Promise<void> => {
    while (restarting) await restarting;
    restarting = (async () => {
      kills++;
      note(`kill -9 #${kills} (${why})`);
      const down = Date.now();
      await victim.kill();
      await sleep(150);
      await victim.start();
      downs.push([down, Date.now()]);
      note('relay back');
    })().finally(() => {
      restarting = undefined;
    });
    await restarting;
  };
  /** Requests by endpoint the CRM answered other than with 429 (a 429 here is the key's limit, shared with the sync, not the saved search's design). */
  const counts = (): Record<string, number> => {
    const byStatus = sim.state.getCounters().statusByEndpoint;
    return Object.fromEntries(
      Object.entries(byStatus).map(([endpoint, statuses]) => [
        endpoint,
        Object.entries(statuses).reduce((sum, [status, count]) => sum + (status === '429' ? 0 : count), 0),
      ]),
    );
  };
  const contactCalls = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(after)
        .filter(([endpoint]) => CONTACT_ENDPOINT.test(endpoint))
        .map(([endpoint, count]) => [endpoint, count - (before[endpoint] ?? 0)] as const)
        .filter(([, count]) => count > 0),
    );
  const post = async (body: SavedSearchRequest, relayIndex: number): Promise<boolean> => {
    for (let turn = 0; Date.now() < deadline; turn++) {
      const url = urls[(relayIndex + turn) % urls.length]!;
      try {
        const response = await fetch(`${url}/api/v1/saved-searches`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(5_000),
        });
        const text = await response.text();
        if (response.status === 202) {
          if (!accepted.has(body.originalId)) accepted.set(body.originalId, { body, at: Date.now() });
          return true;
        }
        if (response.status !== 429 && response.status < 500) {
          note(`saved search refused with ${response.status}: ${text.slice(0, 200)}`);
          return false;
        }
      } catch {
        // Down or killed mid-request: the same body again (the same originalId).
      }
      await sleep(100 + Math.random() * 200);
    }
    return false;
  };
  /** Saved searches still on their way at `url`: waiting for their owner's confirmation, or queued for the CRM. */
  const queuedIn = async (url: string): Promise<number | undefined> => {
    try {
      const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
      const queued = /^estate_saved_searches\{status="queued"\} (\d+)$/m.exec(text);
      const unconfirmed = /^estate_saved_searches\{status="unconfirmed"\} (\d+)$/m.exec(text);
      return queued && unconfirmed ? Number(queued[1]) + Number(unconfirmed[1]) : undefined;
    } catch {
      return undefined;
    }
  };
  // The owners of the addresses: each confirmation e-mail's link followed and confirmed (the page's
  // button, a POST; each owner on their own, so at once), at whichever relay answers (a killed
  // one's links go to the other, or wait for it).
  const confirmedLinks = new Set<string>();
  /** When each link was confirmed, and the address its e-mail went to. */
  const confirmedAt = new Map<string, number>();
  const linkAddress = new Map<string, string>();
  const confirming = new Set<string>();
  const confirm = async (path: string) => {
    confirming.add(path);
    try {
      for (const url of urls) {
        try {
          const answer = await fetch(`${url}${path}`, { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(15_000) });
          if (answer.status === 303) {
            confirmedLinks.add(path);
            confirmedAt.set(path, Date.now());
            return;
          }
        } catch {
          // Down or killed: the other relay, or this one on the next turn.
        }
      }
    } finally {
      confirming.delete(path);
    }
  };
  const followLinks = () => {
    for (const mail of sim.mail.messages()) {
      for (const link of mail.links) {
        const path = /\/alerts\/confirm\/[0-9a-f]{64}$/.exec(link)?.[0];
        if (path && !linkAddress.has(path)) linkAddress.set(path, mail.to[0]?.toLowerCase() ?? '');
        if (path && !confirmedLinks.has(path) && !confirming.has(path)) void confirm(path);
      }
    }
  };
  const owners = setInterval(followLinks, 200);
  // The status route says only "accepted" (docs/api.md): the probe is saved once relay 0's queue is empty again.
  const waitSaved = async (originalId: string) => {
    for (let waited = 0; waited < 30_000; waited += 100) {
      if ((await queuedIn(urls[0]!)) === 0) return;
      await sleep(100);
    }
    throw new Error(`saved search ${originalId} of the cost probe was not saved within 30 s`);
  };
  // Requirements as they appear: when each saved search's requirement was first seen in the CRM.
  const arrivals = new Map<string, number>();
  const sample = () => {
    const byAddress = contactsByAddress(sim.state.contacts.posted());
    const now = Date.now();
    for (const [id, { body }] of accepted) {
      if (arrivals.has(id)) continue;
      const contact = byAddress.get(body.email)?.[0];
      if (!contact) continue;
      const equal = contact.requirements.filter((requirement) => requirementMatchesSearch(requirement, body.search)).length;
      // Saved searches of this address with these filters already seen: the next requirement is this one's.
      const seenBefore = [...accepted.values()].filter(
        (other) => other.body.email === body.email && arrivals.has(other.body.originalId) && sameSearch(other.body.search, body.search),
      ).length;
      if (equal > seenBefore) arrivals.set(id, now);
    }
  };
  const sampler = setInterval(sample, 100);

  try {
    await Promise.all(relays.map((relay) => relay.start()));
    // The suburbs every relay knows once its first sync is done (what it accepts a saved search for): the
    // relay keeps a sold or leased listing by a window from now, so which suburbs the seed gives it depends on the hour.
    const suburbs = await knownSuburbs(urls, deadline);
    note(`${relayCount} relay(s) on ${urls.join(', ')}; sim ${sim.baseUrl}; suburbs ${suburbs.join(', ')}`);

    // The cost of one saved search, with no faults: a new address, then the same address again.
    const probe = (email: string): SavedSearchRequest => ({
      originalId: randomUUID(),
      fullName: 'Cost Probe',
      email,
      consent: true,
      website: '',
      elapsedMs: 20_000,
      search: { type: 'sale', suburb: suburbs[0]!, propertyType: 'House', minBeds: 2 },
    });
    // The first saved search of a relay also reads the CRM's listings for its suburb and type words (vocabulary.ts): warmed first, counted apart.
    const warm = probe('cost.warmup@example.com');
    await post(warm, 0);
    await waitSaved(warm.originalId);
    let before = counts();
    const fresh = probe('cost.probe@example.com');
    await post(fresh, 0);
    await waitSaved(fresh.originalId);
    const newAddress = contactCalls(before, counts());
    before = counts();
    const again = { ...probe('cost.probe@example.com'), search: { type: 'lease' as const, minBeds: 3 } };
    await post(again, 0);
    await waitSaved(again.originalId);
    const knownAddress = contactCalls(before, counts());
    accepted.clear();
    arrivals.clear();
    const probeEmails = new Set(['cost.warmup@example.com', 'cost.probe@example.com']);

    if (options.faults !== false) sim.state.setFaults(WRITE_FAULTS);
    const requests = sampleRequests(() => Object.values(sim.state.counters.requestsByEndpoint).reduce((total, count) => total + count, 0));
    const batches = bodiesFor(options.n, options.addresses, suburbs);
    const total = batches.reduce((sum, batch) => sum + batch.length, 0);
    const sendKills = Math.ceil(options.kills / 2);
    const killAt = evenSteps(0, total, sendKills);
    let next = 0;
    let sentBatches = 0;
    const sendingKills: Promise<void>[] = [];
    const sendingFrom = Date.now();
    const paceMs = options.paceMs ?? 0;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < batches.length) {
          const slot = next;
          const batch = batches[next++]!;
          if (paceMs > 0) await sleep(Math.max(0, sendingFrom + slot * paceMs - Date.now()));
          // The searches of one address at the same moment, to different relays when there are two.
          const results = await Promise.all(batch.map((body, index) => post(body, (sentBatches + index) % urls.length)));
          sentBatches++;
          notAccepted += results.filter((ok) => !ok).length;
          if (killAt.length > 0 && accepted.size >= killAt[0]!) {
            killAt.shift();
            sendingKills.push(killAndRestart(`after ${accepted.size} accepted`));
          }
        }
      }),
    );
    await Promise.all(sendingKills);
    note(`sent: ${accepted.size} accepted, ${notAccepted} not`);

    sample();
    const drainKillAt = evenSteps(arrivals.size, accepted.size, options.kills - sendKills);
    for (;;) {
      if (Date.now() > deadline) throw new Error('saved-search chaos run timed out');
      sample();
      if (drainKillAt.length > 0 && arrivals.size >= drainKillAt[0]!) {
        drainKillAt.shift();
        await killAndRestart(`while working, ${arrivals.size} requirements in the CRM`);
      }
      await restarting;
      const queued = await Promise.all(urls.map(queuedIn));
      if (queued.every((count) => count === 0) && drainKillAt.length === 0) break;
      await sleep(250);
    }
    clearInterval(sampler);
    clearInterval(owners);
    requests.stop();
    sample();
    const stores = await storeCounts(urls[0]!);
    await Promise.all(relays.map((relay) => relay.stop()));

    // The verdict.
    const posted = sim.state.contacts.posted().filter((contact) => !contact.emails.some((email) => probeEmails.has(email.toLowerCase())));
    const byAddress = contactsByAddress(posted);
    const emails = [...new Set([...accepted.values()].map(({ body }) => body.email))];
    const duplicated = emails.filter((email) => (byAddress.get(email)?.length ?? 0) > 1);
    const missing = emails.filter((email) => !byAddress.has(email));
    const groups = new Map<string, { email: string; search: SavedSearchFilters; count: number }>();
    for (const { body } of accepted.values()) {
      const key = `${body.email}|${JSON.stringify(Object.entries(body.search).sort())}`;
      const group = groups.get(key) ?? { email: body.email, search: body.search, count: 0 };
      group.count++;
      groups.set(key, group);
    }
    const groupsWrong: string[] = [];
    for (const [key, group] of groups) {
      const contact = byAddress.get(group.email)?.[0];
      const equal = contact?.requirements.filter((requirement) => requirementMatchesSearch(requirement, group.search)).length ?? 0;
      if (equal !== group.count) groupsWrong.push(`${key}: ${equal} requirements for ${group.count} saved searches`);
    }
    const held = posted.reduce((sum, contact) => sum + contact.requirements.length, 0);
    const matched = [...groups.values()].reduce((sum, group) => sum + group.count, 0);
    const mismatched = posted.reduce(
      (sum, contact) =>
        sum +
        contact.requirements.filter(
          (requirement) => ![...accepted.values()].some(({ body }) => body.email === contact.emails[0] && requirementMatchesSearch(requirement, body.search)),
        ).length,
      0,
    );
    const categoriesMissing = posted.filter((contact) => !contact.categories.includes(ALERT_CATEGORY)).length;
    const noteCounts = new Map<string, number>();
    for (const enquiry of sim.state.postedEnquiries())
      if (enquiry.originalId) noteCounts.set(enquiry.originalId, (noteCounts.get(enquiry.originalId) ?? 0) + 1);
    const notesHeld = [...accepted.keys()].filter((id) => noteCounts.has(id)).length;
    const noteDuplicates = [...accepted.keys()].filter((id) => (noteCounts.get(id) ?? 0) > 1).length;
    const waits = [...accepted].flatMap(([id, { at }]) => (arrivals.has(id) ? [Math.max(0, arrivals.get(id)! - at) / 1000] : [])).sort((a, b) => a - b);
    const round = (value: number) => Math.round(value * 10) / 10;
    const lastAccepted = Math.max(...[...accepted.values()].map(({ at }) => at));
    const lastArrival = Math.max(0, ...[...accepted.keys()].map((id) => arrivals.get(id) ?? 0));
    const confirmationOf = confirmations(
      dataDirs.map((dataDir) => join(dataDir, 'relay.log')),
      [...accepted].map(([id, { body, at }]) => ({ id, email: body.email, at })),
      [...confirmedAt].map(([path, at]) => ({ email: linkAddress.get(path) ?? '', at })),
    );
    const confirmedWaits: number[] = [];
    let lastConfirmed = 0;
    for (const [id, { body }] of accepted) {
      const confirmed = confirmationOf(id, body.email);
      const arrived = arrivals.get(id);
      if (confirmed === undefined || arrived === undefined) continue;
      confirmedWaits.push(Math.max(0, arrived - confirmed) / 1000);
      lastConfirmed = Math.max(lastConfirmed, confirmed);
    }
    confirmedWaits.sort((a, b) => a - b);
    const breakdown = timeBreakdown({
      leads: [...accepted].flatMap(([id, { body, at }]) => {
        const arrivedAt = arrivals.get(id);
        return arrivedAt === undefined ? [] : [{ originalId: id, acceptedAt: at, arrivedAt, confirmedAt: confirmationOf(id, body.email), group: body.email }];
      }),
      logFiles: dataDirs.map((dataDir) => join(dataDir, 'relay.log')),
      downs,
      requestSamples: requests.samples,
    });
    note(`where the time went: ${describeBreakdown(breakdown)}`);
    const peakRequestsPerSecond = sim.state.peakRequestsPerSecond(sim.apiKey);
    const sum = (calls: Record<string, number>) => Object.values(calls).reduce((total, count) => total + count, 0);
    report = {
      n: options.n,
      relays: relayCount,
      accepted: accepted.size,
      notAccepted,
      kills,
      contacts: { addresses: emails.length, withOneContact: emails.length - duplicated.length - missing.length, duplicated, missing },
      requirements: { expected: matched, held, mismatched, groupsWrong: groupsWrong.slice(0, 20) },
      categoriesMissing,
      notes: { expected: accepted.size, held: notesHeld, duplicates: noteDuplicates },
      peakRequestsPerSecond,
      callsPerSavedSearch: { newAddress, knownAddress, newTotal: sum(newAddress), knownTotal: sum(knownAddress) },
      latency: {
        p50: round(percentile(waits, 0.5)),
        p95: round(percentile(waits, 0.95)),
        max: round(waits.at(-1) ?? 0),
        afterLastAccepted: round(Math.max(0, lastArrival - lastAccepted) / 1000),
      },
      fromConfirmation: {
        p50: round(percentile(confirmedWaits, 0.5)),
        p95: round(percentile(confirmedWaits, 0.95)),
        max: round(confirmedWaits.at(-1) ?? 0),
        afterLastConfirmed: round(Math.max(0, lastArrival - lastConfirmed) / 1000),
      },
      breakdown,
      simulator: {
        injectedErrors: sim.state.counters.injectedErrors,
        injected429s: sim.state.counters.injected429s,
        droppedResponses: sim.state.counters.droppedResponses,
      },
      stores,
      seconds: Math.round((Date.now() - started) / 100) / 10,
      ok:
        kills === options.kills &&
        notAccepted === 0 &&
        accepted.size === options.n &&
        duplicated.length === 0 &&
        missing.length === 0 &&
        groupsWrong.length === 0 &&
        mismatched === 0 &&
        held === options.n &&
        categoriesMissing === 0 &&
        notesHeld === accepted.size &&
        noteDuplicates === 0 &&
        peakRequestsPerSecond <= 10 &&
        (stores.queued ?? 0) === 0 &&
        (stores.dead ?? 0) === 0,
    };
    return report;
  } finally {
    clearInterval(sampler);
    clearInterval(owners);
    await Promise.all(relays.map((relay) => relay.kill().catch(() => {})));
    await sim.close();
    if (!report?.ok) {
      for (const dataDir of dataDirs) {
        try {
          note(`relay log tail (${dataDir}):\n${readFileSync(join(dataDir, 'relay.log'), 'utf8').split('\n').slice(-30).join('\n')}`);
        } catch {
          // No log.
        }
      }
    }
    if (!options.keepDataDir && report?.ok) for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The suburbs all the relays at `urls` know (GET /api/v1/suburbs), each asked once its first listing sync is done (/readyz). */
async function knownSuburbs(urls: string[], deadline: number): Promise<string[]> {
  const known: string[][] = [];
  for (const url of urls) {
    for (;;) {
      const ready = (await (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) })).json()) as { checks: Record<string, boolean> };
      if (ready.checks.listingCache) break;
      if (Date.now() > deadline) throw new Error(`the relay at ${url} did not finish its first listing sync`);
      await sleep(100);
    }
    const { items } = (await (await fetch(`${url}/api/v1/suburbs`, { signal: AbortSignal.timeout(5_000) })).json()) as { items: Suburb[] };
    known.push(items.map((suburb) => suburb.name));
  }
  const suburbs = known[0]!.filter((name) => known.every((names) => names.includes(name)));
  if (suburbs.length === 0) throw new Error(`the relays know no suburb in common: ${JSON.stringify(known)}`);
  return suburbs;
}

/**
 * When each saved search was confirmed: an address's confirmation e-mails (the relay log's "sent",
 * by originalId) in the order sent are paired with its links in the order their owners confirmed
 * them (the first e-mail is the first one read).
 */
function confirmations(
  logFiles: string[],
  searches: Array<{ id: string; email: string; at: number }>,
  confirmed: Array<{ email: string; at: number }>,
): (id: string, email: string) => number | undefined {
  const sentAt = new Map<string, number>();
  for (const file of logFiles) {
    for (const entry of relayLogEntries<{ time?: number; msg?: string; originalId?: string }>(file)) {
      if (!entry.msg?.includes('confirmation e-mail sent')) continue;
      if (entry.originalId && typeof entry.time === 'number' && !sentAt.has(entry.originalId)) sentAt.set(entry.originalId, entry.time);
    }
  }
  const byAddress = new Map<string, string[]>();
  for (const search of [...searches].sort((a, b) => (sentAt.get(a.id) ?? a.at) - (sentAt.get(b.id) ?? b.at))) {
    const email = search.email.toLowerCase();
    byAddress.set(email, [...(byAddress.get(email) ?? []), search.id]);
  }
  const at = new Map<string, number>();
  const links = new Map<string, number[]>();
  for (const link of [...confirmed].sort((a, b) => a.at - b.at)) links.set(link.email, [...(links.get(link.email) ?? []), link.at]);
  for (const [email, ids] of byAddress) ids.forEach((id, index) => links.get(email)?.[index] !== undefined && at.set(id, links.get(email)![index]!));
  return (id) => at.get(id);
}

function sameSearch(a: SavedSearchFilters, b: SavedSearchFilters): boolean {
  return JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());
}

/** The relay's saved searches by status (its /metrics, read from the store: PostgreSQL's when shared). */
async function storeCounts(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^estate_saved_searches\{status="(\w+)"\} (\d+)$/gm)) counts[match[1]!] = Number(match[2]);
  return counts;
}
