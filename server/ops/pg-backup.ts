/**
 * Backups with DATABASE_URL. The shared state (outboxes, the key's limits, the registry, each
 * agency's sync lease and published replica) is in PostgreSQL: pg_dump copies the relay's schemas
 * in one consistent snapshot while the relays run, and the SQLite store of DATA_DIR (the replica
 * and the key's local state) goes beside it. The photo mirror is left out: a copy of the CRM's
 * images, fetched again. pg_dump and pg_restore are PostgreSQL's own tools (no hand-written dump
 * could follow every type and sequence as they do); the password reaches them in PGPASSWORD, never
 * in argv (readable by every user in /proc) or in a message.
 */
import { spawn } from 'node:child_process';
import type pg from 'pg';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { markQueuedForReconcileAfterRestore } from '../enquiries/outbox.ts';
import { openPool, redactUrl, safeMessage } from '../store/postgres.ts';
import { KEY_SCHEMA, SharedDatabase, slugOfSchema } from '../store/shared-database.ts';
import { STORE_FILE, STORE_FILE_MODE } from '../store/store.ts';
import { backupStore, restoreStore, type RestoreSummary } from './backup.ts';
import { runningRelay } from './instance.ts';

/** The files of a backup folder. */
export const DATABASE_DUMP_FILE = 'postgres.dump';
export const BACKUP_MANIFEST_FILE = 'backup.json';
const MANIFEST_KIND = 'estate-embed relay backup (DATABASE_URL)';

/** Where Debian and Ubuntu install each PostgreSQL version's tools (not all in PATH). */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/** Where the docs tell the operator what a backup holds and how to restore it. */
const BACKUPS_DOC = 'docs/operating.md, "Deploying the relay" > "Backups"';

export interface BackupManifest {
  kind: typeof MANIFEST_KIND;
  createdAt: string;
  /** DATABASE_URL without its password. */
  database: string;
  schemas: string[];
  pgDump: string;
  /** The SQLite store of DATA_DIR beside the dump (null: DATA_DIR had none). */
  sqlite: string | null;
}

/**
 * pg_dump or pg_restore: from PATH first (the operator's choice), else the newest version under
 * /usr/lib/postgresql (Debian keeps them there). Undefined when neither has it.
 */
export function findPostgresTool(name: 'pg_dump' | 'pg_restore', search: { path?: string; debianRoot?: string } = {}): string | undefined {
  for (const dir of (search.path ?? process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (isFile(candidate)) return candidate;
  }
  const root = search.debianRoot ?? DEBIAN_ROOT;
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((entry) => /^\d+$/.test(entry) && isFile(join(root, entry, 'bin', name)))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(root, versions[0]!, 'bin', name) : undefined;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function requireTool(name: 'pg_dump' | 'pg_restore', action: string): string {
  const tool = findPostgresTool(name);
  if (!tool) {
    throw new Error(
      `DATABASE_URL is set, so ${action} goes through ${name}, and ${name} was found neither in PATH nor under ${DEBIAN_ROOT}/*/bin. ` +
        `Install PostgreSQL's client tools, of the server's major version or newer (Debian: apt-get install postgresql-client). See ${BACKUPS_DOC}.`,
    );
  }
  return tool;
}

/**
 * The URL without its password, for the tool's --dbname, and the password in the environment.
 * The rest of the URL (host, port, user, database, sslmode…) means the same to libpq as to the relay.
 */
function connection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = parsed.password ? decodeURIComponent(parsed.password) : parsed.searchParams.get('password');
  parsed.password = '';
  parsed.searchParams.delete('password');
  // The relay's own settings stay out of the child's environment: it needs none of them.
  const { DATABASE_URL: _url, CRM_API_KEY: _key, CRM_ACCESS_TOKEN: _token, METRICS_TOKEN: _metrics, ...env } = process.env;
  return { dbname: parsed.toString(), env: { ...env, PGAPPNAME: 'estate-embed-backup', ...(password ? { PGPASSWORD: password } : {}) } };
}

/** Runs a PostgreSQL tool; its failure is an Error carrying its stderr (without the password). */
function runTool(tool: string, args: string[], url: string): Promise<string> {
  const { env } = connection(url);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += String(chunk)));
    child.stderr.on('data', (chunk) => (err += String(chunk)));
    child.once('error', (error) => reject(new Error(`${tool}: ${error.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) resolvePromise(out);
      else
        reject(
          new Error(
            `${tool.split('/').pop()} failed (${code === null ? signal : `exit ${code}`}): ${safeMessage(new Error(err.trim().slice(-1500) || 'no message'), url)}`,
          ),
        );
    });
  });
}

/** The schemas a relay made on this database (they hold its schema_migrations): relay_key first, then public and agency_*. */
async function relaySchemas(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ schema: string }>(
    `SELECT table_schema AS schema FROM information_schema.tables
     WHERE table_name = 'schema_migrations' AND (table_schema IN ($1, 'public') OR table_schema LIKE 'agency\\_%')
     ORDER BY table_schema <> $1, table_schema`,
    [KEY_SCHEMA],
  );
  return rows.map((row) => row.schema);
}

export interface SharedBackupSummary {
  folder: string;
  schemas: string[];
  dumpBytes: number;
  sqliteBytes: number | null;
  seconds: number;
}

/**
 * `backup <folder>` with DATABASE_URL: `postgres.dump` (pg_dump --format=custom of every relay
 * schema, one snapshot), `relay.db` (the online SQLite backup of DATA_DIR) and `backup.json`
 * (what is in it). Written into `<folder>.partial-<pid>` (0700, files 0600) and renamed once
 * pg_restore has read the dump back, so `folder` is either absent or a whole backup.
 */
export async function backupSharedStore(
  databaseUrl: string,
  dataDir: string,
  folder: string,
  options: { force?: boolean; now?: Date } = {},
): Promise<SharedBackupSummary> {
  const target = resolve(folder);
  if (existsSync(target) && !options.force) throw new Error(`${target} exists; pass --force to replace it.`);
  if (!existsSync(dirname(target))) throw new Error(`The folder ${dirname(target)} does not exist.`);
  const pgDump = requireTool('pg_dump', 'the backup');
  const pgRestore = requireTool('pg_restore', 'checking the backup');
  const started = performance.now();
  // A plain pool: a backup changes nothing on the database (no migration runs).
  const pool = openPool(databaseUrl, { poolSize: 1 });
  const partial = `${target}.partial-${process.pid}`;
  try {
    let schemas: string[];
    try {
      schemas = await relaySchemas(pool);
    } catch (error) {
      throw new Error(`DATABASE_URL: could not read ${redactUrl(databaseUrl)}: ${safeMessage(error, databaseUrl)}`);
    }
    if (!schemas.length) throw new Error(`No relay has run on ${redactUrl(databaseUrl)} (no relay schema in it): nothing to back up.`);
    rmSync(partial, { recursive: true, force: true });
    // Owner-only: the dump holds enquiries (names, emails, messages) as the store does.
    mkdirSync(partial, { mode: 0o700 });
    chmodSync(partial, 0o700);
    // DATA_DIR's store first: its replica then lags the dump, never leads it, so after a restore the
    // relay catches up on what was published in between instead of holding rows the database lacks.
    let sqliteBytes: number | null = null;
    if (existsSync(join(resolve(dataDir), STORE_FILE))) sqliteBytes = (await backupStore(dataDir, join(partial, STORE_FILE))).bytes;
    const dump = join(partial, DATABASE_DUMP_FILE);
    const { dbname } = connection(databaseUrl);
    await runTool(pgDump, ['--format=custom', `--file=${dump}`, ...schemas.map((schema) => `--schema=${schema}`), `--dbname=${dbname}`], databaseUrl);
    chmodSync(dump, STORE_FILE_MODE);
    // Read back: a dump pg_restore cannot list is no backup.
    await runTool(pgRestore, ['--list', dump], databaseUrl);
    const version = (await runTool(pgDump, ['--version'], databaseUrl)).trim();
    const manifest: BackupManifest = {
      kind: MANIFEST_KIND,
      createdAt: (options.now ?? new Date()).toISOString(),
      database: redactUrl(databaseUrl),
      schemas,
      pgDump: version,
      sqlite: sqliteBytes === null ? null : STORE_FILE,
    };
    writeFileSync(join(partial, BACKUP_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: STORE_FILE_MODE });
    if (existsSync(target)) rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
    return {
      folder: target,
      schemas,
      dumpBytes: statSync(join(target, DATABASE_DUMP_FILE)).size,
      sqliteBytes,
      seconds: Math.round(performance.now() - started) / 1000,
    };
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  } finally {
    await pool.end().catch(() => {});
  }
}

/** Reads and checks a backup folder's manifest; throws a message an operator can act on. */
export function readBackupManifest(folder: string): BackupManifest {
  const file = join(resolve(folder), BACKUP_MANIFEST_FILE);
  if (!existsSync(join(resolve(folder), DATABASE_DUMP_FILE)) || !existsSync(file)) {
    throw new Error(`${resolve(folder)} is not a backup taken with DATABASE_URL (no ${DATABASE_DUMP_FILE} and ${BACKUP_MANIFEST_FILE} in it).`);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as BackupManifest;
  } catch {
    throw new Error(`${file} is not readable JSON: the backup is damaged.`);
  }
  if (manifest?.kind !== MANIFEST_KIND || !Array.isArray(manifest.schemas)) throw new Error(`${file} does not describe a relay backup.`);
  return manifest;
}

export interface SharedRestoreSummary {
  schemas: string[];
  /** Queued enquiries per agency schema: each looked up in the CRM before it is sent again. */
  enquiriesToReconcile: Record<string, number>;
  /** DATA_DIR's store, when the backup had one. */
  sqlite: RestoreSummary | null;
}

/**
 * `restore <folder>` with DATABASE_URL: pg_restore of the dump into an EMPTY database (one
 * transaction: all or nothing), the schema brought up to this version, every queued enquiry
 * marked for a look-up in the CRM first; then DATA_DIR's store as `restore <file>` puts it. Refused
 * while a relay runs on DATA_DIR, and into a database that already holds relay schemas (a restore
 * over live data would mix two histories of the same enquiries).
 */
export async function restoreSharedStore(databaseUrl: string, dataDir: string, folder: string, options: { now?: Date } = {}): Promise<SharedRestoreSummary> {
  const manifest = readBackupManifest(folder);
  const running = runningRelay(resolve(dataDir));
  if (running)
    throw new Error(
      `A relay (pid ${running.pid}, started ${running.startedAt}) is running on ${resolve(dataDir)}: stop it first (systemctl stop estate-embed-relay).`,
    );
  const pgRestore = requireTool('pg_restore', 'the restore');
  const dump = join(resolve(folder), DATABASE_DUMP_FILE);
  await refuseUnlessEmpty(databaseUrl);
  const { dbname } = connection(databaseUrl);
  // Every entry but the schema public itself (and its comment): a new database has it already.
  const contents = (await runTool(pgRestore, ['--list', dump], databaseUrl))
    .split('\n')
    .filter((line) => !/^\d+; \d+ \d+ (SCHEMA - public|COMMENT - SCHEMA public) /.test(line))
    .join('\n');
  const listDir = mkdtempSync(join(tmpdir(), 'estate-restore-'));
  try {
    const list = join(listDir, 'contents.list');
    writeFileSync(list, contents, { mode: STORE_FILE_MODE });
    // --no-owner/--no-acl: the objects belong to the role in DATABASE_URL, whoever owned them before.
    await runTool(
      pgRestore,
      ['--exit-on-error', '--single-transaction', '--no-owner', '--no-acl', `--use-list=${list}`, `--dbname=${dbname}`, dump],
      databaseUrl,
    );
  } finally {
    rmSync(listDir, { recursive: true, force: true });
  }

  const database = await SharedDatabase.open(databaseUrl, { poolSize: 2 });
  const enquiriesToReconcile: Record<string, number> = {};
  try {
    const schemas = (await relaySchemas(database.pool)).filter((schema) => schema !== KEY_SCHEMA);
    const now = (options.now ?? new Date()).getTime();
    for (const schema of schemas) {
      const slug = slugOfSchema(schema);
      // Migrations first: a backup from an older relay is brought up to this version.
      await database.prepareAgencies([slug]);
      const handle = {};
      database.attach(handle, slug);
      enquiriesToReconcile[schema] = await markQueuedForReconcileAfterRestore(handle, now);
    }
  } finally {
    await database.close();
  }
  const sqliteFile = manifest.sqlite ? join(resolve(folder), manifest.sqlite) : undefined;
  const sqlite = sqliteFile && existsSync(sqliteFile) ? restoreStore(dataDir, sqliteFile, options) : null;
  return { schemas: manifest.schemas, enquiriesToReconcile, sqlite };
}

/** Throws unless the database holds no relay schema and nothing in public (a new, empty database). */
async function refuseUnlessEmpty(databaseUrl: string): Promise<void> {
  const pool = openPool(databaseUrl, { poolSize: 1 });
  try {
    const { rows } = await pool.query<{ schema: string }>(
      `SELECT nspname AS schema FROM pg_namespace WHERE nspname = $1 OR nspname LIKE 'agency\\_%'
       UNION SELECT DISTINCT table_schema FROM information_schema.tables WHERE table_schema = 'public'
       ORDER BY 1`,
      [KEY_SCHEMA],
    );
    if (rows.length) {
      throw new Error(
        `The database at ${redactUrl(databaseUrl)} is not empty (it holds ${rows.map((row) => row.schema).join(', ')}): a restore goes into a new database. ` +
          `Create one (createdb, or CREATE DATABASE … OWNER <the relay's role>), point DATABASE_URL at it, and run restore again. See ${BACKUPS_DOC}.`,
      );
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('The database at')) throw error;
    throw new Error(`DATABASE_URL: could not reach ${redactUrl(databaseUrl)}: ${safeMessage(error, databaseUrl)}`);
  } finally {
    await pool.end().catch(() => {});
  }
}
