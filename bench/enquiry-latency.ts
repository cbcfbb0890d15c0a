/**
 * Latency of `POST /api/v1/enquiries` (time to the 202) while the CRM takes 2 s to answer each
 * enquiry, against a pass-through baseline that posts to the CRM and answers only when it has
 * (what a relay without an outbox would do). Both run in one child process, measured in the same
 * run with the same load: CONCURRENCY clients, each sending unique enquiries back to back.
 *
 * The figure is the ratio of the baseline's p50 to the relay's: how much sooner a visitor hears
 * "sent" because the relay commits to its outbox and delivers in the background.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { withTarget } from './support.ts';
import type { BenchContext, BenchFigure } from './types.ts';

const CONCURRENCY = 10;
/** The baseline is bound by the CRM (2 s each, 10 requests/s): it needs longer for a sample worth having. */
const MIN_BASELINE_SECONDS = 12;

interface Targets {
  relayUrl: string;
  baselineUrl: string;
  listingIds: number[];
  crmLatencyMs: number;
}

export interface Sample {
  latenciesMs: number[];
  failures: number;
  /** Failures by status ('network' for no answer). */
  failureCauses: Record<string, number>;
  seconds: number;
}

export function run(context: BenchContext): Promise<BenchFigure[]> {
  return withTarget(
    'enquiry-latency.target.ts',
    async (targets: Targets, child) => {
      context.note(`relay ${targets.relayUrl}, baseline ${targets.baselineUrl}, CRM answers POST /enquiries in ${targets.crmLatencyMs} ms`);

      await load(targets.relayUrl, targets.listingIds, 1); // warm-up: JIT, connections, SQLite pages
      const relay = await load(targets.relayUrl, targets.listingIds, context.durationSeconds);
      child.send('relay-done');
      const [done] = (await once(child, 'message')) as [{ outbox: Record<string, number> }];
      const baseline = await load(targets.baselineUrl, targets.listingIds, Math.max(context.durationSeconds, MIN_BASELINE_SECONDS));

      const relayP50 = percentile(relay.latenciesMs, 0.5);
      const baselineP50 = percentile(baseline.latenciesMs, 0.5);
      return [
        {
          name: 'enquiry-202-latency',
          crmLatencyMs: targets.crmLatencyMs,
          relayP50Ms: round(relayP50),
          relayP99Ms: round(percentile(relay.latenciesMs, 0.99)),
          relayRequests: relay.latenciesMs.length,
          relayRps: Math.round(relay.latenciesMs.length / relay.seconds),
          relayFailures: relay.failures,
          baselineP50Ms: round(baselineP50),
          baselineP99Ms: round(percentile(baseline.latenciesMs, 0.99)),
          baselineRequests: baseline.latenciesMs.length,
          baselineRps: Number((baseline.latenciesMs.length / baseline.seconds).toFixed(1)),
          baselineFailures: baseline.failures,
          // How many times sooner the visitor hears back from the relay than from a pass-through.
          p50Ratio: Number((baselineP50 / relayP50).toFixed(1)),
          relayQueuedAfterPhase: done.outbox.queued ?? 0,
          concurrency: CONCURRENCY,
          loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
          cpus: availableParallelism(),
        },
      ];
    },
    // The pass-through baseline may still be waiting on 2 s CRM answers when asked to stop.
    10_000,
  );
}

/** CONCURRENCY clients posting unique enquiries back to back for `seconds`; latency of each answer. */
export async function load(url: string, listingIds: number[], seconds: number): Promise<Sample> {
  const latenciesMs: number[] = [];
  let failures = 0;
  const failureCauses: Record<string, number> = {};
  const fail = (cause: string) => {
    failures++;
    failureCauses[cause] = (failureCauses[cause] ?? 0) + 1;
  };
  let sent = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const index = sent++;
        const body = JSON.stringify({
          originalId: randomUUID(),
          listingId: listingIds[index % listingIds.length],
          fullName: 'Bench Visitor',
          email: `bench.${index}@example.com`,
          mobile: '0412 345 678',
          message: 'Is this still available?',
          consent: true,
          website: '',
          elapsedMs: 20_000,
        });
        const begin = performance.now();
        try {
          const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
          await response.arrayBuffer();
          if (response.status === 202 || response.status === 201) latenciesMs.push(performance.now() - begin);
          else fail(String(response.status));
        } catch {
          fail('network');
        }
      }
    }),
  );
  if (latenciesMs.length === 0) throw new Error(`${url}: no successful answers (${failures} failures)`);
  return { latenciesMs, failures, failureCauses, seconds: (performance.now() - started) / 1000 };
}

export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
