import { clip, escapeHtml } from '../pages/html.ts';

/**
 * Charts drawn on the server as inline SVG (issue 32): readable without JavaScript, printable, and
 * each one an image with its own <title> and <desc> (the words beside it and its data table carry
 * the exact numbers). Colours are CSS classes (`c1`…`c4`, set in the page's one style sheet), so the
 * page's Content-Security-Policy allows no inline style; every series also differs by its dash or
 * mark, not by colour alone.
 */

export interface ChartText {
  /** Unique in the page: the ids of the title and description. */
  id: string;
  title: string;
  desc: string;
}

export interface Series {
  name: string;
  values: Array<number | null>;
  /** 1–4: the colour class. */
  colour: number;
  dashed?: boolean;
}

const WIDTH = 640;
const HEIGHT = 300;
const MARGIN = { top: 16, right: 16, bottom: 40, left: 56 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/** A round top for the y axis: 1, 2, 5 × a power of ten, at least `value`. */
export function niceMax(value: number): number {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  // Even tops only, so the middle grid line is a whole number too.
  for (const step of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (step * power >= value && (step * power) % 2 === 0) return step * power;
  return 10 * power;
}

const round = (value: number) => Math.round(value * 10) / 10;

function open(text: ChartText, height = HEIGHT): string {
  return (
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-labelledby="${text.id}-title ${text.id}-desc" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${text.id}-title">${escapeHtml(text.title)}</title><desc id="${text.id}-desc">${escapeHtml(text.desc)}</desc>`
  );
}

/** The y axis: grid lines at 0, half and the top, labelled. */
function yAxis(max: number): string {
  const lines: string[] = [];
  for (const value of [0, max / 2, max]) {
    const y = round(MARGIN.top + PLOT_H - (value / max) * PLOT_H);
    lines.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y}" y2="${y}"/>`);
    lines.push(`<text class="tick" x="${MARGIN.left - 8}" y="${y + 5}" text-anchor="end">${formatTick(value)}</text>`);
  }
  return lines.join('');
}

const formatTick = (value: number) => (Number.isInteger(value) ? value.toLocaleString('en-AU') : value.toFixed(1));

/** The x axis: the first, middle and last labels (a phone's width has room for no more). */
function xAxis(labels: string[], xOf: (index: number) => number): string {
  const picks = labels.length <= 3 ? labels.map((_, index) => index) : [0, Math.floor((labels.length - 1) / 2), labels.length - 1];
  const y = HEIGHT - MARGIN.bottom + 26;
  return [...new Set(picks)]
    .map((index) => {
      const anchor = labels.length === 1 ? 'middle' : index === 0 ? 'start' : index === labels.length - 1 ? 'end' : 'middle';
      return `<text class="tick" x="${round(xOf(index))}" y="${y}" text-anchor="${anchor}">${escapeHtml(labels[index]!)}</text>`;
    })
    .join('');
}

/** Lines over days (views and visitors; the listing against the typical one). A single day is drawn as its points. */
export function lineChart(text: ChartText, labels: string[], series: Series[]): string {
  const max = niceMax(Math.max(0, ...series.flatMap((line) => line.values.filter((value): value is number => value !== null))));
  const step = labels.length > 1 ? PLOT_W / (labels.length - 1) : 0;
  const xOf = (index: number) => (labels.length > 1 ? MARGIN.left + index * step : MARGIN.left + PLOT_W / 2);
  const yOf = (value: number) => MARGIN.top + PLOT_H - (value / max) * PLOT_H;
  const marks = labels.length <= 31;
  const drawn = series.map((line) => {
    const points = line.values.flatMap((value, index) => (value === null ? [] : [`${round(xOf(index))},${round(yOf(value))}`]));
    const path = points.length > 1 ? `<polyline class="line c${line.colour}${line.dashed ? ' dashed' : ''}" points="${points.join(' ')}"/>` : '';
    const dots = marks || points.length === 1 ? points.map((point) => mark(line, point)).join('') : '';
    return path + dots;
  });
  return `${open(text)}${yAxis(max)}${xAxis(labels, xOf)}${drawn.join('')}</svg>`;
}

/** A series' mark: a dot, or for a dashed series a square, so the two differ in grey too. */
function mark(line: Series, point: string): string {
  const [x, y] = point.split(',').map(Number) as [number, number];
  return line.dashed
    ? `<rect class="mark c${line.colour}" x="${round(x - 3.5)}" y="${round(y - 3.5)}" width="7" height="7"/>`
    : `<circle class="mark c${line.colour}" cx="${x}" cy="${y}" r="4"/>`;
}

/** Columns over days, each day's series stacked (kept and the leads). */
export function stackedColumns(text: ChartText, labels: string[], series: Series[]): string {
  const totals = labels.map((_, index) => series.reduce((sum, part) => sum + (part.values[index] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const slot = PLOT_W / Math.max(1, labels.length);
  const width = Math.max(1, Math.min(28, slot * 0.7));
  const xOf = (index: number) => MARGIN.left + slot * index + slot / 2;
  const columns: string[] = [];
  labels.forEach((_, index) => {
    let base = 0;
    for (const part of series) {
      const value = part.values[index] ?? 0;
      if (value <= 0) continue;
      const y = MARGIN.top + PLOT_H - ((base + value) / max) * PLOT_H;
      const height = (value / max) * PLOT_H;
      columns.push(
        `<rect class="bar c${part.colour}" x="${round(xOf(index) - width / 2)}" y="${round(y)}" width="${round(width)}" height="${round(height)}"/>`,
      );
      base += value;
    }
  });
  return `${open(text)}${yAxis(max)}${xAxis(labels, xOf)}${columns.join('')}</svg>`;
}

/** Horizontal bars with their labels and values written on them (where views came from; open homes). */
export function barChart(text: ChartText, bars: Array<{ label: string; value: number }>, colour: number): string {
  const rowHeight = 44;
  const height = Math.max(1, bars.length) * rowHeight + 8;
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  // Room after the longest bar for its value.
  const barSpace = WIDTH - 96;
  const rows = bars.map((bar, index) => {
    const y = 4 + index * rowHeight;
    const width = Math.max(2, round((bar.value / max) * barSpace));
    return (
      // A campaign's name is the agency's own words: cut to what the width holds (the table has it whole).
      `<text class="bar-label" x="0" y="${y + 14}">${escapeHtml(clip(bar.label, 48))}</text>` +
      `<rect class="bar c${colour}" x="0" y="${y + 20}" width="${width}" height="16" rx="2"/>` +
      `<text class="bar-value" x="${width + 8}" y="${y + 34}">${bar.value.toLocaleString('en-AU')}</text>`
    );
  });
  return `${open(text, height)}${rows.join('')}</svg>`;
}
