import { once } from 'node:events';
import { createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync } from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DYNAMIC_EFFORT, EncodedBody, sendEncoded } from '../../server/http/precompressed.ts';
import { ResponseCache } from '../../server/http/response-cache.ts';

/** A server whose app records its answers, behind a replay cache, as the relay is. */
describe('replay of recorded answers, before Express', () => {
  const replay = new ResponseCache();
  let appRuns = 0;
  let current = true;
  let age = 1;
  const body = new EncodedBody(Buffer.from(JSON.stringify({ items: 'listing '.repeat(400) })), DYNAMIC_EFFORT);
  let server: Server;
  let origin: string;

  const raw = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      get(`${origin}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (part: Buffer) => chunks.push(part));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });

  beforeAll(async () => {
    const app = express();
    app.use((_req, res, next) => {
      res.set('X-Content-Type-Options', 'nosniff');
      next();
    });
    app.get('/answer', (req, res) => {
      appRuns++;
      if (req.get('Origin') === 'https://refused.example') return void res.status(403).json({ error: 'origin_refused' });
      if (req.get('Origin')) res.set('Access-Control-Allow-Origin', req.get('Origin'));
      res.set('X-Age', String(age)).type('application/json');
      sendEncoded(req, res, body, (bytes) => replay.remember(req, res, body, bytes, { isCurrent: () => current, refresh: () => ({ 'x-age': String(age) }) }));
    });
    server = createServer((req, res) => {
      if (!replay.answer(req, res)) app(req, res);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the same bytes and headers again without running the app, per coding and origin', async () => {
    const first = await raw('/answer', { 'Accept-Encoding': 'br, gzip' });
    expect(appRuns).toBe(1);
    age = 7;
    const again = await raw('/answer', { 'Accept-Encoding': 'br, gzip' });
    expect(appRuns).toBe(1);
    expect(again.body.equals(first.body)).toBe(true);
    expect(JSON.parse(brotliDecompressSync(again.body).toString())).toEqual({ items: 'listing '.repeat(400) });
    const { date: _d1, 'x-age': firstAge, ...firstHeaders } = first.headers;
    const { date: _d2, 'x-age': againAge, ...againHeaders } = again.headers;
    expect(againHeaders).toEqual(firstHeaders);
    expect([firstAge, againAge]).toEqual(['1', '7']);
    expect(again.headers['x-content-type-options']).toBe('nosniff');

    // Another coding or another origin is another answer: the app decides it (CORS refusals too).
    const plain = await raw('/answer');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(appRuns).toBe(2);
    const allowed = await raw('/answer', { Origin: 'https://agency.example' });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://agency.example');
    expect((await raw('/answer', { Origin: 'https://refused.example' })).status).toBe(403);
    expect((await raw('/answer', { Origin: 'https://refused.example' })).status).toBe(403);
    expect(appRuns).toBe(5);

    // Revalidation is answered from the record too.
    const notModified = await raw('/answer', { 'Accept-Encoding': 'br, gzip', 'If-None-Match': String(first.headers.etag) });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.etag).toBe(first.headers.etag);
    expect(notModified.headers['content-encoding']).toBeUndefined();
    expect(appRuns).toBe(5);
  });

  it('drops an answer once the route says it is out of date', async () => {
    current = false;
    const before = appRuns;
    await raw('/answer', { 'Accept-Encoding': 'br, gzip' });
    expect(appRuns).toBe(before + 1);
    current = true;
    await raw('/answer', { 'Accept-Encoding': 'br, gzip' });
    expect(appRuns).toBe(before + 1);
  });
});
