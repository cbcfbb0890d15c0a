import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { STORE_FILE_MODE } from '../store/store.ts';
import type { ReloadReport } from './agency-set.ts';

/**
 * How `npm run relay -- agencies reload` asks the running relay to re-read AGENCIES_FILE and
 * learns the outcome: it writes a request id, sends SIGHUP (which alone also reloads), and waits
 * for the result file naming that id. Apart from the CLI so the relay's entry does not import it.
 */
export const RELOAD_SIGNAL = 'SIGHUP';
const REQUEST_FILE = 'agencies-reload-request.json';
const RESULT_FILE = 'agencies-reload.json';

export interface ReloadResult {
  /** The CLI's request id; null for a plain SIGHUP. */
  id: string | null;
  at: string;
  report: ReloadReport;
}

function writePrivate(file: string, value: unknown): void {
  writeFileSync(`${file}.tmp`, `${JSON.stringify(value, null, 2)}\n`, { mode: STORE_FILE_MODE });
  chmodSync(`${file}.tmp`, STORE_FILE_MODE);
  renameSync(`${file}.tmp`, file);
}

/** Written by the CLI before it signals the relay. */
export function requestReload(dataDir: string, id: string): void {
  writePrivate(join(resolve(dataDir), REQUEST_FILE), { id });
}

/** Read by the relay on SIGHUP: the CLI's request id (null: a plain signal). */
export function takeReloadRequest(dataDir: string): string | null {
  const file = join(resolve(dataDir), REQUEST_FILE);
  if (!existsSync(file)) return null;
  try {
    const { id } = JSON.parse(readFileSync(file, 'utf8')) as { id?: unknown };
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  } finally {
    rmSync(file, { force: true });
  }
}

/** Written by the relay after each reload (no token: slugs and problems only). */
export function writeReloadResult(dataDir: string, result: ReloadResult): void {
  writePrivate(join(resolve(dataDir), RESULT_FILE), result);
}

export function readReloadResult(dataDir: string): ReloadResult | undefined {
  const file = join(resolve(dataDir), RESULT_FILE);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ReloadResult;
  } catch {
    return undefined;
  }
}
