import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import type { RunningSimulator } from '../../crm-sim/simulator.ts';

/**
 * One agency's relay on the simulator and a shared PostgreSQL database (DATABASE_URL), in its own
 * DATA_DIR: what the cluster suites start two or more of. `env` adds or overrides settings.
 */
export function startRelayOnDatabase(
  sim: RunningSimulator,
  databaseUrl: string,
  dataDir: string,
  env: Record<string, string> = {},
  options: { workers?: boolean } = {},
): Promise<RunningRelay> {
  return startRelay(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      CRM_BASE_URL: sim.baseUrl,
      CRM_API_KEY: sim.apiKey,
      CRM_ACCESS_TOKEN: sim.accessToken,
      CRM_REQUESTS_PER_SECOND: '50',
      PHOTO_WIDTHS: '240',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'https://relay.agency.test',
      ...env,
    }),
    { log: silentLogger, app: { demoDir: null }, ...(options.workers === undefined ? {} : { workers: options.workers }) },
  );
}
