import { Kysely, PostgresDialect } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Migration } from './migrations.ts';
import { pgMigrations } from './pg-migrations.ts';
import { attachQueries, detachQueries } from './tables.ts';

export interface AttachPostgresOptions {
  migrations?: Migration[];
  /** Connections this relay keeps open at most. */
  poolSize?: number;
  /**
   * The PostgreSQL schema the tables live in (created if missing). Default `public`. Stores that
   * must not see each other's rows on one database (one per agency, say) each take their own.
   */
  schema?: string;
  /** Told when an idle connection fails (the server restarted, the network dropped). */
  warn?: (message: string, fields: Record<string, unknown>) => void;
}

/** pg_advisory_lock key of the schema migrations: relays starting at once migrate one after another. */
const MIGRATION_LOCK = 'estate-embed:schema-migrations';
/** A schema name used without quoting: plain lower-case identifiers only. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** PostgreSQL's type oid of BIGINT (int8): our ms timestamps and ids, read as numbers (they fit in 2^53). */
const INT8_OID = 20;

/**
 * Connects the store's shared tables to PostgreSQL at `url`, after
 * bringing its schema up to date. Fails (without the password in the message) when the server
 * cannot be reached or refuses the login, so the relay does not start half-connected.
 */
export async function attachPostgres(store: object, url: string, options: AttachPostgresOptions = {}): Promise<void> {
  const schema = options.schema ?? 'public';
  checkSchemaName(schema);
  // Every connection works in the store's schema: unqualified table names resolve there.
  const pool = openPool(url, { ...options, searchPath: schema });
  try {
    await migratePostgres(pool, options.migrations ?? pgMigrations, schema);
  } catch (error) {
    await pool.end().catch(() => {});
    throw new Error(`DATABASE_URL: could not prepare the PostgreSQL store at ${redactUrl(url)}: ${safeMessage(error, url)}`);
  }
  await detachQueries(store);
  const db = new Kysely<{}>({ dialect: new PostgresDialect({ pool }) });
  // The store owns this pool (closeStore ends it); a relay's agencies share one (SharedDatabase).
  attachQueries(store, { db, kind: 'postgres', close: () => db.destroy() });
}

/** Refuses a schema name that is not a plain lower-case identifier (it is used without quoting). */
export function checkSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema))
    throw new Error(`PostgreSQL schema name "${schema}" must be lower-case letters, digits and _ (at most 63), starting with a letter or _`);
}

/** A pool on `url` reading BIGINT as numbers, its idle-connection errors told to `warn`; `searchPath`: every connection's schema. */
/** pg, loaded when a pool is first opened: a relay on SQLite never needs it (about 5 MB of memory, bench/memory.ts). */
const requireLater = createRequire(import.meta.url);

export function openPool(url: string, options: Pick<AttachPostgresOptions, 'poolSize' | 'warn'> & { searchPath?: string } = {}): pg.Pool {
  const pg = requireLater('pg') as typeof import('pg').default;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    // A connection left in a transaction by a stuck request must not hold row locks for ever.
    idle_in_transaction_session_timeout: 30_000,
    application_name: 'estate-embed-relay',
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection that breaks emits 'error' on the pool; unheard, it would end the process.
  pool.on('error', (error) => options.warn?.('PostgreSQL connection lost; it is replaced at the next query', { error: safeMessage(error, url) }));
  return pool;
}

/**
 * Applies the migrations not yet recorded, each in its own transaction, while holding an advisory
 * lock: several relays starting together wait their turn, and each finds the others' work done.
 * Returns the ids it applied.
 */
export async function migratePostgres(pool: pg.Pool, migrations: Migration[], schema = 'public'): Promise<string[]> {
  const client = await pool.connect();
  const ran: string[] = [];
  const lock = `${MIGRATION_LOCK}:${schema}`;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lock]);
    try {
      // Only when missing: a role without CREATE on the database can still use a schema made for it.
      const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (!rowCount) await client.query(`CREATE SCHEMA ${schema}`);
      // A pool shared by several schemas (SharedDatabase) has no search_path of its own: this client's, until RESET below.
      await client.query(`SET search_path TO ${schema}`);
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
      const { rows } = await client.query<{ id: string }>('SELECT id FROM schema_migrations');
      const applied = new Set(rows.map((row) => row.id));
      for (const migration of migrations) {
        if (applied.has(migration.id)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [migration.id, new Date().toISOString()]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => {});
          throw new Error(`migration ${migration.id} failed: ${(error as Error).message}`);
        }
        ran.push(migration.id);
      }
    } finally {
      // Back to the connection's own (its pool's search_path, or public) before it returns to the pool.
      await client.query('RESET search_path').catch(() => {});
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lock]).catch(() => {});
    }
  } finally {
    client.release();
  }
  return ran;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    // The driver also takes the password as ?password=.
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

/** An error's message with the URL's password taken out, should the driver ever repeat it. */
export function safeMessage(error: unknown, url: string): string {
  const message = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
  const passwords: string[] = [];
  try {
    const parsed = new URL(url);
    passwords.push(decodeURIComponent(parsed.password), ...parsed.searchParams.getAll('password'));
  } catch {
    // not a URL: nothing to take out
  }
  return passwords.filter(Boolean).reduce((text, password) => text.split(password).join('***'), message);
}
