import { closeSync, existsSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { markQueuedForReconcile, outboxStatus } from '../enquiries/outbox.ts';
import { countListings, refetchListings } from '../listings/cache.ts';
import { forgetMissingPhotoFiles } from '../photos/mirror.ts';
import type { Progress } from '../runtime/progress.ts';
import { migrations as knownMigrations } from '../store/migrations.ts';
import {
  appliedMigrationsOf,
  copyStore,
  copyStoreFile,
  ensurePrivateDir,
  inTransaction,
  openStore,
  openStoreFileReadOnly,
  openStoreReadOnly,
  STORE_FILE,
  STORE_FILE_MODE,
  type Store,
} from '../store/store.ts';
import { runningRelay } from './instance.ts';

export interface BackupSummary {
  file: string;
  bytes: number;
  listings: number;
  outbox: number;
  seconds: number;
}

/** Counts that tell a backup's contents at a glance. */
function contents(store: Store): { listings: number; outbox: number } {
  return { listings: countListings(store), outbox: outboxStatus(store).total };
}

/** Throws unless `file` is a sound SQLite database with a relay schema this version understands. */
export function verifyBackup(file: string): { listings: number; outbox: number; migrations: string[] } {
  if (!existsSync(file)) throw new Error(`No backup at ${file}.`);
  const applied = appliedMigrationsOf(file);
  const known = new Set(knownMigrations.map((migration) => migration.id));
  const unknown = applied.filter((id) => !known.has(id));
  if (unknown.length) {
    throw new Error(`${file} comes from a newer relay (schema ${unknown.join(', ')} is unknown here): upgrade this relay first.`);
  }
  const backup = openStoreFileReadOnly(file);
  try {
    return { ...contents(backup), migrations: applied };
  } finally {
    backup.close();
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
    await copyStore(source, partial, (done, total) => {
      options.progress?.setTotal(total);
      options.progress?.set(done);
    });
    const verified = verifyBackup(partial);
    renameSync(partial, target);
    // The read-only checks leave an empty WAL and its index beside the copy: nothing of the backup is in them.
    for (const suffix of ['-wal', '-shm']) {
      const leftover = `${partial}${suffix}`;
      if (!existsSync(leftover)) continue;
      if (suffix === '-wal' && statSync(leftover).size > 0) renameSync(leftover, `${target}${suffix}`);
      else rmSync(leftover, { force: true });
    }
    options.progress?.done({ file: target });
    return {
      file: target,
      bytes: statSync(target).size,
      listings: verified.listings,
      outbox: verified.outbox,
      seconds: Math.round(performance.now() - started) / 1000,
    };
  } catch (error) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
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
    throw new Error(
      `A relay (pid ${running.pid}, started ${running.startedAt}) is running on ${absoluteDir}: stop it first (systemctl stop estate-embed-relay).`,
    );
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
  copyStoreFile(resolve(file), storeFile);
  // Bring the schema up to this version and put the photo mirror in line with the files present.
  const store = openStore(absoluteDir);
  try {
    // Photo files are not in the backup (a cache of the CRM's images): those missing are forgotten and their listings fetched again.
    const photosToFetch = inTransaction(store, () => {
      const missing = forgetMissingPhotoFiles(store, join(absoluteDir, 'photos'));
      if (missing.images > 0) refetchListings(store, missing.listingIds);
      return missing.images;
    });
    // An enquiry queued when the backup was taken may have been delivered since (see markQueuedForReconcile).
    const enquiriesToReconcile = markQueuedForReconcile(store, (options.now ?? new Date()).getTime());
    return { listings: verified.listings, outbox: verified.outbox, previous, photosToFetch, enquiriesToReconcile };
  } finally {
    store.close();
  }
}
