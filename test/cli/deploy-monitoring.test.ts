import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrFetchPromtool } from '../support/promtool.ts';
import { startAgenciesRig, type AgenciesRig } from '../compose/rig.ts';

/*
 * The shipped monitoring (deploy/grafana/estate-relay.json, deploy/prometheus/estate-relay.rules.yml;
 * docs/operating.md, "Watching a fleet"), checked with Prometheus's own promtool (on PATH, or
 * Debian's package fetched once into .tmp/promtool: test/support/promtool.ts) and against what a
 * real relay of three agencies on the CRM simulator exposes on /metrics: every metric and label an
 * expression names must be one the relay has, or a panel would stay empty and an alert never fire.
 */

const root = join(import.meta.dirname, '..', '..');
const RULES = join(root, 'deploy', 'prometheus', 'estate-relay.rules.yml');
const RULE_TESTS = join(root, 'deploy', 'prometheus', 'estate-relay.rules.test.yml');
const DASHBOARD = join(root, 'deploy', 'grafana', 'estate-relay.json');
const promtool = findOrFetchPromtool();
const promtoolSkipped = 'skipped' in promtool ? promtool.skipped : undefined;
if (promtoolSkipped) console.warn(`SKIPPED: promtool checks of the shipped rules: ${promtoolSkipped}`);

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ refId: string; expr: string; legendFormat?: string; datasource?: { type: string; uid: string } }>;
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: unknown; datasource?: { type: string; uid: string }; allValue?: string }> };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const agencyVariable = dashboard.templating.list.find((variable) => variable.name === 'agency');

/** The rules file's expressions (one line, or a folded `>-` block), by alert. */
function ruleExpressions(): Array<{ alert: string; expr: string }> {
  const lines = readFileSync(RULES, 'utf8').split('\n');
  const found: Array<{ alert: string; expr: string }> = [];
  let alert = '';
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const named = /^\s*- alert: (\S+)/.exec(line);
    if (named) alert = named[1]!;
    const expr = /^(\s*)expr: (.*)$/.exec(line);
    if (!expr) continue;
    if (expr[2] !== '>-') {
      found.push({ alert, expr: expr[2]! });
      continue;
    }
    const block: string[] = [];
    while (index + 1 < lines.length && (lines[index + 1]!.startsWith(`${expr[1]}  `) || lines[index + 1]!.trim() === '')) block.push(lines[++index]!.trim());
    found.push({ alert, expr: block.join(' ').trim() });
  }
  return found;
}

/** The dashboard's expressions with its variables as Prometheus would get them (All agencies, a rate window). */
function dashboardExpressions(): Array<{ where: string; expr: string; legend?: string }> {
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      where: `panel ${panel.id} "${panel.title}" ${target.refId}`,
      expr: target.expr.replaceAll('$agency', agencyVariable?.allValue ?? '.*').replaceAll('$__rate_interval', '5m'),
      legend: target.legendFormat,
    })),
  );
}

/** Metric names of /metrics with the labels (and their values) each is exposed with. */
function exposed(text: string): Map<string, Map<string, Set<string>>> {
  const metrics = new Map<string, Map<string, Set<string>>>();
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!sample) continue;
    const labels = metrics.get(sample[1]!) ?? new Map<string, Set<string>>();
    metrics.set(sample[1]!, labels);
    for (const [, name, value] of (sample[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels.set(name!, (labels.get(name!) ?? new Set()).add(value!));
  }
  return metrics;
}

/** PromQL's functions, aggregations and keywords these expressions may use: any other name is a metric. */
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'count',
  'rate',
  'increase',
  'predict_linear',
  'time',
  'vector',
  'scalar',
  'absent',
  'and',
  'or',
  'unless',
  'bool',
]);
/** Series Prometheus makes itself for each scrape (not on the relay's /metrics): `up`, by the scrape job docs/operating.md configures. */
const SCRAPE_SERIES = new Set(['up']);
/** The scrape job of the relay in docs/operating.md's prometheus.yml. */
const SCRAPE_JOB = /job_name: (\S+)/.exec(readFileSync(join(root, 'docs', 'operating.md'), 'utf8'))?.[1];

/** What an expression names: metric selectors with their matchers, and the labels of its by/without/on/ignoring clauses. */
function namesIn(expr: string) {
  const grouping = [...expr.matchAll(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g)].flatMap((match) =>
    match[1]!
      .split(',')
      .map((label) => label.trim())
      .filter(Boolean),
  );
  const withoutGrouping = expr.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const selectors = [...withoutGrouping.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{[^}]*\})?/g)]
    .filter((match) => !PROMQL_WORDS.has(match[1]!) && !/[0-9.]$/.test(withoutGrouping.slice(0, match.index)))
    .map((match) => ({
      metric: match[1]!,
      matchers: [...(match[2] ?? '').matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"([^"]*)"/g)].map(([, label, op, value]) => ({ label: label!, op: op!, value: value! })),
    }));
  // Matcher blocks are inside the selectors: what is left outside them must be words PromQL knows.
  return { selectors, grouping };
}

function promtoolRun(args: string[]) {
  const run = spawnSync((promtool as { bin: string }).bin, args, { encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('deploy/: the Grafana dashboard and the Prometheus rules', () => {
  let rig: AgenciesRig;
  let metrics: Map<string, Map<string, Set<string>>>;
  let metricsText: string;

  beforeAll(async () => {
    rig = await startAgenciesRig({ agencies: 3, listings: 8 });
    await rig.syncAll();
    for (const running of rig.relay.agencies!.list()) await running.agency.access.checkAccess();
    const response = await rig.request('/metrics');
    expect(response.status).toBe(200);
    metricsText = response.text;
    metrics = exposed(metricsText);
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it.skipIf(promtoolSkipped)('promtool check rules: the rules file is valid', () => {
    const run = promtoolRun(['check', 'rules', RULES]);
    expect(run.output).toContain(`SUCCESS: ${ruleExpressions().length} rules found`);
    expect(run.status, run.output).toBe(0);
  });

  it.skipIf(promtoolSkipped)('promtool test rules: each alert fires where it must, with its annotations, and stays quiet where it must not', () => {
    const run = promtoolRun(['test', 'rules', RULE_TESTS]);
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('SUCCESS');
    // Every alert of the file has a firing case and a quiet one.
    const tests = readFileSync(RULE_TESTS, 'utf8');
    for (const { alert } of ruleExpressions()) {
      const cases = [...tests.matchAll(new RegExp(`alertname: ${alert}\\n\\s*exp_alerts:(\\s*\\[\\])?`, 'g'))];
      expect(
        cases.some((match) => match[1] === undefined),
        `${alert} fires in a test`,
      ).toBe(true);
      expect(
        cases.some((match) => match[1] !== undefined),
        `${alert} stays quiet in a test`,
      ).toBe(true);
    }
  });

  it.skipIf(promtoolSkipped)("promtool parses every dashboard expression (each checked as a recording rule's)", () => {
    const folder = mkdtempSync(join(tmpdir(), 'estate-dashboard-promql-'));
    try {
      const file = join(folder, 'dashboard.rules.yml');
      const rules = dashboardExpressions().map(({ expr }, index) => `      - record: dashboard:expression_${index}\n        expr: ${JSON.stringify(expr)}`);
      writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules.join('\n')}\n`);
      const run = promtoolRun(['check', 'rules', file]);
      expect(run.status, run.output).toBe(0);
      expect(run.output).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("names only metrics, labels and label values a real relay's /metrics exposes", () => {
    const expressions = [
      ...ruleExpressions().map(({ alert, expr }) => ({ where: `alert ${alert}`, expr, legend: undefined })),
      ...dashboardExpressions(),
      { where: 'variable agency', expr: 'estate_agency_serving{agency=~".*"}', legend: '{{agency}}' },
    ];
    expect(expressions.length).toBeGreaterThan(30);
    const problems: string[] = [];
    for (const { where, expr, legend } of expressions) {
      const { selectors, grouping } = namesIn(expr);
      if (selectors.length === 0) problems.push(`${where}: names no metric`);
      const labelsHere = new Set<string>();
      for (const { metric, matchers } of selectors) {
        if (SCRAPE_SERIES.has(metric)) {
          // Prometheus's own: its job must be the one the documented scrape config names.
          for (const { label, value } of matchers)
            if (label !== 'job' || value !== SCRAPE_JOB)
              problems.push(`${where}: ${metric}{${label}="${value}"} is not the relay's scrape job (${SCRAPE_JOB})`);
          for (const label of ['job', 'instance']) labelsHere.add(label);
          continue;
        }
        const labels = metrics.get(metric);
        if (!labels) {
          problems.push(`${where}: ${metric} is not on /metrics`);
          continue;
        }
        for (const label of labels.keys()) labelsHere.add(label);
        for (const { label, op, value } of matchers) {
          if (!labels.has(label)) problems.push(`${where}: ${metric} has no label ${label}`);
          else if (op === '=' && !labels.get(label)!.has(value)) problems.push(`${where}: ${metric}{${label}="${value}"} is never exposed`);
          else if (op === '=~' && ![...labels.get(label)!].some((exposedValue) => new RegExp(`^(?:${value})$`).test(exposedValue)))
            problems.push(`${where}: ${metric}{${label}=~"${value}"} matches nothing exposed`);
        }
      }
      for (const label of grouping) if (!labelsHere.has(label)) problems.push(`${where}: groups by ${label}, which none of its metrics has`);
      for (const [, label] of (legend ?? '').matchAll(/\{\{\s*(\w+)\s*\}\}/g)) if (!labelsHere.has(label!)) problems.push(`${where}: legend names ${label}`);
    }
    expect(problems).toEqual([]);
  });

  it('the per-agency label is the slug alone: no token, name or account id on /metrics', () => {
    expect([...metrics.get('estate_agency_serving')!.get('agency')!].sort()).toEqual(['agency-a', 'agency-b', 'agency-c']);
    for (const account of rig.accounts) {
      expect(metricsText).not.toContain(account.options.accessToken);
      expect(metricsText).not.toContain(account.agency.name);
      expect(metricsText).not.toContain(`"${account.accountId}"`);
    }
  });

  it('the dashboard has what Grafana needs: schema version, unique panel ids, the datasource variable on every query, a grid that fits', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(dashboard.title).toBeTruthy();
    const datasource = dashboard.templating.list.find((variable) => variable.type === 'datasource');
    expect(datasource).toMatchObject({ name: 'datasource', query: 'prometheus' });
    expect(agencyVariable).toMatchObject({ type: 'query', datasource: { type: 'prometheus', uid: '${datasource}' } });
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Map<string, number>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      for (const value of [x, y, w, h]) expect(Number.isInteger(value), `panel ${panel.id} gridPos`).toBe(true);
      expect(w).toBeGreaterThan(0);
      expect(h).toBeGreaterThan(0);
      expect(x + w, `panel ${panel.id} fits the 24 columns`).toBeLessThanOrEqual(24);
      // No two panels on one cell of the grid.
      for (let row = y; row < y + h; row++)
        for (let column = x; column < x + w; column++) {
          const other = cells.get(`${row}:${column}`);
          expect(other, `panel ${panel.id} overlaps panel ${other}`).toBeUndefined();
          cells.set(`${row}:${column}`, panel.id);
        }
      if (panel.type === 'row') continue;
      expect(panel.datasource, `panel ${panel.id}`).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets?.length, `panel ${panel.id} has queries`).toBeGreaterThan(0);
      const refIds = panel.targets!.map((target) => target.refId);
      expect(new Set(refIds).size, `panel ${panel.id} refIds`).toBe(refIds.length);
      for (const target of panel.targets!) expect(target.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
  });

  it('each alert has a summary, a description and a runbook: a section of docs/operating.md that exists', () => {
    const rules = readFileSync(RULES, 'utf8');
    const headings = new Set(
      [...readFileSync(join(root, 'docs', 'operating.md'), 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map(([, heading]) =>
        heading!
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const alerts = rules.split(/\n\s*- alert: /).slice(1);
    expect(alerts.length).toBe(ruleExpressions().length);
    for (const alert of alerts) {
      const name = alert.split('\n')[0];
      expect(alert, name).toMatch(/\n\s*summary: /);
      expect(alert, name).toMatch(/\n\s*description: /);
      const anchor = /runbook_url: docs\/operating\.md#(\S+)/.exec(alert)?.[1];
      expect(anchor, `${name} runbook`).toBeDefined();
      expect(headings.has(anchor!), `${name}: no section #${anchor} in docs/operating.md`).toBe(true);
    }
  });
});
