/**
 * Throughput of a relay JSON endpoint (GET /healthz through Express, helmet and the rest of the
 * middleware stack) against a bare node:http server answering the same body bytes, both measured
 * with autocannon over loopback in the same run. The ratio relayRps / baselineRps is the figure:
 * absolute numbers move with the machine's load, the ratio much less.
 *
 * The phases alternate (baseline, relay, baseline, relay) so a change in background load during
 * the run weighs on both sides alike.
 */
import { availableParallelism, loadavg } from 'node:os';
import { CONNECTIONS, compareThroughput, withTarget } from './support.ts';
import type { BenchContext, BenchFigure } from './types.ts';

interface Targets {
  relayUrl: string;
  baselineUrl: string;
  bodyBytes: number;
  relayHeaderBytes: number;
}

export function run(context: BenchContext): Promise<BenchFigure[]> {
  return withTarget('relay-overhead.target.ts', async (targets: Targets) => {
    context.note(`relay ${targets.relayUrl}, baseline ${targets.baselineUrl}`);
    const throughput = await compareThroughput(targets.baselineUrl, targets.relayUrl, context.durationSeconds);
    return [
      {
        name: 'relay-json-throughput',
        endpoint: 'GET /healthz',
        relayRps: throughput.relayRps,
        baselineRps: throughput.baselineRps,
        ratio: throughput.ratio,
        // How far the two rounds disagree: a large spread means the machine was too busy to trust the ratio.
        ratioSpread: throughput.ratioSpread,
        loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
        cpus: availableParallelism(),
        relayP99Ms: throughput.relayP99Ms,
        baselineP99Ms: throughput.baselineP99Ms,
        bodyBytes: targets.bodyBytes,
        relayHeaderBytes: targets.relayHeaderBytes,
        connections: CONNECTIONS,
        secondsEach: context.durationSeconds,
      },
    ];
  });
}
