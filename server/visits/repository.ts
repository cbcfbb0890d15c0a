import { sql } from 'kysely';
import type { Store } from '../store/store.ts';
import { queriesOf } from '../store/tables.ts';
import type { BufferedVisits } from './buffer.ts';
import type { DayRange, ListingVisits, ListingDay, VisitSource } from './counts.ts';

/** The visits module's tables (SQLite migration 240, PostgreSQL per-agency 130). */
type Tables = {
  /** Events per listing, day, kind and source (detail views only; else ''), and `visitors`: a finished day's estimate. */
  visit_counts: { listing_id: number; day: string; kind: string; source: string; count: number };
  /** The current day's visitor hashes per listing: reduced to a `visitors` count once the day is over, then deleted. */
  visit_visitors: { day: string; listing_id: number; hash: string };
  /** The salts (hex) of the current day and the next, each deleted once its day is over. */
  visit_salt: { day: string; salt: string };
  /** Events set aside unwritten (a full buffer), per day. */
  visit_dropped: { day: string; count: number };
};

export const VISIT_TABLES = ['visit_counts', 'visit_visitors', 'visit_salt', 'visit_dropped'] as const;

/** Rows one statement writes: well inside SQLite's bound on parameters (5 a row). */
const ROWS_PER_STATEMENT = 500;

const KIND_FIELDS = {
  detail: 'detail',
  visitors: 'visitors',
  card: 'card',
  'map-card': 'mapCard',
  photos: 'photos',
  kept: 'kept',
  calendar: 'calendar',
  shared: 'shared',
} as const;

function chunks<T>(rows: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) out.push(rows.slice(start, start + ROWS_PER_STATEMENT));
  return out;
}

/**
 * The visits tables, on the agency's SQLite store or, with DATABASE_URL, its PostgreSQL schema
 * (queriesOf): counts are added (`count + excluded.count`), so several relays' flushes add up.
 */
export class VisitRepository {
  constructor(private readonly store: Store) {}

  private get db() {
    return queriesOf(this.store).db.withTables<Tables>();
  }

  /** Writes one flush: a batched upsert per listing, day, kind and source; the visitor hashes; the dropped counts. */
  async write(batch: BufferedVisits): Promise<void> {
    for (const rows of chunks(batch.counts)) {
      await this.db
        .insertInto('visit_counts')
        .values(rows.map((row) => ({ listing_id: row.listingId, day: row.day, kind: row.kind, source: row.source, count: row.count })))
        .onConflict((conflict) =>
          conflict.columns(['listing_id', 'day', 'kind', 'source']).doUpdateSet({ count: sql<number>`visit_counts.count + excluded.count` }),
        )
        .execute();
    }
    for (const rows of chunks(batch.visitors)) {
      await this.db
        .insertInto('visit_visitors')
        .values(rows.map((row) => ({ day: row.day, listing_id: row.listingId, hash: row.hash })))
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    }
    const dropped = [...batch.dropped].map(([day, count]) => ({ day, count }));
    if (dropped.length > 0) {
      await this.db
        .insertInto('visit_dropped')
        .values(dropped)
        .onConflict((conflict) => conflict.column('day').doUpdateSet({ count: sql<number>`visit_dropped.count + excluded.count` }))
        .execute();
    }
  }

  /**
   * The salts of `days` (today and tomorrow): each the one stored, else its candidate, stored.
   * Any other day's salt is deleted first. Tomorrow's is stored a day ahead so that every
   * relay sharing the store hashes the day's first visitors with the same salt, before any of
   * them has read the store that day.
   */
  async saltsOf(days: readonly [string, string], candidates: readonly [Buffer, Buffer]): Promise<[Buffer, Buffer]> {
    await this.db
      .deleteFrom('visit_salt')
      .where('day', 'not in', [...days])
      .execute();
    await this.db
      .insertInto('visit_salt')
      .values(days.map((day, index) => ({ day, salt: candidates[index]!.toString('hex') })))
      .onConflict((conflict) => conflict.column('day').doNothing())
      .execute();
    const rows = await this.db
      .selectFrom('visit_salt')
      .select(['day', 'salt'])
      .where('day', 'in', [...days])
      .execute();
    const stored = (index: 0 | 1) => {
      const row = rows.find((entry) => entry.day === days[index]);
      return row ? Buffer.from(row.salt, 'hex') : candidates[index];
    };
    return [stored(0), stored(1)];
  }

  /** The days before `day` are over: their visitor hashes become `visitors` counts and are deleted. Returns the hashes reduced. */
  async reduceVisitorsBefore(day: string): Promise<number> {
    const { db } = this;
    await db
      .insertInto('visit_counts')
      .columns(['listing_id', 'day', 'kind', 'source', 'count'])
      .expression(
        db
          .selectFrom('visit_visitors')
          .select(['listing_id', 'day', sql<string>`'visitors'`.as('kind'), sql<string>`''`.as('source'), sql<number>`count(*)`.as('count')])
          .where('day', '<', day)
          .groupBy(['listing_id', 'day']),
      )
      .onConflict((conflict) =>
        conflict.columns(['listing_id', 'day', 'kind', 'source']).doUpdateSet({ count: sql<number>`visit_counts.count + excluded.count` }),
      )
      .execute();
    const deleted = await db.deleteFrom('visit_visitors').where('day', '<', day).executeTakeFirst();
    return Number(deleted.numDeletedRows);
  }

  /** Deletes every count, dropped count and hash of the days before `day` (the retention sweep). Returns the rows deleted. */
  async deleteBefore(day: string): Promise<number> {
    let deleted = 0;
    for (const table of ['visit_counts', 'visit_dropped', 'visit_visitors'] as const) {
      deleted += Number((await this.db.deleteFrom(table).where('day', '<', day).executeTakeFirst()).numDeletedRows);
    }
    return deleted;
  }

  async forListing(listingId: number, range: DayRange): Promise<ListingVisits> {
    const rows = await this.db
      .selectFrom('visit_counts')
      .select(['day', 'kind', 'source', sql<number>`sum(count)`.as('count')])
      .where('listing_id', '=', listingId)
      .where('day', '>=', range.since)
      .where('day', '<=', range.until)
      .groupBy(['day', 'kind', 'source'])
      .execute();
    // Today's visitors (and a day not yet reduced) are still hashes.
    const live = await this.db
      .selectFrom('visit_visitors')
      .select(['day', sql<number>`count(*)`.as('count')])
      .where('listing_id', '=', listingId)
      .where('day', '>=', range.since)
      .where('day', '<=', range.until)
      .groupBy('day')
      .execute();
    const days = new Map<string, ListingDay>();
    const dayOf = (day: string) => {
      let found = days.get(day);
      if (!found) days.set(day, (found = { day, detail: 0, visitors: 0, card: 0, mapCard: 0, photos: 0, kept: 0, calendar: 0, shared: 0 }));
      return found;
    };
    const sources: ListingVisits['sources'] = [];
    for (const row of rows) {
      const field = KIND_FIELDS[row.kind as keyof typeof KIND_FIELDS];
      if (!field) continue;
      const count = Number(row.count);
      dayOf(row.day)[field] += count;
      if (row.kind === 'detail') sources.push({ day: row.day, source: row.source as VisitSource, views: count });
    }
    for (const row of live) dayOf(row.day).visitors += Number(row.count);
    const dropped = await this.db
      .selectFrom('visit_dropped')
      .select(sql<number>`coalesce(sum(count), 0)`.as('count'))
      .where('day', '>=', range.since)
      .where('day', '<=', range.until)
      .executeTakeFirst();
    return {
      days: [...days.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0)),
      sources: sources.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.source < b.source ? -1 : 1)),
      dropped: Number(dropped?.count ?? 0),
    };
  }

  async dailyDetailViews(range: DayRange): Promise<Array<{ listingId: number; day: string; detail: number }>> {
    const rows = await this.db
      .selectFrom('visit_counts')
      .select(['listing_id', 'day', sql<number>`sum(count)`.as('detail')])
      .where('kind', '=', 'detail')
      .where('day', '>=', range.since)
      .where('day', '<=', range.until)
      .groupBy(['listing_id', 'day'])
      .orderBy('listing_id')
      .orderBy('day')
      .execute();
    return rows.filter((row) => Number(row.detail) > 0).map((row) => ({ listingId: Number(row.listing_id), day: row.day, detail: Number(row.detail) }));
  }
}
