import { createHash } from 'node:crypto';
import { escapeHtml } from '../pages/html.ts';
import { barChart, lineChart, stackedColumns, type Series } from './charts.ts';
import { longDay, mediumDay, shortDay } from './days.ts';
import type { ReportModel } from './report-data.ts';
import { count, droppedWords, leadsWords, openHomeLabel, openHomesWords, plural, sourcesWords, totals, typicalWords, viewsWords } from './words.ts';

/** The page as sent, with what its Content-Security-Policy needs: its one style sheet's hash. */
export interface RenderedReport {
  html: string;
  styleHash: string;
}

/** The agency's colour, darkened until white text on it (and it on white) meets WCAG AA (4.5:1). */
export function accessibleAccent(colour: string): string {
  let [r, g, b] = hexRgb(colour) ?? hexRgb(DEFAULT_ACCENT)!;
  for (let step = 0; step < 40 && contrast([r, g, b], [255, 255, 255]) < 4.5; step++) [r, g, b] = [r * 0.92, g * 0.92, b * 0.92];
  return `#${[r, g, b].map((value) => Math.round(value).toString(16).padStart(2, '0')).join('')}`;
}

export const DEFAULT_ACCENT = '#1f4e79';

function hexRgb(colour: string): [number, number, number] | undefined {
  const match = /^#([0-9a-f]{6})$/i.exec(colour.trim());
  if (!match) return undefined;
  const value = parseInt(match[1]!, 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

export function contrast(a: [number, number, number], b: [number, number, number]): number {
  const luminance = ([r, g, b]: [number, number, number]) => {
    const channel = (value: number) => {
      const c = value / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/**
 * The style sheet: one per agency colour, hashed into the page's CSP. Series colours after the
 * agency's own are fixed, each at least 4.5:1 on white (so they pass as text and as graphics).
 */
function styles(accent: string): string {
  return `:root{--accent:${accent};--ink:#1f2328;--muted:#4d5560;--rule:#d5d9de;--panel:#f6f7f8}
*{box-sizing:border-box}body{margin:0;font:1rem/1.55 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--ink);background:#fff}
header.band{background:var(--accent);color:#fff;padding:.75rem 0}header.band p{margin:0 auto;max-width:64rem;padding:0 1rem;font-weight:600}
main{max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 .25rem}h2{font-size:1.2rem;margin:0 0 .5rem}
.intro{display:grid;gap:1rem;align-items:start}.intro img{width:100%;height:auto;border-radius:6px;display:block}
.facts{margin:0;display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}.facts dt{color:var(--muted)}.facts dd{margin:0;font-weight:600}
.figures{list-style:none;padding:0;margin:1.25rem 0;display:grid;grid-template-columns:repeat(auto-fit,minmax(8.5rem,1fr));gap:.5rem}
.figures li{background:var(--panel);border-radius:6px;padding:.6rem .75rem}.figures strong{display:block;font-size:1.5rem;line-height:1.2}
section.chart-block{border-top:1px solid var(--rule);padding:1rem 0;display:grid;grid-template-columns:minmax(0,1fr);gap:.75rem}section.chart-block>*{min-width:0}
.chart{width:100%;max-width:40rem;height:auto;display:block;overflow:visible}
.chart .grid{stroke:#c9ced4;stroke-width:1}.chart .tick,.chart .bar-label,.chart .bar-value{font-size:20px;fill:var(--ink)}.chart .bar-label{font-weight:600}
.chart .line{fill:none;stroke-width:3}.chart .dashed{stroke-dasharray:9 6}
.c1{stroke:var(--accent);fill:var(--accent)}.chart .line.c1,.chart .line.c2,.chart .line.c3,.chart .line.c4{fill:none}
.c2{stroke:#a4460b;fill:#a4460b}.c3{stroke:#2d6a31;fill:#2d6a31}.c4{stroke:#6b3fa0;fill:#6b3fa0}
.legend{list-style:none;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.95rem}
.legend li::before{content:'';display:inline-block;width:1.1rem;height:.7rem;margin-right:.4rem;vertical-align:middle;border-radius:2px;background:currentColor}
.legend .k1{color:var(--accent)}.legend .k2{color:#a4460b}.legend .k3{color:#2d6a31}.legend .k4{color:#6b3fa0}.legend .dash::before{height:.25rem;background:repeating-linear-gradient(90deg,currentColor 0 .45rem,transparent .45rem .7rem)}
.legend span{color:var(--ink)}.words{margin:0;font-size:1.05rem}.note{color:var(--muted);font-size:.95rem}
details{font-size:.95rem}summary{cursor:pointer;color:var(--accent);font-weight:600;min-height:44px;display:flex;align-items:center}
.table-wrap{overflow-x:auto}.table-wrap:focus-visible{outline:3px solid var(--accent);outline-offset:2px}table{border-collapse:collapse}caption{text-align:left}th,td{padding:.3rem .6rem;border-bottom:1px solid var(--rule);text-align:right;white-space:nowrap}th:first-child,td:first-child{text-align:left}
footer{max-width:64rem;margin:0 auto;padding:1rem;color:var(--muted);font-size:.9rem;border-top:1px solid var(--rule)}
@media (min-width:48rem){.intro{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}section.chart-block{grid-template-columns:minmax(0,3fr) minmax(0,2fr);column-gap:2rem}section.chart-block h2,section.chart-block details{grid-column:1/-1}section.chart-block .side{grid-column:2;grid-row:2}section.chart-block.wordy .side{grid-column:1/-1}}
@page{size:A4;margin:14mm}
@media print{body{font-size:10.5pt}header.band{-webkit-print-color-adjust:exact;print-color-adjust:exact}main,footer{max-width:none;padding:0}
section.chart-block,.figures li,.intro{break-inside:avoid}details{display:none}.figures{grid-template-columns:repeat(7,minmax(0,1fr))}.figures strong{font-size:1.25rem}
.intro{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}section.chart-block{grid-template-columns:minmax(0,3fr) minmax(0,2fr);column-gap:1.5rem}section.chart-block h2{grid-column:1/-1}section.chart-block .side{grid-column:2;grid-row:2}section.chart-block.wordy .side{grid-column:1/-1}}`;
}

const legend = (series: Series[]) =>
  `<ul class="legend">${series.map((line) => `<li class="k${line.colour}${line.dashed ? ' dash' : ''}"><span>${escapeHtml(line.name)}</span></li>`).join('')}</ul>`;

function table(caption: string, head: string[], rows: Array<Array<string | number>>): string {
  const cell = (value: string | number) => escapeHtml(typeof value === 'number' ? count(value) : value);
  return `<details><summary>Exact numbers</summary><div class="table-wrap" tabindex="0" role="region" aria-label="Exact numbers: ${escapeHtml(caption)}"><table><caption class="note">${escapeHtml(caption)}</caption><thead><tr>${head
    .map((label) => `<th scope="col">${escapeHtml(label)}</th>`)
    .join('')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map((value, index) => (index === 0 ? `<th scope="row">${cell(value)}</th>` : `<td>${cell(value)}</td>`)).join('')}</tr>`)
    .join('')}</tbody></table></div></details>`;
}

function block(id: string, title: string, chart: string, words: string, extra: string, details: string): string {
  return `<section class="chart-block${chart ? '' : ' wordy'}" aria-labelledby="${id}-h"><h2 id="${id}-h">${escapeHtml(title)}</h2>${chart ? `<div class="plot">${chart}</div>` : ''}<div class="side"><p class="words">${escapeHtml(words)}</p>${extra}</div>${details}</section>`;
}

/** The seller's report page (server-rendered HTML, no script). */
export function renderReport(model: ReportModel, options: { accent?: string } = {}): RenderedReport {
  const css = styles(accessibleAccent(options.accent ?? DEFAULT_ACCENT));
  const t = totals(model);
  const labels = model.days.map((day) => shortDay(day.day));
  const since = model.days[0]?.day ?? model.today;

  const viewSeries: Series[] = [
    { name: 'Views', values: model.days.map((day) => day.views), colour: 1 },
    { name: 'Visitors', values: model.days.map((day) => day.visitors), colour: 2, dashed: true },
  ];
  const views = block(
    'views',
    'Views and visitors by day',
    t.views === 0 ? '' : lineChart({ id: 'views', title: 'Views and visitors by day', desc: viewsWords(model) }, labels, viewSeries),
    viewsWords(model),
    t.views === 0 ? '' : legend(viewSeries),
    t.views === 0
      ? ''
      : table(
          'Views and visitors by day',
          ['Day', 'Views', 'Visitors'],
          model.days.map((day) => [shortDay(day.day), day.views, day.visitors]),
        ),
  );

  const sourceBars = model.sources.map((source) => ({ label: source.label, value: source.views }));
  const sources = block(
    'sources',
    'Where the views came from',
    sourceBars.length ? barChart({ id: 'sources', title: 'Where the views came from', desc: sourcesWords(model) }, sourceBars, 1) : '',
    sourcesWords(model),
    '',
    sourceBars.length
      ? table(
          'Views by where they came from',
          ['Source', 'Views'],
          model.sources.map((source) => [source.label, source.views]),
        )
      : '',
  );

  const leadSeries: Series[] = [
    { name: 'Kept', values: model.days.map((day) => day.kept), colour: 1 },
    { name: 'Enquiries', values: model.days.map((day) => day.enquiries), colour: 2 },
    { name: 'Open-home registrations', values: model.days.map((day) => day.registrations), colour: 3 },
    { name: 'Inspection requests', values: model.days.map((day) => day.inspections), colour: 4 },
  ];
  const leadsAny = t.kept + t.enquiries + t.registrations + t.inspections > 0;
  const leads = block(
    'leads',
    'Kept, enquiries, registrations and inspections by day',
    leadsAny
      ? stackedColumns({ id: 'leads', title: 'Kept, enquiries, registrations and inspection requests by day', desc: leadsWords(model) }, labels, leadSeries)
      : '',
    leadsWords(model),
    leadsAny ? legend(leadSeries) : '',
    !leadsAny
      ? ''
      : table(
          'Kept and leads by day',
          ['Day', 'Kept', 'Enquiries', 'Registrations', 'Inspections'],
          model.days.map((day) => [shortDay(day.day), day.kept, day.enquiries, day.registrations, day.inspections]),
        ),
  );

  const openHomeBars = model.openHomes.map((openHome) => ({ label: openHomeLabel(openHome, model.timeZone), value: openHome.registrations }));
  const openHomes = block(
    'open-homes',
    'Open homes and their registrations',
    openHomeBars.length ? barChart({ id: 'open-homes', title: 'Registrations for each open home', desc: openHomesWords(model) }, openHomeBars, 3) : '',
    openHomesWords(model),
    '',
    openHomeBars.length
      ? table(
          'Registrations for each open home',
          ['Open home', 'Registrations'],
          openHomeBars.map((bar) => [bar.label, bar.value]),
        )
      : '',
  );

  const typicalSeries: Series[] = [
    { name: 'This listing', values: model.typical.map((point) => point.listing), colour: 1 },
    { name: "The agency's typical listing", values: model.typical.map((point) => (point.listings >= 3 ? point.typical : null)), colour: 4, dashed: true },
  ];
  const typicalLabels = model.typical.map((point) => `Day ${point.day}`);
  const typical = block(
    'typical',
    "Views so far, beside the agency's typical listing",
    model.typical.length
      ? lineChart({ id: 'typical', title: "Cumulative views beside the agency's typical listing", desc: typicalWords(model) }, typicalLabels, typicalSeries)
      : '',
    typicalWords(model),
    model.typical.length ? legend(typicalSeries) : '',
    model.typical.length === 0
      ? ''
      : table(
          "Cumulative views by days on the market, and the agency's typical listing (median)",
          ['Days on market', 'This listing', 'Typical listing', 'Listings compared'],
          model.typical.map((point) => [
            String(point.day),
            point.listing,
            point.typical === null || point.listings < 3 ? '–' : count(Math.round(point.typical)),
            point.listings,
          ]),
        ),
  );

  const dropped = droppedWords(model);
  const photo = model.photo
    ? `<img src="${escapeHtml(model.photo.url)}" width="${model.photo.width}" height="${model.photo.height}" alt="${escapeHtml(model.photo.alt)}">`
    : '';
  const facts = [
    model.price ? ['Price', model.price] : null,
    ['Days on the market', model.daysOnMarket === null ? 'not known' : String(model.daysOnMarket)],
    model.listedDay ? ['Listed', mediumDay(model.listedDay)] : null,
    ['Figures', `${mediumDay(since)} to ${mediumDay(model.today)}`],
  ].filter((fact): fact is string[] => fact !== null);
  const figures = [
    ['Views', t.views],
    ['Visitors', t.visitors],
    ['Kept', t.kept],
    ['Shared', t.shared],
    ['Enquiries', t.enquiries],
    ['Open-home registrations', t.registrations],
    ['Inspection requests', t.inspections],
  ] as const;

  const agency = escapeHtml(model.agencyName);
  const html = `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">
<title>Campaign report: ${escapeHtml(model.address)} · ${agency}</title>
<style>${css}</style></head>
<body><header class="band"><p>${agency}</p></header>
<main><div class="intro"><div><p class="note">Campaign report on the agency's own website</p><h1>${escapeHtml(model.address)}</h1>
<dl class="facts">${facts.map(([label, value]) => `<dt>${escapeHtml(label!)}</dt><dd>${escapeHtml(value!)}</dd>`).join('')}</dl></div>${photo ? `<div>${photo}</div>` : ''}</div>
<ul class="figures" aria-label="The campaign so far">${figures.map(([label, value]) => `<li><strong>${count(value)}</strong>${escapeHtml(label)}</li>`).join('')}</ul>
${dropped ? `<p class="note">${escapeHtml(dropped)}</p>` : ''}
${views}${sources}${leads}${openHomes}${typical}
</main><footer><p>These figures are what ${agency}'s own website saw: views of this listing's page, where they came from, homes kept with a heart, links shared from it, and the enquiries, open-home registrations and inspection requests sent from the site. Visitors are estimated without cookies or any identifier kept: a person who comes back on another day counts again that day. Portals and other websites are not included.</p>
<p>Updated ${escapeHtml(longDay(model.today))}. ${escapeHtml(plural(model.days.length, 'day'))} counted.</p></footer></body></html>`;
  return { html, styleHash: `sha256-${createHash('sha256').update(css).digest('base64')}` };
}
