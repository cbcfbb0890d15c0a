// The operator view of relays on one PostgreSQL database (DATABASE_URL), the CLI run as a process
// as `npm run relay --` runs it: rows the test puts in the relay registry (relay_key.relays) and in
// the agencies' sync leases (sync_lease) show in `status` (per relay: alive, syncs held; the one
// agency's holder) and in `agencies` (each agency's holder: host, none or expired).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { closeStore, openStore } from '../../server/store/store.ts';
import { agencySchema, DB_NOW, SharedDatabase } from '../../server/store/shared-database.ts';
import { queryDatabase } from '../compose/pg-rig.ts';
import { freshDatabase } from '../support/postgres.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

/** `npm run relay -- <args>` as a child process (tsx, as the npm script), with this environment only. */
function relayCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'server', 'cli.ts'), ...args], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, out, err }));
  });
}

describe.skipIf(skipped)(`status and agencies with DATABASE_URL${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-shared-operator-'));
  const agenciesFile = join(dataDir, 'agencies.json');
  const slugs = ['harbour', 'hill-top', 'quay', 'dunes'];
  let databaseUrl: string;
  let env: Record<string, string>;
  // Registry ids are the random ids in each relay's DATA_DIR/relay-id (store/relay-identity.ts).
  const alive = { id: '0b6f3a52-1d4e-4c1b-9a51-3f0d8c2e7a10', host: 'relay-a.internal' };
  const gone = { id: 'c4e2d9f1-7a3b-4e6c-8d05-91b2a4f6e3d7', host: 'relay-b.internal' };

  beforeAll(async () => {
    databaseUrl = await freshDatabase((postgres as { url: string }).url, 'operator');
    // The schemas as relays make them: the key's, the one agency's (public) and each agency's.
    const shared = await SharedDatabase.open(databaseUrl, { poolSize: 2 });
    await shared.prepareAgencies([undefined, ...slugs]);
    await shared.close();
    const query = (text: string, values: unknown[] = []) => queryDatabase(databaseUrl, text, values);
    await query(
      `INSERT INTO relay_key.relays (id, host, data_dir, version, started_at, last_seen, nonce, pid) VALUES
      ($1, $2, '/var/lib/estate-embed/1', '0.1.0', ${DB_NOW} - 3600000, ${DB_NOW}, 'nonce-a', 4242),
      ($3, $4, '/var/lib/estate-embed/2', '0.1.0', ${DB_NOW} - 3600000, ${DB_NOW} - 60000, NULL, 977)`,
      [alive.id, alive.host, gone.id, gone.host],
    );
    const lease = (schema: string, holder: string, expiresInMs: number) =>
      query(
        `INSERT INTO ${schema}.sync_lease (name, holder, epoch, acquired_at, expires_at) VALUES ('listings-sync', $1, 7, ${DB_NOW} - 60000, ${DB_NOW} + $2)`,
        [holder, expiresInMs],
      );
    // Long leases: the CLI processes take seconds on a loaded machine.
    await lease('public', alive.id, 600_000);
    await lease(agencySchema('harbour'), alive.id, 600_000);
    await lease(agencySchema('hill-top'), alive.id, 590_000);
    // The gone relay's lease ran out; dunes has never been taken.
    await lease(agencySchema('quay'), gone.id, -45_000);
    // A store in DATA_DIR as a relay leaves it (status reads its local figures too).
    const store = openStore(dataDir);
    await closeStore(store);
    writeFileSync(
      agenciesFile,
      JSON.stringify({
        agencies: slugs.map((slug) => ({ slug, name: `Agency ${slug}`, accessToken: `token-${slug}-0123456789`, allowedOrigins: [`https://${slug}.example`] })),
      }),
      { mode: 0o600 },
    );
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3',
      CRM_API_KEY: 'operator-test-key',
      PUBLIC_URL: 'https://relay.integrator.test',
    };
  }, 60_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("`status` shows each relay alive or gone with the syncs it holds, and which relay holds the one agency's sync", async () => {
    const text = await relayCli(['status'], { ...env, CRM_ACCESS_TOKEN: 'operator-test-token' });
    expect(text.err).toBe('');
    expect(text.code).toBe(0);
    // alive relay: public, harbour and hill-top; the gone one holds nothing (its lease expired).
    expect(text.out).toMatch(
      new RegExp(`alive  ${alive.id}  ${alive.host}:/var/lib/estate-embed/1 pid 4242, version 0\\.1\\.0, .*last seen \\d+ s ago, holds 3 syncs`),
    );
    expect(text.out).toMatch(new RegExp(`gone   ${gone.id}  ${gone.host}:/var/lib/estate-embed/2, .*last seen \\d+ s ago, holds 0 syncs`));
    expect(text.out).toMatch(new RegExp(`Sync held by    ${alive.id} \\(${alive.host}, lease 7, 5\\d\\d s left\\)`));
    // Never the password.
    expect(text.out).not.toContain(new URL(databaseUrl).password);

    const json = await relayCli(['status', '--json'], { ...env, CRM_ACCESS_TOKEN: 'operator-test-token' });
    expect(json.code).toBe(0);
    const shared = JSON.parse(json.out).shared;
    expect(shared.sync).toMatchObject({ schema: 'public', state: 'held', relay: alive.id, host: alive.host, epoch: 7 });
    expect(shared.relays.map((relay: { id: string; alive: boolean; syncsHeld: number }) => [relay.id, relay.alive, relay.syncsHeld])).toEqual([
      [alive.id, true, 3],
      [gone.id, false, 0],
    ]);
  }, 30_000);

  it("`status` with AGENCIES_FILE counts the agencies' syncs held and names the expired ones", async () => {
    const result = await relayCli(['status'], { ...env, AGENCIES_FILE: agenciesFile });
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    // The four agencies of the file (public is no agency of theirs): two held, quay expired, dunes none.
    expect(result.out).toContain('Syncs           2 of 4 agencies held by a relay; 1 EXPIRED (taken over at the next try): agency_quay');
  }, 30_000);

  it("`agencies` names each agency's sync holder: the relay's host, expired, or none", async () => {
    const table = await relayCli(['agencies'], { ...env, AGENCIES_FILE: agenciesFile });
    expect(table.err).toBe('');
    expect(table.code).toBe(0);
    const lines = table.out.split('\n');
    expect(lines[0]).toMatch(/^SLUG +NAME +STATE +SYNC BY +LISTINGS/);
    const column = (slug: string) => {
      const line = lines.find((candidate) => candidate.startsWith(`${slug} `))!;
      return line.slice(lines[0]!.indexOf('SYNC BY'), lines[0]!.indexOf('LISTINGS')).trim();
    };
    expect(column('harbour')).toBe(alive.host);
    expect(column('hill-top')).toBe(alive.host);
    expect(column('quay')).toBe(`expired (${gone.host})`);
    expect(column('dunes')).toBe('none');

    const json = await relayCli(['agencies', '--json'], { ...env, AGENCIES_FILE: agenciesFile });
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.out).agencies as Array<{ slug: string; syncHolder: { state: string; host: string | null; expiresInSeconds: number | null } }>;
    expect(Object.fromEntries(rows.map((row) => [row.slug, [row.syncHolder.state, row.syncHolder.host]]))).toEqual({
      harbour: ['held', alive.host],
      'hill-top': ['held', alive.host],
      quay: ['expired', gone.host],
      dunes: ['none', null],
    });
    expect(rows.find((row) => row.slug === 'quay')!.syncHolder.expiresInSeconds).toBeLessThan(-40);
  }, 30_000);

  it('`agencies` without DATABASE_URL has no SYNC BY column (this relay runs every sync)', async () => {
    const { DATABASE_URL: _, ...withoutDatabase } = env;
    const table = await relayCli(['agencies'], { ...withoutDatabase, AGENCIES_FILE: agenciesFile });
    expect(table.code).toBe(0);
    expect(table.out.split('\n')[0]).not.toContain('SYNC BY');
  }, 30_000);
});
