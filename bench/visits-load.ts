/**
 * Issue 32: counting never slows a page. One relay (bench/visits-load.target.ts, its own process)
 * with BENCH_VISITS_LISTINGS listings; the buyer's side is this process over real HTTP. Two phases
 * of BENCH_VISITS_SECONDS (60) each, the same listing answers asked throughout (a list page of 12
 * and a listing's detail, 10 a second): first without beacons, then with beacons for 100 listings
 * at BENCH_VISITS_RATE (200) events a second (a beacon of 10 events every 50 ms, from 500 browsers
 * told apart by their user agents). Figures, as ratios of the phase with beacons to the one without
 * (measured in the same run): the listing answers' p50 and p95, and the relay's RSS growth during
 * the phase. Then the counts: once the relay has flushed, every event sent is counted or counted as
 * dropped (exact).
 */
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { percentile } from './enquiry-latency.ts';
import { withTarget } from './support.ts';
import type { BenchContext, BenchFigure } from './types.ts';

interface Targets {
  relayOrigin: string;
  listingIds: number[];
}

const MB = 1024 * 1024;
const KINDS = ['detail', 'card', 'card', 'card', 'map-card', 'photos', 'kept', 'calendar', 'shared'] as const;
const BEACON_EVENTS = 10;
/** Latency goal: beacons may cost the listing answers this much at most (p50 and p95, as ratios). */
const LATENCY_RATIO_GOAL = 1.5;

export function run(context: BenchContext): Promise<BenchFigure[]> {
  const seconds = Number(process.env.BENCH_VISITS_SECONDS ?? 60);
  const rate = Number(process.env.BENCH_VISITS_RATE ?? 200);
  return withTarget(
    'visits-load.target.ts',
    async (targets: Targets, child) => {
      const ask = async <T>(message: string): Promise<T> => {
        child.send(message);
        const [answer] = (await once(child, 'message')) as [T];
        return answer;
      };
      const rss = async () => (await ask<{ rss: number }>('rss')).rss;
      const listings = targets.listingIds.slice(0, 100);
      if (listings.length < 100) throw new Error(`the relay lists ${listings.length} listings, the bench needs 100`);
      context.note(`relay ${targets.relayOrigin}, ${listings.length} listings; ${seconds} s without beacons, then ${seconds} s at ${rate} events a second`);

      /** The buyer's answers: a list page and a detail, in turn, 10 a second; their times in ms. */
      const sampleAnswers = async (until: number): Promise<number[]> => {
        const times: number[] = [];
        for (let i = 0; Date.now() < until; i++) {
          const path = i % 2 === 0 ? `/api/v1/listings?type=sale&pageSize=12&page=${1 + (i % 3)}` : `/api/v1/listings/${listings[i % listings.length]}`;
          const started = performance.now();
          const response = await fetch(`${targets.relayOrigin}${path}`, { headers: { 'accept-encoding': 'br, gzip' } });
          await response.arrayBuffer();
          if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
          times.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return times;
      };

      let sent = 0;
      let refusedBeacons = 0;
      /** Beacons as the widget sends them, at `rate` events a second until `until`. */
      const sendBeacons = async (until: number): Promise<void> => {
        const everyMs = (1000 * BEACON_EVENTS) / rate;
        let next = Date.now();
        let n = 0;
        const inFlight = new Set<Promise<void>>();
        while (Date.now() < until) {
          const events = Array.from({ length: BEACON_EVENTS }, (_, i) => {
            const kind = KINDS[(n * BEACON_EVENTS + i) % KINDS.length]!;
            const listingId = listings[(n * 7 + i * 13) % listings.length]!;
            return kind === 'detail' ? { kind, listingId, source: i % 2 ? 'page:buy' : 'utm:newsletter' } : { kind, listingId };
          });
          const browser = n % 500;
          const beacon = fetch(`${targets.relayOrigin}/api/v1/visits`, {
            method: 'POST',
            headers: {
              'content-type': 'text/plain;charset=UTF-8',
              'user-agent': `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${browser}.0 Safari/537.36`,
            },
            body: JSON.stringify(events),
          }).then(async (response) => {
            await response.arrayBuffer();
            if (response.status === 204) sent += events.length;
            else refusedBeacons += 1;
          });
          inFlight.add(beacon);
          void beacon.finally(() => inFlight.delete(beacon));
          n += 1;
          next += everyMs;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
        }
        await Promise.all(inFlight);
      };

      // Warm: the answers cached and the code paths compiled, in both phases alike.
      await sampleAnswers(Date.now() + 3_000);
      await sendBeacons(Date.now() + 1_000);
      await ask('flush');
      const warmSent = sent;

      const quietStart = await rss();
      const quiet = await sampleAnswers(Date.now() + seconds * 1000);
      const quietEnd = await rss();
      const busyStart = quietEnd;
      const until = Date.now() + seconds * 1000;
      const [busy] = await Promise.all([sampleAnswers(until), sendBeacons(until)]);
      const busyEnd = await rss();
      await ask('flush');
      const counts = await ask<{ counted: number; dropped: number; metrics: Record<string, number> }>('counts');

      const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
      const p50 = [percentile(busy, 0.5), percentile(quiet, 0.5)];
      const p95 = [percentile(busy, 0.95), percentile(quiet, 0.95)];
      const growth = [(busyEnd - busyStart) / MB, (quietEnd - quietStart) / MB];
      const latencyWithin = ratio(p50[0]!, p50[1]!) <= LATENCY_RATIO_GOAL && ratio(p95[0]!, p95[1]!) <= LATENCY_RATIO_GOAL;
      return [
        {
          name: 'visits-load-listing-latency',
          eventsPerSecond: rate,
          seconds,
          listings: listings.length,
          p50Ratio: ratio(p50[0]!, p50[1]!),
          p95Ratio: ratio(p95[0]!, p95[1]!),
          withBeaconsP50Ms: Number(p50[0]!.toFixed(1)),
          withBeaconsP95Ms: Number(p95[0]!.toFixed(1)),
          withoutP50Ms: Number(p50[1]!.toFixed(1)),
          withoutP95Ms: Number(p95[1]!.toFixed(1)),
          answers: busy.length + quiet.length,
          goal: `p50 and p95 ratios ≤ ${LATENCY_RATIO_GOAL}`,
          withinGoal: latencyWithin,
          loadAverage1m: Number(loadavg()[0]!.toFixed(2)),
        },
        {
          name: 'visits-load-rss',
          growthWithBeaconsMb: Number(growth[0]!.toFixed(1)),
          growthWithoutMb: Number(growth[1]!.toFixed(1)),
          // Growth is near zero either way: the ratio of RSS at the ends is the steadier figure.
          rssEndRatio: ratio(busyEnd, quietEnd),
          rssStartMb: Number((quietStart / MB).toFixed(1)),
          rssEndMb: Number((busyEnd / MB).toFixed(1)),
        },
        {
          name: 'visits-load-counts',
          sent: sent - warmSent,
          sentWithWarmUp: sent,
          counted: counts.counted,
          dropped: counts.dropped,
          refusedBeacons,
          // Every event the relay took (204) is counted or counted as dropped.
          withinGoal: refusedBeacons === 0 && counts.counted + counts.dropped === sent,
        },
      ];
    },
    30_000,
  );
}
