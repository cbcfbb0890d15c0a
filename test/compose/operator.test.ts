// main.ts with AGENCIES_FILE as systemd runs it (a child process, against the simulator over
// HTTP): the operator view (`agencies`, `status`) and reloads by `agencies reload` and by SIGHUP.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { runCli } from '../../server/cli.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { onOneUtcDayFor } from '../support/test-clock.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'estate-agencies-main-'));
const file = join(dataDir, 'agencies.json');
let sim: RunningSimulator;
let child: ChildProcess;
let output = '';
let relayUrl = '';
let env: Record<string, string>;
const entries: Array<{ slug: string; name: string; accessToken: string; allowedOrigins: string[] }> = [];

async function until<T>(probe: () => T | Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Output so far:\n${output.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function writeAgencies(list: typeof entries): void {
  writeFileSync(file, JSON.stringify({ agencies: list }), { mode: 0o600 });
  chmodSync(file, 0o600);
}

async function cli(args: string[]): Promise<{ code: number; text: string }> {
  const lines: string[] = [];
  const code = await runCli(args, { env, out: (text) => lines.push(text), err: (text) => lines.push(text) });
  return { code, text: lines.join('\n') };
}

beforeAll(async () => {
  // The relay is a child process on the wall clock, and the views below want "calls today" above
  // zero: the syncs at start and the CLI's readings (five minutes at most) fall on one UTC day.
  await onOneUtcDayFor(5 * 60_000);
  sim = await startSimulator({ listings: 6, agencies: 2, requestsPerSecond: 200 });
  for (const [index, account] of sim.key.accounts.entries()) {
    entries.push({
      slug: `agency-${index + 1}`,
      name: account.agency.name,
      accessToken: account.options.accessToken,
      allowedOrigins: [`https://agency-${index + 1}.example`],
    });
  }
  writeAgencies(entries);
  env = {
    DATA_DIR: dataDir,
    AGENCIES_FILE: file,
    CRM_BASE_URL: sim.baseUrl,
    CRM_API_KEY: sim.apiKey,
    PUBLIC_URL: 'https://relay.integrator.test',
    PHOTO_WIDTHS: '240',
  };
  child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'server', 'main.ts')], {
    cwd: projectRoot,
    env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  await until(() => /relay listening on (http:\/\/[\d.:]+)/.exec(output)?.[1], Boolean, 'the relay to listen', 60_000);
  relayUrl = /relay listening on (http:\/\/[\d.:]+)/.exec(output)![1]!;
  const filled = async () => Promise.all(entries.map(async (entry) => (await fetch(`${relayUrl}/a/${entry.slug}/readyz`)).status));
  await until(filled, (statuses) => statuses.every((status) => status === 200), 'both agencies to sync', 60_000);
}, 420_000); // 2 min, and up to 5 waiting out a UTC midnight

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the operator view of many agencies', () => {
  it("prints the plan of all agencies and each agency's script tag at start, and never a token", () => {
    expect(output).toMatch(/CRM budget for 2 agencies: about \d+ requests a day of 5000 allowed/);
    expect(output).toContain('<script type=\\"module\\" src=\\"https://relay.integrator.test/a/agency-1/widget.js\\"></script>');
    for (const entry of entries) expect(output).not.toContain(entry.accessToken);
  });

  it('`agencies` lists each agency: listings, cache age, freshness promise, calls today, outbox, its problem', async () => {
    // The relay refreshes its figures every few seconds: wait for the first with the sync's calls in.
    await until(
      async () => JSON.parse((await cli(['agencies', '--json'])).text).agencies[1].crmCallsToday,
      (calls) => calls > 0,
      'calls today in the figures',
      15_000,
    );
    const { code, text } = await cli(['agencies']);
    expect(code).toBe(0);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(
      /^SLUG\s+NAME\s+STATE\s+LISTINGS\s+CACHE AGE\s+FRESH \(WEBHOOK \/ LOST\)\s+CRM CALLS TODAY\s+OUTBOX\s+SAVED SEARCHES\s+REPORT LINKS\s+PROBLEM$/,
    );
    for (const entry of entries) {
      const row = lines.find((line) => line.startsWith(`${entry.slug} `))!;
      expect(row).toContain(entry.name);
      expect(row, text).toMatch(/serving\s+[1-9]\d*\s+\d+ s\s+5 s \/ \d+ min\s+[1-9]\d*\s+0\s+0\s+0\s+-$/);
    }
    expect(text).toMatch(/CRM key today\s+[1-9]\d* of 10000 requests .*; plan \d+ a day of 5000 allowed/);
    for (const entry of entries) expect(text).not.toContain(entry.accessToken);

    const json = JSON.parse((await cli(['agencies', '--json'])).text);
    expect(json.agencies.map((row: { slug: string; state: string }) => [row.slug, row.state])).toEqual([
      ['agency-1', 'serving'],
      ['agency-2', 'serving'],
    ]);
    expect(json.agencies[0].crmCallsToday).toBeGreaterThan(0);
    // The saved-search queue beside the outbox, counted by the running relay.
    expect(json.agencies[0].savedSearches).toEqual({ queued: 0, dead: 0, oldestQueuedSeconds: null });
    expect(JSON.stringify(json)).not.toContain(entries[0]!.accessToken);
  });

  it("`status` shows the key's totals: calls today against the budget, and the agencies", async () => {
    const { code, text } = await cli(['status']);
    expect(code).toBe(0);
    expect(text).toMatch(/CRM key today\s+[1-9]\d* of 10000 requests/);
    expect(text).toContain('Agencies        2 in AGENCIES_FILE, 2 serving');
    expect(text).toMatch(/Totals\s+[1-9]\d* listings, 0 enquiries queued, 0 saved searches queued/);
    expect(text).toContain(`running (pid ${child.pid}`);
  });

  it('store commands name their agency with --agency: status, outbox, backup, sync in the running relay, restore refused while it runs', async () => {
    const refused = await cli(['outbox', 'list']);
    expect(refused.code).toBe(2);
    expect(refused.text).toContain('With AGENCIES_FILE each agency has its own store: name one with --agency <slug>');
    expect((await cli(['outbox', 'list', '--agency', 'nobody'])).text).toContain('--agency: no agency "nobody" in AGENCIES_FILE');

    const status = await cli(['status', '--agency', 'agency-2']);
    expect(status.code).toBe(0);
    expect(status.text).toContain(`CRM account     ${sim.key.accounts[1]!.accountId}`);
    expect(status.text).toMatch(/Listings\s+[1-9]\d*/);
    expect(status.text).toMatch(
      /^Saved searches\s+0 queued, 0 awaiting their owner's confirmation, 0 saved, 0 not written \(contact unsubscribed\), 0 expired, 0 dead, 0 spam, 0 quarantined$/m,
    );
    expect(status.text).toContain(`running (pid ${child.pid}`);

    expect((await cli(['outbox', 'list', '--status', 'all', '--agency', 'agency-1'])).code).toBe(0);

    const backupFile = join(dataDir, 'agency-1.backup.db');
    const backup = await cli(['backup', backupFile, '--agency', 'agency-1']);
    expect(backup.code, backup.text).toBe(0);
    expect(backup.text).toMatch(/Backed up to .*agency-1\.backup\.db .*, [1-9]\d* listings/);

    const sync = await cli(['sync', '--full', '--agency=agency-2']);
    expect(sync.text).toContain(`Asked the running relay (pid ${child.pid}) for a full sync`);
    expect(sync.code, sync.text).toBe(0);
    expect(output).toContain('"kind":"full","agency":"agency-2","msg":"sync requested by the operator CLI"');

    const restore = await cli(['restore', backupFile, '--agency', 'agency-1']);
    expect(restore.code).toBe(1);
    expect(restore.text).toMatch(/A relay \(pid \d+, .*\) is running on .*: stop it first/);
  }, 60_000);

  it('`agencies reload` has the running relay re-read the file: a removed agency is a 404 at once', async () => {
    writeAgencies([entries[0]!]);
    const { code, text } = await cli(['agencies', 'reload']);
    expect(text).toBe(`Reloaded (pid ${child.pid}): added none; changed none; removed agency-2.`);
    expect(code).toBe(0);
    expect((await fetch(`${relayUrl}/a/agency-2/api/v1/listings`)).status).toBe(404);
    expect((await fetch(`${relayUrl}/a/agency-1/api/v1/listings`)).status).toBe(200);
  }, 30_000);

  it('refuses a bad file before signalling, naming the agency and field; the relay keeps serving', async () => {
    writeAgencies([{ ...entries[0]!, allowedOrigins: ['nope'] }]);
    const { code, text } = await cli(['agencies', 'reload']);
    expect(code).toBe(1);
    expect(text).toMatch(/AGENCIES_FILE: agencies\[0\] \("agency-1"\): allowedOrigins\.0: each entry must be an origin/);
    expect((await fetch(`${relayUrl}/a/agency-1/api/v1/listings`)).status).toBe(200);
  });

  it('SIGHUP alone reloads too: agency-2 is back', async () => {
    writeAgencies(entries);
    child.kill('SIGHUP');
    await until(
      async () => (await fetch(`${relayUrl}/a/agency-2/api/v1/listings`)).status,
      (status) => status === 200,
      'agency-2 to be served again',
    );
    expect(child.exitCode).toBeNull();
  }, 30_000);

  it('a reload whose result file cannot be written is logged; the relay keeps running', async () => {
    // A folder where the result file goes: writing it fails, as on a full or read-only DATA_DIR.
    const resultFile = join(dataDir, 'agencies-reload.json');
    rmSync(resultFile, { force: true });
    mkdirSync(resultFile);
    writeAgencies([entries[0]!]);
    child.kill('SIGHUP');
    await until(
      async () => (await fetch(`${relayUrl}/a/agency-2/api/v1/listings`)).status,
      (status) => status === 404,
      'agency-2 to be removed',
    );
    await until(
      () => output,
      (text) => text.includes('its result for the operator CLI could not be written'),
      'the failure to be logged',
      10_000,
    );
    expect(child.exitCode, output.slice(-1500)).toBeNull();
    expect((await fetch(`${relayUrl}/a/agency-1/api/v1/listings`)).status).toBe(200);
    rmSync(resultFile, { recursive: true, force: true });
  }, 30_000);
});
