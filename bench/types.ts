/**
 * The contract between bench/run.ts and each benchmark module.
 *
 * A benchmark is a module `bench/<name>.ts` exporting `run(context)`, which resolves to one or
 * more figures. Each figure is printed as one JSON line. Because the machines are shared and
 * noisy, a figure should compare against a baseline measured in the same run (a ratio), not stand
 * alone as an absolute number.
 */
export interface BenchFigure {
  /** Stable identifier of the figure, e.g. 'relay-json-throughput'. */
  name: string;
  /** False when the figure misses the goal it is held to: bench/run.ts then names it and exits 1. */
  withinGoal?: boolean | null;
  [measure: string]: string | number | boolean | null | undefined;
}

export interface BenchContext {
  /** Seconds each measured phase should last (BENCH_DURATION, default 5). */
  durationSeconds: number;
  /** Progress notes: go to stderr so stdout stays pure JSON lines. */
  note(message: string): void;
}

export interface BenchModule {
  run(context: BenchContext): Promise<BenchFigure[]>;
}
