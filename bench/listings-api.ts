/**
 * Throughput of the listing API (a filtered, sorted page of 24 cards, and a full listing detail)
 * against a bare node:http server answering the same bytes, asked as a browser asks
 * (`Accept-Encoding: br, gzip`: the baseline sends the relay's brotli bytes) and with no encoding, measured with autocannon over loopback
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
  browserHeaders: Record<string, string>;
  bodyBytes: Record<string, number>;
  brotliBytes: Record<string, number>;
  relayHeaderBytes: Record<string, number>;
  crmRequestsAfterSync: number;
}

export function run(context: BenchContext): Promise<BenchFigure[]> {
  return withTarget('listings-api.target.ts', async (targets: Targets, child) => {
    context.note(`relay ${targets.relayOrigin} (${targets.listings} listings cached), baseline ${targets.baselineOrigin}`);

    const figures: BenchFigure[] = [];
    // As a browser asks (brotli accepted) and as a bare client does (identity).
    const askings = [
      { asked: 'browser', headers: targets.browserHeaders },
      { asked: 'identity', headers: {} },
    ];
    for (const [kind, path] of Object.entries(targets.paths)) {
      for (const { asked, headers } of askings) {
        const throughput = await compareThroughput(`${targets.baselineOrigin}${path}`, `${targets.relayOrigin}${path}`, context.durationSeconds, headers);
        figures.push({
          name: `listings-api-${kind}-throughput${asked === 'browser' ? '-browser' : ''}`,
          endpoint: `GET ${path.replace(/\/\d+$/, '/{id}')}`,
          acceptEncoding: headers['accept-encoding'] ?? null,
          relayRps: throughput.relayRps,
          baselineRps: throughput.baselineRps,
          ratio: throughput.ratio,
          ratioSpread: throughput.ratioSpread,
          relayP99Ms: throughput.relayP99Ms,
          bodyBytes: asked === 'browser' ? targets.brotliBytes[path]! : targets.bodyBytes[path]!,
          relayHeaderBytes: targets.relayHeaderBytes[path],
          connections: CONNECTIONS,
          secondsEach: context.durationSeconds,
          loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
          cpus: availableParallelism(),
        });
      }
    }
    child.send('crm-requests');
    const [{ crmRequests }] = (await once(child, 'message')) as [{ crmRequests: number }];
    for (const figure of figures) figure.crmRequestsDuringMeasurement = crmRequests - targets.crmRequestsAfterSync;
    return figures;
  });
}
