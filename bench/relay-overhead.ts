/**
 * Throughput of a relay JSON endpoint (GET /healthz through Express, helmet and the rest of the
 * middleware stack) against a bare node:http server answering the same body bytes, both measured
 * with autocannon over loopback in the same run. The ratio relayRps / baselineRps is the figure:
 * absolute numbers move with the machine's load, the ratio much less.
 *
 * The phases alternate (baseline, relay, baseline, relay) so a change in background load during
 * the run weighs on both sides alike.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchFigure } from './types.ts';

const CONNECTIONS = 10;
const WARMUP_SECONDS = 1;

interface Targets {
  relayUrl: string;
  baselineUrl: string;
  bodyBytes: number;
  relayHeaderBytes: number;
}

interface Phase {
  requests: number;
  seconds: number;
  p99Ms: number[];
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const child = fork(join(import.meta.dirname, 'relay-overhead.target.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const [targets] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`target process exited (${code}) before it was ready`))),
    ])) as [Targets];
    context.note(`relay ${targets.relayUrl}, baseline ${targets.baselineUrl}`);

    await measure(targets.baselineUrl, WARMUP_SECONDS);
    await measure(targets.relayUrl, WARMUP_SECONDS);

    const half = context.durationSeconds / 2;
    const baseline: Phase = { requests: 0, seconds: 0, p99Ms: [] };
    const relay: Phase = { requests: 0, seconds: 0, p99Ms: [] };
    const roundRatios: number[] = [];
    for (let round = 0; round < 2; round++) {
      const baselineRound = await measure(targets.baselineUrl, half);
      const relayRound = await measure(targets.relayUrl, half);
      add(baseline, baselineRound);
      add(relay, relayRound);
      roundRatios.push(relayRound.requests.total / relayRound.duration / (baselineRound.requests.total / baselineRound.duration));
    }
    const baselineRps = baseline.requests / baseline.seconds;
    const relayRps = relay.requests / relay.seconds;
    return [
      {
        name: 'relay-json-throughput',
        endpoint: 'GET /healthz',
        relayRps: Math.round(relayRps),
        baselineRps: Math.round(baselineRps),
        ratio: Number((relayRps / baselineRps).toFixed(3)),
        // How far the two rounds disagree: a large spread means the machine was too busy to trust the ratio.
        ratioSpread: Number((Math.max(...roundRatios) - Math.min(...roundRatios)).toFixed(3)),
        loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
        cpus: availableParallelism(),
        relayP99Ms: Math.max(...relay.p99Ms),
        baselineP99Ms: Math.max(...baseline.p99Ms),
        bodyBytes: targets.bodyBytes,
        relayHeaderBytes: targets.relayHeaderBytes,
        connections: CONNECTIONS,
        secondsEach: context.durationSeconds,
      },
    ];
  } finally {
    child.send('stop');
    const exited = once(child, 'exit');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

async function measure(url: string, seconds: number): Promise<autocannon.Result> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers: the figure would be meaningless`);
  }
  return result;
}

function add(phase: Phase, result: autocannon.Result): void {
  phase.requests += result.requests.total;
  phase.seconds += result.duration;
  phase.p99Ms.push(result.latency.p99);
}
