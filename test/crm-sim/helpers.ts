import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningSimulator } from '../../crm-sim/simulator.ts';

/** A frozen, steerable clock for the simulator: tests move time by hand. */
export function manualClock(start: string) {
  let now = Date.parse(start);
  return {
    now: () => new Date(now),
    set: (iso: string) => {
      now = Date.parse(iso);
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Calls the simulator's API as an integrator would, with its key and token unless told otherwise. */
export function apiClient(sim: RunningSimulator) {
  return async function call<T = any>(
    path: string,
    init: { method?: string; body?: unknown; apiKey?: string | null; token?: string | null; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...init.headers };
    const apiKey = init.apiKey === undefined ? sim.apiKey : init.apiKey;
    const token = init.token === undefined ? sim.accessToken : init.token;
    if (apiKey !== null) headers['X-Api-Key'] = apiKey;
    if (token !== null) headers.Authorization = `Bearer ${token}`;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${sim.baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
}

/** A call to the simulator's control API (/__sim); a string body is sent as it is, anything else as JSON. */
export async function control<T = any>(
  running: RunningSimulator,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${running.origin}/__sim${path}`, {
    method: init.method ?? 'GET',
    headers: init.body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

/** The CRM's DateTime format: 2022-03-25T01:40:27+00:00. */
export const CRM_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

export interface WebhookReceiver {
  url: string;
  /** Each POST as it came, headers and raw bytes. */
  received: Array<{ headers: IncomingMessage['headers']; body: Buffer }>;
  close(): void;
}

/** A plain HTTP server on 127.0.0.1 answering 200 to every POST and recording it, raw bytes included. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/crm`,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
