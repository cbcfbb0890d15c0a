/**
 * Throughput of the listing API (a filtered, sorted page of 24 cards, and a full listing detail)
 * against a bare node:http server answering the same bytes, measured with autocannon over loopback
 * in the same run, phases alternating so background load weighs on both alike. Also checks that
 * the measured requests cost the CRM nothing.
 */
import { once } from 'node:events';
import { availableParallelism, loadavg } from 'node:os';
import { CONNECTIONS, compareThroughput, withTarget } from './support.ts';
import type { BenchContext, BenchFigure } from './types.ts';

interface Targets {
  relayOrigin: string;
  baselineOrigin: string;
  paths: Record<'list' | 'detail', string>;
  listings: number;
  bodyBytes: Record<string, number>;
  relayHeaderBytes: Record<string, number>;
  crmRequestsAfterSync: number;
}

export function run(context: BenchContext): Promise<BenchFigure[]> {
  return withTarget('listings-api.target.ts', async (targets: Targets, child) => {
    context.note(`relay ${targets.relayOrigin} (${targets.listings} listings cached), baseline ${targets.baselineOrigin}`);

    const figures: BenchFigure[] = [];
    for (const [kind, path] of Object.entries(targets.paths)) {
      const throughput = await compareThroughput(`${targets.baselineOrigin}${path}`, `${targets.relayOrigin}${path}`, context.durationSeconds);
      figures.push({
        name: `listings-api-${kind}-throughput`,
        endpoint: `GET ${path.replace(/\/\d+$/, '/{id}')}`,
        relayRps: throughput.relayRps,
        baselineRps: throughput.baselineRps,
        ratio: throughput.ratio,
        ratioSpread: throughput.ratioSpread,
        relayP99Ms: throughput.relayP99Ms,
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
  });
}
