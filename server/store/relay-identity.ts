import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATA_DIR_MODE, STORE_FILE_MODE } from './store.ts';

/**
 * The relay's identity on a shared database (DATABASE_URL): a random id written into DATA_DIR the
 * first time a relay starts on it (0600), and read back at every start after. Sync leases, the
 * CRM gate's slots and the enquiry outbox's claims name their holder by it, so a relay restarted
 * on the same DATA_DIR takes its own claims back at once. Its host name and the DATA_DIR path
 * are not part of it: two containers with the same host name and volume path are two relays.
 * A copy of DATA_DIR carries the id with it; the registry (shared-database.ts) refuses the second
 * live relay with one id, and the file tells the operator what to delete.
 */
export const RELAY_ID_FILE = 'relay-id';

const ID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id in DATA_DIR/relay-id, or undefined when there is none (no relay has used the shared database from this DATA_DIR yet). */
export function readRelayId(dataDir: string): string | undefined {
  const file = join(resolve(dataDir), RELAY_ID_FILE);
  if (!existsSync(file)) return undefined;
  const id = readFileSync(file, 'utf8').trim();
  if (!ID_SHAPE.test(id))
    throw new Error(`${file} does not hold a relay id (a UUID); delete it and the relay makes a new one at its next start (it then counts as a new relay)`);
  return id;
}

/** The id in DATA_DIR/relay-id, made (random, 0600) when there is none. */
export function relayIdOf(dataDir: string): string {
  const existing = readRelayId(dataDir);
  if (existing) return existing;
  mkdirSync(resolve(dataDir), { recursive: true, mode: DATA_DIR_MODE });
  const file = join(resolve(dataDir), RELAY_ID_FILE);
  const id = randomUUID();
  try {
    // wx: two processes starting at once on one DATA_DIR end up with one id.
    writeFileSync(file, `${id}\n`, { mode: STORE_FILE_MODE, flag: 'wx' });
    chmodSync(file, STORE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readRelayId(dataDir)!;
    throw error;
  }
  return id;
}
