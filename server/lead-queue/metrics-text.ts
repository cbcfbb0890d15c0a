/**
 * The Prometheus text exposition (version 0.0.4) of a lead queue's metrics, written by hand
 * rather than with prom-client: a few series do not need a dependency, and the format is a few lines.
 */
export class MetricsText {
  private readonly lines: string[] = [];

  /** One metric: its HELP and TYPE lines, then a sample per label set (`''` for none). */
  metric(name: string, type: 'counter' | 'gauge', help: string, samples: Array<[labels: string, value: number]>): this {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, value] of samples) this.lines.push(`${name}${labels} ${formatNumber(value)}`);
    return this;
  }

  /** Lines written as they are (a histogram, a summary). */
  raw(...lines: string[]): this {
    this.lines.push(...lines);
    return this;
  }

  toString(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** Samples labelled by the keys of `values` (`{label="key"}`), in their order. */
export function labelled(label: string, values: Record<string, number>): Array<[string, number]> {
  return Object.entries(values).map(([key, value]) => [`{${label}="${key}"}`, value]);
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

export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}
