/**
 * Versioned schema changes, applied once each, in this order, inside a transaction.
 * Append only: never edit a migration that has shipped; add a new one.
 * Ids are `<number>-<concern>-<what>` so a reader sees which folder owns a table.
 */
export interface Migration {
  id: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    id: '001-crm-budget',
    sql: `
      -- Upstream requests spent per UTC day, so a restart does not forget the day's spending.
      CREATE TABLE crm_budget (
        day TEXT PRIMARY KEY,          -- YYYY-MM-DD, UTC
        used INTEGER NOT NULL DEFAULT 0
      ) STRICT;
    `,
  },
];
