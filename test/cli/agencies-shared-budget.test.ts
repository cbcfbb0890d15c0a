// `agencies add` and `agencies check` with DATABASE_URL: the token check's CRM requests count
// against the API key's day where the relays on the key count theirs (PostgreSQL, relay_key), not in
// DATA_DIR's SQLite file, which no relay on the database reads for the budget. A real PostgreSQL
// (test/support/postgres.ts), the simulator over HTTP, the CLI in-process with its stdin.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { runCli } from '../../server/cli.ts';
import { budgetUsedOn, utcDay } from '../../server/crm/limiter.ts';
import { readSharedStatus } from '../../server/ops/relays.ts';
import { openStoreReadOnly } from '../../server/store/store.ts';
import { freshDatabase } from '../support/postgres.ts';
import { onOneUtcDayFor } from '../support/test-clock.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

describe.skipIf(skipped)(`the token check with DATABASE_URL${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-shared-budget-'));
  let sim: RunningSimulator;
  let env: Record<string, string>;

  async function cli(args: string[], stdin = ''): Promise<{ code: number; text: string }> {
    const lines: string[] = [];
    const code = await runCli(args, { env, out: (text) => lines.push(text), err: (text) => lines.push(text), stdin: Readable.from([stdin]) });
    return { code, text: lines.join('\n') };
  }

  /** What the simulator counted for the key today: every request the CLI sent. */
  async function simulatorCount(): Promise<number> {
    const counters = (await (await fetch(`${sim.origin}/__sim/counters`)).json()) as { perKey: Record<string, { usedToday: number }> };
    return Object.values(counters.perKey).reduce((sum, key) => sum + key.usedToday, 0);
  }

  /** The key's day as DATA_DIR's SQLite store counts it (the budget of a relay without DATABASE_URL). */
  function sqliteCount(): number {
    const store = openStoreReadOnly(dataDir);
    try {
      return budgetUsedOn(store, utcDay(new Date()));
    } finally {
      store.close();
    }
  }

  beforeAll(async () => {
    // The CLI counts on the wall clock (it takes no other) and the simulator and PostgreSQL count
    // "today": both tests' requests and counts must fall on one UTC day (the suite takes seconds).
    await onOneUtcDayFor(3 * 60_000);
    sim = await startSimulator({ listings: 4, agencies: 2, requestsPerSecond: 200 });
    const databaseUrl = await freshDatabase((postgres as { url: string }).url, 'token_check');
    env = {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      AGENCIES_FILE: join(dataDir, 'agencies.json'),
      CRM_BASE_URL: sim.baseUrl,
      CRM_API_KEY: sim.apiKey,
      PUBLIC_URL: 'https://relay.integrator.test',
      LOG_LEVEL: 'silent',
    };
  }, 240_000); // 1 min, and up to 3 waiting out a UTC midnight
  afterAll(async () => {
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sharedCount = async () => (await readSharedStatus(env.DATABASE_URL!, sim.apiKey)).crmUsedToday;

  it("`agencies add` counts its check in PostgreSQL's day of the key, as the relays do, not in DATA_DIR's file", async () => {
    const added = await cli(['agencies', 'add', 'harbour', '--name', 'Harbour'], sim.key.accounts[0]!.options.accessToken);
    expect(added.text).toMatch(/Added "harbour"/);
    const sent = await simulatorCount();
    expect(sent).toBeGreaterThan(0);
    expect(await sharedCount()).toBe(sent);
    expect(sqliteCount()).toBe(0);
  }, 60_000);

  it('`agencies check` too', async () => {
    const before = await simulatorCount();
    const checked = await cli(['agencies', 'check']);
    expect(checked.text).toMatch(/harbour\s+ok, account /);
    const sent = (await simulatorCount()) - before;
    expect(sent).toBeGreaterThan(0);
    expect(await sharedCount()).toBe(before + sent);
    expect(sqliteCount()).toBe(0);
  }, 60_000);
});
