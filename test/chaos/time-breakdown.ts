/**
 * Where a lead's time goes between its 202 and the CRM holding it, told from outside the relay:
 * the harness's own clock (202s, confirmations, kills, arrivals in the simulator), the relay's JSON
 * log (every retry it schedules, with its reason and wait; every Retry-After pause of the key) and
 * the simulator's count of the key's requests, second by second.
 *
 * Each lead's wait is cut into segments, each given to the first of these that covers it:
 * 1. `killed`: the relay (relay B of two) was down, between a SIGKILL and its restart;
 * 2. `confirmation`: a saved search waiting for its owner's click (the e-mail, the link);
 * 3. `lookupDelay`: waiting to look a write up after an unknown outcome that may still land (a
 *    dropped answer, a timeout);
 * 4. `backoff5xx`, `backoff429`, `backoffOther`: waiting to try again after a 5xx, a 429 the
 *    client gave up on, anything else;
 * 5. `addressHeld`: a saved search waiting while the other saved search of its address waits
 *    (the address is held through its partner's retries: one contact per address);
 * 6. `breakerOpen`: the queue's circuit breaker open or probing (every lead of the queue waits);
 * 7. `keyPaused`: a 429's Retry-After holding every caller of the key;
 * 8. `working`: the rest: requests under way, queued at the key's rate gate, or due and waiting
 *    for a free worker slot.
 *
 * `working` is told apart by the key's use over the run: `rateBoundShare` is the share of the
 * seconds from the first 202 to the last arrival in which the CRM saw at least 9 requests of the
 * key (the rate gate binds), `keyPausedSeconds` how long Retry-After held every caller of the key.
 * A queue that waits while the key is far from its 10 a second waits for workers, not the gate.
 */
import { relayLogEntries } from './relay-log.ts';

export type WaitCause =
  'killed' | 'confirmation' | 'lookupDelay' | 'backoff5xx' | 'backoff429' | 'backoffOther' | 'addressHeld' | 'breakerOpen' | 'keyPaused' | 'working';
const CAUSES: WaitCause[] = [
  'killed',
  'confirmation',
  'lookupDelay',
  'backoff5xx',
  'backoff429',
  'backoffOther',
  'addressHeld',
  'breakerOpen',
  'keyPaused',
  'working',
];

export interface TimedLead {
  originalId: string;
  acceptedAt: number;
  arrivedAt: number;
  /** When its owner confirmed it (saved searches under double opt-in). */
  confirmedAt?: number;
  /** Leads of one group hold one address in turn (saved searches: the e-mail address). */
  group?: string;
}

export interface TimeBreakdown {
  leads: number;
  /** Lead-seconds by cause, summed over the leads. */
  seconds: Record<WaitCause, number>;
  /** Each cause's share of all the leads' waiting (0..1). */
  share: Record<WaitCause, number>;
  /** The same for the slowest 5 % of the leads (what the p95 is made of). */
  slowestShare: Record<WaitCause, number>;
  /** Retries the relays scheduled, by cause. */
  retries: Record<string, number>;
  keyPausedSeconds: number;
  /** How long the queue's circuit breaker was open or probing (summed over the relays). */
  breakerOpenSeconds: number;
  /** Requests of the key a second at the CRM, mean over the run and the share of seconds at >= 9. */
  meanRequestsPerSecond: number;
  rateBoundShare: number;
}

interface Segment {
  from: number;
  to: number;
  cause: WaitCause;
}

/** The retries a relay log holds, by originalId: when, how long, why. */
function retriesOf(logFiles: string[]): {
  byLead: Map<string, Segment[]>;
  counts: Record<string, number>;
  pauses: Array<[number, number]>;
  breaker: Array<[number, number]>;
} {
  const byLead = new Map<string, Segment[]>();
  const counts: Record<string, number> = {};
  const pauses: Array<[number, number]> = [];
  const breaker: Array<[number, number]> = [];
  for (const file of logFiles) {
    /** This relay's breaker: open (or probing) since, or undefined when closed. */
    let openSince: number | undefined;
    let lastAt = 0;
    for (const entry of relayLogEntries<{
      time?: number;
      msg?: string;
      originalId?: string;
      reason?: string;
      outcomeUnknown?: boolean;
      retryInMs?: number;
      retryAfter?: boolean;
      breaker?: string;
    }>(file)) {
      const at = typeof entry.time === 'number' ? entry.time : undefined;
      if (at !== undefined) lastAt = at;
      if (at !== undefined && entry.breaker) {
        if (entry.breaker === 'closed' && openSince !== undefined) {
          breaker.push([openSince, at]);
          openSince = undefined;
        } else if (entry.breaker !== 'closed') openSince ??= at;
        continue;
      }
      // A restart (a new process in the same log) starts with its breaker closed.
      if (/relay listening on/.test(entry.msg ?? '') && openSince !== undefined && at !== undefined) {
        breaker.push([openSince, at]);
        openSince = undefined;
      }
      if (at === undefined || typeof entry.retryInMs !== 'number') continue;
      if (entry.msg === 'CRM rate limit hit; retrying' && entry.retryAfter) {
        pauses.push([at, at + entry.retryInMs]);
        continue;
      }
      if (!entry.originalId || !/will (retry|look again before \w+ it again)$/.test(entry.msg ?? '')) continue;
      const reason = entry.reason ?? '';
      // A look-up that found nothing too soon to be believed (a kill's write, a timeout): the rest of the look-up delay.
      const cause: WaitCause = /will look again/.test(entry.msg ?? '')
        ? 'lookupDelay'
        : /^rate_limited/.test(reason)
          ? 'backoff429'
          : /^server_error/.test(reason)
            ? 'backoff5xx'
            : entry.outcomeUnknown && /^(network|timeout)/.test(reason)
              ? 'lookupDelay'
              : 'backoffOther';
      counts[cause] = (counts[cause] ?? 0) + 1;
      const list = byLead.get(entry.originalId) ?? [];
      list.push({ from: at, to: at + entry.retryInMs, cause });
      byLead.set(entry.originalId, list);
    }
    if (openSince !== undefined) breaker.push([openSince, lastAt]);
  }
  return { byLead, counts, pauses, breaker };
}

function union(intervals: Array<[number, number]>): number {
  const sorted = [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let end = -Infinity;
  for (const [from, to] of sorted) {
    if (to <= end) continue;
    total += to - Math.max(from, end);
    end = to;
  }
  return total;
}

/** Cuts [from, to) by the segments, the first listed cause winning where they overlap; the rest is `working`. */
function cut(from: number, to: number, segments: Segment[]): Record<WaitCause, number> {
  const totals = Object.fromEntries(CAUSES.map((cause) => [cause, 0])) as Record<WaitCause, number>;
  const points = [from, to, ...segments.flatMap((segment) => [segment.from, segment.to])].filter((point) => point >= from && point <= to).sort((a, b) => a - b);
  for (let index = 0; index + 1 < points.length; index++) {
    const start = points[index]!;
    const end = points[index + 1]!;
    if (end <= start) continue;
    const middle = (start + end) / 2;
    const covering = segments.filter((segment) => segment.from <= middle && middle < segment.to).map((segment) => CAUSES.indexOf(segment.cause));
    const cause = covering.length ? CAUSES[Math.min(...covering)]! : 'working';
    totals[cause] += end - start;
  }
  return totals;
}

export function timeBreakdown(input: {
  leads: TimedLead[];
  logFiles: string[];
  /** [from, to] when the relay (or relay B) was down. */
  downs: Array<[number, number]>;
  /** The key's requests the CRM had counted, sampled about once a second: [time, total]. */
  requestSamples: Array<[number, number]>;
}): TimeBreakdown {
  const { byLead, counts, pauses, breaker } = retriesOf(input.logFiles);
  const kills: Segment[] = input.downs.map(([from, to]) => ({ from, to, cause: 'killed' }));
  // One relay: a breaker left open by a killed process ends with it (its log says nothing more).
  const ended = ([from, to]: [number, number]): [number, number] =>
    input.logFiles.length === 1 ? [from, Math.min(to, ...input.downs.filter(([down]) => down > from).map(([down]) => down))] : [from, to];
  const breakerOpen = breaker.map(ended);
  const keyWide: Segment[] = [
    ...breakerOpen.map(([from, to]): Segment => ({ from, to, cause: 'breakerOpen' })),
    ...pauses.map(([from, to]): Segment => ({ from, to, cause: 'keyPaused' })),
  ];
  const waitsByGroup = new Map<string, Array<{ id: string; segments: Segment[] }>>();
  for (const lead of input.leads) {
    if (lead.group === undefined) continue;
    const list = waitsByGroup.get(lead.group) ?? [];
    list.push({ id: lead.originalId, segments: byLead.get(lead.originalId) ?? [] });
    waitsByGroup.set(lead.group, list);
  }
  const perLead = input.leads.map((lead) => {
    const own = byLead.get(lead.originalId) ?? [];
    const partners = (lead.group === undefined ? [] : (waitsByGroup.get(lead.group) ?? []))
      .filter((other) => other.id !== lead.originalId)
      .flatMap((other) => other.segments.map((segment): Segment => ({ ...segment, cause: 'addressHeld' })));
    const confirmation: Segment[] = lead.confirmedAt === undefined ? [] : [{ from: lead.acceptedAt, to: lead.confirmedAt, cause: 'confirmation' }];
    return {
      wait: lead.arrivedAt - lead.acceptedAt,
      totals: cut(lead.acceptedAt, Math.max(lead.acceptedAt, lead.arrivedAt), [...kills, ...confirmation, ...own, ...partners, ...keyWide]),
    };
  });
  const sum = (rows: typeof perLead) => {
    const seconds = Object.fromEntries(CAUSES.map((cause) => [cause, 0])) as Record<WaitCause, number>;
    for (const row of rows) for (const cause of CAUSES) seconds[cause] += row.totals[cause] / 1000;
    const total = CAUSES.reduce((all, cause) => all + seconds[cause], 0) || 1;
    const share = Object.fromEntries(CAUSES.map((cause) => [cause, Math.round((seconds[cause] / total) * 1000) / 1000])) as Record<WaitCause, number>;
    return { seconds, share };
  };
  const all = sum(perLead);
  const slowest = sum([...perLead].sort((a, b) => b.wait - a.wait).slice(0, Math.max(1, Math.ceil(perLead.length * 0.05))));
  // The key's use a second, from the first 202 to the last arrival.
  const first = Math.min(...input.leads.map((lead) => lead.acceptedAt));
  const last = Math.max(...input.leads.map((lead) => lead.arrivedAt));
  const samples = input.requestSamples.filter(([at]) => at >= first && at <= last);
  const rates: number[] = [];
  for (let index = 1; index < samples.length; index++) {
    const [at, total] = samples[index]!;
    const [before, totalBefore] = samples[index - 1]!;
    if (at > before) rates.push(((total - totalBefore) * 1000) / (at - before));
  }
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    leads: input.leads.length,
    seconds: Object.fromEntries(CAUSES.map((cause) => [cause, round(all.seconds[cause])])) as Record<WaitCause, number>,
    share: all.share,
    slowestShare: slowest.share,
    retries: counts,
    keyPausedSeconds: round(union(pauses) / 1000),
    breakerOpenSeconds: round(breakerOpen.reduce((total, [from, to]) => total + (to - from), 0) / 1000),
    meanRequestsPerSecond: round(rates.reduce((total, rate) => total + rate, 0) / (rates.length || 1)),
    rateBoundShare: Math.round((rates.filter((rate) => rate >= 9).length / (rates.length || 1)) * 100) / 100,
  };
}

/** Samples the simulator's count of the key's requests once a second, until stop(). */
export function sampleRequests(total: () => number): { samples: Array<[number, number]>; stop(): void } {
  const samples: Array<[number, number]> = [[Date.now(), total()]];
  const timer = setInterval(() => samples.push([Date.now(), total()]), 1_000);
  return { samples, stop: () => clearInterval(timer) };
}

/** A one-line summary: each cause's share of the waiting (all leads; the slowest 5 %). */
export function describeBreakdown(breakdown: TimeBreakdown): string {
  const parts = CAUSES.filter((cause) => breakdown.share[cause] > 0 || breakdown.slowestShare[cause] > 0).map(
    (cause) => `${cause} ${Math.round(breakdown.share[cause] * 100)} % (slowest 5 %: ${Math.round(breakdown.slowestShare[cause] * 100)} %)`,
  );
  return `${parts.join(', ')}; retries ${JSON.stringify(breakdown.retries)}; key paused by Retry-After ${breakdown.keyPausedSeconds} s; breaker open ${breakdown.breakerOpenSeconds} s; key at ${breakdown.meanRequestsPerSecond}/s on average, >= 9/s in ${Math.round(breakdown.rateBoundShare * 100)} % of the seconds`;
}
