// What the suites of the operator's lead-queue commands (`outbox`, `saved-searches`: both
// server/lead-queue/command.ts) share: a fresh DATA_DIR per test (with DATABASE_URL on a fresh
// database when the variant is PostgreSQL), the store opened as the relay would open it, and the
// CLI run in-process against it. Each suite seeds its own queue.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { runCli } from '../../server/cli.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { freshDatabase } from './postgres.ts';
import type { StoreVariant } from './store-variants.ts';

export interface LeadQueueCliRig {
  /** A fresh DATA_DIR on the variant's store (removed after the test). */
  dataDir(variant: StoreVariant): Promise<string>;
  /** The DATA_DIR's store, as the relay would open it (PostgreSQL attached when the variant has it). */
  open(dataDir: string): Promise<Store>;
  /** `npm run relay -- <argv>` against the DATA_DIR: its exit code and what it wrote. */
  cli(dataDir: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }>;
}

/** Call at a suite's top level: registers the clean-up of the DATA_DIRs it hands out. */
export function leadQueueCliRig(names: { dirPrefix: string; database: string }): LeadQueueCliRig {
  const dirs: string[] = [];
  /** The environment a CLI run against each DATA_DIR gets (DATABASE_URL on PostgreSQL). */
  const envOf = new Map<string, Record<string, string>>();
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  return {
    async dataDir(variant) {
      const dataDir = mkdtempSync(join(tmpdir(), names.dirPrefix));
      dirs.push(dataDir);
      envOf.set(dataDir, {
        DATA_DIR: dataDir,
        ...(variant.postgresServer ? { DATABASE_URL: await freshDatabase(variant.postgresServer, names.database) } : {}),
      });
      return dataDir;
    },
    async open(dataDir) {
      const store = openStore(dataDir);
      const url = envOf.get(dataDir)?.DATABASE_URL;
      if (url) await attachPostgres(store, url);
      return store;
    },
    async cli(dataDir, ...argv) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(argv, { env: envOf.get(dataDir) ?? { DATA_DIR: dataDir }, out: (text) => out.push(text), err: (text) => err.push(text) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    },
  };
}
