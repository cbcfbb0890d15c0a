// `npm run relay -- backup` / `restore` with DATABASE_URL, against the run's real PostgreSQL server
// and the CRM simulator over real HTTP: a database with queued enquiries in an agency's shared
// outbox and rows in replica_rows is backed up with pg_dump while its relay runs, restored with
// pg_restore into a new database, and a relay started on the restored database delivers each
// enquiry exactly once at the CRM (one delivered after the backup is found by the look-up, not
// sent again).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../server/cli.ts';
import { BACKUP_MANIFEST_FILE, DATABASE_DUMP_FILE, findPostgresTool } from '../../server/ops/pg-backup.ts';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { agencySchema, SharedDatabase } from '../../server/store/shared-database.ts';
import { STORE_FILE } from '../../server/store/store.ts';
import { validEnquiry } from '../enquiries/support.ts';
import { anotherRelay, queryDatabase } from '../compose/pg-rig.ts';
import { startAgenciesRig, until, type AgenciesRig } from '../compose/rig.ts';
import { freshDatabase } from '../support/postgres.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

describe('finding pg_dump and pg_restore', () => {
  const root = mkdtempSync(join(tmpdir(), 'estate-pg-tools-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const tool = (path: string) => {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, '#!/bin/sh\n', { mode: 0o755 });
    return path;
  };

  it('takes PATH first, else the newest version under the Debian root, else nothing', () => {
    const debian = join(root, 'lib', 'postgresql');
    tool(join(debian, '13', 'bin', 'pg_dump'));
    const newest = tool(join(debian, '15', 'bin', 'pg_dump'));
    mkdirSync(join(debian, '16', 'bin'), { recursive: true }); // a version without the client tools
    const emptyPath = join(root, 'empty-bin');
    mkdirSync(emptyPath, { recursive: true });
    expect(findPostgresTool('pg_dump', { path: emptyPath, debianRoot: debian })).toBe(newest);
    const inPath = tool(join(root, 'bin', 'pg_dump'));
    expect(findPostgresTool('pg_dump', { path: [emptyPath, join(root, 'bin')].join(':'), debianRoot: debian })).toBe(inPath);
    expect(findPostgresTool('pg_restore', { path: emptyPath, debianRoot: debian })).toBeUndefined();
  });
});

describe.skipIf(skipped)(`backup and restore with DATABASE_URL${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let rig: AgenciesRig;
  let sourceUrl: string;
  let restoredUrl: string;
  let restored: RunningRelay | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'estate-pg-backup-'));
  const folder = join(scratch, 'backup-2026-11-22');
  const slug = 'agency-a';
  const schema = agencySchema(slug);
  const env = (databaseUrl: string, dataDir: string) => ({
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    AGENCIES_FILE: rig.file,
    CRM_BASE_URL: rig.sim.baseUrl,
    CRM_API_KEY: rig.sim.apiKey,
    PUBLIC_URL: 'https://relay.integrator.test',
    PATH: process.env.PATH!,
  });
  async function cli(args: string[], environment: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, { env: environment, out: (text) => out.push(text), err: (text) => err.push(text) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  const post = async (relay: RunningRelay, body: ReturnType<typeof validEnquiry>) => {
    const response = await fetch(`${relay.url}/a/${slug}/api/v1/enquiries`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status, await response.text()).toBe(202);
  };
  const postedIds = () => rig.accounts[0]!.postedEnquiries().map((posted) => posted.originalId);

  beforeAll(async () => {
    sourceUrl = await freshDatabase((postgres as { url: string }).url, 'backup_source');
    restoredUrl = await freshDatabase((postgres as { url: string }).url, 'backup_restored');
    rig = await startAgenciesRig({ agencies: 1, listings: 6, env: { DATABASE_URL: sourceUrl, ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000' } });
    await rig.syncAll();
  }, 90_000);
  afterAll(async () => {
    await restored?.close();
    await rig?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('backs up, restores into a new database, and a relay on it delivers each queued enquiry exactly once', async () => {
    const listingId =
      rig.accounts[0]!.listings.find((listing) => listing.publishedToWeb !== null && listing.market === 'sale' && listing.status === 'listing')!.lifeId * 2;
    const deliveredAfterBackup = validEnquiry({ listingId });
    const neverDelivered = validEnquiry({ listingId });
    await post(rig.relay, deliveredAfterBackup);
    await post(rig.relay, neverDelivered);
    // Rows the sync holder published for the followers.
    await queryDatabase(
      sourceUrl,
      `INSERT INTO ${schema}.replica_rows (tbl, pk, row, seq, changed_at) VALUES
      ('listings', '["1"]', '{"id":1,"title":"Harbour view"}', nextval('${schema}.replica_seq'), 1),
      ('agents', '["7"]', '{"id":7}', nextval('${schema}.replica_seq'), 2),
      ('listings', '["2"]', NULL, nextval('${schema}.replica_seq'), 3)`,
    );
    const replicaRows = (url: string) => queryDatabase(url, `SELECT tbl, pk, row, seq FROM ${schema}.replica_rows ORDER BY seq`);
    const published = await replicaRows(sourceUrl);
    expect(published).toHaveLength(3);

    // The backup, while the relay runs.
    const backup = await cli(['backup', folder], env(sourceUrl, rig.dataDir));
    expect(backup.err).toBe('');
    expect(backup.code).toBe(0);
    expect(backup.out).toMatch(new RegExp(`PostgreSQL schemas relay_key, ${schema} \\(.*read back by pg_restore\\), DATA_DIR's store`));
    // Owner-only, as DATA_DIR is; and the password nowhere.
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(readdirSync(folder).sort()).toEqual([BACKUP_MANIFEST_FILE, DATABASE_DUMP_FILE, STORE_FILE].sort());
    for (const name of readdirSync(folder)) expect(statSync(join(folder, name)).mode & 0o777, name).toBe(0o600);
    const password = decodeURIComponent(new URL(sourceUrl).password);
    expect(readFileSync(join(folder, BACKUP_MANIFEST_FILE), 'utf8')).not.toContain(password);
    expect(backup.out).not.toContain(password);
    // A second backup to the same folder needs --force.
    expect((await cli(['backup', folder], env(sourceUrl, rig.dataDir))).err).toMatch(/exists; pass --force/);

    // After the backup the old relay delivers one of the two (the other waits: its next attempt moved away).
    await queryDatabase(sourceUrl, `UPDATE ${schema}.enquiry_outbox SET next_attempt_at = $1 WHERE original_id = $2`, [
      Date.now() + 3_600_000,
      neverDelivered.originalId,
    ]);
    const oldWorker = rig.relay.agencies!.get(slug)!.agency.enquiries.worker;
    oldWorker.start();
    await until(postedIds, (ids) => ids.includes(deliveredAfterBackup.originalId), 20_000);
    await oldWorker.stop();

    // The restore, into a new database and a new DATA_DIR (another machine, say).
    const restoredDir = join(scratch, 'restored-data');
    const restore = await cli(['restore', folder], env(restoredUrl, restoredDir));
    expect(restore.err).toBe('');
    expect(restore.code).toBe(0);
    expect(restore.out).toContain(`Queued enquiries (2 in ${schema})`);
    expect(existsSync(join(restoredDir, STORE_FILE))).toBe(true);
    expect(await replicaRows(restoredUrl)).toEqual(published);
    const rows = await queryDatabase<{ original_id: string; status: string; sending_since: number | null; claimed_by: string | null }>(
      restoredUrl,
      `SELECT original_id, status, sending_since, claimed_by FROM ${schema}.enquiry_outbox ORDER BY seq`,
    );
    expect(rows.map((row) => [row.original_id, row.status])).toEqual([
      [deliveredAfterBackup.originalId, 'queued'],
      [neverDelivered.originalId, 'queued'],
    ]);
    // "Outcome unknown": each is looked up in the CRM before anything is sent.
    expect(rows.every((row) => row.sending_since !== null && row.claimed_by === null)).toBe(true);

    // Into a database that is no longer empty: refused, nothing changed.
    const again = await cli(['restore', folder], env(restoredUrl, join(scratch, 'elsewhere')));
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/is not empty \(it holds .*relay_key.*\): a restore goes into a new database/);

    // A relay on the restored database: the enquiry delivered after the backup is found, the other sent once.
    // The look-up waits for a POST that may still be in flight from before: a second here, not the default 30.
    restored = await anotherRelay(rig, restoredUrl, { env: { ENQUIRY_RECONCILE_DELAY_MS: '1000' } });
    const worker = restored.agencies!.get(slug)!.agency.enquiries.worker;
    worker.start();
    await until(postedIds, (ids) => ids.includes(neverDelivered.originalId), 20_000);
    // Give a wrong second delivery the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await worker.stop();
    const posted = postedIds();
    expect(posted.filter((id) => id === deliveredAfterBackup.originalId)).toHaveLength(1);
    expect(posted.filter((id) => id === neverDelivered.originalId)).toHaveLength(1);
    const after = await queryDatabase<{ original_id: string; status: string; found_by_reconcile: number }>(
      restoredUrl,
      `SELECT original_id, status, found_by_reconcile FROM ${schema}.enquiry_outbox ORDER BY seq`,
    );
    expect(after.map((row) => [row.original_id, row.status, row.found_by_reconcile])).toEqual([
      [deliveredAfterBackup.originalId, 'delivered', 1],
      [neverDelivered.originalId, 'delivered', 0],
    ]);
  }, 120_000);

  it('the one agency of a relay without AGENCIES_FILE (schema public) round-trips too, and a DATA_DIR without a store is no error', async () => {
    const single = await freshDatabase((postgres as { url: string }).url, 'backup_single');
    const shared = await SharedDatabase.open(single, { poolSize: 2 });
    await shared.prepareAgencies([undefined]);
    await shared.close();
    await queryDatabase(
      single,
      `INSERT INTO public.replica_rows (tbl, pk, row, seq, changed_at) VALUES ('listings', '["9"]', '{"id":9}', nextval('public.replica_seq'), 1)`,
    );
    const singleEnv = (databaseUrl: string, dataDir: string) => {
      const { AGENCIES_FILE: _, ...rest } = env(databaseUrl, dataDir);
      return { ...rest, CRM_ACCESS_TOKEN: 'single-agency-token' };
    };
    const singleFolder = join(scratch, 'single');
    const backup = await cli(['backup', singleFolder], singleEnv(single, join(scratch, 'no-store-here')));
    expect(backup.err).toBe('');
    expect(backup.out).toMatch(/PostgreSQL schemas relay_key, public .*no SQLite store in DATA_DIR/);
    const target = await freshDatabase((postgres as { url: string }).url, 'backup_single_restored');
    const restore = await cli(['restore', singleFolder], singleEnv(target, join(scratch, 'single-restored')));
    expect(restore.err).toBe('');
    expect(restore.out).toContain('The backup has no SQLite store');
    expect(await queryDatabase(target, 'SELECT tbl, pk, row FROM public.replica_rows')).toEqual([{ tbl: 'listings', pk: '["9"]', row: '{"id":9}' }]);
  }, 60_000);

  it('gives pg_dump the password in PGPASSWORD, never in its arguments, and says when pg_dump fails', async () => {
    // A stand-in pg_dump first in PATH that records what it was given.
    const bin = join(scratch, 'fake-bin');
    mkdirSync(bin, { recursive: true });
    const seen = join(scratch, 'seen');
    writeFileSync(
      join(bin, 'pg_dump'),
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}.argv'\nprintf '%s' "$PGPASSWORD" > '${seen}.password'\necho 'pg_dump: error: connection refused' >&2\nexit 1\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(bin, 'pg_restore'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    try {
      const result = await cli(['backup', join(scratch, 'never-made')], env(sourceUrl, rig.dataDir));
      expect(result.code).toBe(1);
      expect(result.err).toContain('pg_dump failed (exit 1): pg_dump: error: connection refused');
    } finally {
      process.env.PATH = path;
    }
    const password = decodeURIComponent(new URL(sourceUrl).password);
    const argv = readFileSync(`${seen}.argv`, 'utf8');
    expect(argv).toContain('--format=custom');
    expect(argv).toContain(`--schema=${schema}`);
    expect(argv).not.toContain(password);
    expect(readFileSync(`${seen}.password`, 'utf8')).toBe(password);
    // Nothing half-made is left.
    expect(readdirSync(scratch).filter((name) => name.startsWith('never-made'))).toEqual([]);
  });

  it('refuses --agency (the backup holds every agency) and a folder that is no backup', async () => {
    const scoped = await cli(['backup', join(scratch, 'one-agency'), '--agency', slug], env(sourceUrl, rig.dataDir));
    expect(scoped.code).not.toBe(0);
    expect(scoped.err).toMatch(/without --agency/);
    const notBackup = join(scratch, 'not-a-backup');
    mkdirSync(notBackup);
    chmodSync(notBackup, 0o700);
    const refused = await cli(['restore', notBackup], env(restoredUrl, join(scratch, 'elsewhere')));
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/is not a backup taken with DATABASE_URL/);
  });
});
