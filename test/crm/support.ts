import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore, type Store } from '../../server/store/store.ts';

/** A real SQLite store in a fresh temp folder; `reopen()` opens the same file again (a restart). */
export function tempStore(): { dir: string; store: Store; reopen(): Store; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'estate-crm-'));
  const opened: Store[] = [];
  const open = () => {
    const store = openStore(dir);
    opened.push(store);
    return store;
  };
  return {
    dir,
    store: open(),
    reopen: open,
    cleanup() {
      for (const store of opened) store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The largest number of timestamps (ms) inside any window of `windowMs` (half-open). */
export function maxInAnyWindow(timestamps: number[], windowMs: number): number {
  const sorted = [...timestamps].sort((a, b) => a - b);
  let max = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}
