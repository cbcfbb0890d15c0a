import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { apiRouter } from './routes/api.ts';
import { controlRouter } from './routes/control.ts';
import { filesRouter } from './routes/files.ts';
import { SimulatorState } from './state.ts';

export { SimulatorState } from './state.ts';
export type { CountersSnapshot, ListingChange, NewListing } from './state.ts';
export type { FaultRule } from './faults.ts';
export { SCOPES, ALL_SCOPES } from './state.ts';

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
}

export interface RunningSimulator {
  /** http://127.0.0.1:PORT/api/v1.3 */
  baseUrl: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  apiKey: string;
  accessToken: string;
  state: SimulatorState;
  close(): Promise<void>;
}

/** The simulated CRM as an Express app (never listens): API, file host and /__sim/ control surface. */
export function createSimulatorApp(options: SimulatorOptions = {}): { app: express.Express; state: SimulatorState } {
  const state = new SimulatorState({
    listings: options.listings ?? 40,
    seed: options.seed ?? 1,
    apiKey: options.apiKey ?? DEFAULT_API_KEY,
    accessToken: options.accessToken ?? DEFAULT_ACCESS_TOKEN,
    requestsPerSecond: options.requestsPerSecond ?? 10,
    dailyLimit: options.dailyLimit ?? 10_000,
    now: options.now ?? (() => new Date()),
  });
  state.webhooks.configure({ url: options.webhookUrl ?? null, dropRate: options.webhookDropRate ?? 0 });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(API_BASE_PATH, apiRouter(state));
  app.use('/files', filesRouter(state));
  app.use('/__sim', controlRouter(state));
  app.get('/', (_req, res) => {
    res.json({ service: 'CRM simulator', api: API_BASE_PATH, control: '/__sim/counters' });
  });
  app.use((req, res) => {
    res.status(404).json({ success: false, msg: `Nothing at ${req.method} ${req.path}`, code: 'NOT_FOUND' });
  });
  return { app, state };
}

/** Starts the simulator on 127.0.0.1 (port 0: any free port) and resolves once it listens. */
export async function startSimulator(options: SimulatorOptions & { port?: number; host?: string } = {}): Promise<RunningSimulator> {
  const { app, state } = createSimulatorApp(options);
  const host = options.host ?? '127.0.0.1';
  const server = app.listen(options.port ?? 0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  state.origin = origin;
  return {
    baseUrl: `${origin}${API_BASE_PATH}`,
    origin,
    apiKey: state.options.apiKey,
    accessToken: state.options.accessToken,
    state,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive sockets of clients would hold close() open; the simulator owns no state worth draining.
        server.closeAllConnections();
      }),
  };
}
