import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { pgKeyMigrations, pgMigrations } from './pg-migrations.ts';
import { checkSchemaName, migratePostgres, openPool, redactUrl, safeMessage } from './postgres.ts';
import { attachQueries } from './tables.ts';

/**
 * The schema of what the relays on one API key share whatever the agency: the CRM gate (its
 * per-second slots and the day's count) and the registry of relays.
 */
export const KEY_SCHEMA = 'relay_key';

/** Now in ms since the epoch on the database's clock, in SQL. */
export const DB_NOW = '(extract(epoch FROM clock_timestamp()) * 1000)::bigint';

/**
 * Where statements on the shared database read "now": the database's own clock (DB_NOW), so
 * relays whose clocks disagree still agree on claims, leases and due times. Tests that move time
 * by hand give one that reads their clock instead (`clockAsDatabaseClock`).
 */
export interface DatabaseClock {
  /** Now (ms since the epoch) as an SQL expression. */
  sql(): string;
}

/** The database's own clock: what every relay's statements read. */
export const databaseClock: DatabaseClock = { sql: () => DB_NOW };

/** For tests that move time by hand: statements read `now()` (a literal) instead of the database's clock. */
export function clockAsDatabaseClock(now: () => number): DatabaseClock {
  return { sql: () => `${Math.round(now())}::bigint` };
}

/** A relay whose clock is further than this from the database's says so (log, status, /metrics). */
export const CLOCK_OFFSET_WARN_MS = 5_000;

/** How often a relay says it is alive, and how long after its last word it counts as alive. */
export const HEARTBEAT_MS = 5_000;
export const RELAY_ALIVE_MS = 3 * HEARTBEAT_MS;
/** A relay not heard from for this long is taken off the registry (at another relay's start). */
export const RELAY_FORGET_MS = 7 * 24 * 60 * 60 * 1000;

/** A relay as the registry names it: its host and DATA_DIR (one relay per DATA_DIR on a host). */
export interface RelayIdentity {
  id: string;
  host: string;
  dataDir: string;
  version: string;
}

export interface RelaySeen {
  id: string;
  host: string;
  dataDir: string;
  version: string;
  startedAt: number;
  lastSeen: number;
  /** Its clock minus the database's at its last heartbeat (ms; null: a relay of a version that did not say). */
  clockOffsetMs: number | null;
}

/** Every relay that has run on this database, last seen first (for `npm run relay -- status`). */
export async function listRelays(pool: pg.Pool): Promise<RelaySeen[]> {
  const { rows } = await pool.query<{
    id: string;
    host: string;
    data_dir: string;
    version: string;
    started_at: number;
    last_seen: number;
    clock_offset_ms: number | null;
  }>(`SELECT id, host, data_dir, version, started_at, last_seen, clock_offset_ms FROM ${KEY_SCHEMA}.relays ORDER BY last_seen DESC, id`);
  return rows.map((row) => ({
    id: row.id,
    host: row.host,
    dataDir: row.data_dir,
    version: row.version,
    startedAt: Number(row.started_at),
    lastSeen: Number(row.last_seen),
    clockOffsetMs: row.clock_offset_ms === null ? null : Number(row.clock_offset_ms),
  }));
}

/** Whether a clock offset (ms) is beyond what a relay lets pass without a warning. */
export function clockOffsetTooLarge(offsetMs: number): boolean {
  return Math.abs(offsetMs) > CLOCK_OFFSET_WARN_MS;
}

/** An offset in words: "180.0 s ahead of the database's clock" (or behind). */
export function describeClockOffset(offsetMs: number): string {
  return `${(Math.abs(offsetMs) / 1000).toFixed(1)} s ${offsetMs >= 0 ? 'ahead of' : 'behind'} the database's clock`;
}

/** Prometheus lines of the relay's clock against the database's (nothing before the first heartbeat). */
export function renderClockOffsetMetrics(offsetMs: number | undefined): string {
  if (offsetMs === undefined) return '';
  return (
    `# HELP estate_clock_offset_seconds This relay's clock minus the database's at its last heartbeat (DATABASE_URL; shared times use the database's; beyond ${CLOCK_OFFSET_WARN_MS / 1000} s the relay warns).\n` +
    '# TYPE estate_clock_offset_seconds gauge\n' +
    `estate_clock_offset_seconds ${offsetMs / 1000}\n`
  );
}

/**
 * PostgreSQL schema of an agency's shared tables. One schema per agency (not an agency column):
 * every connection an agency's repositories get has its search_path set to the agency's schema
 * (inSchema), so isolation holds by construction, with no WHERE agency = … for a new query (or a
 * raw one) to forget, and the
 * tables moved to PostgreSQL later (the same migrations, run per schema) are kept apart for free.
 * Slugs are a-z, 0-9 and - (compose/agencies-file.ts); - becomes _, so two slugs never share a schema.
 * The one agency of a relay without AGENCIES_FILE keeps the default schema, public.
 */
export function agencySchema(slug: string | undefined): string {
  const schema = slug === undefined ? 'public' : `agency_${slug.replace(/-/g, '_')}`;
  checkSchemaName(schema);
  return schema;
}

/** The slug of an agency schema, agencySchema's inverse (_ back to -, slugs holding no _); undefined for public. */
export function slugOfSchema(schema: string): string | undefined {
  return schema === 'public' ? undefined : schema.slice('agency_'.length).replace(/_/g, '-');
}

const guarded = new WeakSet<pg.PoolClient>();

/**
 * A connection lost while checked out (mid-query, the server gone) emits 'error' on its client as
 * well as failing the query; pg-pool's pool.query listens for it, Kysely does not, and unheard it
 * would end the process. The failed query reports it; the pool drops the client on release.
 */
function heardWhileCheckedOut(client: pg.PoolClient): void {
  if (guarded.has(client)) return;
  guarded.add(client);
  client.on('error', () => {});
}

/**
 * The shared pool as one agency's queries see it: every connection handed out has its search_path
 * set to the agency's schema first, so every statement, raw SQL included, resolves that agency's
 * tables and no other's. (Set on each checkout, one short round trip: a connection's last user may
 * have been another agency, or a migration.) Ending it leaves the shared pool open.
 */
function inSchema(pool: pg.Pool, schema: string): { connect(): Promise<pg.PoolClient>; end(): Promise<void> } {
  return {
    async connect() {
      const client = await pool.connect();
      heardWhileCheckedOut(client);
      try {
        await client.query(`SET search_path TO ${schema}`);
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      return client;
    },
    async end() {},
  };
}

/**
 * The relay's one PostgreSQL pool (DATABASE_URL), shared by the key-wide tables and every
 * agency's schema: a hundred agencies need not hold a hundred pools of connections.
 */
export class SharedDatabase {
  private readonly prepared = new Set<string>();
  private heartbeatTimer: NodeJS.Timeout | undefined;
  /** Relays seen within RELAY_ALIVE_MS at the last heartbeat (this one included). */
  private alive = 1;
  /** This relay's clock minus the database's at the last heartbeat (ms); undefined before the first. */
  private offset: number | undefined;

  private constructor(
    readonly pool: pg.Pool,
    private readonly url: string,
    private readonly now: Clock,
  ) {}

  /**
   * Connects and brings the key-wide schema up to date; refuses (naming DATABASE_URL, never the
   * password) when it cannot. `now`: the relay's clock, which the heartbeat measures against the
   * database's (tests skew it).
   */
  static async open(
    url: string,
    options: { poolSize?: number; warn?: (message: string, fields: Record<string, unknown>) => void; now?: Clock } = {},
  ): Promise<SharedDatabase> {
    const pool = openPool(url, options);
    try {
      await migratePostgres(pool, pgKeyMigrations, KEY_SCHEMA);
    } catch (error) {
      await pool.end().catch(() => {});
      throw new Error(`DATABASE_URL: could not prepare the PostgreSQL store at ${redactUrl(url)}: ${safeMessage(error, url)}`);
    }
    return new SharedDatabase(pool, url, options.now ?? systemClock);
  }

  /** Creates or updates the schemas of these agencies (undefined: the root agency); each once per relay. */
  async prepareAgencies(slugs: Array<string | undefined>): Promise<void> {
    for (const slug of slugs) {
      const schema = agencySchema(slug);
      if (this.prepared.has(schema)) continue;
      try {
        await migratePostgres(this.pool, pgMigrations, schema);
      } catch (error) {
        throw new Error(
          `DATABASE_URL: could not prepare the tables of ${slug === undefined ? 'the agency' : `agency "${slug}"`} at ${redactUrl(this.url)}: ${safeMessage(error, this.url)}`,
        );
      }
      this.prepared.add(schema);
    }
  }

  /** Points an agency's store at its schema (prepared first by prepareAgencies): its shared tables are queried there from now on. */
  attach(store: object, slug: string | undefined): void {
    const schema = agencySchema(slug);
    if (!this.prepared.has(schema)) throw new Error(`The PostgreSQL schema ${schema} was not prepared before its agency was composed`);
    attachQueries(store, { db: new Kysely<{}>({ dialect: new PostgresDialect({ pool: inSchema(this.pool, schema) }) }), kind: 'postgres' });
  }

  /**
   * Records this relay in the registry (relays) and keeps its last_seen fresh every
   * HEARTBEAT_MS, reading how many relays are alive (the CRM gate's share without the database).
   * Each beat also measures this relay's clock against the database's (recorded as
   * clock_offset_ms, for `status`); `onClockOffset` hears when the offset goes beyond
   * CLOCK_OFFSET_WARN_MS (at the first beat too) and when it comes back within it.
   */
  async startHeartbeat(relay: RelayIdentity, onError?: (error: unknown) => void, onClockOffset?: (offsetMs: number, tooLarge: boolean) => void): Promise<void> {
    this.relayId = relay.id;
    const beat = async () => {
      // The offset: this relay's clock as the statement leaves, minus the database's as it runs
      // (off by the one-way trip, milliseconds, against a warning at seconds).
      const { rows: beaten } = await this.pool.query<{ clock_offset_ms: number }>(
        // The database's clock: relays' clocks need not agree for "alive" to mean the same to all.
        `INSERT INTO ${KEY_SCHEMA}.relays (id, host, data_dir, version, started_at, last_seen, clock_offset_ms)
         VALUES ($1, $2, $3, $4, ${DB_NOW}, ${DB_NOW}, $6::bigint - ${DB_NOW})
         ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, last_seen = EXCLUDED.last_seen, clock_offset_ms = EXCLUDED.clock_offset_ms,
           started_at = CASE WHEN $5 THEN EXCLUDED.started_at ELSE relays.started_at END
         RETURNING clock_offset_ms`,
        [relay.id, relay.host, relay.dataDir, relay.version, first, Math.round(this.now())],
      );
      const offset = Number(beaten[0]!.clock_offset_ms);
      const wasTooLarge = this.offset !== undefined && clockOffsetTooLarge(this.offset);
      this.offset = offset;
      if (clockOffsetTooLarge(offset) !== wasTooLarge) onClockOffset?.(offset, !wasTooLarge);
      if (first) {
        // Relays gone for good (a host retired, a DATA_DIR moved) leave the list after a week.
        await this.pool.query(`DELETE FROM ${KEY_SCHEMA}.relays WHERE last_seen < ${DB_NOW} - $1`, [RELAY_FORGET_MS]);
      }
      first = false;
      const { rows } = await this.pool.query<{ alive: number }>(`SELECT count(*)::int AS alive FROM ${KEY_SCHEMA}.relays WHERE last_seen > ${DB_NOW} - $1`, [
        RELAY_ALIVE_MS,
      ]);
      this.alive = Math.max(1, rows[0]!.alive);
    };
    let first = true;
    await beat();
    this.heartbeatTimer = setInterval(() => void beat().catch((error: unknown) => onError?.(error)), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  /** This relay's id in the registry (host and DATA_DIR), once startHeartbeat has been called. */
  relayId = 'unregistered';

  /** This relay's clock minus the database's at the last heartbeat (ms); undefined before the first. */
  clockOffsetMs(): number | undefined {
    return this.offset;
  }

  /** Relays seen alive at the last heartbeat (1 before the first). */
  relaysAlive(): number {
    return this.alive;
  }

  private listener: pg.PoolClient | undefined;
  private listening: Promise<pg.PoolClient> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  private readonly reconnectHandlers = new Set<() => void>();
  /** Channels LISTENed on the current listener connection. */
  private readonly listened = new Set<string>();
  private closed = false;

  /**
   * Calls `handler` with the payload of every NOTIFY on `channel` (one connection of the pool
   * listens for the whole relay, whatever the number of agencies). A lost connection is replaced
   * after a second, then every channel is listened to again; `onReconnect` hears of it, since
   * notices sent meanwhile are gone (a listener then looks for what it missed). Returns the
   * unsubscribe.
   */
  async listen(channel: string, handler: (payload: string) => void, onReconnect?: () => void): Promise<() => void> {
    checkSchemaName(channel);
    let handlers = this.handlers.get(channel);
    if (!handlers) this.handlers.set(channel, (handlers = new Set()));
    handlers.add(handler);
    if (onReconnect) this.reconnectHandlers.add(onReconnect);
    const unsubscribe = () => {
      handlers.delete(handler);
      if (onReconnect) this.reconnectHandlers.delete(onReconnect);
    };
    try {
      const client = await this.listenerClient();
      if (!this.listened.has(channel)) {
        await client.query(`LISTEN ${channel}`);
        this.listened.add(channel);
      }
    } catch (error) {
      // Not listening (the server unreachable): the caller is told and may try again, which LISTENs then.
      unsubscribe();
      throw error;
    }
    return unsubscribe;
  }

  private listenerClient(): Promise<pg.PoolClient> {
    this.listening ??= (async () => {
      const client = await this.pool.connect();
      client.on('notification', (message) => {
        for (const handler of this.handlers.get(message.channel) ?? []) {
          try {
            handler(message.payload ?? '');
          } catch {
            // a handler's failure is its own (each catches and logs); the others still hear
          }
        }
      });
      client.on('error', () => {
        // Dropped (the server restarted): listen again on a new connection in a second.
        client.release(true);
        this.listener = undefined;
        this.listening = undefined;
        this.listened.clear();
        if (this.closed) return;
        const retry = setTimeout(() => void this.relisten(), 1_000);
        retry.unref();
      });
      this.listener = client;
      return client;
    })();
    this.listening.catch(() => {
      this.listening = undefined;
    });
    return this.listening;
  }

  private async relisten(): Promise<void> {
    if (this.closed) return;
    try {
      const client = await this.listenerClient();
      for (const channel of this.handlers.keys()) {
        await client.query(`LISTEN ${channel}`);
        this.listened.add(channel);
      }
      for (const handler of this.reconnectHandlers) handler();
    } catch {
      const retry = setTimeout(() => void this.relisten(), 1_000);
      retry.unref();
    }
  }

  /** Sends `payload` to every relay listening on `channel` (delivered when the sending transaction commits; at once outside one). */
  async notify(channel: string, payload: string): Promise<void> {
    checkSchemaName(channel);
    await this.pool.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.listener?.release(true);
    this.listener = undefined;
    await this.pool.end();
  }
}
