import type { Store } from '../store/store.ts';
import { tablesOf } from '../store/tables.ts';

/** The table of published pages: with DATABASE_URL copied from the agency's sync holder, which alone records it (cluster/replica.ts). */
export const PUBLISHED_PAGES_TABLES = ['pages_published'] as const;

/** The pages_published table (this module's, migration 080): which listing pages were ever published, and which have gone. */
export interface PublishedPages {
  /** Records the current listings' pages; those no longer current are marked gone. */
  record(current: ReadonlyArray<{ id: number; path: string }>, now: number): void;
  /** Whether a listing page with this id was ever published (asked about an id the cache no longer holds: it has gone). */
  wasPublished(id: number): boolean;
}

/** The repository of server/pages: the only file that reads or writes pages_published. */
export function publishedPages(store: Store): PublishedPages {
  const db = tablesOf(store);
  return {
    record(current, now) {
      const upsert = db.prepare(
        `INSERT INTO pages_published (listing_id, path, first_seen_at, last_seen_at, gone_at) VALUES (?, ?, ?, ?, NULL)
         ON CONFLICT (listing_id) DO UPDATE SET path = excluded.path, last_seen_at = excluded.last_seen_at, gone_at = NULL`,
      );
      db.transaction(() => {
        for (const page of current) upsert.run(page.id, page.path, now, now);
        db.prepare(`UPDATE pages_published SET gone_at = ? WHERE gone_at IS NULL AND listing_id NOT IN (SELECT value FROM json_each(?))`).run(
          now,
          JSON.stringify(current.map((page) => page.id)),
        );
      })();
    },
    wasPublished(id) {
      return db.prepare('SELECT 1 FROM pages_published WHERE listing_id = ?').pluck().get(id) !== undefined;
    },
  };
}
