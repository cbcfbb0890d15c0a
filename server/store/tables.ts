import type Database from 'better-sqlite3';

export type Db = Database.Database;

/**
 * The SQLite connection behind a store, kept out of the Store type: a module reaches its own
 * tables through here, in its repository files, and every other module calls those files'
 * typed functions. The dependency-cruiser rule `tables-through-repositories` lists the files
 * that may import this module.
 */
const connections = new WeakMap<object, Db>();

/** Called by openStore: `store` is the handle the rest of the relay holds. */
export function attachConnection(store: object, db: Db): void {
  connections.set(store, db);
}

export function tablesOf(store: object): Db {
  const db = connections.get(store);
  if (!db) throw new Error('No open relay store behind this handle (was it made by openStore?)');
  return db;
}

/** Whether the store has a table yet: a read-only status may look at a store older than this relay. */
export function hasTable(store: object, name: string): boolean {
  return tablesOf(store).prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}
