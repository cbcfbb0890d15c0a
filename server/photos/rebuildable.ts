import type { Db } from '../store/store.ts';

/**
 * Runs `write` in one transaction without waiting for the disk to confirm it (synchronous=NORMAL
 * for this commit only). For data the relay can always fetch again (the listing cache, the photo
 * mirror): losing the last commits to a power cut costs one more sync, not a lead. The store stays
 * at its own setting (FULL) for everything else; in WAL mode, the next FULL commit makes these
 * frames durable too. Safe on the shared connection: the whole call is synchronous.
 */
export function writeRebuildable<T>(db: Db, write: () => T): T {
  const previous = db.pragma('synchronous', { simple: true }) as number;
  db.pragma('synchronous = NORMAL');
  try {
    return db.transaction(write)();
  } finally {
    db.pragma(`synchronous = ${previous}`);
  }
}
