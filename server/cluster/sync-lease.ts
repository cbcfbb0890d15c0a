import { sql, type Kysely, type Transaction } from 'kysely';
import { DB_NOW } from '../store/shared-database.ts';

/** The lease row of an agency's listing sync (table sync_lease, pg migration 020, in the agency's schema). */
export const SYNC_LEASE = 'listings-sync';
/** How long a lease holds without renewal: the longest an agency's sync waits after its relay died. */
export const SYNC_LEASE_MS = 15_000;

type LeaseTables = {
  sync_lease: { name: string; holder: string; epoch: number; acquired_at: number; expires_at: number };
};

/** Who holds an agency's sync lease, as the database says now. */
export interface LeaseHolder {
  holder: string;
  epoch: number;
  acquiredAt: number;
  expiresAt: number;
  /** Whether expires_at is still ahead on the database's clock. */
  live: boolean;
}

/**
 * One agency's sync lease in PostgreSQL: whichever relay holds it runs the agency's sync (one at a
 * time, whatever the number of relays). Times are the database's clock, so relays' clocks need not
 * agree. A lease not renewed lapses after `leaseMs`, and another relay takes it: the epoch grows at
 * every change of holder, and a publish checks it (fenced) under the row's lock, so a relay that
 * stalled past its lease cannot write over its successor's work.
 */
export class SyncLease {
  /** The epoch of the term this relay holds (undefined: not holding). */
  private term: number | undefined;

  constructor(
    private readonly db: Kysely<{}>,
    /** This relay's id in the registry (shared-database.ts relayId). */
    readonly holder: string,
    readonly leaseMs = SYNC_LEASE_MS,
  ) {}

  private get tables(): Kysely<LeaseTables> {
    return this.db.withTables<LeaseTables>();
  }

  get held(): boolean {
    return this.term !== undefined;
  }

  get epoch(): number | undefined {
    return this.term;
  }

  /**
   * Takes the lease if it is free or lapsed, or renews it if this relay holds it. Returns whether
   * this relay holds it now. A renewal that finds a new term (the lease lapsed, even if nobody else
   * took it) counts as lost: `held` goes false and the caller steps down before taking it again.
   */
  async acquireOrRenew(): Promise<boolean> {
    const { rows } = await sql<{ epoch: number }>`
      INSERT INTO sync_lease (name, holder, epoch, acquired_at, expires_at)
      VALUES (${SYNC_LEASE}, ${this.holder}, 1, ${sql.raw(DB_NOW)}, ${sql.raw(DB_NOW)} + ${this.leaseMs})
      ON CONFLICT (name) DO UPDATE SET
        epoch = CASE WHEN sync_lease.holder = EXCLUDED.holder AND sync_lease.expires_at > EXCLUDED.acquired_at THEN sync_lease.epoch ELSE sync_lease.epoch + 1 END,
        acquired_at = CASE WHEN sync_lease.holder = EXCLUDED.holder AND sync_lease.expires_at > EXCLUDED.acquired_at THEN sync_lease.acquired_at ELSE EXCLUDED.acquired_at END,
        holder = EXCLUDED.holder,
        expires_at = EXCLUDED.expires_at
      WHERE sync_lease.holder = EXCLUDED.holder OR sync_lease.expires_at <= EXCLUDED.acquired_at
      RETURNING epoch`.execute(this.db);
    const epoch = rows[0]?.epoch;
    if (epoch === undefined) {
      this.term = undefined;
      return false;
    }
    if (this.term !== undefined && this.term !== epoch) {
      // Lapsed and taken again: a new term, begun by the caller after stepping down.
      this.term = undefined;
      return false;
    }
    this.term = epoch;
    return true;
  }

  /** Lets the lease go at once (a relay stopping): another relay takes the sync at its next try. */
  async release(): Promise<void> {
    const epoch = this.term;
    this.term = undefined;
    if (epoch === undefined) return;
    await this.tables
      .updateTable('sync_lease')
      .set({ expires_at: 0 })
      .where('name', '=', SYNC_LEASE)
      .where('holder', '=', this.holder)
      .where('epoch', '=', epoch)
      .execute();
  }

  /** Whether no relay holds the lease now (never held, released, or lapsed). */
  async isFree(): Promise<boolean> {
    const holder = await readLeaseHolder(this.db);
    return !holder?.live;
  }

  /** This relay no longer counts itself the holder (its renewal failed: the database is unreachable, say). */
  forget(): void {
    this.term = undefined;
  }

  /**
   * Inside `trx`, locks the lease row and checks this relay's term is still current and live.
   * Another relay's takeover waits on the lock, so what `trx` writes commits before any successor's.
   */
  async fence(trx: Transaction<{}>): Promise<boolean> {
    if (this.term === undefined) return false;
    const { rows } = await sql<{ ok: number }>`
      SELECT 1 AS ok FROM sync_lease
      WHERE name = ${SYNC_LEASE} AND holder = ${this.holder} AND epoch = ${this.term} AND expires_at > ${sql.raw(DB_NOW)}
      FOR UPDATE`.execute(trx);
    return rows.length === 1;
  }
}

/** Who holds the lease in the schema `db` queries (undefined: no relay ever held it). */
export async function readLeaseHolder(db: Kysely<{}>): Promise<LeaseHolder | undefined> {
  const { rows } = await sql<{ holder: string; epoch: number; acquired_at: number; expires_at: number; live: boolean }>`
    SELECT holder, epoch, acquired_at, expires_at, expires_at > ${sql.raw(DB_NOW)} AS live FROM sync_lease WHERE name = ${SYNC_LEASE}`.execute(db);
  const row = rows[0];
  return row ? { holder: row.holder, epoch: row.epoch, acquiredAt: row.acquired_at, expiresAt: row.expires_at, live: row.live } : undefined;
}
