import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { geocoderRouter } from './routes/geocoder.ts';
import express from 'express';
import { apiRouter } from './routes/api.ts';
import { controlRouter } from './routes/control.ts';
import { filesRouter } from './routes/files.ts';
import { tilesRouter } from './routes/tiles.ts';
import { startMailCatcher, type MailCatcher } from './mail-catcher.ts';
import { IntegratorKey, SimulatorState } from './state.ts';

export { IntegratorKey, SimulatorState } from './state.ts';
export type { CountersSnapshot, ListingChange, NewListing } from './state.ts';
export type { FaultRule } from './faults.ts';
export { SCOPES, ALL_SCOPES } from './state.ts';
export type { CaughtMail, MailCatcher } from './mail-catcher.ts';

export const API_BASE_PATH = '/api/v1.3';
export const DEFAULT_API_KEY = 'sim-api-key-0000000000000000';
export const DEFAULT_ACCESS_TOKEN = 'sim-access-token-0000000000000000';

export interface SimulatorOptions {
  /** Seed size, default 40; benchmarks use thousands. */
  listings?: number;
  /** Deterministic PRNG seed, default 1. */
  seed?: number;
  apiKey?: string;
  accessToken?: string;
  /** Per API key, default 10. */
  requestsPerSecond?: number;
  /** Per API key per UTC day, default 10,000. */
  dailyLimit?: number;
  /** Clock for tests (the daily quota resets at 00:00 UTC of this clock). */
  now?: () => Date;
  /** Where webhooks go (the integrator's registered URL); unset: none are sent. Also `/__sim/webhooks`. */
  webhookUrl?: string;
  /** Share of webhooks dropped, 0-1 (0.5: every other one). */
  webhookDropRate?: number;
  /** Accounts (agencies) on the one API key, default 1; each has its own token, data and events. */
  agencies?: number;
  /** Keep only the first N photos of each listing (cheap accounts for benches); default all (5-20). */
  photosPerListing?: number;
  /** The mail catcher `/__sim/mail` and the back office (`/__sim/`) show; startSimulator starts one. */
  mail?: Pick<MailCatcher, 'messages' | 'url'>;
}

/** How many accounts one simulator will hold: enough for any bench, a clear refusal past it. */
export const MAX_AGENCIES = 2000;

export interface RunningSimulator {
  /** http://127.0.0.1:PORT/api/v1.3 */
  baseUrl: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  apiKey: string;
  /** The first account's token. */
  accessToken: string;
  /** The first account (the default one of the control surface). */
  state: SimulatorState;
  /** The key every account shares: its accounts (live list), limits, counters and webhook sender. */
  key: IntegratorKey;
  /** Its mail catcher: an SMTP server on 127.0.0.1 (`mail.url`, smtp://127.0.0.1:<port>) whose mail `/__sim/mail` and `/__sim/` show. */
  mail: MailCatcher;
  close(): Promise<void>;
}

/** The simulated CRM as an Express app (never listens): API, file host and /__sim/ control surface. */
export function createSimulatorApp(options: SimulatorOptions = {}): { app: express.Express; state: SimulatorState; key: IntegratorKey } {
  const agencies = options.agencies ?? 1;
  if (!Number.isInteger(agencies) || agencies < 1 || agencies > MAX_AGENCIES)
    throw new RangeError(`agencies must be a whole number from 1 to ${MAX_AGENCIES} (got ${agencies})`);
  const photosPerListing = options.photosPerListing;
  if (photosPerListing !== undefined && (!Number.isInteger(photosPerListing) || photosPerListing < 0)) {
    throw new RangeError(`photosPerListing must be a whole number of at least 0 (got ${photosPerListing})`);
  }
  const state = new SimulatorState({
    listings: options.listings ?? 40,
    seed: options.seed ?? 1,
    apiKey: options.apiKey ?? DEFAULT_API_KEY,
    accessToken: options.accessToken ?? DEFAULT_ACCESS_TOKEN,
    requestsPerSecond: options.requestsPerSecond ?? 10,
    dailyLimit: options.dailyLimit ?? 10_000,
    now: options.now ?? (() => new Date()),
    ...(photosPerListing === undefined ? {} : { photosPerListing }),
  });
  const { key } = state;
  for (let index = 1; index < agencies; index++) key.addAccount();
  state.webhooks.configure({ url: options.webhookUrl ?? null, dropRate: options.webhookDropRate ?? 0 });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(API_BASE_PATH, apiRouter(key));
  app.use('/files', filesRouter(key));
  app.use('/__sim', controlRouter(key, { mail: options.mail }));
  // A Nominatim-compatible geocoder over the seed's addresses (demo mode's GEOCODER_URL).
  app.use(geocoderRouter(key));
  // Plain map tiles (demo mode's MAP_TILE_URL).
  app.use(tilesRouter());
  app.get('/', (_req, res) => {
    res.json({ service: 'CRM simulator', api: API_BASE_PATH, control: '/__sim/counters' });
  });
  app.use((req, res) => {
    res.status(404).json({ success: false, msg: `Nothing at ${req.method} ${req.path}`, code: 'NOT_FOUND' });
  });
  return { app, state, key };
}

/** Starts the simulator on 127.0.0.1 (port 0: any free port) and resolves once it listens. */
export async function startSimulator(
  options: SimulatorOptions & { port?: number; host?: string; /** The mail catcher's port (default any free one). */ mailPort?: number } = {},
): Promise<RunningSimulator> {
  const mail = await startMailCatcher({ port: options.mailPort, now: options.now });
  const { app, state, key } = createSimulatorApp({ ...options, mail });
  const host = options.host ?? '127.0.0.1';
  const server = app.listen(options.port ?? 0, host);
  try {
    await once(server, 'listening');
  } catch (error) {
    await mail.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  state.origin = origin;
  return {
    baseUrl: `${origin}${API_BASE_PATH}`,
    origin,
    apiKey: state.options.apiKey,
    accessToken: state.options.accessToken,
    state,
    key,
    mail,
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        key.driver.stop();
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of clients would hold close() open; the simulator owns no state worth draining.
        server.closeAllConnections();
      });
      await mail.close();
    },
  };
}
