// Demo mode with SIM_AGENCIES: the embedded simulator holds that many accounts on its one key; the
// relay serves the first at the root (the others under /a/<slug>/: test/compose/demo.test.ts).
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay } from '../../server/compose/relay.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

let relay: TestRelay | undefined;
const saved = process.env.SIM_AGENCIES;
afterEach(async () => {
  await relay?.close();
  relay = undefined;
  if (saved === undefined) delete process.env.SIM_AGENCIES;
  else process.env.SIM_AGENCIES = saved;
});

describe('demo mode: SIM_AGENCIES', () => {
  it('starts the embedded simulator with that many accounts; the relay serves the first', async () => {
    process.env.SIM_AGENCIES = '3';
    relay = await startTestRelay({ SIM_LISTINGS: '6', PHOTO_WIDTHS: '240' }, { workers: false });
    const accounts = relay.simulator!.accounts();
    expect(accounts).toHaveLength(3);
    expect(new Set(accounts.map((account) => account.id)).size).toBe(3);
    expect(new Set(accounts.map((account) => account.accessToken)).size).toBe(3);
    expect(relay.config.crm.accessToken).toBe(accounts[0]!.accessToken);
    const answer = await fetch(`${relay.simulator!.baseUrl}/account`, {
      headers: { 'X-Api-Key': relay.config.crm.apiKey ?? '', Authorization: `Bearer ${relay.config.crm.accessToken}` },
    });
    expect(((await answer.json()) as { id: number }).id).toBe(accounts[0]!.id);
  }, 60_000);

  it('refuses a bad SIM_AGENCIES, naming it', async () => {
    process.env.SIM_AGENCIES = '0';
    // Refused before anything is opened: the data folder is never touched.
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(tmpdir(), 'estate-never-created'), SIM_LISTINGS: '6' });
    await expect(startRelay(config, { log: silentLogger, workers: false })).rejects.toThrow(/SIM_AGENCIES/);
    expect(existsSync(config.dataDir)).toBe(false);
  });
});
