import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { systemClock, type Clock } from '../runtime/clock.ts';
import { pgKeyMigrations, pgMigrations } from './pg-migrations.ts';
import { checkSchemaName, migratePostgres, openPool, redactUrl, safeMessage } from './postgres.ts';
import { attachQueries } from './tables.ts';

/**
 * The schema of what the relays on one API key share whatever the agency: the CRM gate (its
 * per-second slots and the day's count), the geocoder's turns (geocoder_gate) and the registry of
 * relays.
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

/**
 * A relay as the registry names it: the random id kept in its DATA_DIR (store/relay-identity.ts),
 * with its host and DATA_DIR for people to read, and this process's nonce (new at every start).
 */
export interface RelayIdentity {
  id: string;
  host: string;
  dataDir: string;
  version: string;
  /** This process's own (random, new at every start): two live processes with one id differ here. */
  nonce: string;
  pid: number;
}

/** Another live process holds this relay's id: refused at start (nothing of the relay is running yet). */
export class RelayIdConflictError extends Error {
  constructor(
    readonly relay: RelayIdentity,
    readonly other: { host: string; dataDir: string; pid: number | null },
  ) {
    super(
      `DATABASE_URL: another relay process is running with this relay's id ${relay.id} (from ${relay.dataDir}/relay-id): ` +
        `pid ${other.pid ?? '?'} on host ${other.host}, DATA_DIR ${other.dataDir}, heard from within the last ${RELAY_ALIVE_MS / 1000} s. ` +
        `Two relays share one DATA_DIR or a copy of it (a cloned volume or image), and would both hold the same sync leases and enquiry claims. ` +
        `Give each relay its own DATA_DIR: if this one is a copy, stop it, delete ${relay.dataDir}/relay-id (a new id is made at the next start) and start it again; ` +
        `if it is the same DATA_DIR, run one relay on it.`,
    );
    this.name = 'RelayIdConflictError';
  }
}

export interface RelaySeen {
  id: string;
  host: string;
  dataDir: string;
  version: string;
  /** The process that holds the id now or held it last (null: a relay from before pids were recorded). */
  pid: number | null;
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
    pid: number | null;
    started_at: number;
    last_seen: number;
    clock_offset_ms: number | null;
  }>(`SELECT id, host, data_dir, version, pid, started_at, last_seen, clock_offset_ms FROM ${KEY_SCHEMA}.relays ORDER BY last_seen DESC, id`);
  return rows.map((row) => ({
    id: row.id,
    host: row.host,
    dataDir: row.data_dir,
    version: row.version,
    pid: row.pid,
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

  private relay: RelayIdentity | undefined;

  /**
   * Takes this relay's row of the registry for this process: inserted, or taken over when its
   * last process stopped cleanly (nonce NULL) or has not been heard from for RELAY_ALIVE_MS.
   * False when another process with this id is alive (by the row), the row left as it was.
   */
  private async claimRow(relay: RelayIdentity): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      // The database's clock: relays' clocks need not agree for "alive" to mean the same to all.
      `INSERT INTO ${KEY_SCHEMA}.relays AS relays (id, host, data_dir, version, started_at, last_seen, nonce, pid)
       VALUES ($1, $2, $3, $4, ${DB_NOW}, ${DB_NOW}, $5, $6)
       ON CONFLICT (id) DO UPDATE SET host = EXCLUDED.host, data_dir = EXCLUDED.data_dir, version = EXCLUDED.version,
         started_at = CASE WHEN relays.nonce IS NOT DISTINCT FROM EXCLUDED.nonce THEN relays.started_at ELSE EXCLUDED.started_at END,
         last_seen = EXCLUDED.last_seen, nonce = EXCLUDED.nonce, pid = EXCLUDED.pid
       WHERE relays.nonce IS NULL OR relays.nonce = EXCLUDED.nonce OR relays.last_seen <= ${DB_NOW} - $7`,
      [relay.id, relay.host, relay.dataDir, relay.version, relay.nonce, relay.pid, RELAY_ALIVE_MS],
    );
    return rowCount === 1;
  }

  private async readRow(
    id: string,
  ): Promise<{ nonce: string | null; host: string; dataDir: string; pid: number | null; lastSeen: number; now: number } | undefined> {
    const { rows } = await this.pool.query<{ nonce: string | null; host: string; data_dir: string; pid: number | null; last_seen: string; now: string }>(
      `SELECT nonce, host, data_dir, pid, last_seen, ${DB_NOW} AS now FROM ${KEY_SCHEMA}.relays WHERE id = $1`,
      [id],
    );
    const row = rows[0];
    return row && { nonce: row.nonce, host: row.host, dataDir: row.data_dir, pid: row.pid, lastSeen: Number(row.last_seen), now: Number(row.now) };
  }

  /**
   * Takes the relay's id for this process, or refuses (RelayIdConflictError) while another
   * process holding it is alive. A row that still looks alive (its process killed within the
   * last RELAY_ALIVE_MS: a crash and a quick restart) is watched until it lapses: a live process
   * renews it within HEARTBEAT_MS, which refuses this one; a dead one does not, and this process
   * takes the id after at most RELAY_ALIVE_MS. A relay that stopped cleanly released its row
   * (close): its restart takes the id at once.
   */
  private async claim(relay: RelayIdentity): Promise<void> {
    const deadline = Date.now() + RELAY_ALIVE_MS + HEARTBEAT_MS;
    let first: number | undefined;
    for (;;) {
      if (await this.claimRow(relay)) return;
      const row = await this.readRow(relay.id);
      if (!row) continue; // Forgotten meanwhile: insert it.
      first ??= row.lastSeen;
      // Renewed since it was first read (or still renewed past the longest wait): that process is alive.
      if (row.lastSeen > first || Date.now() > deadline) throw new RelayIdConflictError(relay, row);
      const lapsesIn = row.lastSeen + RELAY_ALIVE_MS - row.now;
      await new Promise((resolve) => setTimeout(resolve, Math.min(Math.max(lapsesIn, 50), this.claimPollMs)));
    }
  }

  /** How often a claim waiting for a row to lapse looks at it again (tests shorten it). */
  claimPollMs = 500;

  /**
   * Records this relay in the registry (relays), refusing (RelayIdConflictError) while another
   * live process holds its id, and keeps its last_seen fresh every HEARTBEAT_MS, reading how
   * many relays are alive (the CRM gate's share without the database). `onDisplaced`: another
   * process took the id while this one went unheard for RELAY_ALIVE_MS (the database out of
   * reach, the process stopped); this one must stop, or both would hold the same claims.
   * Each beat also measures this relay's clock against the database's (recorded as
   * clock_offset_ms, for `status`); `onClockOffset` hears when the offset goes beyond
   * CLOCK_OFFSET_WARN_MS (at the first beat too) and when it comes back within it.
   */
  async startHeartbeat(
    relay: RelayIdentity,
    handlers: {
      onError?: (error: unknown) => void;
      onDisplaced?: (error: RelayIdConflictError) => void;
      onClockOffset?: (offsetMs: number, tooLarge: boolean) => void;
    } = {},
  ): Promise<void> {
    const { onError, onDisplaced, onClockOffset } = handlers;
    await this.claim(relay);
    this.relay = relay;
    this.relayId = relay.id;
    // Relays gone for good (a host retired, a DATA_DIR moved) leave the list after a week.
    await this.pool.query(`DELETE FROM ${KEY_SCHEMA}.relays WHERE last_seen < ${DB_NOW} - $1`, [RELAY_FORGET_MS]);
    let displaced = false;
    const beat = async () => {
      if (displaced || this.closed) return;
      // The offset: this relay's clock as the statement leaves, minus the database's as it runs
      // (off by the one-way trip, milliseconds, against a warning at seconds).
      const { rows: beaten, rowCount } = await this.pool.query<{ clock_offset_ms: string }>(
        `UPDATE ${KEY_SCHEMA}.relays SET last_seen = ${DB_NOW}, version = $3, clock_offset_ms = $4::bigint - ${DB_NOW}
         WHERE id = $1 AND nonce = $2 RETURNING clock_offset_ms`,
        [relay.id, relay.nonce, relay.version, Math.round(this.now())],
      );
      // Not ours any more (taken by another process, or deleted): take it back unless another process holding it is alive.
      if (rowCount !== 1 && !(await this.claimRow(relay))) {
        displaced = true;
        const row = await this.readRow(relay.id);
        onDisplaced?.(new RelayIdConflictError(relay, row ?? { host: '?', dataDir: '?', pid: null }));
        return;
      }
      if (beaten[0]) {
        const offset = Number(beaten[0].clock_offset_ms);
        const wasTooLarge = this.offset !== undefined && clockOffsetTooLarge(this.offset);
        this.offset = offset;
        if (clockOffsetTooLarge(offset) !== wasTooLarge) onClockOffset?.(offset, !wasTooLarge);
      }
      const { rows } = await this.pool.query<{ alive: number }>(`SELECT count(*)::int AS alive FROM ${KEY_SCHEMA}.relays WHERE last_seen > ${DB_NOW} - $1`, [
        RELAY_ALIVE_MS,
      ]);
      this.alive = Math.max(1, rows[0]!.alive);
    };
    await beat();
    this.heartbeatTimer = setInterval(() => void beat().catch((error: unknown) => onError?.(error)), HEARTBEAT_MS);
    this.heartbeatTimer.unref();
  }

  /** This relay's id in the registry (DATA_DIR/relay-id), once startHeartbeat has been called. */
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
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    // Stopped cleanly: a restart on this DATA_DIR takes the id at once (a crash leaves it to lapse).
    if (this.relay)
      await this.pool
        .query(`UPDATE ${KEY_SCHEMA}.relays SET nonce = NULL WHERE id = $1 AND nonce = $2`, [this.relay.id, this.relay.nonce])
        .catch(() => undefined);
    this.listener?.release(true);
    this.listener = undefined;
    await this.pool.end();
  }
}
