import Database from 'better-sqlite3';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { migrations as defaultMigrations, type Migration } from './migrations.ts';
import { attachConnection, detachQueries, tablesOf, type Db } from './tables.ts';
import { systemClock, type Clock } from '../runtime/clock.ts';

export type { Db } from './tables.ts';

/** The relay's store. Its SQLite connection is reached only through store/tables.ts, by each module's own repository files. */
export interface Store {
  /** Whether writes are failing (a lock held elsewhere, a full disk): callers back off instead of blocking. */
  writes: WriteHealth;
  /** Absolute path of the SQLite file. */
  file: string;
  /** Absolute path of DATA_DIR. */
  dataDir: string;
  close(): void;
}

export interface OpenStoreOptions {
  /** Told when DATA_DIR or a store file had looser permissions than it should and was tightened. */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}

export const STORE_FILE = 'relay.db';
/** DATA_DIR holds personal data (the outbox) and the CRM budget: its owner alone may enter it. */
export const DATA_DIR_MODE = 0o700;
/** The store, its WAL and shared-memory files, and backups: read and written by the owner alone. */
export const STORE_FILE_MODE = 0o600;
/** After a checkpoint the WAL is cut back to this size, so it cannot keep old pages around for long. */
const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;
/** Pages in the WAL (4 KB each) that trigger an automatic checkpoint: SQLite's default, made explicit. */
const WAL_AUTOCHECKPOINT_PAGES = 1000;
/**
 * Each connection's page cache, in KiB (better-sqlite3 builds with 16 MB; SQLite's own default is
 * 2 MB). A relay opens one store per agency, and each cache fills up to its bound as pages are
 * read. Measured at 200 agencies × 100 listings (bench/memory.ts): idle RSS 486 MB at 1 MB, 438 MB
 * at 256 KiB, the warm-up of 2,000 answers and pages as fast (4.9 s, 5.0 s). Pages not cached come
 * from the kernel's file cache in microseconds, and the answer cache serves repeated queries before
 * SQLite sees them.
 */
const PAGE_CACHE_KIB = 256;

/**
 * Opens (creating if needed) the relay's SQLite store in `dataDir` and brings its schema up to date.
 * WAL lets readers run beside the writer; synchronous=FULL makes every commit durable before it
 * returns, which the enquiry outbox relies on (a 202 is only sent after the commit).
 * secure_delete zeroes the bytes of deleted or overwritten content, so erased personal data does
 * not linger in free space of the file (see `checkpoint` for the WAL).
 */
export function openStore(dataDir: string, migrations: Migration[] = defaultMigrations, options: OpenStoreOptions = {}): Store {
  const absoluteDir = resolve(dataDir);
  const file = join(absoluteDir, STORE_FILE);
  ensurePrivateDir(absoluteDir, options.warn);
  // Created owner-only before SQLite opens it: SQLite gives the -wal and -shm files the mode of
  // the database file, so they are private from their first byte too.
  closeSync(openSync(file, 'a', STORE_FILE_MODE));
  for (const suffix of ['', '-wal', '-shm']) tightenFile(`${file}${suffix}`, options.warn);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  migrate(db, migrations);
  return storeOver(db, file, absoluteDir, new WriteHealth(() => writeLockFree(db)));
}

function storeOver(db: Db, file: string, dataDir: string, writes: WriteHealth): Store {
  const store: Store = {
    file,
    writes,
    dataDir,
    close: () => {
      // A PostgreSQL pool (attachPostgres) ends in the background; closeStore waits for it.
      void detachQueries(store).catch(() => {});
      if (db.open) db.close();
    },
  };
  attachConnection(store, db);
  return store;
}

/** Closes the store and waits for an attached PostgreSQL pool to end. */
export async function closeStore(store: Store): Promise<void> {
  const pool = detachQueries(store);
  store.close();
  await pool;
}

/** Opens the store read-only: status never changes anything, and never creates a store that is not there. */
export function openStoreReadOnly(dataDir: string): Store {
  const file = join(resolve(dataDir), STORE_FILE);
  if (!existsSync(file)) throw new Error(`No relay store at ${file}. Is DATA_DIR right? (The relay creates it at its first start.)`);
  return openStoreFileReadOnly(file);
}

/** Any store file (a backup too), read-only; no migration runs. */
export function openStoreFileReadOnly(file: string): Store {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return storeOver(db, file, resolve(file, '..'), new WriteHealth());
}

/** /readyz: the store answers a query. */
export function storeAnswers(store: Store): boolean {
  tablesOf(store).prepare('SELECT 1').get();
  return true;
}

/** Runs `work` in one transaction (for work that spans modules' functions, each on its own tables). */
export function inTransaction<T>(store: Store, work: () => T): T {
  return tablesOf(store).transaction(work)();
}

/**
 * Copies every page of the WAL into the database file and truncates the WAL to zero bytes. Called
 * after personal data is erased: until then the WAL still holds the pages as they were written.
 * Returns false when a reader kept the checkpoint from finishing (the next one will).
 */
export function checkpoint(store: Store): boolean {
  const [result] = tablesOf(store).pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
  return result?.busy === 0;
}

/** Creates DATA_DIR owner-only, or tightens an existing one that others may read. */
export function ensurePrivateDir(dir: string, warn?: OpenStoreOptions['warn']): void {
  mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  tighten(dir, DATA_DIR_MODE, 'DATA_DIR', warn);
}

/** Makes an existing store file (or backup) owner-only. */
export function tightenFile(file: string, warn?: OpenStoreOptions['warn']): void {
  if (existsSync(file)) tighten(file, STORE_FILE_MODE, 'store file', warn);
}

function tighten(path: string, mode: number, what: string, warn?: OpenStoreOptions['warn']): void {
  const current = statSync(path).mode & 0o777;
  if ((current & ~mode) === 0) return;
  try {
    chmodSync(path, mode);
    warn?.(`${what} was readable by others (mode ${current.toString(8)}); tightened to ${mode.toString(8)}`, { path, was: current.toString(8) });
  } catch (error) {
    // Not ours to change (another owner): say so rather than refuse to start.
    warn?.(`${what} is readable by others (mode ${current.toString(8)}) and could not be tightened: ${(error as Error).message}`, { path });
  }
}

/** SQLite failures that say "the store cannot take writes now" rather than "this statement is wrong". */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|PROTOCOL|NOMEM)/;

/**
 * PostgreSQL failures of the same kind (SQLSTATE classes 08 connection, 53 resources, 57P
 * shutdown), the network to it, and pg's own "no connection" errors.
 */
const PG_UNAVAILABLE_CODES = /^(08|53|57P|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE)/;
const PG_UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

export function isStoreUnavailable(error: unknown): boolean {
  if (error instanceof Database.SqliteError) return UNAVAILABLE_CODES.test(error.code);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return (typeof code === 'string' && PG_UNAVAILABLE_CODES.test(code)) || PG_UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * Tracks write failures of the store. A write under a lock held by another process waits
 * busy_timeout (5 s) with the whole event loop stopped before it fails, so after one such failure
 * writers stay away and answer "try later" at once, while listing reads (WAL readers) carry on:
 *
 * - a lock (SQLITE_BUSY, SQLITE_LOCKED): a probe that takes the write lock without waiting runs
 *   at most once a second, so writes resume within a second of the lock's release;
 * - anything else (a full disk, an I/O error): held off 5 s, doubling to 60 s; the next real write
 *   is the probe.
 *
 * One successful write clears it.
 */
export class WriteHealth {
  private until = 0;
  private backoffMs = 0;
  private locked = false;

  constructor(
    private readonly probe: () => boolean = () => false,
    private readonly now: Clock = systemClock,
    private readonly probeEveryMs = 1_000,
    private readonly firstBackoffMs = 5_000,
    private readonly maxBackoffMs = 60_000,
  ) {}

  /** While writes are being held off: when the next attempt may be made (ms). */
  heldUntil(): number | undefined {
    const current = this.now();
    if (current >= this.until) {
      if (!this.locked) return undefined;
      if (this.probe()) {
        this.succeeded();
        return undefined;
      }
      this.until = current + this.probeEveryMs;
    }
    return this.until;
  }

  /** Records a failed write. Returns true when it was the store being unavailable (then held off). */
  failed(error: unknown): boolean {
    if (!isStoreUnavailable(error)) return false;
    this.locked = /^SQLITE_(BUSY|LOCKED)/.test((error as { code: string }).code);
    if (this.locked) {
      this.until = this.now() + this.probeEveryMs;
    } else {
      this.backoffMs = this.backoffMs === 0 ? this.firstBackoffMs : Math.min(this.maxBackoffMs, this.backoffMs * 2);
      this.until = this.now() + this.backoffMs;
    }
    return true;
  }

  succeeded(): void {
    this.backoffMs = 0;
    this.until = 0;
    this.locked = false;
  }
}

/** Takes the write lock and lets it go at once, without waiting for it: true when it was free. */
export function writeLockFree(db: Db): boolean {
  if (!db.open || db.inTransaction) return false;
  const previous = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return true;
  } catch {
    return false;
  } finally {
    db.pragma(`busy_timeout = ${previous}`);
  }
}

export function migrate(db: Db, migrations: Migration[]): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id TEXT PRIMARY KEY,
    applied_at TEXT NOT NULL
  ) STRICT`);
  const applied = new Set(db.prepare('SELECT id FROM schema_migrations').pluck().all() as string[]);
  const ran: string[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)');
  for (const migration of migrations) {
    if (applied.has(migration.id)) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      record.run(migration.id, new Date().toISOString());
    }).immediate();
    ran.push(migration.id);
  }
  return ran;
}

/**
 * Throws unless `file` is a sound SQLite database with a relay schema: returns the migrations it
 * has applied (the caller compares them with the ones it knows).
 */
export function appliedMigrationsOf(file: string): string[] {
  let db: Db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (error) {
    throw new Error(`${file} is not a SQLite database: ${(error as Error).message}`);
  }
  try {
    let check: string[];
    try {
      check = db.prepare('PRAGMA integrity_check').pluck().all() as string[];
    } catch (error) {
      throw new Error(`${file} is not a readable SQLite database: ${(error as Error).message}`);
    }
    if (check.length !== 1 || check[0] !== 'ok') throw new Error(`${file} failed SQLite's integrity check: ${check.slice(0, 5).join('; ')}`);
    const hasMigrations = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
    if (!hasMigrations) throw new Error(`${file} is a SQLite database, but not a relay store (no schema_migrations table).`);
    return db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** SQLite's online backup of `store` into `file`, in steps of `pagesPerStep` so writers get the lock between steps. */
export function copyStore(store: Store, file: string, onStep: (done: number, total: number) => void, pagesPerStep = 256): Promise<unknown> {
  return tablesOf(store).backup(file, {
    progress({ totalPages, remainingPages }) {
      onStep(totalPages - remainingPages, totalPages);
      return pagesPerStep;
    },
  });
}

/** Writes one consistent copy of the store file `source` into the (empty) file `target`, through SQLite. */
export function copyStoreFile(source: string, target: string): void {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.exec(`VACUUM INTO '${target.replace(/'/g, "''")}'`);
  } finally {
    db.close();
  }
}
