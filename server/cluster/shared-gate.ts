import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Config } from '../runtime/config.ts';
import { DEFAULT_SAFETY_MARGIN_MS, type KeyGate, type SharedTake } from '../crm/key-gate.ts';
import { DB_NOW, KEY_SCHEMA, type SharedDatabase } from '../store/shared-database.ts';

/**
 * The CRM's limits of one API key held in PostgreSQL, for every relay on the database (DATABASE_URL).
 *
 * Per second: `requestsPerSecond` slot rows (crm_slots). A relay takes a free one (FOR UPDATE SKIP
 * LOCKED, so relays never wait on each other's row locks) before sending, holding it until its
 * answer has come back plus one second: the rule of the local gate (limiter.ts), now across
 * relays, so at most N requests can arrive at the CRM within any second whatever the latency. The
 * times are the database's clock, so relays' clocks need not agree. A slot's holder that dies
 * frees it at its lease (the request timeout plus the hold: any request it sent has arrived or
 * failed by then).
 *
 * Per day: one row per UTC day with the count, spent in the same statement as the slot is taken
 * ("add one if below the limit"), so a request is counted once whichever relay sends it.
 */
export interface SharedGateOptions {
  pool: pg.Pool;
  apiKey: string;
  requestsPerSecond: number;
  /** How long a slot stays taken after its answer (1 s and a margin). */
  holdMs: number;
  /** How long a slot taken by a relay that never answers stays taken: the request timeout plus holdMs. */
  leaseMs: number;
  /** Who holds a slot (the relay's id), for an operator looking at the table. */
  holder: string;
}

export class SharedGate implements KeyGate {
  /** The key as the tables name it: a digest, never the key. */
  readonly keyId: string;
  private seeded = false;

  constructor(private readonly options: SharedGateOptions) {
    this.keyId = createHash('sha256').update('estate-embed crm key\0').update(options.apiKey).digest('hex').slice(0, 32);
  }

  /**
   * Takes a slot and counts the request against `day` in one statement, if a slot is free and the
   * day's count is below `limit`; else says how long until a slot frees, or that the day is spent.
   */
  async take(day: string, limit: number): Promise<SharedTake> {
    await this.seed();
    const { rows } = await this.options.pool.query<{
      slot: number | null;
      take: number | null;
      used: number | null;
      free: number;
      wait_ms: number | null;
      day_used: number | null;
    }>({
      name: 'crm-gate-take',
      text: `
        WITH free AS (
          SELECT slot FROM ${KEY_SCHEMA}.crm_slots
          WHERE key_id = $1 AND slot < $2 AND free_at <= ${DB_NOW}
          ORDER BY free_at, slot LIMIT 1 FOR UPDATE SKIP LOCKED
        ), spent AS (
          INSERT INTO ${KEY_SCHEMA}.crm_budget AS budget (key_id, day, used) SELECT $1, $3, 1 FROM free
          ON CONFLICT (key_id, day) DO UPDATE SET used = budget.used + 1 WHERE budget.used < $4
          RETURNING used
        ), taken AS (
          UPDATE ${KEY_SCHEMA}.crm_slots AS s SET free_at = ${DB_NOW} + $5, holder = $6, take = s.take + 1
          FROM free WHERE s.key_id = $1 AND s.slot = free.slot AND EXISTS (SELECT 1 FROM spent)
          RETURNING s.slot, s.take
        )
        SELECT (SELECT slot FROM taken) AS slot, (SELECT take FROM taken) AS take, (SELECT used FROM spent) AS used,
          (SELECT count(*)::int FROM free) AS free,
          (SELECT min(free_at) FROM ${KEY_SCHEMA}.crm_slots WHERE key_id = $1 AND slot < $2) - ${DB_NOW} AS wait_ms,
          (SELECT used FROM ${KEY_SCHEMA}.crm_budget WHERE key_id = $1 AND day = $3) AS day_used`,
      values: [this.keyId, this.options.requestsPerSecond, day, limit, this.options.leaseMs, this.options.holder],
    });
    const row = rows[0]!;
    if (row.slot !== null && row.take !== null && row.used !== null) return { kind: 'granted', slot: row.slot, take: row.take, used: row.used };
    if (row.free > 0) return { kind: 'spent', used: row.day_used ?? limit };
    // Every slot is taken: wake when the first frees (at least 1 ms; a slot in flight frees at its lease at worst).
    return { kind: 'wait', waitMs: Math.max(1, Math.min(Number(row.wait_ms ?? 50), this.options.holdMs)) };
  }

  /** The answer came back (`sent`) or nothing was sent: the slot frees one hold from now, or at once. */
  async release(slot: number, take: number, sent: boolean): Promise<void> {
    await this.options.pool.query({
      name: 'crm-gate-release',
      text: `UPDATE ${KEY_SCHEMA}.crm_slots SET free_at = ${DB_NOW} + $4, holder = NULL WHERE key_id = $1 AND slot = $2 AND take = $3`,
      values: [this.keyId, slot, take, sent ? this.options.holdMs : 0],
    });
  }

  /** The day's count by every relay. */
  async used(day: string): Promise<number> {
    const { rows } = await this.options.pool.query<{ used: number }>({
      name: 'crm-gate-used',
      text: `SELECT used FROM ${KEY_SCHEMA}.crm_budget WHERE key_id = $1 AND day = $2`,
      values: [this.keyId, day],
    });
    return rows[0]?.used ?? 0;
  }

  /** Adds requests sent while the database was out of reach, or raises the count to what the CRM reports (`atLeast`). */
  async add(day: string, count: number, atLeast = 0): Promise<number> {
    const { rows } = await this.options.pool.query<{ used: number }>({
      name: 'crm-gate-add',
      text: `INSERT INTO ${KEY_SCHEMA}.crm_budget AS budget (key_id, day, used) VALUES ($1, $2, GREATEST($3::int, $4::int))
             ON CONFLICT (key_id, day) DO UPDATE SET used = GREATEST(budget.used + $3::int, $4::int) RETURNING used`,
      values: [this.keyId, day, count, atLeast],
    });
    return rows[0]!.used;
  }

  /** The key's slot rows, made once (several relays at once: ON CONFLICT DO NOTHING). */
  private async seed(): Promise<void> {
    if (this.seeded) return;
    await this.options.pool.query(
      `INSERT INTO ${KEY_SCHEMA}.crm_slots (key_id, slot) SELECT $1, g FROM generate_series(0, $2::int - 1) AS g ON CONFLICT DO NOTHING`,
      [this.keyId, this.options.requestsPerSecond],
    );
    this.seeded = true;
  }
}

/** The gate of the relay's CRM key (CRM_API_KEY) in the shared database, with the limiter's own hold. */
export function sharedGateOfKey(config: Config, database: SharedDatabase): SharedGate {
  const holdMs = 1000 + DEFAULT_SAFETY_MARGIN_MS;
  return new SharedGate({
    pool: database.pool,
    apiKey: config.crm.apiKey!,
    requestsPerSecond: config.crm.requestsPerSecond,
    holdMs,
    leaseMs: config.crm.timeoutMs + holdMs,
    holder: database.relayId,
  });
}
