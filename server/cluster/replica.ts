import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { DB_NOW } from '../store/shared-database.ts';
import type { Store } from '../store/store.ts';
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

/** Rows set aside whose table and key are remembered for the log (each logged once). */
const SET_ASIDE_LOGGED_MAX = 10_000;

type ReplicaTables = {
  replica_rows: { tbl: string; pk: string; row: string | null; seq: number; changed_at: number; version: string | null };
  replica_copies: { relay: string; caught_up_at: number; set_aside: number; updated_at: number };
};

/** A published row as a follower reads it. */
interface PublishedRow {
  tbl: string;
  pk: string;
  row: string | null;
  seq: number;
  version: string | null;
}

/** What a row's column may hold, from its declared type (SQLite's affinity rules; STRICT tables' types are among these). */
type Affinity = 'integer' | 'real' | 'numeric' | 'text' | 'any';

interface Column {
  name: string;
  affinity: Affinity;
  notNull: boolean;
  hasDefault: boolean;
}

interface TableShape {
  name: string;
  columns: Column[];
  keys: string[];
  /** Foreign keys: a row's parent must be present (rows whose key columns are null have none). */
  parents: Array<{ table: string; from: string[]; to: string[] }>;
  /** The table's schema version: a digest of its columns and foreign keys, the same on every relay of one release. */
  version: string;
  /** The rows copied, as an SQL condition on the row its argument names ('NEW.', 'OLD.' or '' for the table's own); undefined: all. */
  rows?: (row: string) => string;
  check?: RowCheck;
}

/** The owning module's check of a copied row beyond its columns' types (e.g. public JSON against the API's schema): a problem, or undefined. */
export type RowCheck = (row: Record<string, unknown>) => string | undefined;

/**
 * A table to copy: all its rows, or those `rows` selects (the rest are each relay's own); `check`
 * is what its owner requires of a row copied from another relay, on top of the table's own types.
 */
export type ReplicatedTable = string | { name: string; rows?: (row: string) => string; check?: RowCheck };

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
  /** This relay's registry id: its copy's progress is recorded under it (replica_copies) for the status CLI. */
  relay?: string;
  /** Told once per row set aside (table, key, seq and why; never the row's values). */
  onSetAside?: (row: { table: string; key: string; seq: number; reason: string }) => void;
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
  /** When this relay last held everything published (its clock; -Infinity: never since it started). */
  private heldAllAt = -Infinity;
  private readonly now: () => number;
  /** Rows set aside since this relay started, by table. */
  readonly setAside = new Map<string, number>();
  private readonly loggedAside = new Set<string>();

  constructor(private readonly options: ReplicaOptions) {
    this.db = tablesOf(options.store);
    this.now = options.now ?? Date.now;
    this.shapes = options.tables.map((name) => this.shapeOf(name));
  }

  private shapeOf(table: ReplicatedTable): TableShape {
    const name = typeof table === 'string' ? table : table.name;
    if (!/^[a-z_]+$/.test(name)) throw new Error(`Not a table name: ${name}`);
    const info = this.db.prepare(`PRAGMA table_info(${name})`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>;
    if (info.length === 0) throw new Error(`No table ${name} in the relay's store to replicate`);
    const keys = info
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
    if (keys.length === 0) throw new Error(`Table ${name} has no primary key: it cannot be replicated`);
    const foreign = this.db.prepare(`PRAGMA foreign_key_list(${name})`).all() as Array<{
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string | null;
    }>;
    const parents: TableShape['parents'] = [];
    for (const key of foreign) {
      let parent = parents[key.id];
      if (!parent) parents[key.id] = parent = { table: key.table, from: [], to: [] };
      parent.from[key.seq] = key.from;
      parent.to[key.seq] = key.to ?? this.primaryKeyOf(key.table)[key.seq]!;
    }
    const version = createHash('sha256')
      .update(
        JSON.stringify([
          info.map((column) => [column.name, column.type, column.notnull, column.dflt_value, column.pk]),
          foreign.map((key) => [key.table, key.from, key.to]),
        ]),
      )
      .digest('hex')
      .slice(0, 12);
    return {
      name,
      columns: info.map((column) => ({
        name: column.name,
        affinity: affinityOf(column.type),
        notNull: column.notnull === 1,
        hasDefault: column.dflt_value !== null,
      })),
      keys,
      parents: parents.filter(Boolean),
      version,
      rows: typeof table === 'string' ? undefined : table.rows,
      check: typeof table === 'string' ? undefined : table.check,
    };
  }

  private primaryKeyOf(table: string): string[] {
    const info = this.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; pk: number }>;
    return info
      .filter((column) => column.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((column) => column.name);
  }

  /** The tables some copied table's foreign keys name. */
  private get parentTables(): Set<string> {
    return new Set(this.shapes.flatMap((shape) => shape.parents.map((parent) => parent.table)));
  }

  /** Each copied table's schema version here, by name (what this relay publishes, and the only version it applies). */
  get versions(): Record<string, string> {
    return Object.fromEntries(this.shapes.map((shape) => [shape.name, shape.version]));
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
    // Its store held everything published until now (it published it): its lag counts from here.
    this.heldAllAt = this.now();
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
    const rows = changed.map(({ tbl, pk }) => ({
      tbl,
      pk,
      row: this.readRow(tbl, pk),
      version: this.shapes.find((shape) => shape.name === tbl)?.version ?? null,
    }));
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
              .map(({ tbl, pk, row, version }) => ({ tbl, pk, row, version, seq: sql<number>`nextval('replica_seq')`, changed_at: changedAt })),
          )
          .onConflict((conflict) =>
            conflict.columns(['tbl', 'pk']).doUpdateSet((eb) => ({
              row: eb.ref('excluded.row'),
              seq: eb.ref('excluded.seq'),
              changed_at: eb.ref('excluded.changed_at'),
              version: eb.ref('excluded.version'),
            })),
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
   * down with writes never published, or too long out of touch), but for the rows set aside (see
   * applyRows). Returns the rows read.
   */
  async rebuild(): Promise<number> {
    const started = this.now();
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
        const found: PublishedRow[] = [];
        let after = 0;
        for (;;) {
          const page = await replica
            .selectFrom('replica_rows')
            .select(['tbl', 'pk', 'row', 'seq', 'version'])
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
    this.inOneTransaction(() => {
      // Children first: a listing's agents and open homes go with it anyway (ON DELETE CASCADE).
      for (const shape of [...this.shapes].reverse()) this.db.prepare(`DELETE FROM ${shape.name}${shape.rows ? ` WHERE ${shape.rows('')}` : ''}`).run();
      this.applyRows(rows, new Set(), true);
    });
    this.cursor = maxSeq;
    this.caughtUpAt = this.now();
    this.heldAllAt = started;
    await this.recordProgress();
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
    const started = this.now();
    // Rows of a page whose parent had not come yet (a publish larger than a page): tried again with the next.
    let waiting: PublishedRow[] = [];
    for (;;) {
      const page = await this.shared
        .selectFrom('replica_rows')
        .select(['tbl', 'pk', 'row', 'seq', 'version'])
        .where('seq', '>', this.cursor)
        .orderBy('seq')
        .limit(FOLLOW_BATCH)
        .execute();
      const last = page.length < FOLLOW_BATCH;
      if (page.length === 0 && waiting.length === 0) break;
      this.inOneTransaction(() => {
        waiting = this.applyRows([...waiting, ...page], changed, last);
      });
      if (page.length > 0) this.cursor = page[page.length - 1]!.seq;
      if (last) break;
    }
    this.caughtUpAt = started;
    this.heldAllAt = started;
    await this.recordProgress();
    return changed;
  }

  /**
   * Seconds since this relay last held everything the sync holder had published: 0 on the holder
   * (its store is the source), Infinity before a follower's first copy. A follower copies at each
   * notice and at least every poll, so on a healthy follower this stays under the poll interval.
   */
  lagSeconds(): number {
    if (this.capturing) return 0;
    return Math.max(0, (this.now() - this.heldAllAt) / 1000);
  }

  /** Rows set aside since this relay started, all tables. */
  get setAsideTotal(): number {
    let total = 0;
    for (const count of this.setAside.values()) total += count;
    return total;
  }

  /** This follower's progress in PostgreSQL, for the status CLI (best effort: the copy itself is what counts). */
  private async recordProgress(): Promise<void> {
    const relay = this.options.relay;
    if (relay === undefined) return;
    await sql`INSERT INTO replica_copies (relay, caught_up_at, set_aside, updated_at)
      VALUES (${relay}, ${sql.raw(DB_NOW)}, ${this.setAsideTotal}, ${sql.raw(DB_NOW)})
      ON CONFLICT (relay) DO UPDATE SET caught_up_at = excluded.caught_up_at, set_aside = excluded.set_aside, updated_at = excluded.updated_at`
      .execute(this.options.shared)
      .catch(() => undefined);
  }

  /**
   * Applies published rows in order, inside the caller's transaction, each on its own: a row of a
   * schema version this relay does not have, one that does not fit its table (a column's declared
   * type, NOT NULL, a column this relay lacks), one its owner's check refuses (public JSON past the
   * allow-list), one the store refuses (a CHECK), or one whose parent row never comes, is set aside
   * (not applied, counted, logged once) and the rest apply. Returns the rows still waiting for a
   * parent when `final` is false (the next page may bring it).
   */
  private applyRows(rows: readonly PublishedRow[], changed: Set<string>, final: boolean): PublishedRow[] {
    const waiting = new Map<string, { row: PublishedRow; shape: TableShape; values: Record<string, unknown> }>();
    const write = (row: PublishedRow, shape: TableShape, values: Record<string, unknown>) => {
      if (this.attempt(row, () => this.writeRow(shape, values))) changed.add(row.tbl);
    };
    // Only a parent's delete can leave a child without its parent (children are checked before they are written).
    let parentDeleted = false;
    for (const row of rows) {
      const shape = this.shapes.find((candidate) => candidate.name === row.tbl);
      if (!shape) continue;
      const key = `${row.tbl} ${row.pk}`;
      // A later version of a row supersedes one waiting for its parent.
      waiting.delete(key);
      // Rows published before versions were (NULL) are read as this version: pg migration 030 brought them to it.
      if (row.version !== null && row.version !== shape.version) {
        this.putAside(row, `schema version ${row.version.slice(0, 16)}, this relay has ${shape.version} (another release published it)`);
        continue;
      }
      if (row.row === null) {
        if (this.attempt(row, () => this.deleteRow(shape, row.pk))) changed.add(row.tbl);
        parentDeleted ||= this.parentTables.has(row.tbl);
        continue;
      }
      const values = this.checkRow(shape, row);
      if (typeof values === 'string') {
        this.putAside(row, values);
        continue;
      }
      if (this.parentsPresent(shape, values)) write(row, shape, values);
      else waiting.set(key, { row, shape, values });
    }
    // Children that came before their parent in the page.
    for (let progress = true; progress && waiting.size > 0;) {
      progress = false;
      for (const [key, entry] of waiting) {
        if (!this.parentsPresent(entry.shape, entry.values)) continue;
        waiting.delete(key);
        write(entry.row, entry.shape, entry.values);
        progress = true;
      }
    }
    // Foreign keys are checked at commit: a child left without its parent (a parent deleted under it) would fail the whole page.
    if (parentDeleted) this.dropOrphans(changed);
    if (!final) return [...waiting.values()].map((entry) => entry.row);
    for (const entry of waiting.values()) this.putAside(entry.row, 'its parent row is not in the copy');
    return [];
  }

  /** The row's values when it fits this relay's table (and its owner's check), else what is wrong (names, never values). */
  private checkRow(shape: TableShape, published: PublishedRow): Record<string, unknown> | string {
    let values: unknown;
    let key: unknown;
    try {
      values = JSON.parse(published.row!);
      key = JSON.parse(published.pk);
    } catch {
      return 'not JSON';
    }
    if (values === null || typeof values !== 'object' || Array.isArray(values)) return 'not a row';
    const row = values as Record<string, unknown>;
    for (const name of Object.keys(row)) {
      if (!shape.columns.some((column) => column.name === name)) return `no column ${name.slice(0, 40)} in this relay's table`;
    }
    if (!Array.isArray(key) || key.length !== shape.keys.length || shape.keys.some((column, index) => row[column] !== key[index] || row[column] === null)) {
      return "the row's key differs from its published key";
    }
    for (const column of shape.columns) {
      const problem = columnProblem(column, column.name in row, row[column.name]);
      if (problem) return problem;
    }
    return shape.check?.(row) ?? row;
  }

  private parentsPresent(shape: TableShape, values: Record<string, unknown>): boolean {
    for (const parent of shape.parents) {
      const key = parent.from.map((column) => values[column]);
      // A null (or absent) reference has no parent to find, as in SQLite.
      if (key.some((value) => value === null || value === undefined)) continue;
      const found = this.statement(`SELECT 1 FROM ${parent.table} WHERE ${parent.to.map((column) => `${column} = ?`).join(' AND ')}`).get(...(key as never[]));
      if (found === undefined) return false;
    }
    return true;
  }

  /** Rows of the copy whose parent is gone: removed (and counted), so the page commits. */
  private dropOrphans(changed: Set<string>): void {
    for (const shape of this.shapes) {
      if (shape.parents.length === 0) continue;
      const orphans = this.db.prepare(`PRAGMA foreign_key_check(${shape.name})`).all() as Array<{ rowid: number }>;
      for (const { rowid } of orphans) {
        const key = this.statement(`SELECT ${shape.keys.map((column) => `${column} AS "${column}"`).join(', ')} FROM ${shape.name} WHERE rowid = ?`).get(
          rowid,
        ) as Record<string, unknown> | undefined;
        if (!key) continue;
        this.statement(`DELETE FROM ${shape.name} WHERE rowid = ?`).run(rowid);
        this.putAside(
          { tbl: shape.name, pk: JSON.stringify(shape.keys.map((column) => key[column])), row: null, seq: this.cursor, version: null },
          'its parent row was deleted',
        );
        changed.add(shape.name);
      }
    }
  }

  /** Runs one row's write in a savepoint: refused by the store, it is set aside and the page goes on. */
  private attempt(row: PublishedRow, work: () => void): boolean {
    try {
      this.db.transaction(work)();
      return true;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      this.putAside(row, `refused by this relay's store (${typeof code === 'string' ? code : 'error'})`);
      return false;
    }
  }

  private putAside(row: PublishedRow, reason: string): void {
    this.setAside.set(row.tbl, (this.setAside.get(row.tbl) ?? 0) + 1);
    const id = `${row.tbl} ${row.pk} ${row.seq}`;
    if (this.loggedAside.has(id)) return;
    if (this.loggedAside.size >= SET_ASIDE_LOGGED_MAX) this.loggedAside.clear();
    this.loggedAside.add(id);
    this.options.onSetAside?.({ table: row.tbl, key: row.pk.slice(0, 200), seq: row.seq, reason });
  }

  /** Foreign keys checked at commit: rows arrive in publish order, not parents first. */
  private inOneTransaction(work: () => void): void {
    this.db.transaction(() => {
      this.db.pragma('defer_foreign_keys = ON');
      work();
    })();
  }

  private writeRow(shape: TableShape, row: Record<string, unknown>): void {
    const columns = shape.columns.map((column) => column.name).filter((column) => column in row);
    const updates = columns.filter((column) => !shape.keys.includes(column));
    // An upsert, not INSERT OR REPLACE: replacing a listing would delete its agents (ON DELETE CASCADE).
    this.statement(
      `INSERT INTO ${shape.name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})
       ON CONFLICT (${shape.keys.join(', ')}) DO ${updates.length ? `UPDATE SET ${updates.map((column) => `${column} = excluded.${column}`).join(', ')}` : 'NOTHING'}`,
    ).run(...columns.map((column) => row[column] as never));
  }

  private deleteRow(shape: TableShape, pk: string): void {
    this.statement(`DELETE FROM ${shape.name} WHERE ${this.keyMatch(shape)}`).run(...(JSON.parse(pk) as never[]));
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

/** SQLite's affinity of a declared column type (https://sqlite.org/datatype3.html#determination_of_column_affinity). */
function affinityOf(declared: string): Affinity {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'integer';
  if (/CHAR|CLOB|TEXT/.test(type)) return 'text';
  if (type === '' || type.includes('BLOB') || type === 'ANY') return 'any';
  if (/REAL|FLOA|DOUB/.test(type)) return 'real';
  return 'numeric';
}

/** Whether a copied value fits its column: the declared type, NOT NULL (a missing column only where a default fills it). */
function columnProblem(column: Column, present: boolean, value: unknown): string | undefined {
  if (!present) return column.notNull && !column.hasDefault ? `${column.name} is missing` : undefined;
  if (value === null) return column.notNull ? `${column.name} is null` : undefined;
  const fits =
    column.affinity === 'integer'
      ? Number.isSafeInteger(value)
      : column.affinity === 'text'
        ? typeof value === 'string'
        : column.affinity === 'any'
          ? typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
          : typeof value === 'number' && Number.isFinite(value);
  return fits
    ? undefined
    : `${column.name} is not ${column.affinity === 'any' ? 'a value' : column.affinity === 'text' ? 'text' : `a number (${column.affinity})`}`;
}

/**
 * The lease and replica of an agency whose store is attached to PostgreSQL (SharedDatabase.attach):
 * `tables` are the SQLite tables its sync writes, `holder` this relay's registry id.
 */
export function shareAgencySync(
  store: Store,
  options: { tables: readonly ReplicatedTable[]; holder: string; leaseMs?: number; onSetAside?: ReplicaOptions['onSetAside'] },
): { lease: SyncLease; replica: StoreReplica } {
  const { db, kind } = queriesOf(store);
  if (kind !== 'postgres') throw new Error('An agency sync is shared only through PostgreSQL (DATABASE_URL)');
  return {
    lease: new SyncLease(db, options.holder, options.leaseMs),
    replica: new StoreReplica({ store, shared: db, tables: options.tables, relay: options.holder, onSetAside: options.onSetAside }),
  };
}
