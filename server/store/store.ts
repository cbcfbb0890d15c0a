import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { migrations as defaultMigrations, type Migration } from './migrations.ts';

export type Db = Database.Database;

export interface Store {
  db: Db;
  /** Absolute path of the SQLite file. */
  file: string;
  /** Absolute path of DATA_DIR. */
  dataDir: string;
  close(): void;
}

export const STORE_FILE = 'relay.db';

/**
 * Opens (creating if needed) the relay's SQLite store in `dataDir` and brings its schema up to date.
 * WAL lets readers run beside the writer; synchronous=FULL makes every commit durable before it
 * returns, which the enquiry outbox relies on (a 202 is only sent after the commit).
 */
export function openStore(dataDir: string, migrations: Migration[] = defaultMigrations): Store {
  const absoluteDir = resolve(dataDir);
  const file = join(absoluteDir, STORE_FILE);
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db, migrations);
  return {
    db,
    file,
    dataDir: absoluteDir,
    close: () => {
      if (db.open) db.close();
    },
  };
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
