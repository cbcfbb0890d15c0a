import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import express from 'express';
import sharp from 'sharp';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/http/errors.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { PhotoHostAllowList, photoHosts } from '../../server/photos/hosts.ts';
import { PhotoMirror, type SourcePhoto } from '../../server/photos/mirror.ts';
import { publicPhoto } from '../../server/photos/public.ts';
import { photosRouter } from '../../server/photos/routes.ts';
import { variantPath } from '../../server/photos/variants.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { startPhotoHost, type PhotoHost } from './photo-host.ts';

const jpeg = (width: number, height: number, colour: string) =>
  sharp({ create: { width, height, channels: 3, background: colour } })
    .jpeg({ quality: 85 })
    .toBuffer();

/** CRC-32 of PNG chunks (zlib.crc32 is not in Node 20). */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A valid 8-bit greyscale PNG of any size, all black: tiny on the wire, whatever its pixel count. */
function grayPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8);
  // Each row: filter byte 0, then `width` zero pixels.
  const rows = deflateSync(Buffer.alloc((width + 1) * height), { level: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', rows),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('photo mirror', () => {
  let allowed: PhotoHost;
  let other: PhotoHost;
  let store: Store;
  let dataDir: string;
  let mirror: PhotoMirror;

  beforeAll(async () => {
    allowed = await startPhotoHost();
    other = await startPhotoHost();
    allowed.routes.set('/a.jpg', { status: 200, body: await jpeg(1200, 800, '#3366aa') });
    allowed.routes.set('/b.jpg', { status: 200, body: await jpeg(300, 200, '#aa6633') });
    allowed.routes.set('/a-copy.jpg', allowed.routes.get('/a.jpg')!);
    other.routes.set('/secret.jpg', { status: 200, body: await jpeg(100, 100, '#000000') });
  });
  afterAll(async () => {
    await allowed.close();
    await other.close();
  });

  const open = () => {
    dataDir = mkdtempSync(join(tmpdir(), 'estate-photos-'));
    store = openStore(dataDir);
    mirror = new PhotoMirror({ store, log: silentLogger, allowList: new PhotoHostAllowList([allowed.host]), widths: [320, 640, 1600], maxBytes: 2_000_000 });
  };
  afterEach(() => {
    store?.close();
    rmSync(dataDir, { recursive: true, force: true });
    allowed.requests.length = 0;
    other.requests.length = 0;
  });

  const photo = (photoId: number, path: string, modified = '2024-05-01T00:00:00+00:00', position = 0): SourcePhoto => ({
    photoId,
    kind: 'photograph',
    position,
    caption: null,
    url: `${allowed.origin}${path}`,
    modified,
  });

  it('downloads once, makes WebP and JPEG variants without upscaling, and records the size', async () => {
    open();
    const counts = await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg'), photo(12, '/b.jpg', undefined, 1)]);
    expect(counts).toMatchObject({ downloaded: 2, failed: 0 });
    const [big, small] = mirror.photosOf('listing', [1]).get(1)!;
    expect(big).toMatchObject({ photoId: 11, width: 1200, height: 800, widths: [320, 640, 1200] });
    expect(small).toMatchObject({ photoId: 12, width: 300, height: 200, widths: [300] });
    for (const width of big.widths) {
      for (const format of ['webp', 'jpeg'] as const) {
        const metadata = await sharp(variantPath(mirror.photoDir, big.hash, width, format)).metadata();
        expect(metadata.format).toBe(format);
        expect(metadata.width).toBe(width);
      }
    }
    const described = publicPhoto(big, 'https://relay.example');
    expect(described.srcset.webp).toBe([320, 640, 1200].map((width) => `https://relay.example/photos/${big.hash}-${width}.webp ${width}w`).join(', '));
    expect(described.url).toBe(`https://relay.example/photos/${big.hash}-640.jpg`);
  });

  it('never sends credentials or cookies to the photo host', async () => {
    open();
    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg')]);
    expect(allowed.requests).toHaveLength(1);
    const { headers } = allowed.requests[0];
    expect(headers.authorization).toBeUndefined();
    expect(headers['x-api-key']).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
  });

  it('downloads again only when the photo modified (or its URL) changes; same bytes share one file', async () => {
    open();
    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg')]);
    expect(allowed.requests).toHaveLength(1);
    const again = await mirror.syncOwner('listing', 1, [{ ...photo(11, '/a.jpg'), caption: 'Kitchen', position: 3 }]);
    expect(again).toMatchObject({ downloaded: 0, unchanged: 1 });
    expect(allowed.requests).toHaveLength(1);
    expect(mirror.photosOf('listing', [1]).get(1)![0]).toMatchObject({ caption: 'Kitchen', position: 3 });

    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg', '2024-06-01T00:00:00+00:00')]);
    expect(allowed.requests).toHaveLength(2);
    // Another photo with identical bytes: downloaded (the bytes are needed to know), variants shared.
    const copy = await mirror.syncOwner('listing', 2, [photo(21, '/a-copy.jpg')]);
    expect(copy).toMatchObject({ downloaded: 1, reused: 1 });
    expect(mirror.photosOf('listing', [2]).get(2)![0].hash).toBe(mirror.photosOf('listing', [1]).get(1)![0].hash);
  });

  it('refuses hosts outside the allow-list without contacting them (SSRF)', async () => {
    open();
    allowed.routes.set('/redirect.jpg', { status: 302, location: `${other.origin}/secret.jpg` });
    const attempts: SourcePhoto[] = [
      { ...photo(1, '/x'), url: `${other.origin}/secret.jpg` },
      { ...photo(2, '/x'), url: `http://localhost:${other.origin.split(':')[2]}/secret.jpg` },
      { ...photo(3, '/x'), url: 'http://169.254.169.254/latest/meta-data/' },
      { ...photo(4, '/x'), url: `file:///etc/passwd` },
      { ...photo(5, '/x'), url: `http://user:pass@${allowed.host}/a.jpg` },
      photo(6, '/redirect.jpg'),
    ];
    const counts = await mirror.syncOwner('listing', 1, attempts);
    expect(counts).toMatchObject({ downloaded: 0, failed: attempts.length });
    expect(other.requests).toHaveLength(0);
    expect(mirror.photosOf('listing', [1]).size).toBe(0);
    const errors = tablesOf(store).prepare('SELECT photo_id, error FROM photos ORDER BY photo_id').all();
    expect(errors).toEqual([
      { photo_id: 1, error: 'host_not_allowed' },
      { photo_id: 2, error: 'host_not_allowed' },
      { photo_id: 3, error: 'host_not_allowed' },
      { photo_id: 4, error: 'host_not_allowed' },
      { photo_id: 5, error: 'host_not_allowed' },
      { photo_id: 6, error: 'host_not_allowed' },
    ]);
    // A refusal is permanent: the next sync does not try again until the photo changes.
    await mirror.syncOwner('listing', 1, attempts);
    expect(other.requests).toHaveLength(0);
    expect(allowed.requests.filter((entry) => entry.url === '/redirect.jpg')).toHaveLength(1);
  });

  it('refuses files that are too large, not images, or not decodable', async () => {
    open();
    allowed.routes.set('/huge.jpg', { status: 200, body: Buffer.alloc(2_500_000, 1) });
    allowed.routes.set('/page.jpg', { status: 200, type: 'text/html', body: Buffer.from('<html>not a photo</html>') });
    allowed.routes.set('/fake.jpg', { status: 200, body: Buffer.from('GIF89a? no, just text') });
    allowed.routes.set('/vector.jpg', { status: 200, type: 'image/svg+xml', body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
    const counts = await mirror.syncOwner('listing', 1, [
      photo(1, '/huge.jpg'),
      photo(2, '/page.jpg'),
      photo(3, '/fake.jpg'),
      photo(4, '/vector.jpg'),
      photo(5, '/missing.jpg'),
    ]);
    expect(counts).toMatchObject({ downloaded: 0, failed: 5 });
    const errors = tablesOf(store).prepare('SELECT photo_id, error FROM photos ORDER BY photo_id').all();
    expect(errors).toEqual([
      { photo_id: 1, error: 'too_large' },
      { photo_id: 2, error: 'bad_type' },
      { photo_id: 3, error: 'bad_type' },
      { photo_id: 4, error: 'bad_type' },
      { photo_id: 5, error: 'gone' },
    ]);
    expect(tablesOf(store).prepare('SELECT COUNT(*) FROM photo_files').pluck().get()).toBe(0);
  });

  it('refuses a hostile strip (1 x 30,000,000 px, a real PNG under the pixel cap) quickly, before decoding it', async () => {
    open();
    allowed.routes.set('/strip.png', { status: 200, type: 'image/png', body: grayPng(1, 30_000_000) });
    allowed.routes.set('/sliver.png', { status: 200, type: 'image/png', body: grayPng(16_000, 2) });
    allowed.routes.set('/panorama.jpg', { status: 200, body: await jpeg(4000, 500, '#4477aa') });
    const started = performance.now();
    const counts = await mirror.syncOwner('listing', 1, [photo(1, '/strip.png'), photo(2, '/sliver.png')]);
    const seconds = (performance.now() - started) / 1000;
    expect(counts).toMatchObject({ downloaded: 0, failed: 2 });
    expect(tablesOf(store).prepare('SELECT photo_id, error FROM photos ORDER BY photo_id').all()).toEqual([
      { photo_id: 1, error: 'bad_dimensions' },
      { photo_id: 2, error: 'bad_dimensions' },
    ]);
    // Decoding the strip costs ~15 s of CPU; reading its header, milliseconds.
    expect(seconds).toBeLessThan(3);
    // A wide panorama (8:1) is still a photo.
    expect(await mirror.syncOwner('listing', 2, [photo(3, '/panorama.jpg')])).toMatchObject({ downloaded: 1, failed: 0 });
  });

  it('keeps the previous file while a changed photo cannot be fetched, and retries passing failures', async () => {
    open();
    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg')]);
    const before = mirror.photosOf('listing', [1]).get(1)![0].hash;
    allowed.routes.set('/a.jpg', { status: 503 });
    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg', '2024-07-01T00:00:00+00:00')]);
    expect(mirror.photosOf('listing', [1]).get(1)![0].hash).toBe(before);
    expect(mirror.ownersToFinish('listing')).toEqual([1]);
    allowed.routes.set('/a.jpg', { status: 200, body: await jpeg(800, 600, '#227722') });
    await mirror.syncOwner('listing', 1, mirror.sourcesOf('listing', 1));
    expect(mirror.photosOf('listing', [1]).get(1)![0].hash).not.toBe(before);
    expect(mirror.ownersToFinish('listing')).toEqual([]);
    allowed.routes.set('/a.jpg', { status: 200, body: await jpeg(1200, 800, '#3366aa') });
  });

  it('records photos to mirror later: left out of the listing until downloaded, then mirrored from the recorded sources', async () => {
    open();
    mirror.recordLater('listing', 1, [photo(11, '/a.jpg'), photo(12, '/b.jpg')]);
    // Pending: no file yet, so nothing public, and the owner is one with photos to finish.
    expect(mirror.photosOf('listing', [1]).get(1)).toBeUndefined();
    expect(mirror.ownersToFinish('listing')).toEqual([1]);
    // Recording again leaves them as they are (one row each).
    mirror.recordLater('listing', 1, [photo(11, '/a.jpg')]);
    expect(mirror.sourcesOf('listing', 1)).toHaveLength(2);
    expect(await mirror.syncOwner('listing', 1, mirror.sourcesOf('listing', 1))).toMatchObject({ downloaded: 2, unchanged: 0 });
    expect(
      mirror
        .photosOf('listing', [1])
        .get(1)!
        .map((each) => each.photoId),
    ).toEqual([11, 12]);
    expect(mirror.ownersToFinish('listing')).toEqual([]);
  });

  it("gives each listing's first downloaded photograph (as photosOf orders them): floorplans and photos without a file passed over", async () => {
    open();
    allowed.routes.set('/c.jpg', { status: 200, body: await jpeg(400, 300, '#22aa66') });
    allowed.routes.set('/gone.jpg', { status: 404 });
    const floorplan = (photoId: number, path: string, position: number): SourcePhoto => ({ ...photo(photoId, path, undefined, position), kind: 'floorplan' });
    // Listing 1: a floorplan first, then a photograph that could not be fetched, then two at one position (by photo id).
    await mirror.syncOwner('listing', 1, [
      floorplan(11, '/a.jpg', 0),
      photo(12, '/gone.jpg', undefined, 1),
      photo(14, '/b.jpg', undefined, 2),
      photo(13, '/c.jpg', undefined, 2),
    ]);
    await mirror.syncOwner('listing', 2, [floorplan(21, '/a.jpg', 0)]);
    await mirror.syncOwner('listing', 3, [photo(31, '/b.jpg', undefined, 5)]);
    await mirror.syncOwner('agent', 4, [photo(0, '/a.jpg')]);
    const listed = mirror
      .photosOf('listing', [1])
      .get(1)!
      .filter((each) => each.kind === 'photograph');
    expect(listed.map((each) => each.photoId)).toEqual([13, 14]);

    const first = mirror.firstPhotographsOf([1, 2, 3, 4, 99]);
    expect([...first.keys()].sort()).toEqual([1, 3]);
    expect(first.get(1)).toEqual({ hash: listed[0]!.hash, widths: listed[0]!.widths });
    expect(first.get(3)).toEqual({ hash: mirror.photosOf('listing', [3]).get(3)![0]!.hash, widths: [300] });
    expect(mirror.firstPhotographsOf([]).size).toBe(0);
  });

  it('deletes the files of photos no listing uses any more', async () => {
    open();
    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg')]);
    await mirror.syncOwner('listing', 2, [photo(21, '/b.jpg')]);
    const a = mirror.photosOf('listing', [1]).get(1)![0];
    const b = mirror.photosOf('listing', [2]).get(2)![0];
    mirror.removeOwners('listing', [1]);
    expect(await mirror.collectGarbage()).toBe(1);
    for (const width of a.widths) expect(existsSync(variantPath(mirror.photoDir, a.hash, width, 'webp'))).toBe(false);
    expect(existsSync(variantPath(mirror.photoDir, b.hash, b.widths[0], 'jpeg'))).toBe(true);
  });

  it('serves variants immutable and cross-origin, and nothing else', async () => {
    open();
    await mirror.syncOwner('listing', 1, [photo(11, '/a.jpg')]);
    const { hash } = mirror.photosOf('listing', [1]).get(1)![0];
    const app = express();
    app.use(photosRouter(mirror.photoDir));
    app.use(errorHandler(silentLogger));
    const response = await request(app).get(`/photos/${hash}-640.webp`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('image/webp');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.headers['cross-origin-resource-policy']).toBe('cross-origin');
    for (const path of [`/photos/${hash}-641.webp`, `/photos/${hash}-640.png`, '/photos/..%2Frelay.db', `/photos/${hash.slice(1)}-640.jpg`]) {
      expect((await request(app).get(path)).status, path).toBe(404);
    }
  });
});

describe('PHOTO_HOSTS', () => {
  it('defaults to the hosts of the CRM and the simulator; an entry with a port matches that port only', () => {
    expect(photoHosts(undefined, ['https://crm.example/api/v1.3', 'http://127.0.0.1:4010', undefined])).toEqual(['crm.example', '127.0.0.1:4010']);
    expect(photoHosts(['files.crm.example'], ['https://crm.example/api/v1.3'])).toEqual(['files.crm.example']);
    const list = new PhotoHostAllowList(['files.crm.example', '127.0.0.1:4010']);
    expect(list.allows(new URL('https://files.crm.example/p/1.jpg'))).toBe(true);
    expect(list.allows(new URL('https://files.crm.example:8443/p/1.jpg'))).toBe(false);
    expect(list.allows(new URL('https://evil.example/files.crm.example.jpg'))).toBe(false);
    expect(list.allows(new URL('https://files.crm.example.evil.example/1.jpg'))).toBe(false);
    expect(list.allows(new URL('http://127.0.0.1:4010/1.jpg'))).toBe(true);
    expect(list.allows(new URL('http://127.0.0.1:4011/1.jpg'))).toBe(false);
    expect(list.allows(new URL('ftp://files.crm.example/1.jpg'))).toBe(false);
  });
});
