import type Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import type { Store } from '../store/store.ts';
import { DB_NOW } from '../store/shared-database.ts';
import { queriesOf, tablesOf, type Db } from '../store/tables.ts';
import { SyncLease } from './sync-lease.ts';

/** Rows sent to PostgreSQL per statement when publishing. */
const PUBLISH_BATCH = 500;
/** Rows read per query when following. */
const FOLLOW_BATCH = 2_000;
/** A deleted row's tombstone stays this long (the database's clock), so a following relay sees the delete. */
export const TOMBSTONE_KEEP_MS = 60 * 60_000;
/** A relay that has not caught up for this long (its own clock, against itself) may have missed a tombstone: it copies everything again. */
const REBUILD_AFTER_MS = TOMBSTONE_KEEP_MS / 2;

type ReplicaTables = {
  replica_rows: { tbl: string; pk: string; row: string | null; seq: number; changed_at: number };
};

interface TableShape {
  name: string;
  columns: string[];
  keys: string[];
  /** The rows copied, as an SQL condition on the row its argument names ('NEW.', 'OLD.' or '' for the table's own); undefined: all. */
  rows?: (row: string) => string;
}

/** A table to copy: all its rows, or those `rows` selects (the rest are each relay's own). */
export type ReplicatedTable = string | { name: string; rows: (row: string) => string };

export interface ReplicaOptions {
  /** The relay's own SQLite store of the agency: what the API reads. */
  store: Store;
  /** Kysely on the agency's PostgreSQL schema. */
  shared: Kysely<{}>;
  /**
   * The SQLite tables copied, named by the modules that own them (listings, photos, crm access):
   * what the sync holder writes and every other relay serves.
   */
  tables: readonly ReplicatedTable[];
  /** This relay's clock: how long since it last caught up. Rows' times in PostgreSQL are the database's. */
  now?: () => number;
}

/**
 * An agency's sync-owned tables shared through PostgreSQL. The relay holding the agency's sync
 * lease ("leader") writes its SQLite store as a single relay does, and publishes each changed row
 * (captured by temporary triggers) to replica_rows, fenced by its lease; every other relay
 * ("follower") applies the rows published since it last looked to its own SQLite store and answers
 * from it. So PostgreSQL holds the agency's cache for any relay that starts or takes over, while
 * requests are answered from a local file at SQLite's speed, and still are when PostgreSQL is
 * unreachable. Followers never write these tables but through `catchUp` and `rebuild`.
 */
export class StoreReplica {
  private readonly db: Db;
  private readonly shapes: TableShape[];
  private capturing = false;
  /** The highest seq applied here. */
  private cursor = 0;
  private caughtUpAt = -Infinity;
  private readonly now: () => number;

  constructor(private readonly options: ReplicaOptions) {
    this.db = tablesOf(options.store);
    this.now = options.now ?? Date.now;
    this.shapes = options.tables.map((name) => this.shapeOf(name));
  }

  private shapeOf(table: ReplicatedTable): TableShape {
    const name = typeof table === 'string' ? table : table.name;
    if (!/^[a-z_]+$/.test(name)) throw new Error(`Not a table name: ${name}`);
    const info = this.db.prepare(`PRAGMA table_info(${name})`).all() as Array<{ name: string; pk: number }>;
    if (info.length === 0) throw new Error(`No table ${name} in the relay's store to replicate`);
    const keys = info
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    if (keys.length === 0) throw new Error(`Table ${name} has no primary key: it cannot be replicated`);
    return { name, columns: info.map((column) => column.name), keys, rows: typeof table === 'string' ? undefined : table.rows };
  }

  private get shared(): Kysely<ReplicaTables> {
    return this.options.shared.withTables<ReplicaTables>();
  }

  // Leader ------------------------------------------------------------------------------------

  /** Starts recording which rows change (temporary triggers on this connection only). */
  startCapture(): void {
    if (this.capturing) return;
    this.db.exec('CREATE TEMP TABLE IF NOT EXISTS replica_pending (change INTEGER PRIMARY KEY, tbl TEXT NOT NULL, pk TEXT NOT NULL)');
    for (const shape of this.shapes) {
      const key = (row: 'NEW' | 'OLD') => `json_array(${shape.keys.map((column) => `${row}.${column}`).join(', ')})`;
      const record = (row: 'NEW' | 'OLD') =>
        `INSERT INTO temp.replica_pending (tbl, pk) SELECT '${shape.name}', ${key(row)}${shape.rows ? ` WHERE ${shape.rows(`${row}.`)}` : ''};`;
      this.db.exec(`
        CREATE TEMP TRIGGER IF NOT EXISTS replica_${shape.name}_insert AFTER INSERT ON main.${shape.name} BEGIN ${record('NEW')} END;
        CREATE TEMP TRIGGER IF NOT EXISTS replica_${shape.name}_update AFTER UPDATE ON main.${shape.name} BEGIN ${record('OLD')} ${record('NEW')} END;
        CREATE TEMP TRIGGER IF NOT EXISTS replica_${shape.name}_delete AFTER DELETE ON main.${shape.name} BEGIN ${record('OLD')} END;`);
    }
    this.capturing = true;
  }

  /** Stops recording and forgets what was not published (a relay stepping down copies everything again). */
  stopCapture(): void {
    for (const shape of this.shapes) {
      for (const what of ['insert', 'update', 'delete']) this.db.exec(`DROP TRIGGER IF EXISTS temp.replica_${shape.name}_${what}`);
    }
    this.db.exec('DROP TABLE IF EXISTS temp.replica_pending');
    this.capturing = false;
    // What was written and not published is this relay's alone: the next catch-up copies everything.
    this.caughtUpAt = -Infinity;
  }

  /** Whether rows changed here wait to be published. */
  hasPending(): boolean {
    return this.capturing && this.db.prepare('SELECT 1 FROM temp.replica_pending LIMIT 1').get() !== undefined;
  }

  /**
   * Publishes every row changed since the last publish, as it is now, in one PostgreSQL
   * transaction fenced by `lease`. Returns the rows published, or false when the lease is no longer
   * this relay's (nothing written: the caller steps down).
   */
  async publish(lease: SyncLease): Promise<number | false> {
    if (!this.capturing) return 0;
    const upTo = this.db.prepare('SELECT max(change) FROM temp.replica_pending').pluck().get() as number | null;
    if (upTo === null) return 0;
    const changed = this.db.prepare('SELECT DISTINCT tbl, pk FROM temp.replica_pending WHERE change <= ?').all(upTo) as Array<{ tbl: string; pk: string }>;
    // Read now, in one synchronous pass: the rows as of this moment, whatever is written while PostgreSQL answers.
    const rows = changed.map(({ tbl, pk }) => ({ tbl, pk, row: this.readRow(tbl, pk) }));
    // changed_at and the tombstones' purge are the database's clock: successive holders' clocks need
    // not agree, and one whose clock is ahead must not purge a tombstone its predecessor just wrote.
    const changedAt = sql<number>`${sql.raw(DB_NOW)}`;
    const published = await this.options.shared.transaction().execute(async (trx) => {
      if (!(await lease.fence(trx))) return false;
      const replica = trx.withTables<ReplicaTables>();
      for (let start = 0; start < rows.length; start += PUBLISH_BATCH) {
        await replica
          .insertInto('replica_rows')
          .values(
            rows
              .slice(start, start + PUBLISH_BATCH)
              .map(({ tbl, pk, row }) => ({ tbl, pk, row, seq: sql<number>`nextval('replica_seq')`, changed_at: changedAt })),
          )
          .onConflict((conflict) =>
            conflict
              .columns(['tbl', 'pk'])
              .doUpdateSet((eb) => ({ row: eb.ref('excluded.row'), seq: eb.ref('excluded.seq'), changed_at: eb.ref('excluded.changed_at') })),
          )
          .execute();
      }
      await replica
        .deleteFrom('replica_rows')
        .where('row', 'is', null)
        .where('changed_at', '<', sql<number>`${sql.raw(DB_NOW)} - ${TOMBSTONE_KEEP_MS}`)
        .execute();
      return rows.length;
    });
    if (published === false) return false;
    // Changes made after the read keep their (later) entries, for the next publish.
    this.db.prepare('DELETE FROM temp.replica_pending WHERE change <= ?').run(upTo);
    return published;
  }

  private readRow(tbl: string, pk: string): string | null {
    const shape = this.shape(tbl);
    if (!shape) return null;
    const values = JSON.parse(pk) as unknown[];
    const row = this.statement(`SELECT * FROM ${tbl} WHERE ${this.keyMatch(shape)}`).get(...values);
    return row === undefined ? null : JSON.stringify(row);
  }

  // Follower ----------------------------------------------------------------------------------

  /**
   * Makes the local tables exactly what PostgreSQL holds (a relay starting, or one that stepped
   * down with writes never published, or too long out of touch). Returns the rows copied.
   */
  async rebuild(): Promise<number> {
    // One snapshot: a delete published mid-read is either in it or after the cursor.
    const { rows, maxSeq } = await this.options.shared
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const replica = trx.withTables<ReplicaTables>();
        const top = await replica
          .selectFrom('replica_rows')
          .select(sql<number | null>`max(seq)`.as('max'))
          .executeTakeFirst();
        const found: Array<{ tbl: string; pk: string; row: string | null; seq: number }> = [];
        let after = 0;
        for (;;) {
          const page = await replica
            .selectFrom('replica_rows')
            .select(['tbl', 'pk', 'row', 'seq'])
            .where('seq', '>', after)
            .where('row', 'is not', null)
            .orderBy('seq')
            .limit(FOLLOW_BATCH)
            .execute();
          found.push(...page);
          if (page.length < FOLLOW_BATCH) break;
          after = page[page.length - 1]!.seq;
        }
        return { rows: found, maxSeq: top?.max ?? 0 };
      });
    const known = new Set(this.shapes.map((shape) => shape.name));
    this.inOneTransaction(() => {
      // Children first: a listing's agents and open homes go with it anyway (ON DELETE CASCADE).
      for (const shape of [...this.shapes].reverse()) this.db.prepare(`DELETE FROM ${shape.name}${shape.rows ? ` WHERE ${shape.rows('')}` : ''}`).run();
      for (const row of rows) if (known.has(row.tbl) && row.row !== null) this.writeRow(row.tbl, row.row);
    });
    this.cursor = maxSeq;
    this.caughtUpAt = this.now();
    return rows.length;
  }

  /**
   * Applies the rows published since the last catch-up (a rebuild instead when this relay was out
   * of touch longer than tombstones are kept). Returns the tables that changed (empty: none).
   */
  async catchUp(): Promise<Set<string>> {
    if (this.now() - this.caughtUpAt > REBUILD_AFTER_MS) {
      await this.rebuild();
      return new Set(this.shapes.map((shape) => shape.name));
    }
    const changed = new Set<string>();
    const known = new Set(this.shapes.map((shape) => shape.name));
    const started = this.now();
    for (;;) {
      const page = await this.shared
        .selectFrom('replica_rows')
        .select(['tbl', 'pk', 'row', 'seq'])
        .where('seq', '>', this.cursor)
        .orderBy('seq')
        .limit(FOLLOW_BATCH)
        .execute();
      if (page.length === 0) break;
      this.inOneTransaction(() => {
        for (const row of page) {
          if (!known.has(row.tbl)) continue;
          if (row.row === null) this.deleteRow(row.tbl, row.pk);
          else this.writeRow(row.tbl, row.row);
          changed.add(row.tbl);
        }
      });
      this.cursor = page[page.length - 1]!.seq;
      if (page.length < FOLLOW_BATCH) break;
    }
    this.caughtUpAt = started;
    return changed;
  }

  /** Foreign keys checked at commit: rows arrive in publish order, not parents first. */
  private inOneTransaction(work: () => void): void {
    this.db.transaction(() => {
      this.db.pragma('defer_foreign_keys = ON');
      work();
    })();
  }

  private writeRow(tbl: string, json: string): void {
    const shape = this.shape(tbl);
    const row = JSON.parse(json) as Record<string, unknown>;
    const columns = shape.columns.filter((column) => column in row);
    const updates = columns.filter((column) => !shape.keys.includes(column));
    // An upsert, not INSERT OR REPLACE: replacing a listing would delete its agents (ON DELETE CASCADE).
    this.statement(
      `INSERT INTO ${tbl} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
       ON CONFLICT (${shape.keys.join(', ')}) DO ${updates.length ? `UPDATE SET ${updates.map((column) => `${column} = excluded.${column}`).join(', ')}` : 'NOTHING'}`,
    ).run(...columns.map((column) => row[column] as never));
  }

  private deleteRow(tbl: string, pk: string): void {
    this.statement(`DELETE FROM ${tbl} WHERE ${this.keyMatch(this.shape(tbl))}`).run(...(JSON.parse(pk) as never[]));
  }

  private shape(tbl: string): TableShape {
    return this.shapes.find((candidate) => candidate.name === tbl)!;
  }

  private keyMatch(shape: TableShape): string {
    return shape.keys.map((column) => `${column} IS ?`).join(' AND ');
  }

  /** Prepared once per text: a rebuild writes thousands of rows through a handful of statements. */
  private statement(text: string): Database.Statement {
    let prepared = this.statements.get(text);
    if (!prepared) this.statements.set(text, (prepared = this.db.prepare(text)));
    return prepared;
  }

  private readonly statements = new Map<string, Database.Statement>();
}

/**
 * The lease and replica of an agency whose store is attached to PostgreSQL (SharedDatabase.attach):
 * `tables` are the SQLite tables its sync writes, `holder` this relay's registry id.
 */
export function shareAgencySync(
  store: Store,
  options: { tables: readonly ReplicatedTable[]; holder: string; leaseMs?: number },
): { lease: SyncLease; replica: StoreReplica } {
  const { db, kind } = queriesOf(store);
  if (kind !== 'postgres') throw new Error('An agency sync is shared only through PostgreSQL (DATABASE_URL)');
  return { lease: new SyncLease(db, options.holder, options.leaseMs), replica: new StoreReplica({ store, shared: db, tables: options.tables }) };
}
