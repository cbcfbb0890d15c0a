import type pg from 'pg';
import { SharedGate } from '../cluster/shared-gate.ts';
import { utcDay } from '../crm/limiter.ts';
import { checkSchemaName, openPool, redactUrl, safeMessage } from '../store/postgres.ts';
import { SYNC_LEASE } from '../cluster/sync-lease.ts';
import {
  agencySchema,
  CLOCK_OFFSET_WARN_MS,
  clockOffsetTooLarge,
  DB_NOW,
  describeClockOffset,
  KEY_SCHEMA,
  listRelays,
  RELAY_ALIVE_MS,
  type RelaySeen,
} from '../store/shared-database.ts';

/**
 * Who runs an agency's sync: `held` by a relay until its lease expires, `expired` (the holder
 * stopped renewing: dead or cut off; the next relay to try takes it over), or `none` (no relay
 * has taken it yet).
 */
export interface SyncHolder {
  /** The agency's PostgreSQL schema (public: the one agency of a relay without AGENCIES_FILE). */
  schema: string;
  state: 'held' | 'expired' | 'none';
  /** The holder's registry id (the random id in its DATA_DIR/relay-id), for held and expired leases. */
  relay: string | null;
  /** The holder's host, from the registry (null: not in it any more). */
  host: string | null;
  epoch: number | null;
  /** Seconds until the lease expires (negative: expired that long ago). */
  expiresInSeconds: number | null;
}

/** An agency whose sync no relay has taken yet. */
function noHolder(schema: string): SyncHolder {
  return { schema, state: 'none', relay: null, host: null, epoch: null, expiresInSeconds: null };
}

type RelayRow = RelaySeen & { alive: boolean; lastSeenSecondsAgo: number };

/** What `status` shows of the shared store (DATABASE_URL): the relays seen and the key's count today across them. */
export interface SharedStatus {
  database: string;
  relays: Array<RelayRow & { /** Agencies whose sync this relay holds now (lease not expired). */ syncsHeld: number }>;
  /** Requests today by every relay on the key (null: no CRM_API_KEY to name it by). */
  crmUsedToday: number | null;
  /** Every agency schema's sync holder on the database. */
  syncs: SyncHolder[];
  /** Each live relay's copy of each agency it follows (the holder's own is the source: left out). */
  copies: ReplicaCopy[];
}

/** A relay's copy of an agency's synced tables, as it last recorded it (server/cluster/replica.ts). */
export interface ReplicaCopy {
  schema: string;
  relay: string;
  /** Seconds since the copy last held everything the holder had published (the database's clock). */
  lagSeconds: number;
  /** Copied rows set aside (not applied) since that relay started. */
  setAside: number;
}

/** The agencies' schemas that have a given table (names checked: they are written into queries unquoted). */
async function schemasWith(pool: pg.Pool, table: string): Promise<string[]> {
  const { rows } = await pool.query<{ schema: string }>(
    `SELECT table_schema AS schema FROM information_schema.tables
     WHERE table_name = $1 AND (table_schema = 'public' OR table_schema LIKE 'agency\\_%') ORDER BY 1`,
    [table],
  );
  return rows
    .map((row) => row.schema)
    .filter((schema) => {
      try {
        checkSchemaName(schema);
        return true;
      } catch {
        return false;
      }
    });
}

/** Every live follower's copy of every agency schema, in two queries (as readSyncHolders). */
export async function readReplicaCopies(pool: pg.Pool, alive: ReadonlySet<string>, syncs: SyncHolder[]): Promise<ReplicaCopy[]> {
  const names = await schemasWith(pool, 'replica_copies');
  if (!names.length) return [];
  const union = names
    .map((schema) => `SELECT '${schema}' AS schema, relay, caught_up_at, set_aside, ${DB_NOW} AS now FROM ${schema}.replica_copies`)
    .join(' UNION ALL ');
  const { rows } = await pool.query<{ schema: string; relay: string; caught_up_at: string; set_aside: string; now: string }>(union);
  const holderOf = new Map(syncs.filter((sync) => sync.state === 'held').map((sync) => [sync.schema, sync.relay]));
  return rows
    .filter((row) => alive.has(row.relay) && holderOf.get(row.schema) !== row.relay)
    .map((row) => ({
      schema: row.schema,
      relay: row.relay,
      lagSeconds: Math.max(0, Math.round((Number(row.now) - Number(row.caught_up_at)) / 1000)),
      setAside: Number(row.set_aside),
    }));
}

/**
 * The listing-sync lease of every agency schema on the database, in two queries whatever their
 * number: which schemas have a sync_lease table, then one UNION ALL over them. Schemas whose
 * table has no row come back as `none`.
 */
export async function readSyncHolders(pool: pg.Pool, relays: RelaySeen[]): Promise<SyncHolder[]> {
  // Names come from the catalogue; checked anyway, since they are written into the query unquoted.
  const names = await schemasWith(pool, 'sync_lease');
  if (!names.length) return [];
  const union = names
    .map((schema) => `SELECT '${schema}' AS schema, holder, epoch, expires_at, ${DB_NOW} AS now FROM ${schema}.sync_lease WHERE name = $1`)
    .join(' UNION ALL ');
  const { rows } = await pool.query<{ schema: string; holder: string; epoch: number; expires_at: number; now: number }>(union, [SYNC_LEASE]);
  const leases = new Map(rows.map((row) => [row.schema, row]));
  const hostOf = new Map(relays.map((relay) => [relay.id, relay.host]));
  return names.map((schema): SyncHolder => {
    const lease = leases.get(schema);
    if (!lease) return noHolder(schema);
    const left = Number(lease.expires_at) - Number(lease.now);
    return {
      schema,
      state: left > 0 ? 'held' : 'expired',
      relay: lease.holder,
      host: hostOf.get(lease.holder) ?? null,
      epoch: Number(lease.epoch),
      expiresInSeconds: Math.round(left / 1000),
    };
  });
}

/** A message naming DATABASE_URL (never its password) for a failed read of the shared store. */
function sharedReadError(error: unknown, url: string): Error {
  const message = safeMessage(error, url);
  return new Error(
    `DATABASE_URL: could not read the shared store at ${redactUrl(url)}: ${/relation .* does not exist/.test(message) ? `no relay has started on it yet (${KEY_SCHEMA}.relays is missing)` : message}`,
  );
}

/** Reads the relay registry, the agencies' sync holders and the key's day on the shared database; throws a message naming DATABASE_URL, never its password. */
export async function readSharedStatus(url: string, apiKey: string | undefined, now = new Date()): Promise<SharedStatus> {
  const pool = openPool(url, { poolSize: 1 });
  try {
    const [relays, clock] = await Promise.all([listRelays(pool), pool.query<{ now: number }>(`SELECT ${DB_NOW} AS now`)]);
    const syncs = await readSyncHolders(pool, relays);
    // The database's clock, as the heartbeats are: "alive" means the same here as to the relays.
    const dbNow = Number(clock.rows[0]!.now);
    const alive = new Set(relays.filter((relay) => dbNow - relay.lastSeen < RELAY_ALIVE_MS).map((relay) => relay.id));
    const copies = await readReplicaCopies(pool, alive, syncs);
    let crmUsedToday: number | null = null;
    if (apiKey) {
      const gate = new SharedGate({ pool, apiKey, requestsPerSecond: 1, holdMs: 0, leaseMs: 0, holder: 'status' });
      crmUsedToday = await gate.used(utcDay(now));
    }
    return {
      database: redactUrl(url),
      relays: relays.map((relay) => ({
        ...relay,
        alive: dbNow - relay.lastSeen < RELAY_ALIVE_MS,
        lastSeenSecondsAgo: Math.max(0, Math.round((dbNow - relay.lastSeen) / 1000)),
        syncsHeld: syncs.filter((sync) => sync.state === 'held' && sync.relay === relay.id).length,
      })),
      crmUsedToday,
      syncs,
      copies,
    };
  } catch (error) {
    throw sharedReadError(error, url);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** Each agency's sync holder, by slug (`agencies` with DATABASE_URL); an agency without a schema yet is `none`. */
export async function readAgencySyncHolders(url: string, slugs: string[]): Promise<Map<string, SyncHolder>> {
  const pool = openPool(url, { poolSize: 1 });
  try {
    // No registry yet (no relay started): holders are named by their id alone.
    const relays = await listRelays(pool).catch(() => []);
    const bySchema = new Map((await readSyncHolders(pool, relays)).map((sync) => [sync.schema, sync]));
    return new Map(
      slugs.map((slug) => {
        const schema = agencySchema(slug);
        return [slug, bySchema.get(schema) ?? noHolder(schema)];
      }),
    );
  } catch (error) {
    throw sharedReadError(error, url);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** How a sync holder reads in a table cell: the holding relay's host (its id when not in the registry), or none / expired. */
export function describeSyncHolder(sync: SyncHolder): string {
  if (sync.state === 'none') return 'none';
  const who = sync.host ?? sync.relay ?? '?';
  return sync.state === 'held' ? who : `expired (${who})`;
}

/** The lines of `status` for the shared store; `singleAgencySchema`: the one agency shown (no AGENCIES_FILE, or --agency), whose sync holder is named. */
export function formatSharedStatus(
  status: SharedStatus,
  dailyLimit: number,
  options: {
    singleAgencySchema?: string;
    /** With AGENCIES_FILE: the schemas of the agencies it lists (a removed agency's lease is left out). */ agencySchemas?: string[];
  } = {},
): string {
  const alive = status.relays.filter((relay) => relay.alive).length;
  const skewed = status.relays.filter((relay) => relay.alive && relay.clockOffsetMs !== null && clockOffsetTooLarge(relay.clockOffsetMs));
  const counted = options.agencySchemas ? new Set(options.agencySchemas) : undefined;
  const agencies = counted ? status.syncs.filter((sync) => counted.has(sync.schema)) : status.syncs;
  const held = agencies.filter((sync) => sync.state === 'held').length;
  const expired = agencies.filter((sync) => sync.state === 'expired');
  const single = options.singleAgencySchema === undefined ? undefined : status.syncs.find((sync) => sync.schema === options.singleAgencySchema);
  const syncLine =
    options.singleAgencySchema !== undefined
      ? `Sync held by    ${
          !single || single.state === 'none'
            ? 'no relay yet'
            : single.state === 'held'
              ? `${single.relay} (${single.host ?? 'not in the registry'}, lease ${single.epoch}, ${single.expiresInSeconds} s left)`
              : `nobody: ${single.relay}'s lease expired ${-single.expiresInSeconds!} s ago (another relay takes it over)`
        }`
      : `Syncs           ${held} of ${counted?.size ?? status.syncs.length} agencies held by a relay` +
        (expired.length
          ? `; ${expired.length} EXPIRED (taken over at the next try): ${expired
              .slice(0, 10)
              .map((sync) => sync.schema)
              .join(', ')}${expired.length > 10 ? ', …' : ''}`
          : '');
  return [
    `Shared store    PostgreSQL ${status.database}`,
    ...(status.crmUsedToday === null ? [] : [`CRM requests    ${status.crmUsedToday} of ${dailyLimit} today by every relay on the key`]),
    syncLine,
    ...copiesLines(status.copies, options.singleAgencySchema, counted),
    `Relays          ${status.relays.length} seen, ${alive} alive (heard from within ${RELAY_ALIVE_MS / 1000} s)`,
    ...status.relays.map(
      (relay) =>
        `  ${relay.alive ? 'alive' : 'gone '}  ${relay.id}  ${relay.host}:${relay.dataDir}${relay.alive && relay.pid !== null ? ` pid ${relay.pid}` : ''}, version ${relay.version}, started ${new Date(relay.startedAt).toISOString()}, last seen ${relay.lastSeenSecondsAgo} s ago, ` +
        `holds ${relay.syncsHeld} ${relay.syncsHeld === 1 ? 'sync' : 'syncs'}${clockOf(relay.clockOffsetMs)}`,
    ),
    // Shared times are the database's, so nothing breaks; but a host's clock this far off is worth fixing.
    ...(skewed.length
      ? [
          `Clocks          ${skewed.length} alive ${skewed.length === 1 ? 'relay is' : 'relays are'} more than ${CLOCK_OFFSET_WARN_MS / 1000} s off the database's clock (check their time sync, NTP): ${skewed
            .map((relay) => `${relay.id} ${describeClockOffset(relay.clockOffsetMs!)}`)
            .join('; ')}`,
        ]
      : []),
  ].join('\n');
}

/**
 * The followers' copies: each relay's lag and rows set aside for the one agency shown, else the
 * copy furthest behind and the rows set aside over every agency.
 */
function copiesLines(copies: ReplicaCopy[], singleAgencySchema: string | undefined, counted: ReadonlySet<string> | undefined): string[] {
  const shown = copies.filter((copy) =>
    singleAgencySchema !== undefined ? copy.schema === singleAgencySchema : counted === undefined || counted.has(copy.schema),
  );
  if (shown.length === 0) return [];
  const aside = (count: number) => (count > 0 ? `, ${count} ${count === 1 ? 'row' : 'rows'} SET ASIDE (not applied; see the relay's log)` : '');
  if (singleAgencySchema !== undefined) {
    return [
      `Copies          ${shown
        .sort((a, b) => a.relay.localeCompare(b.relay))
        .map((copy) => `${copy.relay} ${copy.lagSeconds} s behind${aside(copy.setAside)}`)
        .join('; ')}`,
    ];
  }
  const furthest = shown.reduce((worst, copy) => (copy.lagSeconds > worst.lagSeconds ? copy : worst));
  return [
    `Copies          ${shown.length} followed; furthest behind ${furthest.lagSeconds} s (${furthest.schema} on ${furthest.relay})${aside(shown.reduce((total, copy) => total + copy.setAside, 0))}`,
  ];
}

/** A relay's clock offset at its last heartbeat, for its status line ('' for a relay that did not say). */
function clockOf(offsetMs: number | null): string {
  if (offsetMs === null) return '';
  const seconds = `${offsetMs >= 0 ? '+' : '-'}${(Math.abs(offsetMs) / 1000).toFixed(1)} s`;
  return clockOffsetTooLarge(offsetMs) ? `, clock ${seconds} off the database's: OVER ${CLOCK_OFFSET_WARN_MS / 1000} s` : `, clock ${seconds}`;
}
