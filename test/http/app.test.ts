import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import express from 'express';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, utimesSync } from 'node:fs';
import { once } from 'node:events';
import { get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/http/app.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { corsPolicy } from '../../server/http/cors.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { openStore, storeAnswers, type Store } from '../../server/store/store.ts';
import { DYNAMIC_EFFORT, EncodedBody } from '../../server/http/precompressed.ts';

let dir: string;
let store: Store;
let app: express.Express;
const bundle = 'export const hello = "estate";\n';
const CHUNK = 'widget-estate-enquiry.Ab3_x-9Z.js';
const chunk = 'export const form = "enquiry";\n';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'estate-app-'));
  store = openStore(join(dir, 'data'));
  const widgetDir = join(dir, 'widget');
  const demoDir = join(dir, 'demo');
  mkdirSync(widgetDir);
  mkdirSync(demoDir);
  writeFileSync(join(widgetDir, 'widget.js'), bundle);
  writeFileSync(join(widgetDir, CHUNK), chunk);
  writeFileSync(join(widgetDir, 'secret.txt'), 'not for the web');
  writeFileSync(join(demoDir, 'index.html'), '<!doctype html><title>Demo</title>');
  app = createApp({ config: loadConfig({}), storeAnswers: () => storeAnswers(store), log: silentLogger, widgetDir, demoDir });
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('relay skeleton', () => {
  it('answers /healthz and /readyz with helmet headers', async () => {
    const health = await request(app).get('/healthz').expect(200);
    expect(health.body).toEqual({ status: 'ok' });
    expect(health.headers['x-content-type-options']).toBe('nosniff');
    expect(health.headers['content-security-policy']).toContain("default-src 'self'");
    expect(health.headers['cross-origin-resource-policy']).toBe('same-origin');
    const ready = await request(app).get('/readyz').expect(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { store: true } });
  });

  it('reports not ready when the store is closed', async () => {
    const closedDir = mkdtempSync(join(tmpdir(), 'estate-app-closed-'));
    const closed = openStore(closedDir);
    const closedApp = createApp({ config: loadConfig({}), storeAnswers: () => storeAnswers(closed), log: silentLogger, demoDir: null });
    closed.close();
    const ready = await request(closedApp).get('/readyz').expect(503);
    expect(ready.body.checks.store).toBe(false);
    rmSync(closedDir, { recursive: true, force: true });
  });

  it('serves /widget.js with a short cache, cross-origin', async () => {
    const response = await request(app).get('/widget.js').expect(200);
    expect(response.text).toBe(bundle);
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(response.headers['cache-control']).toContain('max-age=300');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.headers['access-control-allow-origin']).toBe('*');
  });

  it('serves the versioned bundle as immutable and refuses unknown versions', async () => {
    const hash = createHash('sha256').update(bundle).digest('hex').slice(0, 10);
    const response = await request(app).get(`/widget.${hash}.js`).expect(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    await request(app).get('/widget.0123456789.js').expect(404);
  });

  it("serves the elements' chunks immutable and cross-origin, and nothing else from the widget folder", async () => {
    const response = await request(app).get(`/${CHUNK}`).expect(200);
    expect(response.text).toBe(chunk);
    expect(response.headers['content-type']).toMatch(/^text\/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect((await request(app).get('/widget-estate-enquiry.Zz3_x-9Z.js').expect(404)).body).toMatchObject({ error: 'not_found' });
    await request(app).get('/secret.txt').expect(404);
    await request(app).get('/widget-..%2Fsecret.Ab3_x-9Z.js').expect(404);
  });

  it('serves the demo site at /', async () => {
    const response = await request(app).get('/').expect(200);
    expect(response.text).toContain('<title>Demo</title>');
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await request(app).get('/nope').expect(404);
    expect(response.body).toMatchObject({ error: 'not_found' });
  });
});

describe('CORS policy', () => {
  const corsApp = express();
  corsApp.use(corsPolicy({ allowedOrigins: ['https://agency.example'], ownOrigins: ['http://relay.local:8787'], methods: ['GET', 'POST', 'OPTIONS'] }));
  corsApp.all('/thing', (_req, res) => {
    res.json({ ok: true });
  });
  corsApp.use(errorHandler(silentLogger));

  it('lets an allowed origin in and answers its preflight', async () => {
    const response = await request(corsApp).get('/thing').set('Origin', 'https://agency.example').expect(200);
    expect(response.headers['access-control-allow-origin']).toBe('https://agency.example');
    expect(response.headers.vary).toContain('Origin');
    const preflight = await request(corsApp)
      .options('/thing')
      .set('Origin', 'https://agency.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type')
      .expect(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('POST');
  });

  it('refuses other origins with 403 before the handler runs', async () => {
    const response = await request(corsApp).post('/thing').set('Origin', 'https://evil.example').expect(403);
    expect(response.body.error).toBe('origin_not_allowed');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("lets the relay's own pages and originless requests in", async () => {
    const own = await request(corsApp).post('/thing').set('Origin', 'http://relay.local:8787');
    expect(own.status).toBe(200);
    // The own origin is configured, never read from the Host header the client writes.
    const forged = await request(corsApp).post('/thing').set('Host', 'evil.example').set('Origin', 'http://evil.example');
    expect(forged.status).toBe(403);
    await request(corsApp).get('/thing').expect(200);
  });
});

describe('compression: once per file, the form each request accepts', () => {
  let assetsDir: string;
  let server: Server;
  let origin: string;
  const big = (word: string) => `export const text = ${JSON.stringify(`${word} `.repeat(5000))};\n`;
  const files = {
    '/widget.js': big('loader'),
    [`/${CHUNK}`]: big('chunk'),
    '/': `<!doctype html><title>Demo</title>${'<p>listing</p>'.repeat(300)}`,
    '/buy': `<!doctype html><title>Buy</title>${'<p>for sale</p>'.repeat(300)}`,
    '/site.css': `${'.card { color: red }\n'.repeat(200)}`,
  };

  /** The bytes on the wire, undecoded (fetch would decode them). */
  const raw = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      get(`${origin}${path}`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (part: Buffer) => chunks.push(part));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });

  beforeAll(async () => {
    assetsDir = mkdtempSync(join(tmpdir(), 'estate-app-encodings-'));
    mkdirSync(join(assetsDir, 'widget'));
    mkdirSync(join(assetsDir, 'demo'));
    writeFileSync(join(assetsDir, 'widget', 'widget.js'), files['/widget.js']);
    writeFileSync(join(assetsDir, 'widget', CHUNK), files[`/${CHUNK}`]!);
    writeFileSync(join(assetsDir, 'demo', 'index.html'), files['/']);
    writeFileSync(join(assetsDir, 'demo', 'buy.html'), files['/buy']);
    writeFileSync(join(assetsDir, 'demo', 'site.css'), files['/site.css']);
    writeFileSync(join(assetsDir, 'demo', 'robots.txt'), 'User-agent: *\n');
    writeFileSync(join(assetsDir, 'demo', '.env'), 'SECRET=1\n');
    const encodingApp = createApp({
      config: loadConfig({}),
      storeAnswers: () => storeAnswers(store),
      log: silentLogger,
      widgetDir: join(assetsDir, 'widget'),
      demoDir: join(assetsDir, 'demo'),
    });
    server = encodingApp.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(assetsDir, { recursive: true, force: true });
  });

  it('sends brotli to a browser, gzip to a gzip-only client, plain bytes otherwise, each decoding to the file once', async () => {
    for (const [path, text] of Object.entries(files)) {
      const browser = await raw(path, { 'Accept-Encoding': 'gzip, deflate, br' });
      expect(browser.status, path).toBe(200);
      expect(browser.headers['content-encoding'], path).toBe('br');
      expect(browser.headers.vary, path).toMatch(/Accept-Encoding/i);
      expect(Number(browser.headers['content-length']), path).toBe(browser.body.length);
      // One decode gives the file: compressed once, not again by the compression middleware.
      expect(brotliDecompressSync(browser.body).toString(), path).toBe(text);

      const gzip = await raw(path, { 'Accept-Encoding': 'gzip' });
      expect(gzip.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(gzip.body).toString(), path).toBe(text);
      expect(gzip.headers.etag, path).not.toBe(browser.headers.etag);

      const refused = await raw(path, { 'Accept-Encoding': 'br;q=0, gzip;q=0.5' });
      expect(refused.headers['content-encoding'], path).toBe('gzip');
      const plain = await raw(path);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.body.toString(), path).toBe(text);
      expect(plain.headers.vary, path).toMatch(/Accept-Encoding/i);

      // A validator of any form of the same content revalidates it.
      const revalidated = await raw(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': String(browser.headers.etag) });
      expect(revalidated.status, path).toBe(304);
      expect(revalidated.body.length, path).toBe(0);
    }
  });

  it('sends a changed file as soon as it changes, and small or hidden files as they should be', async () => {
    const changed = `${'.card { color: blue }\n'.repeat(200)}`;
    const before = await raw('/site.css', { 'Accept-Encoding': 'br' });
    writeFileSync(join(assetsDir, 'demo', 'site.css'), changed);
    utimesSync(join(assetsDir, 'demo', 'site.css'), new Date(), new Date(Date.now() + 5_000));
    const after = await raw('/site.css', { 'Accept-Encoding': 'br' });
    expect(brotliDecompressSync(after.body).toString()).toBe(changed);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await raw('/site.css', { 'Accept-Encoding': 'br', 'If-None-Match': String(before.headers.etag) })).status).toBe(200);

    // Too small to gain from compression.
    const robots = await raw('/robots.txt', { 'Accept-Encoding': 'br' });
    expect(robots.headers['content-encoding']).toBeUndefined();
    expect(robots.body.toString()).toBe('User-agent: *\n');
    for (const path of ['/.env', '/..%2Fwidget%2Fwidget.js', '/%2e%2e/widget/widget.js', '/%E0%A4%A']) {
      expect((await raw(path, { 'Accept-Encoding': 'br' })).status, path).toBe(404);
    }
  });

  it('makes each compressed form once and hands out the same bytes after', () => {
    const body = new EncodedBody(Buffer.from('listing '.repeat(500)), DYNAMIC_EFFORT);
    expect(body.bytes('br')).toBe(body.bytes('br'));
    expect(body.bytes('gzip')).toBe(body.bytes('gzip'));
    expect(body.bytes('br').length).toBeLessThan(body.identity.length / 10);
  });
});
