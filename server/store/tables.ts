import type Database from 'better-sqlite3';
import { Kysely, SqliteDialect, type SqliteDatabase } from 'kysely';

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

/** Which database a repository's queries go to. */
export type StoreKind = 'sqlite' | 'postgres';

/**
 * The query builder over a store's tables (Kysely: one code path for SQLite and PostgreSQL).
 * A repository types it with `db.withTables<{ its_table: Row }>()` and branches on `kind` only
 * where the two databases differ (row locks, say).
 */
export interface Queries {
  db: Kysely<{}>;
  kind: StoreKind;
  /** Ends what the store owns behind `db` (its own pool); absent when the pool is shared (SharedDatabase). */
  close?: () => Promise<void>;
}

const queries = new WeakMap<object, Queries>();

/**
 * The store's queries: PostgreSQL once attachPostgres (postgres.ts) has attached it, else Kysely
 * over the store's own SQLite connection. That connection is synchronous, so every query runs
 * whole between two awaits: a repository keeps to single statements on it, never an open
 * transaction across an await (other modules' statements would land inside it).
 */
export function queriesOf(store: object): Queries {
  let found = queries.get(store);
  if (!found) {
    found = { db: new Kysely<{}>({ dialect: new SqliteDialect({ database: reusingStatements(tablesOf(store)) }) }), kind: 'sqlite' };
    queries.set(store, found);
  }
  return found;
}

/** Statements Kysely may keep per connection: its queries are a fixed set per repository. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * The connection as Kysely's SQLite dialect sees it. Kysely prepares every query anew; a 202 then
 * costs twice the time in SQLite's parser, so statements are kept by their SQL text (as the
 * repositories did with prepare() before). close() is not passed on: the store owns the connection.
 */
function reusingStatements(db: Db): SqliteDatabase {
  const statements = new Map<string, Database.Statement>();
  return {
    close() {},
    prepare(sql: string) {
      const kept = statements.get(sql);
      // A statement still iterating (a streamed query) cannot run again until it is done.
      if (kept && !kept.busy) return kept;
      const statement = db.prepare(sql);
      if (!kept && statements.size < STATEMENT_CACHE_SIZE) statements.set(sql, statement);
      return statement;
    },
  } as SqliteDatabase;
}

/** Called by attachPostgres: the repositories that moved to PostgreSQL query it from now on. */
export function attachQueries(store: object, attached: Queries): void {
  queries.set(store, attached);
}

/** Which database the store's shared tables live in. */
export function sharedStoreKind(store: object): StoreKind {
  return queries.get(store)?.kind ?? 'sqlite';
}

/** Lets go of a PostgreSQL pool attached to the store (a SQLite connection is closed by the store). */
export async function detachQueries(store: object): Promise<void> {
  const attached = queries.get(store);
  queries.delete(store);
  await attached?.close?.();
}
