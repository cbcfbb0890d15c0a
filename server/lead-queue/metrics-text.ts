import { metricFamily, type Sample } from '../runtime/prometheus.ts';

/**
 * A lead queue's metrics as Prometheus text: families written by runtime/prometheus.ts (the one
 * writer of the format), and the histogram or summary lines a queue writes itself.
 */
export class MetricsText {
  private readonly parts: string[] = [];

  /** One metric: its HELP and TYPE lines, then a line per sample. */
  metric(name: string, type: 'counter' | 'gauge', help: string, samples: readonly Sample[]): this {
    this.parts.push(metricFamily(name, type, help, samples));
    return this;
  }

  /** Lines written as they are (a histogram, a summary). */
  raw(...lines: string[]): this {
    this.parts.push(`${lines.join('\n')}\n`);
    return this;
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** Samples labelled by the keys of `values` (`{label="key"}`), in their order. */
export function labelled(label: string, values: Record<string, number>): Sample[] {
  return Object.entries(values).map(([key, value]) => ({ labels: { [label]: key }, value }));
}

/** Latencies from acceptance (202) to the CRM holding the lead, in seconds. */
export class Latencies {
  readonly bucketCounts: number[];
  count = 0;
  sum = 0;
  max: number | null = null;
  /** The last few hundred, for a median in the log line (the histogram is for Prometheus). */
  private readonly recent: number[] = [];

  constructor(readonly buckets: readonly number[] = []) {
    this.bucketCounts = buckets.map(() => 0);
  }

  observe(seconds: number): void {
    const value = Math.max(0, seconds);
    this.count++;
    this.sum += value;
    this.max = Math.max(this.max ?? 0, value);
    this.buckets.forEach((bound, index) => {
      if (value <= bound) this.bucketCounts[index]!++;
    });
    this.recent.push(value);
    if (this.recent.length > 500) this.recent.shift();
  }

  /** The median of the recent ones, or null before the first. */
  median(): number | null {
    const sorted = [...this.recent].sort((a, b) => a - b);
    return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : null;
  }
}
