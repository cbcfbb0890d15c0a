/**
 * The Prometheus text exposition format (version 0.0.4), for metric families with labels. Kept by
 * hand, as the enquiry metrics are: a few lines, no dependency.
 */

export interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
}

/** One family: its HELP and TYPE lines, then a line per sample (none: the family is left out). */
export function metricFamily(name: string, type: 'counter' | 'gauge', help: string, samples: readonly Sample[]): string {
  if (samples.length === 0) return '';
  const lines = [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
  for (const { labels, value } of samples) lines.push(`${name}${renderLabels(labels)} ${formatValue(value)}`);
  return `${lines.join('\n')}\n`;
}

function renderLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

/** Backslash, double quote and line feed are escaped in label values (the format's rule). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(Math.round(value * 1000) / 1000);
}
