// The stores a repository suite runs on: SQLite always, and the test run's PostgreSQL server
// (test/support/pg-global-setup.ts) when there is one; when not, its variant is skipped with the
// reason in its name, so a run without PostgreSQL says so instead of passing quietly.
import { inject } from 'vitest';

export interface StoreVariant {
  name: string;
  /** postgres://… of the run's server; undefined: SQLite alone. */
  postgresServer?: string;
  /** Why the variant cannot run here. */
  skipped?: string;
}

export function storeVariants(): StoreVariant[] {
  const postgres = inject('postgres');
  return [
    { name: 'SQLite' },
    'skipped' in postgres
      ? { name: `PostgreSQL (SKIPPED: ${postgres.skipped})`, skipped: postgres.skipped }
      : { name: `PostgreSQL ${postgres.version}`, postgresServer: postgres.url },
  ];
}

export { rawRows } from './raw-rows.ts';
