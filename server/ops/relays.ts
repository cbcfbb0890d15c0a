import { SharedGate } from '../crm/shared-gate.ts';
import { utcDay } from '../crm/limiter.ts';
import { openPool, redactUrl, safeMessage } from '../store/postgres.ts';
import { DB_NOW, KEY_SCHEMA, listRelays, RELAY_ALIVE_MS, type RelaySeen } from '../store/shared-database.ts';

/** What `status` shows of the shared store (DATABASE_URL): the relays seen and the key's count today across them. */
export interface SharedStatus {
  database: string;
  relays: Array<RelaySeen & { alive: boolean; lastSeenSecondsAgo: number }>;
  /** Requests today by every relay on the key (null: no CRM_API_KEY to name it by). */
  crmUsedToday: number | null;
}

/** Reads the relay registry and the key's day on the shared database; throws a message naming DATABASE_URL, never its password. */
export async function readSharedStatus(url: string, apiKey: string | undefined, now = new Date()): Promise<SharedStatus> {
  const pool = openPool(url, { poolSize: 1 });
  try {
    const [relays, clock] = await Promise.all([listRelays(pool), pool.query<{ now: number }>(`SELECT ${DB_NOW} AS now`)]);
    // The database's clock, as the heartbeats are: "alive" means the same here as to the relays.
    const dbNow = Number(clock.rows[0]!.now);
    let crmUsedToday: number | null = null;
    if (apiKey) {
      const gate = new SharedGate({ pool, apiKey, requestsPerSecond: 1, holdMs: 0, leaseMs: 0, holder: 'status' });
      crmUsedToday = await gate.used(utcDay(now));
    }
    return {
      database: redactUrl(url),
      relays: relays.map((relay) => ({ ...relay, alive: dbNow - relay.lastSeen < RELAY_ALIVE_MS, lastSeenSecondsAgo: Math.max(0, Math.round((dbNow - relay.lastSeen) / 1000)) })),
      crmUsedToday,
    };
  } catch (error) {
    const message = safeMessage(error, url);
    throw new Error(`DATABASE_URL: could not read the shared store at ${redactUrl(url)}: ${/relation .* does not exist/.test(message) ? `no relay has started on it yet (${KEY_SCHEMA}.relays is missing)` : message}`);
  } finally {
    await pool.end().catch(() => {});
  }
}

/** The lines of `status` for the shared store. */
export function formatSharedStatus(status: SharedStatus, dailyLimit: number): string {
  const alive = status.relays.filter((relay) => relay.alive).length;
  return [
    `Shared store    PostgreSQL ${status.database}`,
    ...(status.crmUsedToday === null ? [] : [`CRM requests    ${status.crmUsedToday} of ${dailyLimit} today by every relay on the key`]),
    `Relays          ${status.relays.length} seen, ${alive} alive (heard from within ${RELAY_ALIVE_MS / 1000} s)`,
    ...status.relays.map(
      (relay) =>
        `  ${relay.alive ? 'alive' : 'gone '}  ${relay.id}  version ${relay.version}, started ${new Date(relay.startedAt).toISOString()}, last seen ${relay.lastSeenSecondsAgo} s ago`,
    ),
  ].join('\n');
}
