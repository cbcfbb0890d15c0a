// Rows as the database holds them, below the repositories (whichever store): for checks in tests
// and the chaos run. Kept apart from store-variants.ts, which needs vitest.
import { sql } from 'kysely';
import { queriesOf } from '../../server/store/tables.ts';

/** Every row of a table as the database holds it (whichever store), for checks below the repository. */
export async function rawRows(store: object, table: string): Promise<Array<Record<string, unknown>>> {
  const result = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(queriesOf(store).db);
  return result.rows;
}
