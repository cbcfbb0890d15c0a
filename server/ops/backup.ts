import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { migrations as knownMigrations } from '../store/migrations.ts';
import { ensurePrivateDir, openStore, STORE_FILE, STORE_FILE_MODE, type Db } from '../store/store.ts';
import { variantPath } from '../photos/variants.ts';
import type { Progress } from '../progress.ts';
import { runningRelay } from './instance.ts';
import { openStoreReadOnly, tableExists } from './status.ts';

export interface BackupSummary {
  file: string;
  bytes: number;
  listings: number;
  outbox: number;
  seconds: number;
}

/** Counts that tell a backup's contents at a glance. */
function contents(db: Db): { listings: number; outbox: number } {
  const count = (table: string) => (tableExists(db, table) ? (db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number) : 0);
  return { listings: count('listings'), outbox: count('enquiry_outbox') };
}

/** Throws unless `file` is a sound SQLite database with a relay schema this version understands. */
export function verifyBackup(file: string): { listings: number; outbox: number; migrations: string[] } {
  if (!existsSync(file)) throw new Error(`No backup at ${file}.`);
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
    if (!tableExists(db, 'schema_migrations')) throw new Error(`${file} is a SQLite database, but not a relay store (no schema_migrations table).`);
    const applied = db.prepare('SELECT id FROM schema_migrations ORDER BY id').pluck().all() as string[];
    const known = new Set(knownMigrations.map((migration) => migration.id));
    const unknown = applied.filter((id) => !known.has(id));
    if (unknown.length) {
      throw new Error(`${file} comes from a newer relay (schema ${unknown.join(', ')} is unknown here): upgrade this relay first.`);
    }
    return { ...contents(db), migrations: applied };
  } finally {
    db.close();
  }
}

/**
 * An online backup of the store (SQLite's backup API through better-sqlite3): a consistent copy
 * even while the relay writes, taken in steps so the relay is never held up for long. Written
 * beside the target and renamed once verified, so `file` is either the old file or a whole backup.
 */
export async function backupStore(dataDir: string, file: string, options: { force?: boolean; progress?: Progress } = {}): Promise<BackupSummary> {
  const target = resolve(file);
  if (target === join(resolve(dataDir), STORE_FILE)) throw new Error('The backup file cannot be the live store itself.');
  if (existsSync(target) && !options.force) throw new Error(`${target} exists; pass --force to replace it.`);
  if (!existsSync(dirname(target))) throw new Error(`The folder ${dirname(target)} does not exist.`);
  const started = performance.now();
  const partial = `${target}.partial-${process.pid}`;
  const source = openStoreReadOnly(dataDir);
  try {
    // Owner-only from its first byte: a backup holds the same personal data as the store.
    rmSync(partial, { force: true });
    closeSync(openSync(partial, 'wx', STORE_FILE_MODE));
    await source.backup(partial, {
      progress({ totalPages, remainingPages }) {
        options.progress?.setTotal(totalPages);
        options.progress?.set(totalPages - remainingPages);
        return 256; // pages per step: the relay's writers get the lock between steps
      },
    });
    const verified = verifyBackup(partial);
    renameSync(partial, target);
    options.progress?.done({ file: target });
    return {
      file: target,
      bytes: statSync(target).size,
      listings: verified.listings,
      outbox: verified.outbox,
      seconds: Math.round(performance.now() - started) / 1000,
    };
  } catch (error) {
    rmSync(partial, { force: true });
    options.progress?.fail(error);
    throw error;
  } finally {
    source.close();
  }
}

export interface RestoreSummary {
  listings: number;
  outbox: number;
  /** Where the store that was replaced now is (undefined: there was none). */
  previous?: string;
  /** Images the backup knows but DATA_DIR/photos lacks: downloaded again by the next sync. */
  photosToFetch: number;
  /** Queued enquiries, marked "outcome unknown": the CRM is asked before any is sent again. */
  enquiriesToReconcile: number;
}

/**
 * Replaces the store with a verified backup. Refused while a relay runs on this DATA_DIR (it
 * holds the file open: swapping it underneath would lose or corrupt data). The replaced store is
 * kept beside it (relay.db.before-restore-<time>), with its WAL, so a restore can be undone.
 */
export function restoreStore(dataDir: string, file: string, options: { now?: Date } = {}): RestoreSummary {
  const absoluteDir = resolve(dataDir);
  const running = runningRelay(absoluteDir);
  if (running) {
    throw new Error(`A relay (pid ${running.pid}, started ${running.startedAt}) is running on ${absoluteDir}: stop it first (systemctl stop estate-embed-relay).`);
  }
  const verified = verifyBackup(resolve(file));
  ensurePrivateDir(absoluteDir);
  const storeFile = join(absoluteDir, STORE_FILE);
  let previous: string | undefined;
  if (existsSync(storeFile)) {
    const stamp = (options.now ?? new Date()).toISOString().replace(/[:.]/g, '-');
    previous = `${storeFile}.before-restore-${stamp}`;
    // The WAL holds committed data when the relay did not stop cleanly: it moves with its database.
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(`${storeFile}${suffix}`)) renameSync(`${storeFile}${suffix}`, `${previous}${suffix}`);
    }
  }
  // Copy through SQLite (not a file copy) so the result is one consistent file in the store's place,
  // into an empty owner-only file (VACUUM INTO would create it readable by all).
  closeSync(openSync(storeFile, 'wx', STORE_FILE_MODE));
  const backup = new Database(resolve(file), { readonly: true, fileMustExist: true });
  try {
    backup.exec(`VACUUM INTO '${storeFile.replace(/'/g, "''")}'`);
  } finally {
    backup.close();
  }
  // Bring the schema up to this version and put the photo mirror in line with the files present.
  const store = openStore(absoluteDir);
  try {
    const photosToFetch = forgetMissingPhotos(store.db, join(absoluteDir, 'photos'));
    // An enquiry queued when the backup was taken may have been delivered since: the CRM has no
    // idempotency key, so each is marked "outcome unknown" and the delivery worker looks it up in
    // the CRM before it sends anything (the same path as after a crash mid-POST).
    const enquiriesToReconcile = store.db
      .prepare(`UPDATE enquiry_outbox SET sending_since = COALESCE(sending_since, ?) WHERE status = 'queued'`)
      .run((options.now ?? new Date()).getTime()).changes;
    return { listings: verified.listings, outbox: verified.outbox, previous, photosToFetch, enquiriesToReconcile };
  } finally {
    store.close();
  }
}

/**
 * Photo files are not in the backup (they are a cache of the CRM's images). Images whose files
 * are missing are forgotten, the listings and agents that show them are marked changed, and the
 * next sync is made a full sweep: it downloads them again.
 */
function forgetMissingPhotos(db: Db, photoDir: string): number {
  const files = db.prepare('SELECT hash, widths FROM photo_files').all() as Array<{ hash: string; widths: string }>;
  const missing = files
    .filter(({ hash, widths }) => (JSON.parse(widths) as number[]).some((width) => !existsSync(variantPath(photoDir, hash, width, 'webp'))))
    .map(({ hash }) => hash);
  if (missing.length === 0) return 0;
  db.transaction(() => {
    const owners = db.prepare('SELECT DISTINCT owner_kind AS kind, owner_id AS id FROM photos WHERE hash = ?');
    const markListing = db.prepare('UPDATE listings SET crm_modified = NULL WHERE id = ?');
    const forgetRows = db.prepare('DELETE FROM photos WHERE hash = ?');
    const forgetFile = db.prepare('DELETE FROM photo_files WHERE hash = ?');
    for (const hash of missing) {
      for (const owner of owners.all(hash) as Array<{ kind: string; id: number }>) if (owner.kind === 'listing') markListing.run(owner.id);
      forgetRows.run(hash);
      forgetFile.run(hash);
    }
    // A full sweep re-reads every listing (an incremental one only those the CRM changed lately).
    db.prepare("DELETE FROM listing_sync_state WHERE key IN ('lastFullSweepAt', 'modifiedSince')").run();
  })();
  return missing.length;
}
