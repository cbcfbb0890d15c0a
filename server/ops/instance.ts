import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { processAlive } from '../runtime/process-alive.ts';

/** Written by a running relay into DATA_DIR: lets the CLI tell whether a relay uses this store. */
export const PID_FILE = 'relay.pid';

export interface RelayInstance {
  pid: number;
  startedAt: string;
}

/** The relay running on this DATA_DIR, if any (a pid file left by a crash does not count). */
export function runningRelay(dataDir: string): RelayInstance | undefined {
  const file = join(resolve(dataDir), PID_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const instance = JSON.parse(readFileSync(file, 'utf8')) as RelayInstance;
    if (!Number.isInteger(instance.pid) || instance.pid === process.pid) return undefined;
    return processAlive(instance.pid) ? instance : undefined;
  } catch {
    return undefined;
  }
}

/** Marks this process as the relay of `dataDir`; the returned function removes the mark (if still ours). */
export function claimInstance(dataDir: string): () => void {
  const file = join(resolve(dataDir), PID_FILE);
  const mine: RelayInstance = { pid: process.pid, startedAt: new Date().toISOString() };
  writeFileSync(file, `${JSON.stringify(mine)}\n`);
  return () => {
    try {
      const current = JSON.parse(readFileSync(file, 'utf8')) as RelayInstance;
      if (current.pid === process.pid) rmSync(file, { force: true });
    } catch {
      // Already gone.
    }
  };
}
