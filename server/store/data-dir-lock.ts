import Database from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateDir, STORE_FILE_MODE } from './store.ts';

/**
 * One relay process per DATA_DIR, held by the operating system: an exclusive SQLite lock on
 * DATA_DIR/relay.lock (a file of its own, never the store, whose lock writers take in turn), kept
 * for the life of the process and let go by the kernel when it ends however it ends (a SIGKILL,
 * a crash), so a relay restarted after a kill starts at once while a second one beside a live
 * relay is refused. Several things rely on it: the lead queues' claims and the confirmation
 * e-mails' name their holder by host and DATA_DIR on SQLite, and a relay starting takes whatever is
 * held in that name back as a dead process's (its own previous one). relay.pid (ops/instance.ts)
 * only tells the CLI which process it is.
 */
export const LOCK_FILE = 'relay.lock';

/** The connections holding a lock: referenced here so the garbage collector never closes one (and lets the lock go) while its process lives. */
const held = new Set<Database.Database>();

export class DataDirInUseError extends Error {
  constructor(readonly dataDir: string) {
    super(
      `DATA_DIR ${dataDir} is in use by another relay process: one relay works one DATA_DIR (its queues' claims are in its name). Stop that relay first, or give this one a DATA_DIR of its own.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/** Takes DATA_DIR's lock for this process, or throws DataDirInUseError when a live process holds it. Returns the release (a clean stop). */
export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  ensurePrivateDir(dir);
  const file = join(dir, LOCK_FILE);
  closeSync(openSync(file, 'a', STORE_FILE_MODE));
  const db = new Database(file);
  try {
    // Never wait for it: a live holder means a refusal now, not a start that hangs.
    db.pragma('busy_timeout = 0');
    // EXCLUSIVE: the lock stays after the statement, until the connection closes.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUseError(dir);
    throw error;
  }
  held.add(db);
  return () => {
    held.delete(db);
    if (db.open) db.close();
  };
}
