// Map tiles from the relay's own origin (issue 20, third part): a fixture tile provider on
// 127.0.0.1 counts what it is asked, the relay's tile routes over real HTTP in front of it.
import { execFileSync } from 'node:child_process';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MapBounds, MapConfig } from '../../contract/relay-api.ts';
import { errorHandler } from '../../server/http/errors.ts';
import { createLogger, silentLogger } from '../../server/runtime/log.ts';
import { ConfigError, loadConfig, type TileSettings } from '../../server/runtime/config.ts';
import { createMapTiles, LABEL_CACHE_SHARE, LABEL_TILE_FOLDER, TileSource } from '../../server/tiles/index.ts';
import { tileX, tileY } from '../../server/tiles/area.ts';
import { tilesRouter } from '../../server/tiles/routes.ts';
import { TileDiskCache } from '../../server/tiles/disk-cache.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

/** Kew and Hawthorn, Melbourne: the agency's listings. */
const BOUNDS: MapBounds = { south: -37.83, west: 145.02, north: -37.8, east: 145.05 };
const Z = 14;
const INSIDE = { z: Z, x: tileX(145.035, Z), y: tileY(-37.815, Z) };
/** Sydney: some 700 km away. */
const OUTSIDE = { z: Z, x: tileX(151.2, Z), y: tileY(-33.87, Z) };

let png: Buffer;
let provider: Server;
let providerUrl: string;
/** What the provider was asked, path by path, with the conditional header. */
const asked: Array<{ path: string; ifNoneMatch?: string; userAgent?: string; forwarded?: string }> = [];
let answer: (req: IncomingMessage) => { status?: number; body?: Buffer; headers?: Record<string, string> } = () => ({});

beforeAll(async () => {
  png = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#dde4d8' } })
    .png()
    .toBuffer();
  provider = createServer((req, res) => {
    asked.push({
      path: req.url!,
      ifNoneMatch: req.headers['if-none-match'],
      userAgent: req.headers['user-agent'],
      forwarded: req.headers['x-forwarded-for'] as string,
    });
    const { status = 200, body = png, headers = {} } = answer(req);
    if (req.headers['if-none-match'] === '"v1"' && status === 200 && !headers['x-ignore-etag']) {
      res.writeHead(304, { 'Cache-Control': 'max-age=60', ETag: '"v1"' }).end();
      return;
    }
    res.writeHead(status, { 'Content-Type': 'image/png', 'Content-Length': String(body.length), 'Cache-Control': 'max-age=60', ETag: '"v1"', ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => provider.close(() => resolve()));
});

interface Rig {
  url: string;
  source: TileSource | undefined;
  /** The labels layer, when the rig was given a `labelUrl`. */
  labels: TileSource | undefined;
  dataDir: string;
  clock: { now: number };
  close(): Promise<void>;
}

/** The tile routes of one agency (listings in BOUNDS) in front of the fixture provider, on a clock the test moves. */
async function rig(settings: Partial<TileSettings> = {}, options: { bounds?: MapBounds | null; maxBytes?: number; noSource?: boolean } = {}): Promise<Rig> {
  const dataDir = mkdtempSync(join(tmpdir(), 'estate-tiles-'));
  const clock = { now: Date.UTC(2025, 5, 1, 10, 0, 0) };
  const full = {
    url: `${providerUrl}/osm/{z}/{x}/{y}.png`,
    labelUrl: undefined,
    attribution: '© Test Tiles',
    cacheBytes: 64 * 1024 * 1024,
    maxZoom: 17,
    ratePerMinute: 600,
    ...settings,
  } as TileSettings & { url: string };
  const source = options.noSource
    ? undefined
    : new TileSource({
        settings: full,
        dataDir,
        userAgent: 'estate-embed/9.9.9',
        log: silentLogger,
        now: () => clock.now,
        fetch: options.maxBytes ? { maxBytes: options.maxBytes } : undefined,
      });
  // As createMapTiles makes it: its own folder, cache and rate, the fetches to providers shared.
  const labels = full.labelUrl
    ? new TileSource({
        settings: { ...full, url: full.labelUrl },
        dataDir,
        folder: LABEL_TILE_FOLDER,
        layer: 'labels',
        slots: source?.slots,
        userAgent: 'estate-embed/9.9.9',
        log: silentLogger,
        now: () => clock.now,
      })
    : undefined;
  const app = express();
  app.set('trust proxy', false);
  app.use(
    tilesRouter({
      source,
      labels,
      bounds: () => (options.bounds === undefined ? BOUNDS : options.bounds),
      maxZoom: settings.maxZoom ?? 17,
      cors: { allowedOrigins: ['https://agency.example'] },
    }),
  );
  app.use(errorHandler(silentLogger));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    source,
    labels,
    dataDir,
    clock,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The folder's disk use as `du -sk` reports it (KiB, files' and folders' allocated blocks). */
function duKib(dir: string): number {
  return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split(/\s/)[0]);
}

const tilePath = ({ z, x, y }: { z: number; x: number; y: number }) => `/tiles/${z}/${x}/${y}.png`;
const tilePath2x = ({ z, x, y }: { z: number; x: number; y: number }) => `/tiles/${z}/${x}/${y}@2x.png`;
const labelPath = ({ z, x, y }: { z: number; x: number; y: number }, scale = '') => `/tiles/labels/${z}/${x}/${y}${scale}.png`;

describe('tiles from the relay', () => {
  let r: Rig;
  beforeEach(async () => {
    asked.length = 0;
    answer = () => ({});
  });
  afterEach(async () => {
    await r?.close();
  });

  it('fetches a tile inside the area once, serves it from disk, and revalidates it after max-age', async () => {
    r = await rig();
    const first = await fetch(r.url + tilePath(INSIDE), { headers: { 'X-Forwarded-For': '203.0.113.9' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(Buffer.from(await first.arrayBuffer()).equals(png)).toBe(true);
    expect(asked).toHaveLength(1);
    // The provider's template, the relay's own User-Agent, nothing of the visitor.
    expect(asked[0]!.path).toBe(`/osm/${INSIDE.z}/${INSIDE.x}/${INSIDE.y}.png`);
    expect(asked[0]!.userAgent).toBe('estate-embed/9.9.9');
    expect(asked[0]!.forwarded).toBeUndefined();

    r.clock.now += 30_000;
    const second = await fetch(r.url + tilePath(INSIDE));
    expect(second.status).toBe(200);
    expect(second.headers.get('x-tile-source')).toBe('disk');
    expect(second.headers.get('cache-control')).toBe('public, max-age=30');
    expect(asked).toHaveLength(1);

    // The browser's own copy: 304 from the relay, still without the provider. (node:http: fetch adds Cache-Control: no-cache to a conditional request.)
    const etag = second.headers.get('etag')!;
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(r.url + tilePath(INSIDE), { headers: { 'If-None-Match': etag } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on('error', reject),
    );
    expect(status).toBe(304);
    expect(asked).toHaveLength(1);

    // Past max-age: asked again with the provider's ETag; its 304 keeps the copy for another 60 s.
    r.clock.now += 31_000;
    const third = await fetch(r.url + tilePath(INSIDE));
    expect(third.status).toBe(200);
    expect(third.headers.get('x-tile-source')).toBe('revalidated');
    expect(Buffer.from(await third.arrayBuffer()).equals(png)).toBe(true);
    expect(asked).toHaveLength(2);
    expect(asked[1]!.ifNoneMatch).toBe('"v1"');
    r.clock.now += 10_000;
    expect((await fetch(r.url + tilePath(INSIDE))).headers.get('x-tile-source')).toBe('disk');
    expect(asked).toHaveLength(2);
  });

  it('respects Expires and no-store, and keeps one fetch for many visitors asking at once', async () => {
    r = await rig();
    answer = () => ({ headers: { 'Cache-Control': '', Expires: new Date(r.clock.now + 120_000).toUTCString(), Date: new Date(r.clock.now).toUTCString() } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => fetch(r.url + tilePath(INSIDE))));
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]!.headers.get('cache-control')).toBe('public, max-age=120');
    expect(asked).toHaveLength(1);

    const other = { ...INSIDE, x: INSIDE.x + 1 };
    answer = () => ({ headers: { 'Cache-Control': 'no-store' } });
    expect((await fetch(r.url + tilePath(other))).headers.get('cache-control')).toBe('public, max-age=0');
    expect((await fetch(r.url + tilePath(other))).status).toBe(200);
    expect(asked).toHaveLength(3);
  });

  it('refuses tiles outside the area and above MAP_MAX_ZOOM with 404, without asking the provider', async () => {
    r = await rig({ maxZoom: 15 });
    expect((await fetch(r.url + tilePath(OUTSIDE))).status).toBe(404);
    expect((await fetch(r.url + tilePath({ z: 16, x: INSIDE.x * 4, y: INSIDE.y * 4 }))).status).toBe(404);
    expect((await fetch(r.url + tilePath({ z: 3, x: 9, y: 0 }))).status).toBe(404);
    expect((await fetch(r.url + '/tiles/14/abc/1.png')).status).toBe(404);
    expect((await fetch(r.url + '/tiles/14/1/1.jpg')).status).toBe(404);
    expect(asked).toHaveLength(0);
    // The open zooms anywhere (a country view), the area's neighbour tile at a deep zoom.
    expect((await fetch(r.url + tilePath({ z: 2, x: 0, y: 0 }))).status).toBe(200);
    expect((await fetch(r.url + tilePath({ ...INSIDE, x: INSIDE.x + 2 }))).status).toBe(200);
    expect(asked).toHaveLength(2);
  });

  it('with no listing placed, serves only the open zooms', async () => {
    r = await rig({}, { bounds: null });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(404);
    expect((await fetch(r.url + tilePath({ z: 4, x: 14, y: 9 }))).status).toBe(200);
    expect(asked).toHaveLength(1);
  });

  it('refuses a non-PNG or oversized answer (502), keeps neither, and never follows a redirect off the host', async () => {
    r = await rig({}, { maxBytes: 100_000 });
    answer = () => ({ body: Buffer.from('<html>not a tile</html>'), headers: { 'Content-Type': 'image/png' } });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(502);
    answer = () => ({ body: Buffer.concat([png, Buffer.alloc(200_000)]) });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(502);
    // No Content-Length: cut off while reading.
    answer = () => ({ body: Buffer.concat([png, Buffer.alloc(200_000)]), headers: { 'Content-Length': '', 'Transfer-Encoding': 'chunked' } });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(502);
    answer = () => ({ status: 302, body: Buffer.alloc(0), headers: { Location: 'http://example.invalid/tile.png' } });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(502);
    expect(r.source!.cache.count).toBe(0);
    answer = () => ({ status: 404, body: Buffer.alloc(0) });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(404);
    expect(asked).toHaveLength(5);
  });

  it('serves the copy it holds while the provider fails', async () => {
    r = await rig();
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(200);
    r.clock.now += 120_000;
    answer = () => ({ status: 503, body: Buffer.alloc(0) });
    const stale = await fetch(r.url + tilePath(INSIDE));
    expect(stale.status).toBe(200);
    expect(stale.headers.get('x-tile-source')).toBe('stale');
    expect(stale.headers.get('cache-control')).toBe('public, max-age=60');
  });

  it('keeps the disk cache under its cap, counted as du counts it, the least recently used going first', async () => {
    const tiles = [0, 1, 2].map((dy) => ({ ...INSIDE, y: INSIDE.y + dy }));
    // What two tiles take on this disk, their blocks and folders included: the cap holds them, not a third.
    r = await rig();
    for (const tile of tiles.slice(0, 2)) expect((await fetch(r.url + tilePath(tile))).status).toBe(200);
    const twoTiles = r.source!.cache.bytes;
    expect(Math.ceil(twoTiles / 1024)).toBe(duKib(r.source!.cache.dir));
    await r.close();
    asked.length = 0;

    r = await rig({ cacheBytes: twoTiles + 512 });
    await fetch(r.url + tilePath(tiles[0]!));
    await fetch(r.url + tilePath(tiles[1]!));
    await fetch(r.url + tilePath(tiles[0]!));
    await fetch(r.url + tilePath(tiles[2]!));
    expect(asked).toHaveLength(3);
    expect(r.source!.cache.count).toBe(2);
    expect(r.source!.cache.bytes).toBeLessThanOrEqual(twoTiles + 512);
    expect(duKib(r.source!.cache.dir) * 1024).toBeLessThanOrEqual(twoTiles + 512);
    expect((await fetch(r.url + tilePath(tiles[0]!))).headers.get('x-tile-source')).toBe('disk');
    expect((await fetch(r.url + tilePath(tiles[1]!))).headers.get('x-tile-source')).toBe('provider');
    expect(asked).toHaveLength(4);
  });

  it('answers 429 with Retry-After past MAP_TILE_RATE_PER_MINUTE for one client', async () => {
    r = await rig({ ratePerMinute: 3 });
    const statuses: number[] = [];
    for (let index = 0; index < 4; index++) {
      const response = await fetch(r.url + tilePath(INSIDE));
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    r.clock.now += 60_000;
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(200);
  });

  it('tells the map what it may show: GET /api/v1/map/config', async () => {
    r = await rig({ maxZoom: 16 });
    const response = await fetch(`${r.url}/api/v1/map/config`, { headers: { Origin: 'https://agency.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://agency.example');
    expect(await response.json()).toEqual({
      tiles: '/tiles/{z}/{x}/{y}.png',
      tiles2x: null,
      labels: null,
      labels2x: null,
      attribution: '© Test Tiles',
      minZoom: 0,
      maxZoom: 16,
      bounds: BOUNDS,
    } satisfies MapConfig);
    expect((await fetch(`${r.url}/api/v1/map/config`, { headers: { Origin: 'https://elsewhere.example' } })).status).toBe(403);
  });

  it('with {r} in MAP_TILE_URL serves 2x tiles (the provider asked for @2x), kept on disk beside the 1x ones, under the same area and rate', async () => {
    const big = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#dde4d8' } })
      .png()
      .toBuffer();
    answer = (req) => ({ body: req.url!.includes('@2x') ? big : png });
    r = await rig({ url: `${providerUrl}/osm/{z}/{x}/{y}{r}.png`, ratePerMinute: 4 });
    const config = (await (await fetch(`${r.url}/api/v1/map/config`)).json()) as MapConfig;
    expect(config.tiles).toBe('/tiles/{z}/{x}/{y}.png');
    expect(config.tiles2x).toBe('/tiles/{z}/{x}/{y}@2x.png');

    const twoX = await fetch(r.url + tilePath2x(INSIDE));
    expect(twoX.status).toBe(200);
    expect(twoX.headers.get('content-type')).toBe('image/png');
    expect(twoX.headers.get('cache-control')).toBe('public, max-age=60');
    expect(Buffer.from(await twoX.arrayBuffer()).equals(big)).toBe(true);
    const oneX = await fetch(r.url + tilePath(INSIDE));
    expect(Buffer.from(await oneX.arrayBuffer()).equals(png)).toBe(true);
    expect(asked.map((entry) => entry.path)).toEqual([`/osm/${INSIDE.z}/${INSIDE.x}/${INSIDE.y}@2x.png`, `/osm/${INSIDE.z}/${INSIDE.x}/${INSIDE.y}.png`]);
    expect(r.source!.cache.count).toBe(2);
    // Kept on disk as {y}@2x.png: served from there, and found again after a restart.
    expect((await fetch(r.url + tilePath2x(INSIDE))).headers.get('x-tile-source')).toBe('disk');
    expect(asked).toHaveLength(2);
    const reopened = new TileDiskCache(r.source!.cache.dir, 64 * 1024 * 1024);
    expect((await reopened.read({ ...INSIDE, scale: 2 }))?.bytes.equals(big)).toBe(true);
    expect((await reopened.read({ ...INSIDE, scale: 1 }))?.bytes.equals(png)).toBe(true);
    expect(reopened.count).toBe(2);

    // Outside the area: refused as the 1x tile is, the provider not asked; then the client's rate (4 a minute, 1x and 2x together).
    expect((await fetch(r.url + tilePath2x(OUTSIDE))).status).toBe(404);
    expect((await fetch(r.url + tilePath2x(INSIDE))).status).toBe(429);
    expect(asked).toHaveLength(2);
  });

  it('without {r} in MAP_TILE_URL: no 2x tiles (404, the provider not asked), tiles2x null', async () => {
    r = await rig();
    const refused = await fetch(r.url + tilePath2x(INSIDE));
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { message: string }).message).toMatch(/no 2x tiles/);
    expect((await fetch(r.url + `/tiles/${INSIDE.z}/${INSIDE.x}/${INSIDE.y}@3x.png`)).status).toBe(404);
    expect(asked).toHaveLength(0);
    expect(((await (await fetch(`${r.url}/api/v1/map/config`)).json()) as MapConfig).tiles2x).toBeNull();
  });

  it('a labels layer (MAP_LABEL_TILE_URL): served at /tiles/labels/…, from its own template and folder, under the same area, zoom and rate rules', async () => {
    const labelsPng = await sharp({ create: { width: 256, height: 256, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const labels2x = await sharp({ create: { width: 512, height: 512, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    answer = (req) => ({ body: req.url!.startsWith('/labels/') ? (req.url!.includes('@2x') ? labels2x : labelsPng) : png });
    r = await rig({ labelUrl: `${providerUrl}/labels/{z}/{x}/{y}{r}.png`, ratePerMinute: 3, maxZoom: 16 });
    const config = (await (await fetch(`${r.url}/api/v1/map/config`)).json()) as MapConfig;
    expect([config.tiles, config.tiles2x]).toEqual(['/tiles/{z}/{x}/{y}.png', null]);
    expect([config.labels, config.labels2x]).toEqual(['/tiles/labels/{z}/{x}/{y}.png', '/tiles/labels/{z}/{x}/{y}@2x.png']);

    const first = await fetch(r.url + labelPath(INSIDE));
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('image/png');
    expect(first.headers.get('x-tile-source')).toBe('provider');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(Buffer.from(await first.arrayBuffer()).equals(labelsPng)).toBe(true);
    expect(asked.map((entry) => [entry.path, entry.userAgent])).toEqual([[`/labels/${INSIDE.z}/${INSIDE.x}/${INSIDE.y}.png`, 'estate-embed/9.9.9']]);
    // Kept in its own folder: the base cache holds nothing of it.
    expect((await fetch(r.url + labelPath(INSIDE))).headers.get('x-tile-source')).toBe('disk');
    expect(r.labels!.cache.dir).toBe(join(r.dataDir, 'label-tiles'));
    expect([r.labels!.cache.count, r.source!.cache.count]).toEqual([1, 0]);
    const reopened = new TileDiskCache(join(r.dataDir, 'label-tiles'), 64 * 1024 * 1024);
    expect((await reopened.read({ ...INSIDE, scale: 1 }))?.bytes.equals(labelsPng)).toBe(true);
    // A labels layer with {r} has 2x labels, whatever the base's template.
    const twoX = await fetch(r.url + labelPath(INSIDE, '@2x'));
    expect(twoX.status).toBe(200);
    expect(Buffer.from(await twoX.arrayBuffer()).equals(labels2x)).toBe(true);
    expect(asked).toHaveLength(2);

    // Not a tile, outside the agency's area or past MAP_MAX_ZOOM: refused, the provider not asked (the last two counted against this client's labels rate, 3 a minute).
    r.clock.now += 60_000;
    expect((await fetch(r.url + `/tiles/labels/${INSIDE.z}/${INSIDE.x}/${INSIDE.y}.jpg`)).status).toBe(404);
    expect((await fetch(r.url + labelPath(OUTSIDE))).status).toBe(404);
    expect((await fetch(r.url + labelPath({ z: 17, x: INSIDE.x * 8, y: INSIDE.y * 8 }))).status).toBe(404);
    expect(asked).toHaveLength(2);
    expect((await fetch(r.url + labelPath(INSIDE))).status).toBe(200);
    // The layers have a rate each (a view asks for both): the labels' is spent, the base's is not.
    const spent = await fetch(r.url + labelPath(INSIDE));
    expect(spent.status).toBe(429);
    expect(Number(spent.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(200);
  });

  it('without MAP_LABEL_TILE_URL: /tiles/labels/… answers 404 naming the setting, labels null in the config', async () => {
    r = await rig({ url: `${providerUrl}/osm/{z}/{x}/{y}{r}.png` });
    const refused = await fetch(r.url + labelPath(INSIDE));
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { message: string }).message).toMatch(/MAP_LABEL_TILE_URL is not set/);
    expect(asked).toHaveLength(0);
    const config = (await (await fetch(`${r.url}/api/v1/map/config`)).json()) as MapConfig;
    expect([config.tiles2x, config.labels, config.labels2x]).toEqual(['/tiles/{z}/{x}/{y}@2x.png', null, null]);
  });

  it('splits MAP_TILE_CACHE_MB between the layers (a quarter for the labels), one bound on fetches for both, each said at start', () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-tiles-'));
    try {
      const config = loadConfig({
        DEMO_MODE: '1',
        DATA_DIR: dataDir,
        MAP_TILE_URL: 'https://tiles.example/nolabels/{z}/{x}/{y}{r}.png',
        MAP_LABEL_TILE_URL: 'https://tiles.example/only_labels/{z}/{x}/{y}.png',
        MAP_ATTRIBUTION: '© Tiles',
        MAP_TILE_CACHE_MB: '8',
      });
      const tiles = createMapTiles({ config, userAgent: 'estate-embed/test', log })!;
      expect(LABEL_CACHE_SHARE).toBe(0.25);
      expect([tiles.base.cache.maxBytes, tiles.labels!.cache.maxBytes]).toEqual([6 * 1024 * 1024, 2 * 1024 * 1024]);
      expect([tiles.base.cache.dir, tiles.labels!.cache.dir]).toEqual([join(dataDir, 'tiles'), join(dataDir, 'label-tiles')]);
      expect(tiles.labels!.slots).toBe(tiles.base.slots);
      expect([tiles.base.highDensity, tiles.labels!.highDensity]).toEqual([true, false]);
      expect(lines.join('')).toContain('map labels are fetched from MAP_LABEL_TILE_URL');
      // Without the setting the base keeps the whole budget.
      const plain = createMapTiles({
        config: { ...config, tiles: { ...config.tiles, labelUrl: undefined } },
        userAgent: 'estate-embed/test',
        log: silentLogger,
      })!;
      expect([plain.base.cache.maxBytes, plain.labels]).toEqual([8 * 1024 * 1024, undefined]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('without MAP_TILE_URL: 404 for tiles, tiles null in the config, and a log line at start', async () => {
    r = await rig({}, { noSource: true });
    expect((await fetch(r.url + tilePath(INSIDE))).status).toBe(404);
    expect(((await (await fetch(`${r.url}/api/v1/map/config`)).json()) as MapConfig).tiles).toBeNull();
    const lines: string[] = [];
    const log = createLogger({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const config = loadConfig({ DEMO_MODE: '1' });
    expect(createMapTiles({ config, userAgent: 'estate-embed/test', log })).toBeUndefined();
    expect(lines.join('')).toContain('the map has no tile source (MAP_TILE_URL is not set)');
  });
});

describe('tile settings', () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ DEMO_MODE: '1', ...env });
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('refuses a template without its placeholders, off http(s) or with one in the host, naming MAP_TILE_URL', () => {
    for (const url of [
      'https://tiles.example/{z}/{x}.png',
      'ftp://tiles.example/{z}/{x}/{y}.png',
      'https://{s}.tiles.example/{z}/{x}/{y}.png',
      'https://tiles{r}.example/{z}/{x}/{y}.png',
      'tiles',
    ])
      expect(problems({ MAP_TILE_URL: url, MAP_ATTRIBUTION: '© Tiles' }).join('\n'), url).toMatch(/^MAP_TILE_URL: /);
    // Leaflet's {r} (2x tiles) in the path is welcome.
    expect(problems({ MAP_TILE_URL: 'https://tiles.example/{z}/{x}/{y}{r}.png', MAP_ATTRIBUTION: '© Tiles' })).toEqual([]);
  });

  it('checks MAP_LABEL_TILE_URL as MAP_TILE_URL, naming it, and refuses it without MAP_TILE_URL', () => {
    const base = { MAP_TILE_URL: 'https://tiles.example/nolabels/{z}/{x}/{y}{r}.png', MAP_ATTRIBUTION: '© Tiles' };
    for (const url of ['https://tiles.example/{z}/{y}.png', 'ftp://tiles.example/{z}/{x}/{y}.png', 'https://{s}.tiles.example/{z}/{x}/{y}.png', 'labels'])
      expect(problems({ ...base, MAP_LABEL_TILE_URL: url }).join('\n'), url).toMatch(/^MAP_LABEL_TILE_URL: /);
    expect(problems({ ...base, MAP_LABEL_TILE_URL: 'https://tiles.example/only_labels/{z}/{x}/{y}{r}.png' })).toEqual([]);
    expect(loadConfig({ DEMO_MODE: '1', ...base, MAP_LABEL_TILE_URL: 'https://tiles.example/only_labels/{z}/{x}/{y}{r}.png' }).tiles.labelUrl).toBe(
      'https://tiles.example/only_labels/{z}/{x}/{y}{r}.png',
    );
    const alone = problems({ MAP_LABEL_TILE_URL: 'https://tiles.example/only_labels/{z}/{x}/{y}.png' });
    expect(alone).toHaveLength(1);
    expect(alone[0]).toMatch(/^MAP_LABEL_TILE_URL: is set without MAP_TILE_URL/);
  });

  it('requires MAP_ATTRIBUTION with MAP_TILE_URL', () => {
    const found = problems({ MAP_TILE_URL: 'https://tiles.example/{z}/{x}/{y}.png' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^MAP_ATTRIBUTION: is required with MAP_TILE_URL/);
    expect(problems({ MAP_TILE_URL: 'https://tiles.example/{z}/{x}/{y}.png', MAP_ATTRIBUTION: '© Tiles' })).toEqual([]);
  });

  it('refuses a zoom past 22 and a zero rate or cache', () => {
    expect(
      problems({ MAP_MAX_ZOOM: '23', MAP_TILE_RATE_PER_MINUTE: '0', MAP_TILE_CACHE_MB: '0' })
        .map((line) => line.split(':')[0])
        .sort(),
    ).toEqual(['MAP_MAX_ZOOM', 'MAP_TILE_CACHE_MB', 'MAP_TILE_RATE_PER_MINUTE']);
  });
});

describe('a demo relay', () => {
  let relay: TestRelay;
  beforeAll(async () => {
    relay = await startTestRelay({ SIM_LISTINGS: '12', PHOTO_WIDTHS: '240' }, { workers: false });
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
  });

  it("serves the simulator's plain tiles within the area of its listings", async () => {
    expect((await relay.listings.sync.run('full')).error).toBeUndefined();
    await relay.places.worker.drain();
    const config = (await (await fetch(`${relay.url}/api/v1/map/config`)).json()) as MapConfig;
    expect(config.tiles).toBe('/tiles/{z}/{x}/{y}.png');
    expect(config.tiles2x).toBe('/tiles/{z}/{x}/{y}@2x.png');
    expect(config.attribution).toBe('Demo tiles: estate-embed CRM simulator');
    expect(config.bounds).not.toBeNull();
    const { south, west, north, east } = config.bounds!;
    const tile = { z: 13, x: tileX((west + east) / 2, 13), y: tileY((south + north) / 2, 13) };
    const first = await fetch(relay.url + tilePath(tile));
    expect(first.status).toBe(200);
    expect(first.headers.get('x-tile-source')).toBe('provider');
    // Through the whole app (helmet's same-origin default overridden for this route, as for photos).
    expect(first.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    const bytes = Buffer.from(await first.arrayBuffer());
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 256]);
    const again = await fetch(relay.url + tilePath(tile));
    expect(again.headers.get('x-tile-source')).toBe('disk');
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(relay.url + tilePath({ z: 13, x: tileX(-0.1, 13), y: tileY(51.5, 13) }))).status).toBe(404);
    // And 512 px tiles for high-density screens.
    const twoX = await fetch(relay.url + tilePath2x(tile));
    expect(twoX.status).toBe(200);
    const twoXMeta = await sharp(Buffer.from(await twoX.arrayBuffer())).metadata();
    expect([twoXMeta.format, twoXMeta.width, twoXMeta.height]).toEqual(['png', 512, 512]);
    // The demo's base has no names; they come in the simulator's labels layer, which the map draws above its pins.
    expect([config.labels, config.labels2x]).toEqual(['/tiles/labels/{z}/{x}/{y}.png', '/tiles/labels/{z}/{x}/{y}@2x.png']);
    const labels = await fetch(relay.url + labelPath(tile));
    expect(labels.status).toBe(200);
    const { data, info } = await sharp(Buffer.from(await labels.arrayBuffer()))
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([256, 256]);
    let clear = 0;
    for (let index = 3; index < data.length; index += 4) if (data[index] === 0) clear++;
    expect(clear / (256 * 256)).toBeGreaterThan(0.5);
    expect((await fetch(relay.url + labelPath({ z: 13, x: tileX(-0.1, 13), y: tileY(51.5, 13) }))).status).toBe(404);
  }, 60_000);
});

describe('a relay of many agencies', () => {
  let relay: TestRelay;
  const saved = process.env.SIM_AGENCIES;
  beforeAll(async () => {
    process.env.SIM_AGENCIES = '2';
    relay = await startTestRelay({ SIM_LISTINGS: '6', PHOTO_WIDTHS: '240' }, { workers: false });
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
    if (saved === undefined) delete process.env.SIM_AGENCIES;
    else process.env.SIM_AGENCIES = saved;
  });

  it('serves each agency its tiles under /a/<slug>/, within its own area', async () => {
    const [other] = relay.agencies!.list();
    const slug = other!.entry.slug;
    expect((await other!.agency.listings.sync.run('full')).error).toBeUndefined();
    await other!.agency.places.worker.drain();
    const config = (await (await fetch(`${relay.url}/a/${slug}/api/v1/map/config`)).json()) as MapConfig;
    expect(config.tiles).toBe(`/a/${slug}/tiles/{z}/{x}/{y}.png`);
    expect(config.labels).toBe(`/a/${slug}/tiles/labels/{z}/{x}/{y}.png`);
    expect(config.bounds).toEqual(other!.agency.places.placements.bounds());
    const { south, west, north, east } = config.bounds!;
    const tile = { z: 12, x: tileX((west + east) / 2, 12), y: tileY((south + north) / 2, 12) };
    const first = await fetch(`${relay.url}/a/${slug}${tilePath(tile)}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-tile-source')).toBe('provider');
    // The root agency has synced nothing: no area yet, so the same deep tile is refused there.
    expect((await fetch(relay.url + tilePath(tile))).status).toBe(404);
    expect((await fetch(`${relay.url}/a/${slug}${tilePath({ z: 12, x: tileX(-0.1, 12), y: tileY(51.5, 12) })}`)).status).toBe(404);
    // Its labels too, within its area only.
    expect((await fetch(`${relay.url}/a/${slug}${labelPath(tile)}`)).status).toBe(200);
    expect((await fetch(relay.url + labelPath(tile))).status).toBe(404);
  }, 60_000);
});
