/**
 * What the benchmarks share: a target process hosting the servers under test (so the load
 * generator and the servers do not share one event loop), autocannon phases of relay against a
 * bare node:http baseline, alternated so background load weighs on both alike, and the baseline
 * server itself.
 */
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** autocannon connections in every throughput phase. */
export const CONNECTIONS = 10;

/**
 * Forks `bench/<file>` under tsx, waits for the targets it reports over IPC, hands them to
 * `measure`, and then sends 'stop' (killing the process if it has not exited after `killAfterMs`).
 */
export async function withTarget<Targets, Result>(
  file: string,
  measure: (targets: Targets, child: ChildProcess) => Promise<Result>,
  killAfterMs = 5_000,
): Promise<Result> {
  const child = fork(join(import.meta.dirname, file), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const [targets] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`target process exited (${code}) before it was ready`))),
    ])) as [Targets];
    return await measure(targets, child);
  } finally {
    child.send('stop');
    const exited = once(child, 'exit');
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    await exited;
    clearTimeout(timer);
  }
}

/** One autocannon phase; any error or non-2xx answer makes the figure meaningless, so it throws. */
export async function measure(url: string, seconds: number, headers: Record<string, string> = {}): Promise<autocannon.Result> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`${url}: ${result.errors} errors, ${result.non2xx} non-2xx answers: the figure would be meaningless`);
  }
  return result;
}

export interface ThroughputComparison {
  relayRps: number;
  baselineRps: number;
  /** relayRps / baselineRps over both rounds. */
  ratio: number;
  /** How far the two rounds' ratios disagree: a large spread means the machine was too busy to trust the ratio. */
  ratioSpread: number;
  relayP99Ms: number;
  baselineP99Ms: number;
}

/**
 * Throughput of `relayUrl` against `baselineUrl` (both asked with `headers`): a 1 s warm-up of each, then two rounds of
 * baseline then relay, `durationSeconds / 2` each.
 */
export async function compareThroughput(
  baselineUrl: string,
  relayUrl: string,
  durationSeconds: number,
  headers: Record<string, string> = {},
): Promise<ThroughputComparison> {
  await measure(baselineUrl, 1, headers);
  await measure(relayUrl, 1, headers);
  const baseline = { requests: 0, seconds: 0, p99Ms: [] as number[] };
  const relay = { requests: 0, seconds: 0, p99Ms: [] as number[] };
  const roundRatios: number[] = [];
  for (let round = 0; round < 2; round++) {
    const baselineRound = await measure(baselineUrl, durationSeconds / 2, headers);
    const relayRound = await measure(relayUrl, durationSeconds / 2, headers);
    for (const [phase, result] of [
      [baseline, baselineRound],
      [relay, relayRound],
    ] as const) {
      phase.requests += result.requests.total;
      phase.seconds += result.duration;
      phase.p99Ms.push(result.latency.p99);
    }
    roundRatios.push(relayRound.requests.total / relayRound.duration / (baselineRound.requests.total / baselineRound.duration));
  }
  const baselineRps = baseline.requests / baseline.seconds;
  const relayRps = relay.requests / relay.seconds;
  return {
    relayRps: Math.round(relayRps),
    baselineRps: Math.round(baselineRps),
    ratio: Number((relayRps / baselineRps).toFixed(3)),
    ratioSpread: Number((Math.max(...roundRatios) - Math.min(...roundRatios)).toFixed(3)),
    relayP99Ms: Math.max(...relay.p99Ms),
    baselineP99Ms: Math.max(...baseline.p99Ms),
  };
}

/** Bytes of a response's headers on the wire (name, value, ": " and CRLF each). */
export function headerBytes(headers: Headers): number {
  return [...headers].reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
}

/** A bare node:http server on 127.0.0.1 (a free port): the baseline a relay is measured against. */
export async function listenBaseline(handler: RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
