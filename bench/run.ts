/**
 * `npm run bench [name ...]`: runs the benchmarks in order (or only the named ones) and prints
 * each figure as one JSON line on stdout. Progress goes to stderr.
 *
 * To add a benchmark: write `bench/<name>.ts` exporting `run(context): Promise<BenchFigure[]>`
 * (see types.ts) and add one line to `benchmarks` below. They run one after another, never in
 * parallel: they would measure each other. A figure with `withinGoal: false` is printed, named
 * on stderr and makes the run exit 1, as a benchmark that throws does.
 */
import type { BenchContext, BenchModule } from './types.ts';

const benchmarks: Array<{ name: string; load: () => Promise<BenchModule> }> = [
  { name: 'relay-overhead', load: () => import('./relay-overhead.ts') },
  { name: 'bundle-size', load: () => import('./bundle-size.ts') },
  { name: 'page-weight', load: () => import('./page-weight.ts') },
  { name: 'enquiry-latency', load: () => import('./enquiry-latency.ts') },
  { name: 'listings-api', load: () => import('./listings-api.ts') },
  { name: 'sync-2000', load: () => import('./sync-2000.ts') },
  { name: 'freshness', load: () => import('./freshness.ts') },
  { name: 'ssr', load: () => import('./ssr.ts') },
  { name: 'scale-out', load: () => import('./scale-out.ts') },
  { name: 'integrator', load: () => import('./integrator.ts') },
  { name: 'answer-cache-flood', load: () => import('./answer-cache-flood.ts') },
  { name: 'map', load: () => import('./map.ts') },
  { name: 'memory', load: () => import('./memory.ts') },
  { name: 'lead-chaos', load: () => import('./lead-chaos.ts') },
  { name: 'visits-load', load: () => import('./visits-load.ts') },
];

const wanted = process.argv.slice(2);
const durationSeconds = Number(process.env.BENCH_DURATION ?? 5);
if (!(durationSeconds > 0)) {
  console.error(`BENCH_DURATION must be a positive number of seconds (got "${process.env.BENCH_DURATION}")`);
  process.exit(2);
}
const unknown = wanted.filter((name) => !benchmarks.some((benchmark) => benchmark.name === name));
if (unknown.length > 0) {
  console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Known: ${benchmarks.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const benchmark of benchmarks) {
  if (wanted.length > 0 && !wanted.includes(benchmark.name)) continue;
  const context: BenchContext = {
    durationSeconds,
    note: (message) => console.error(`[bench ${benchmark.name}] ${message}`),
  };
  try {
    context.note('starting');
    const module = await benchmark.load();
    const missed: string[] = [];
    for (const figure of await module.run(context)) {
      console.log(JSON.stringify(figure));
      if (figure.withinGoal === false) missed.push(figure.name);
    }
    // A figure past its goal fails the run, whatever else passed: a goal a run can miss quietly is no goal.
    if (missed.length > 0) {
      failed++;
      console.error(`[bench ${benchmark.name}] GOAL MISSED: ${missed.join(', ')} (withinGoal false; the figures above say by how much)`);
    }
  } catch (error) {
    failed++;
    console.error(`[bench ${benchmark.name}] failed:`, error);
  }
}
process.exit(failed > 0 ? 1 : 0);
