import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import express from 'express';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/app.ts';
import { loadConfig } from '../../server/config.ts';
import { corsPolicy } from '../../server/cors.ts';
import { errorHandler } from '../../server/errors.ts';
import { silentLogger } from '../../server/log.ts';
import { openStore, type Store } from '../../server/store/store.ts';

let dir: string;
let store: Store;
let app: express.Express;
const bundle = 'export const hello = "estate";\n';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'estate-app-'));
  store = openStore(join(dir, 'data'));
  const widgetDir = join(dir, 'widget');
  const demoDir = join(dir, 'demo');
  mkdirSync(widgetDir);
  mkdirSync(demoDir);
  writeFileSync(join(widgetDir, 'widget.js'), bundle);
  writeFileSync(join(demoDir, 'index.html'), '<!doctype html><title>Demo</title>');
  app = createApp({ config: loadConfig({}), store, log: silentLogger, widgetDir, demoDir });
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
    const closedApp = createApp({ config: loadConfig({}), store: closed, log: silentLogger, demoDir: null });
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

describe('compression', () => {
  it('compresses the widget bundle for browsers that accept it', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'estate-app-gzip-'));
    const widgetDir = join(dir2, 'widget');
    mkdirSync(widgetDir);
    const big = `export const text = ${JSON.stringify('listing '.repeat(5000))};\n`;
    writeFileSync(join(widgetDir, 'widget.js'), big);
    const gzipApp = createApp({ config: loadConfig({}), store, log: silentLogger, widgetDir, demoDir: null });
    const response = await request(gzipApp).get('/widget.js').set('Accept-Encoding', 'gzip').expect(200);
    expect(response.headers['content-encoding']).toBe('gzip');
    expect(response.text).toBe(big);
    rmSync(dir2, { recursive: true, force: true });
  });
});
