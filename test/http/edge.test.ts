import { request as httpRequest } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { openStore, storeAnswers, type Store } from '../../server/store/store.ts';
import { startListingRig, type ListingRig } from '../listings/rig.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

/** A GET over real HTTP with headers fetch() will not send (Host). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const TOKEN = 'm'.repeat(40);

describe('routing and /metrics', () => {
  let relay: TestRelay;
  let tokenRelay: TestRelay;
  beforeAll(async () => {
    relay = await startTestRelay({}, { workers: false });
    tokenRelay = await startTestRelay({ METRICS_TOKEN: TOKEN }, { workers: false });
  });
  afterAll(async () => {
    await relay?.close();
    await tokenRelay?.close();
  });

  it('is strict and case-sensitive: another spelling of a route is a 404', async () => {
    expect((await fetch(`${relay.url}/metrics`)).status).toBe(200);
    expect((await fetch(`${relay.url}/healthz`)).status).toBe(200);
    for (const path of [
      '/METRICS',
      '/Metrics',
      '/metrics/',
      '/metrics//',
      '/healthz/',
      '/HEALTHZ',
      '/api/v1/listings/',
      '/API/v1/listings',
      '/api/v1/agents/',
      '/Widget.js',
    ]) {
      const response = await fetch(`${relay.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toContain('estate_enquir');
    }
  });

  it('without METRICS_TOKEN, /metrics answers only direct requests from this host, not ones through a proxy', async () => {
    for (const header of ['X-Forwarded-For', 'Forwarded', 'X-Real-IP']) {
      const proxied = await fetch(`${relay.url}/metrics`, { headers: { [header]: header === 'Forwarded' ? 'for=203.0.113.7' : '203.0.113.7' } });
      expect(proxied.status, header).toBe(404);
    }
  });

  it('with METRICS_TOKEN, a proxied request needs the bearer token', async () => {
    const proxied = { 'X-Forwarded-For': '203.0.113.7' };
    expect((await fetch(`${tokenRelay.url}/metrics`, { headers: proxied })).status).toBe(404);
    expect((await fetch(`${tokenRelay.url}/metrics`, { headers: { ...proxied, Authorization: `Bearer ${'x'.repeat(40)}` } })).status).toBe(404);
    const allowed = await fetch(`${tokenRelay.url}/metrics`, { headers: { ...proxied, Authorization: `Bearer ${TOKEN}` } });
    expect(allowed.status).toBe(200);
    expect(await allowed.text()).toContain('estate_enquiry_outbox');
  });
});

describe('the demo site', () => {
  let dir: string;
  let store: Store;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'estate-edge-'));
    store = openStore(join(dir, 'data'));
    mkdirSync(join(dir, 'demo'));
    writeFileSync(join(dir, 'demo', 'index.html'), '<!doctype html><title>Demo agency</title>');
  });
  afterAll(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is mounted in demo mode only', async () => {
    const app = (env: Record<string, string>) =>
      createApp({ config: loadConfig(env), storeAnswers: () => storeAnswers(store), log: silentLogger, demoDir: join(dir, 'demo'), widgetDir: dir });
    expect((await supertest(app({})).get('/')).text).toContain('Demo agency');
    const production = app({ CRM_BASE_URL: 'https://crm.example/api/v1.3', CRM_API_KEY: 'k', CRM_ACCESS_TOKEN: 't', PUBLIC_URL: 'https://relay.example' });
    expect((await supertest(production).get('/')).status).toBe(404);
    expect((await supertest(production).get('/index.html')).status).toBe(404);
  });
});

describe('the Host header never reaches an answer or a cache key', () => {
  let rig: ListingRig;
  let demo: TestRelay;
  beforeAll(async () => {
    rig = await startListingRig({ listings: 8 });
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    demo = await startTestRelay({ SIM_LISTINGS: '8' });
    await demo.listings.sync.whenLoaded();
  });
  afterAll(async () => {
    await rig?.close();
    await demo?.close();
  });

  it('photo URLs come from PUBLIC_URL, whatever Host a client forges', async () => {
    const honest = await rawGet(`${rig.relay.url}/api/v1/listings`, {});
    const forged = await rawGet(`${rig.relay.url}/api/v1/listings`, { Host: 'evil.example' });
    expect(forged.status).toBe(200);
    expect(forged.body).not.toContain('evil.example');
    expect(forged.body).toContain(`"url":"${rig.publicUrl}/photos/`);
    // One answer for every Host: the same bytes, the same ETag.
    expect(forged.headers.etag).toBe(honest.headers.etag);
    const detail = await rawGet(`${rig.relay.url}/api/v1/agents`, { Host: 'evil.example' });
    expect(detail.body).not.toContain('evil.example');
  });

  it('in demo mode without PUBLIC_URL, photo URLs are relay-relative, never built from Host', async () => {
    // A first fill serves its listings before their photos are mirrored: wait for the photos.
    let forged = await rawGet(`${demo.url}/api/v1/listings`, { Host: 'evil.example:1234' });
    for (const deadline = Date.now() + 30_000; !forged.body.includes('"url":"/photos/') && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      forged = await rawGet(`${demo.url}/api/v1/listings`, { Host: 'evil.example:1234' });
    }
    expect(forged.status).toBe(200);
    expect(forged.body).not.toContain('evil.example');
    expect(forged.body).toContain('"url":"/photos/');
  });
});
