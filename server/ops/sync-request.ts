import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * How `npm run relay -- sync` asks a running relay for a sync: it writes this file in DATA_DIR
 * and sends the signal; main.ts takes the request. Apart from the CLI so the relay's entry does
 * not import the command line.
 */
export const SYNC_REQUEST_FILE = 'sync-request.json';
export const SYNC_SIGNAL = 'SIGUSR2';

/** Read by main.ts on SIGUSR2: the sync kind the CLI asked for (incremental when unsure). */
export function takeSyncRequest(dataDir: string): 'full' | 'incremental' {
  const file = join(resolve(dataDir), SYNC_REQUEST_FILE);
  if (!existsSync(file)) return 'incremental';
  try {
    const request = JSON.parse(readFileSync(file, 'utf8')) as { kind?: string };
    return request.kind === 'full' ? 'full' : 'incremental';
  } catch {
    return 'incremental';
  } finally {
    rmSync(file, { force: true });
  }
}
