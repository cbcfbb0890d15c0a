import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * How `npm run relay -- sync` asks a running relay for a sync: it writes this file in DATA_DIR
 * and sends the signal; main.ts takes the request. Apart from the CLI so the relay's entry does
 * not import the command line.
 */
export const SYNC_REQUEST_FILE = 'sync-request.json';
export const SYNC_SIGNAL = 'SIGUSR2';

export interface SyncRequest {
  kind: 'full' | 'incremental';
  /** With AGENCIES_FILE: the one agency to sync (undefined: every agency). */
  agency?: string;
}

/** Read by main.ts on SIGUSR2: the sync the CLI asked for (incremental, every agency, when unsure). */
export function takeSyncRequest(dataDir: string): SyncRequest {
  const file = join(resolve(dataDir), SYNC_REQUEST_FILE);
  if (!existsSync(file)) return { kind: 'incremental' };
  try {
    const request = JSON.parse(readFileSync(file, 'utf8')) as { kind?: string; agency?: unknown };
    return { kind: request.kind === 'full' ? 'full' : 'incremental', ...(typeof request.agency === 'string' ? { agency: request.agency } : {}) };
  } catch {
    return { kind: 'incremental' };
  } finally {
    rmSync(file, { force: true });
  }
}
