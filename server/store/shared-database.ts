import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Migration } from './migrations.ts';
import { pgMigrations } from './pg-migrations.ts';
import { migratePostgres, openPool, redactUrl, safeMessage } from './postgres.ts';
import { attachQueries } from './tables.ts';

/**
 * The schema of what the relays on one API key share whatever the agency: the CRM gate (its
 * per-second slots and the day's count) and the registry of relays.
 */
export const KEY_SCHEMA = 'relay_key';

/** Key-wide tables (in KEY_SCHEMA), versioned like pg-migrations.ts. Times are ms since the epoch on the database's clock. */
export const keyMigrations: Migration[] = [
  {
    id: '010-crm-gate',
    sql: `
      -- The CRM's per-second limit for every relay on the key (server/crm/shared-gate.ts): one row
      -- per request that may be in the CRM's hands at once. A relay takes a free row to send, and
      -- on the answer frees it from one second later; a relay that dies frees it at lease_until.
      CREATE TABLE crm_slots (
        key_id TEXT NOT NULL,
        slot INTEGER NOT NULL,
        free_at BIGINT NOT NULL DEFAULT 0,
        holder TEXT,
        take INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, slot)
      );
      -- Requests sent per UTC day for the key, by every relay.
      CREATE TABLE crm_budget (
        key_id TEXT NOT NULL,
        day TEXT NOT NULL,
        used INTEGER NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      -- Relays seen on this database (server/ops/relays.ts): the heartbeat keeps last_seen fresh.
      CREATE TABLE relays (
        id TEXT PRIMARY KEY,
        host TEXT NOT NULL,
        data_dir TEXT NOT NULL,
        version TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        last_seen BIGINT NOT NULL
      );
    `,
  },
];

/**
 * PostgreSQL schema of an agency's shared tables. One schema per agency (not an agency column):
 * every repository's queries are made on a Kysely bound to the agency's schema (withSchema), so
 * isolation holds by construction, with no WHERE agency = … for a new query to forget, and the
 * tables moved to PostgreSQL later (the same migrations, run per schema) are kept apart for free.
 * Slugs are a-z, 0-9 and - (agencies/file.ts); - becomes _, so two slugs never share a schema.
 * The one agency of a relay without AGENCIES_FILE keeps the default schema, public.
 */
export function agencySchema(slug: string | undefined): string {
  return slug === undefined ? 'public' : `agency_${slug.replace(/-/g, '_')}`;
}

/**
 * The relay's one PostgreSQL pool (DATABASE_URL), shared by the key-wide tables and every
 * agency's schema: a hundred agencies need not hold a hundred pools of connections.
 */
export class SharedDatabase {
  /** Queries on the key-wide tables (KEY_SCHEMA). */
  readonly keyDb: Kysely<{}>;
  private readonly db: Kysely<{}>;
  private readonly prepared = new Set<string>();

  private constructor(
    readonly pool: pg.Pool,
    private readonly url: string,
  ) {
    this.db = new Kysely<{}>({ dialect: new PostgresDialect({ pool }) });
    this.keyDb = this.db.withSchema(KEY_SCHEMA);
  }

  /** Connects and brings the key-wide schema up to date; refuses (naming DATABASE_URL, never the password) when it cannot. */
  static async open(url: string, options: { poolSize?: number; warn?: (message: string, fields: Record<string, unknown>) => void } = {}): Promise<SharedDatabase> {
    const pool = openPool(url, options);
    try {
      await migratePostgres(pool, keyMigrations, KEY_SCHEMA);
    } catch (error) {
      await pool.end().catch(() => {});
      throw new Error(`DATABASE_URL: could not prepare the PostgreSQL store at ${redactUrl(url)}: ${safeMessage(error, url)}`);
    }
    return new SharedDatabase(pool, url);
  }

  /** Creates or updates the schemas of these agencies (undefined: the root agency); each once per relay. */
  async prepareAgencies(slugs: Array<string | undefined>): Promise<void> {
    for (const slug of slugs) {
      const schema = agencySchema(slug);
      if (this.prepared.has(schema)) continue;
      try {
        await migratePostgres(this.pool, pgMigrations, slug === undefined ? undefined : schema);
      } catch (error) {
        throw new Error(`DATABASE_URL: could not prepare the tables of ${slug === undefined ? 'the agency' : `agency "${slug}"`} at ${redactUrl(this.url)}: ${safeMessage(error, this.url)}`);
      }
      this.prepared.add(schema);
    }
  }

  /** Points an agency's store at its schema (prepared first by prepareAgencies): its shared tables are queried there from now on. */
  attach(store: object, slug: string | undefined): void {
    const schema = agencySchema(slug);
    if (!this.prepared.has(schema)) throw new Error(`The PostgreSQL schema ${schema} was not prepared before its agency was composed`);
    attachQueries(store, { db: this.db.withSchema(schema), kind: 'postgres' });
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}
