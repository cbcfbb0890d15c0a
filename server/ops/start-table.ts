import { FILLING, type AgencyReadiness } from '../compose/agency-state.ts';

/** One agency's row of the start-up table. */
export interface StartRow {
  slug: string;
  name: string;
  readiness: AgencyReadiness;
  listings: number;
  /** The script tag its sites paste. */
  tag: string;
}

/**
 * What a relay with AGENCIES_FILE prints after its JSON log lines (on a terminal), as a relay of
 * one agency prints its tag: each agency's state, listings and script tag, then why each one that
 * is not ready is not, once. A refused API key (every agency's fault) is said once, above them.
 */
export function formatStartTable(rows: StartRow[], keyRefused?: string): string {
  const header = ['AGENCY', 'STATE', 'LISTINGS', 'SCRIPT TAG'];
  const state = (row: StartRow) => (row.readiness.ready ? 'serving' : row.readiness.reason === FILLING ? 'filling' : 'not ready');
  const cells = rows.map((row) => [row.slug, state(row), String(row.listings), row.tag]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => cell[column]!.length)));
  const line = (cell: string[]) => `    ${cell.map((text, column) => (column === cell.length - 1 ? text : text.padEnd(widths[column]!))).join('  ')}`;
  const reasons = rows
    .filter((row) => !row.readiness.ready && row.readiness.reason !== keyRefused && row.readiness.reason !== FILLING)
    .map((row) => `  ${row.slug} (${row.name}) is not ready: ${row.readiness.reason}`);
  const problems = rows
    .filter((row) => row.readiness.ready && row.readiness.problems.length)
    .map((row) => `  ${row.slug} (${row.name}) serves, but: ${row.readiness.problems.join('; ')}`);
  const ready = rows.filter((row) => row.readiness.ready).length;
  return [
    '',
    `  Agencies of AGENCIES_FILE: ${ready} of ${rows.length} serving`,
    ...(keyRefused ? [`  CRM API KEY REFUSED: ${keyRefused}`] : []),
    line(header),
    ...cells.map(line),
    ...reasons,
    ...problems,
    '  Each agency later: npm run relay -- agencies',
    '',
  ].join('\n');
}
