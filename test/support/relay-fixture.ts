import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger, type Logger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay, type StartRelayOptions } from '../../server/compose/relay.ts';

export interface TestRelay extends RunningRelay {
  dataDir: string;
}

/**
 * A whole relay as `npm start` runs it (demo mode: embedded simulator, real SQLite file in a temp
 * folder, real HTTP), on a free port. Used by element, end-to-end and chaos tests.
 */
export async function startTestRelay(env: Record<string, string> = {}, options: Partial<StartRelayOptions> & { log?: Logger } = {}): Promise<TestRelay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-relay-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SIM_LISTINGS: '24', ...env });
  const relay = await startRelay(config, { log: silentLogger, ...options });
  return {
    ...relay,
    dataDir,
    close: async () => {
      await relay.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
