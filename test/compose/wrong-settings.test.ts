import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { claimInstance } from '../../server/ops/instance.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { ALL_SCOPES, SCOPES } from '../../crm-sim/state.ts';
import { PUBLIC_URL, startAgenciesRig, type AgenciesRig } from './rig.ts';

/*
 * Each wrong setting an integrator can make, against the simulator over real HTTP, and what the
 * operator then reads in the log, /readyz (the relay's and the agency's), `status` and `agencies`:
 * a refused API key is the integrator's to fix (never "ask the agency"), a refused token is that
 * agency's token, a grant not given is the agency's, and an agency that is not ready says so, once.
 */
interface LogLine {
  level: number;
  msg: string;
  agency?: string;
  refusedBy?: string;
  [key: string]: unknown;
}

async function rigWithLog(options: Parameters<typeof startAgenciesRig>[0] = {}): Promise<{ rig: AgenciesRig; lines: LogLine[]; release: () => void }> {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const rig = await startAgenciesRig({ ...options, log: createLogger({ level: 'info' }, sink) });
  // The relay's pid file, as main.ts writes it: the CLI then reads the figures of a running relay.
  const release = claimInstance(rig.dataDir);
  return { rig, lines, release };
}

/** The operator CLI as the operator runs it: another process, which finds this one as the relay running on DATA_DIR. */
async function cli(rig: AgenciesRig, args: string[], apiKey = rig.sim.apiKey): Promise<{ code: number; text: string }> {
  const env = { PATH: process.env.PATH, DATA_DIR: rig.dataDir, AGENCIES_FILE: rig.file, CRM_BASE_URL: rig.sim.baseUrl, CRM_API_KEY: apiKey, PUBLIC_URL };
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(projectRoot, 'server', 'cli.ts'), ...args], {
      cwd: projectRoot,
      env,
    });
    return { code: 0, text: `${stdout}${stderr}` };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, text: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** What each agency does at start: its first sync, then its access check (the workers are off: driven here). */
async function firstSyncAndCheck(rig: AgenciesRig, slugs = rig.relay.agencies!.list().map((running) => running.entry.slug)): Promise<void> {
  for (const slug of slugs) {
    const { agency } = rig.relay.agencies!.get(slug)!;
    await agency.listings.sync.run('full');
    await agency.access.checkAccess();
  }
}

const rowOf = (text: string, slug: string) => text.split('\n').find((line) => line.startsWith(`${slug} `))!;

// Each test starts the operator CLI (tsx, a cold TypeScript start) up to five times: seconds each on a busy machine.
describe('what the operator reads for each wrong setting', { timeout: 120_000 }, () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it('a wrong CRM_API_KEY (403 on every call) is named as the integrator key, never as something to ask the agency for', async () => {
    const { rig, lines, release } = await rigWithLog({ agencies: 2, env: { CRM_API_KEY: 'not-the-integrator-key' } });
    cleanup = async () => {
      release();
      await rig.close();
    };
    await firstSyncAndCheck(rig);

    const errors = lines.filter((line) => line.level >= 50);
    expect(errors.map((line) => [line.agency, line.refusedBy])).toEqual([
      ['agency-a', 'key'],
      ['agency-b', 'key'],
    ]);
    expect(errors[0]!.msg).toMatch(
      /^CRM API KEY REFUSED: the CRM refuses the integrator's API key \(403, GET \/scopes too\).*Check CRM_API_KEY.*the agency cannot fix this/,
    );
    expect(lines.map((line) => line.msg).join('\n')).not.toMatch(/ask the agency/i);

    const readyz = await rig.request('/readyz');
    expect(readyz.status).toBe(503);
    expect(readyz.body.refused).toMatch(/API key \(403\): check CRM_API_KEY/);
    expect(readyz.body.notReady).toEqual({ 'agency-a': 'the API key is refused (see "refused")', 'agency-b': 'the API key is refused (see "refused")' });
    const agencyReadyz = await rig.request('/a/agency-a/readyz');
    expect(agencyReadyz.status).toBe(503);
    expect(agencyReadyz.body).toMatchObject({ checks: { listingCache: false, crmListings: false }, refused: expect.stringMatching(/check CRM_API_KEY/) });
    expect(agencyReadyz.text).not.toMatch(/ask the agency/i);

    const status = await cli(rig, ['status'], 'not-the-integrator-key');
    expect(status.text).toMatch(/^CRM key\s+REFUSED: the CRM refuses the integrator's API key \(403\): check CRM_API_KEY/m);
    expect(status.text).toContain('Agencies        2 in AGENCIES_FILE, 0 serving, 2 not ready');
    const statusA = await cli(rig, ['status', '--agency', 'agency-a'], 'not-the-integrator-key');
    expect(statusA.text).toMatch(/listings REFUSED \(403, API key\)/);
    expect(statusA.text).toMatch(/KEY REFUSED: .*Check CRM_API_KEY/);
    expect(statusA.text).not.toMatch(/MISSING \w+:|ask the agency/);

    const agencies = await cli(rig, ['agencies'], 'not-the-integrator-key');
    expect(agencies.code).toBe(0);
    for (const slug of ['agency-a', 'agency-b'])
      expect(rowOf(agencies.text, slug)).toMatch(/ not ready\s+0\s+never synced\s.*\s+API key refused \(see CRM key below\)$/);
    // The fix is said once, in the key's line, not once per agency nor twice in one message.
    expect(agencies.text.match(/CRM_API_KEY/g)).toHaveLength(1);
    expect(agencies.text).not.toMatch(/\(check |ask the agency/i);
    expect(agencies.text).toContain('0 serving, 2 not ready');
  });

  it("a refused agency token (401: the agency revoked it) is named as that agency's token, and the agency is not ready, with its reason once", async () => {
    const { rig, lines, release } = await rigWithLog({ agencies: 2 });
    cleanup = async () => {
      release();
      await rig.close();
    };
    // The agency withdrew the integration's access before its first sync: its token answers 401 from now on.
    rig.sim.key.removeAccount(rig.accounts[1]!.accountId);
    await firstSyncAndCheck(rig);

    const errors = lines.filter((line) => line.level >= 50);
    expect(errors.map((line) => [line.agency, line.refusedBy])).toEqual([['agency-b', 'token']]);
    expect(errors[0]!.msg).toMatch(
      /^CRM ACCESS TOKEN REFUSED: the CRM refuses the access token \(401\).*Check the accessToken of agency "agency-b" in AGENCIES_FILE/,
    );
    expect(lines.map((line) => line.msg).join('\n')).not.toMatch(/CRM_API_KEY|ask the agency to grant/i);

    // The relay serves agency-a: it stays in the load balancer, and names agency-b as not ready.
    const readyz = await rig.request('/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.body.refused).toBeUndefined();
    expect(readyz.body.notReady).toEqual({
      'agency-b': `the CRM refuses the agency's access token (401): check the accessToken of agency "agency-b" in AGENCIES_FILE`,
    });
    expect((await rig.request('/a/agency-a/readyz')).status).toBe(200);
    const agencyReadyz = await rig.request('/a/agency-b/readyz');
    expect(agencyReadyz.status).toBe(503);
    expect(agencyReadyz.body.refused).toMatch(/access token \(401\): check the accessToken of agency "agency-b"/);

    const status = await cli(rig, ['status']);
    expect(status.text).toContain('Agencies        2 in AGENCIES_FILE, 1 serving, 1 not ready');
    expect(status.text).not.toMatch(/CRM key\s+REFUSED/);
    const statusB = await cli(rig, ['status', '--agency', 'agency-b']);
    expect(statusB.text).toMatch(/listings REFUSED \(401, access token\)/);
    expect(statusB.text).toMatch(/TOKEN REFUSED: .*Check the accessToken of agency "agency-b" in AGENCIES_FILE/);

    const agencies = await cli(rig, ['agencies']);
    expect(rowOf(agencies.text, 'agency-a')).toMatch(/ serving\s+[1-9]\d*\s.*\s-$/);
    const row = rowOf(agencies.text, 'agency-b');
    expect(row).toMatch(/ not ready\s+0\s+never synced\s/);
    expect(row).toMatch(/the CRM refuses the agency's access token \(401\): check the accessToken of agency "agency-b" in AGENCIES_FILE$/);
    // Once: neither the sync's own error beside it nor its hint twice.
    expect(row.match(/accessToken of agency/g)).toHaveLength(1);
    const json = JSON.parse((await cli(rig, ['agencies', '--json'])).text) as { agencies: Array<{ slug: string; state: string; reason: string | null }> };
    expect(json.agencies.map((agency) => [agency.slug, agency.state])).toEqual([
      ['agency-a', 'serving'],
      ['agency-b', 'not ready'],
    ]);
  });

  it('a grant the agency has not given is named as a grant: enquiries keep it serving, listings make it not ready', async () => {
    const { rig, lines, release } = await rigWithLog({ agencies: 2 });
    cleanup = async () => {
      release();
      await rig.close();
    };
    const agencyB = rig.accounts[1]!;
    agencyB.setScopes(ALL_SCOPES.filter((scope) => scope !== SCOPES.enquiriesRead && scope !== SCOPES.enquiriesWrite));
    await firstSyncAndCheck(rig);

    const errors = lines.filter((line) => line.level >= 50);
    expect(errors.map((line) => [line.agency, line.refusedBy, line.capability])).toEqual([['agency-b', 'grant', 'enquiries']]);
    expect(errors[0]!.msg).toMatch(
      /^CRM ACCESS MISSING: the access token may not be used for enquiries .*while the key and token were accepted.*Ask the agency to grant this integration access to enquiries/,
    );
    expect(errors[0]!.msg).not.toMatch(/CRM_API_KEY/);

    expect((await rig.request('/readyz')).status).toBe(200);
    const agencyReadyz = await rig.request('/a/agency-b/readyz');
    expect(agencyReadyz.status).toBe(200);
    expect(agencyReadyz.body.missing).toEqual([expect.stringMatching(/^enquiries: ask the agency to grant access to enquiries/)]);
    let agencies = await cli(rig, ['agencies']);
    expect(rowOf(agencies.text, 'agency-b')).toMatch(/ serving\s.*enquiries not granted: ask the agency to grant access to enquiries/);

    // Listings not granted either: the agency cannot serve its pages.
    agencyB.setScopes([]);
    await rig.relay.agencies!.get('agency-b')!.agency.access.checkAccess({ full: true });
    const unready = await rig.request('/a/agency-b/readyz');
    expect(unready.status).toBe(503);
    expect(unready.body.checks.crmListings).toBe(false);
    expect(unready.body.reason).toBeUndefined();
    expect(unready.body.missing).toEqual(expect.arrayContaining([expect.stringMatching(/^listings: ask the agency to grant read access to properties/)]));
    expect((await rig.request('/readyz')).body.notReady).toEqual({
      'agency-b': expect.stringMatching(/^listings not granted: ask the agency to grant read access to properties/),
    });
    agencies = await cli(rig, ['agencies']);
    expect(rowOf(agencies.text, 'agency-b')).toMatch(/ not ready\s.*listings not granted: ask the agency to grant read access to properties/);
    expect(agencies.text).not.toMatch(/CRM_API_KEY|access token \(401\)/);
  });
});
