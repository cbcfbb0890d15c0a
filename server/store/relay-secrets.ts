import { randomBytes } from 'node:crypto';
import { queriesOf } from './tables.ts';

/** The table of migration 160 (SQLite) and 080 (PostgreSQL). */
interface RelaySecretsTable {
  name: string;
  secret: string;
  created_at: number;
}

/**
 * A secret of the relay's own, made once under `name` and kept in its store: in the SQLite file
 * (owner-only, 0600) or, with DATABASE_URL, in PostgreSQL, so every relay sharing that database
 * reads the same one. The first relay to ask makes it; a relay racing it stores nothing (the
 * primary key decides) and reads the winner's. 32 random bytes. Never log it.
 */
export async function relaySecret(store: object, name: string, now = Date.now()): Promise<Buffer> {
  const db = queriesOf(store).db.withTables<{ relay_secrets: RelaySecretsTable }>();
  await db
    .insertInto('relay_secrets')
    .values({ name, secret: randomBytes(32).toString('base64'), created_at: now })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('relay_secrets').select('secret').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(row.secret, 'base64');
}
