import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger, type Logger } from '../../server/runtime/log.ts';
import type { Clock } from '../../server/runtime/clock.ts';
import { startRelay, type RunningRelay } from '../../server/compose/relay.ts';
import type { AgenciesRig } from './rig.ts';

/**
 * Another relay beside the rig's: the same AGENCIES_FILE, key, simulator and database, its own
 * DATA_DIR (another machine's disk). close() also removes that folder.
 */
export async function anotherRelay(
  rig: AgenciesRig,
  databaseUrl: string,
  options: {
    workers?: boolean;
    /** More settings for this relay (ENQUIRY_RECONCILE_DELAY_MS, say). */ env?: Record<string, string>;
    /** Its clock (a skewed one: its heartbeat measures it against the database's) and its log. */ clock?: Clock;
    log?: Logger;
  } = {},
): Promise<RunningRelay> {
  const { config } = rig.relay;
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-agencies-second-'));
  const relay = await startRelay(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      CRM_BASE_URL: config.crm.baseUrl!,
      CRM_API_KEY: config.crm.apiKey!,
      CRM_REQUESTS_PER_SECOND: String(config.crm.requestsPerSecond),
      AGENCIES_FILE: rig.file,
      PHOTO_WIDTHS: '240',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: 'https://relay.integrator.test',
      ENQUIRY_RATE_LIMIT_PER_MINUTE: String(config.enquiries.rateLimitPerMinute),
      ...options.env,
    }),
    { log: options.log ?? silentLogger, workers: options.workers ?? false, app: { demoDir: null }, clock: options.clock },
  ).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const close = relay.close;
  relay.close = async () => {
    await close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return relay;
}

/** A query straight to the database, below the relays. */
export async function queryDatabase<Row extends Record<string, unknown>>(databaseUrl: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}
