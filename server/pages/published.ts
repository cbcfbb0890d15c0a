import type { Store } from '../store/store.ts';
import { tablesOf } from '../store/tables.ts';

/** The tables of published pages: with DATABASE_URL copied from the agency's sync holder, which alone records them (cluster/replica.ts). */
export const PUBLISHED_PAGES_TABLES = ['pages_published', 'pages_published_agents'] as const;

/**
 * The pages_published table (this module's, migration 080: which listing pages were ever published,
 * and which have gone) and pages_published_agents (migration 221: the same for agent pages).
 */
export interface PublishedPages {
  /** Records the current listings' pages; those no longer current are marked gone. */
  record(current: ReadonlyArray<{ id: number; path: string }>, now: number): void;
  /** Whether a listing page with this id was ever published (asked about an id the cache no longer holds: it has gone). */
  wasPublished(id: number): boolean;
  /** Records the public agents' pages; those no longer public (left, hidden, back office now) are marked gone. */
  recordAgents(current: ReadonlyArray<{ id: number; path: string }>, now: number): void;
  /** Whether an agent page with this id was ever published: such an agent, no longer public, has gone (410), not never been (404). */
  agentWasPublished(id: number): boolean;
}

/** The repository of server/pages: the only file that reads or writes pages_published and pages_published_agents. */
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
    recordAgents(current, now) {
      const upsert = db.prepare(
        `INSERT INTO pages_published_agents (agent_id, path, first_seen_at, last_seen_at, gone_at) VALUES (?, ?, ?, ?, NULL)
         ON CONFLICT (agent_id) DO UPDATE SET path = excluded.path, last_seen_at = excluded.last_seen_at, gone_at = NULL`,
      );
      db.transaction(() => {
        for (const page of current) upsert.run(page.id, page.path, now, now);
        db.prepare(`UPDATE pages_published_agents SET gone_at = ? WHERE gone_at IS NULL AND agent_id NOT IN (SELECT value FROM json_each(?))`).run(
          now,
          JSON.stringify(current.map((page) => page.id)),
        );
      })();
    },
    agentWasPublished(id) {
      return db.prepare('SELECT 1 FROM pages_published_agents WHERE agent_id = ?').pluck().get(id) !== undefined;
    },
  };
}
