/**
 * Throughput of the listing API (a filtered, sorted page of 24 cards, and a full listing detail)
 * against a bare node:http server answering the same bytes, measured with autocannon over loopback
 * in the same run, phases alternating so background load weighs on both alike. Also checks that
 * the measured requests cost the CRM nothing.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, BenchFigure } from './types.ts';

const CONNECTIONS = 10;

interface Targets {
  relayOrigin: string;
  baselineOrigin: string;
  paths: Record<'list' | 'detail', string>;
  listings: number;
  bodyBytes: Record<string, number>;
  relayHeaderBytes: Record<string, number>;
  crmRequestsAfterSync: number;
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  const child = fork(join(import.meta.dirname, 'listings-api.target.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const [targets] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => Promise.reject(new Error(`target process exited (${code}) before it was ready`))),
    ])) as [Targets];
    context.note(`relay ${targets.relayOrigin} (${targets.listings} listings cached), baseline ${targets.baselineOrigin}`);

    const figures: BenchFigure[] = [];
    for (const [kind, path] of Object.entries(targets.paths)) {
      await measure(`${targets.baselineOrigin}${path}`, 1);
      await measure(`${targets.relayOrigin}${path}`, 1);
      let baselineRequests = 0;
      let baselineSeconds = 0;
      let relayRequests = 0;
      let relaySeconds = 0;
      const ratios: number[] = [];
      const p99: number[] = [];
      for (let round = 0; round < 2; round++) {
        const base = await measure(`${targets.baselineOrigin}${path}`, context.durationSeconds / 2);
        const relay = await measure(`${targets.relayOrigin}${path}`, context.durationSeconds / 2);
        baselineRequests += base.requests.total;
        baselineSeconds += base.duration;
        relayRequests += relay.requests.total;
        relaySeconds += relay.duration;
        p99.push(relay.latency.p99);
        ratios.push(relay.requests.total / relay.duration / (base.requests.total / base.duration));
      }
      const relayRps = relayRequests / relaySeconds;
      const baselineRps = baselineRequests / baselineSeconds;
      figures.push({
        name: `listings-api-${kind}-throughput`,
        endpoint: `GET ${path.replace(/\/\d+$/, '/{id}')}`,
        relayRps: Math.round(relayRps),
        baselineRps: Math.round(baselineRps),
        ratio: Number((relayRps / baselineRps).toFixed(3)),
        ratioSpread: Number((Math.max(...ratios) - Math.min(...ratios)).toFixed(3)),
        relayP99Ms: Math.max(...p99),
        bodyBytes: targets.bodyBytes[path],
        relayHeaderBytes: targets.relayHeaderBytes[path],
        connections: CONNECTIONS,
        secondsEach: context.durationSeconds,
        loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
        cpus: availableParallelism(),
      });
    }
    child.send('crm-requests');
    const [{ crmRequests }] = (await once(child, 'message')) as [{ crmRequests: number }];
    for (const figure of figures) figure.crmRequestsDuringMeasurement = crmRequests - targets.crmRequestsAfterSync;
    return figures;
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
