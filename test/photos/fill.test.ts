import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable } from 'node:stream';
import express from 'express';
import sharp from 'sharp';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/http/errors.ts';
import { createLogger, silentLogger } from '../../server/runtime/log.ts';
import { fillFromAgencies, PhotoFill } from '../../server/photos/fill.ts';
import { PhotoFolderGuard } from '../../server/photos/folder-guard.ts';
import { PhotoHostAllowList } from '../../server/photos/hosts.ts';
import { holdsPhoto, PHOTO_INDEX_TABLES, PhotoMirror, type SourcePhoto } from '../../server/photos/mirror.ts';
import { photosRouter } from '../../server/photos/routes.ts';
import { variantPath } from '../../server/photos/variants.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { startPhotoHost, type PhotoHost } from './photo-host.ts';

/*
 * Relay A runs the mirror (the sync leader); relay B gets A's photo_files and photos rows (copied
 * here with raw SQL, standing in for the replica) and fills its own folder from the file host.
 * Every file must come out byte for byte as A made it, under the same name and ETag.
 */

const WIDTHS = [320, 640, 1600];

/** Every file under `dir`, by path relative to it. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (folder: string) => {
    if (!existsSync(folder)) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

function rowsOf(store: Store): Record<string, unknown[]> {
  const db = tablesOf(store);
  return Object.fromEntries(PHOTO_INDEX_TABLES.map((table) => [table, db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all()]));
}

/** The replica's part in this test: A's photo rows, as they are, into B. */
function copyRows(from: Store, to: Store): void {
  const source = rowsOf(from);
  const db = tablesOf(to);
  db.transaction(() => {
    for (const table of [...PHOTO_INDEX_TABLES].reverse()) db.prepare(`DELETE FROM ${table}`).run();
    for (const table of PHOTO_INDEX_TABLES) {
      for (const row of source[table] as Array<Record<string, unknown>>) {
        const columns = Object.keys(row);
        db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`).run(row);
      }
    }
  })();
}

function logSink(): { log: ReturnType<typeof createLogger>; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: createLogger({ level: 'debug' }, sink), text: () => lines.join('') };
}

describe('photo fill: every relay makes the same files from the file host', () => {
  let host: PhotoHost;
  let elsewhere: PhotoHost;
  let dir: string;
  let storeA: Store;
  let storeB: Store;
  let mirrorA: PhotoMirror;
  let fills: PhotoFill[] = [];
  const originals = new Map<string, Buffer>();

  const source = (photoId: number, path: string, position = 0): SourcePhoto => ({
    photoId,
    kind: 'photograph',
    position,
    caption: `Photo ${photoId}`,
    // The query stands for a signed URL's token: it must never reach a log.
    url: `${host.origin}${path}?sig=SECRET-${photoId}`,
    modified: '2026-11-01T00:00:00+00:00',
  });
  const newFill = (options: Partial<ConstructorParameters<typeof PhotoFill>[0]> = {}) => {
    const fill = new PhotoFill({
      store: storeB,
      log: silentLogger,
      allowList: new PhotoHostAllowList([host.host]),
      maxBytes: 2_000_000,
      ...options,
    });
    fills.push(fill);
    return fill;
  };
  const hashesOf = (store: Store) => tablesOf(store).prepare('SELECT hash FROM photo_files ORDER BY hash').pluck().all() as string[];
  const photoDirA = () => join(dir, 'a', 'photos');
  const photoDirB = () => join(dir, 'b', 'photos');

  beforeAll(async () => {
    host = await startPhotoHost();
    elsewhere = await startPhotoHost();
    originals.set(
      '/front.jpg',
      await sharp({ create: { width: 1800, height: 1200, channels: 3, background: '#3366aa' } })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
    // A PNG with an alpha channel and real detail: flattening and resizing must come out the same too.
    const noise = Buffer.alloc(700 * 450 * 4);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
    originals.set(
      '/plan.png',
      await sharp(noise, { raw: { width: 700, height: 450, channels: 4 } })
        .png()
        .toBuffer(),
    );
    originals.set(
      '/agent.jpg',
      await sharp({ create: { width: 300, height: 400, channels: 3, background: '#aa6633' } })
        .jpeg()
        .toBuffer(),
    );
  });
  afterAll(async () => {
    await host.close();
    await elsewhere.close();
  });

  /** A mirrors two listings' photos and an agent portrait; B gets the rows, no files. */
  const setUp = async () => {
    for (const [path, body] of originals) {
      host.routes.set(`${path}?sig=SECRET-${path === '/front.jpg' ? 1 : path === '/plan.png' ? 2 : 3}`, {
        status: 200,
        type: path.endsWith('.png') ? 'image/png' : 'image/jpeg',
        body,
      });
    }
    dir = mkdtempSync(join(tmpdir(), 'estate-photo-fill-'));
    storeA = openStore(join(dir, 'a'));
    storeB = openStore(join(dir, 'b'));
    mirrorA = new PhotoMirror({ store: storeA, log: silentLogger, allowList: new PhotoHostAllowList([host.host]), widths: WIDTHS, maxBytes: 2_000_000 });
    await mirrorA.syncOwner('listing', 1, [source(1, '/front.jpg'), { ...source(2, '/plan.png', 1), kind: 'floorplan' }]);
    // The same image shown twice (another listing): one image, one download.
    await mirrorA.syncOwner('listing', 2, [source(1, '/front.jpg')]);
    await mirrorA.syncOwner('agent', 9, [{ ...source(3, '/agent.jpg'), photoId: 0, kind: 'portrait' }]);
    expect(hashesOf(storeA)).toHaveLength(3);
    copyRows(storeA, storeB);
    host.requests.length = 0;
  };
  afterEach(async () => {
    for (const fill of fills) await fill.stop();
    fills = [];
    storeA?.close();
    storeB?.close();
    rmSync(dir, { recursive: true, force: true });
    host.routes.clear();
    host.requests.length = 0;
    elsewhere.requests.length = 0;
  });

  it("makes every variant byte-identical to the leader's, from the file host only, without writing the photo tables", async () => {
    await setUp();
    const rowsBefore = rowsOf(storeB);
    const fill = newFill();

    expect(await fill.fillMissing()).toEqual({ missing: 3, filled: 3, failed: 0, deferred: 0 });

    const made = filesOf(photoDirA());
    const filled = filesOf(photoDirB());
    // 3 images: the 1800 px one in 3 widths, the 700 px plan in 3 (320, 640, 700), the 300 px portrait in 1: two formats each.
    expect(made.size).toBe((3 + 3 + 1) * 2);
    expect([...filled.keys()].sort()).toEqual([...made.keys()].sort());
    for (const [name, bytes] of made) expect(filled.get(name)!.equals(bytes), name).toBe(true);

    // One download per image (the image two listings show included), only of the file host's files.
    expect(host.requests.map((request) => request.url.split('?')[0]).sort()).toEqual(['/agent.jpg', '/front.jpg', '/plan.png']);
    expect(rowsOf(storeB)).toEqual(rowsBefore);

    // Idempotent: nothing left to do, nothing fetched again.
    expect(await fill.fillMissing()).toEqual({ missing: 0, filled: 0, failed: 0, deferred: 0 });
    expect(host.requests).toHaveLength(3);
  });

  it('serves the same bytes under the same ETag on both relays', async () => {
    await setUp();
    await newFill().fillMissing();
    const appOf = (photoDir: string) => express().use(photosRouter(photoDir)).use(errorHandler(silentLogger));
    const [hash] = hashesOf(storeA);
    const path = `/photos/${hash}-320.webp`;
    const fromA = await request(appOf(photoDirA())).get(path).buffer(true);
    const fromB = await request(appOf(photoDirB())).get(path).buffer(true);
    expect(fromA.status).toBe(200);
    expect(fromB.status).toBe(200);
    expect(Buffer.compare(fromA.body as Buffer, fromB.body as Buffer)).toBe(0);
    expect(fromA.headers.etag).toBeDefined();
    expect(fromB.headers.etag).toBe(fromA.headers.etag);
    // A browser that got the file from A revalidates at B: not modified.
    const again = await request(appOf(photoDirB())).get(path).set('If-None-Match', fromA.headers.etag!);
    expect(again.status).toBe(304);
  });

  it('refuses bytes that are not the image on record: the host now serves another photo at that URL', async () => {
    await setUp();
    const { log, text } = logSink();
    const fill = newFill({ log });
    const frontHash = tablesOf(storeB).prepare('SELECT hash FROM photos WHERE owner_id = 1 AND photo_id = 1').pluck().get() as string;
    host.routes.set('/front.jpg?sig=SECRET-1', {
      status: 200,
      body: await sharp({ create: { width: 1800, height: 1200, channels: 3, background: '#ff0000' } })
        .jpeg()
        .toBuffer(),
    });

    expect(await fill.fillMissing()).toEqual({ missing: 3, filled: 2, failed: 1, deferred: 0 });
    expect([...filesOf(photoDirB()).keys()].filter((name) => name.includes(frontHash))).toEqual([]);
    expect(text()).toContain('hash_mismatch');
    expect(text()).not.toContain('SECRET');
    expect(text()).not.toContain('sig=');

    // Backed off: the next replica apply does not fetch it again at once.
    const requests = host.requests.length;
    expect(await fill.fillMissing()).toEqual({ missing: 1, filled: 0, failed: 0, deferred: 1 });
    expect(host.requests).toHaveLength(requests);
    expect(rowsOf(storeB)).toEqual(rowsOf(storeA));
  });

  it('never asks a host that is not in PHOTO_HOSTS', async () => {
    await setUp();
    // The leader recorded a source on another host (its PHOTO_HOSTS differs from this relay's).
    tablesOf(storeB).prepare('UPDATE photos SET source_url = ?').run(`${elsewhere.origin}/front.jpg`);
    const fill = newFill();
    expect(await fill.fillMissing()).toEqual({ missing: 3, filled: 0, failed: 3, deferred: 0 });
    expect(elsewhere.requests).toEqual([]);
    expect(host.requests).toEqual([]);
    expect(filesOf(photoDirB()).size).toBe(0);
  });

  it('fills a missing file when the /photos/ route is asked for it, and still answers 404 for unknown images', async () => {
    await setUp();
    const fill = newFill();
    const app = express()
      .use(photosRouter(photoDirB(), { fill: fillFromAgencies(() => [fill]) }))
      .use(errorHandler(silentLogger));
    const [hash] = hashesOf(storeA);

    const response = await request(app).get(`/photos/${hash}-640.jpg`).buffer(true);
    expect(response.status).toBe(200);
    expect(Buffer.compare(response.body as Buffer, readFileSync(variantPath(photoDirA(), hash!, 640, 'jpeg')))).toBe(0);
    expect(host.requests).toHaveLength(1);

    // A deleted file comes back the same way.
    unlinkSync(variantPath(photoDirB(), hash!, 640, 'jpeg'));
    expect((await request(app).get(`/photos/${hash}-640.jpg`)).status).toBe(200);

    // Not on record: 404 at once, nothing fetched.
    const before = host.requests.length;
    expect((await request(app).get(`/photos/${'f'.repeat(32)}-640.jpg`)).status).toBe(404);
    // On record but no such width: 404.
    expect((await request(app).get(`/photos/${hash}-641.jpg`)).status).toBe(404);
    expect(host.requests).toHaveLength(before);
  });

  it('answers 404 when the file host is too slow, and has the file for the next request', async () => {
    await setUp();
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    for (const route of host.routes.values()) route.hold = held;
    const fill = newFill({ waitMs: 200 });
    const app = express()
      .use(photosRouter(photoDirB(), { fill: (hash) => fill.fillOne(hash) }))
      .use(errorHandler(silentLogger));
    const [hash] = hashesOf(storeA);
    // Two visitors at once: one download.
    const [first, second] = await Promise.all([request(app).get(`/photos/${hash}-320.jpg`), request(app).get(`/photos/${hash}-320.webp`)]);
    expect(first.status).toBe(404);
    expect(second.status).toBe(404);
    answer();
    await expect.poll(() => existsSync(variantPath(photoDirB(), hash!, 320, 'webp'))).toBe(true);
    expect((await request(app).get(`/photos/${hash}-320.webp`)).status).toBe(200);
    expect(host.requests).toHaveLength(1);
  });

  it('prunes the files of images the leader dropped, keeping those another agency in the folder still shows', async () => {
    await setUp();
    // A second agency on relay B, sharing its folder, shows the portrait only.
    const storeC = openStore(join(dir, 'c'));
    try {
      copyRows(storeA, storeC);
      const guard = new PhotoFolderGuard();
      const fill = newFill({ guard, inUseElsewhere: (hash) => holdsPhoto(storeC, hash) });
      await fill.fillMissing();
      expect(await fill.prune()).toEqual({ images: 0, files: 0 });

      const portrait = tablesOf(storeB).prepare("SELECT hash FROM photos WHERE owner_kind = 'agent'").pluck().get() as string;
      const plan = tablesOf(storeB).prepare("SELECT hash FROM photos WHERE kind = 'floorplan'").pluck().get() as string;
      // The leader dropped both images (the replica deletes their rows); agency C still shows the portrait.
      for (const store of [storeB, storeC]) {
        const db = tablesOf(store);
        db.prepare('DELETE FROM photos WHERE hash = ?').run(plan);
        db.prepare('DELETE FROM photo_files WHERE hash = ?').run(plan);
      }
      for (const hash of [portrait]) {
        tablesOf(storeB).prepare('DELETE FROM photos WHERE hash = ?').run(hash);
        tablesOf(storeB).prepare('DELETE FROM photo_files WHERE hash = ?').run(hash);
      }

      expect(await fill.prune()).toEqual({ images: 1, files: 6 });
      const left = [...filesOf(photoDirB()).keys()];
      expect(left.some((name) => name.includes(plan))).toBe(false);
      expect(left.filter((name) => name.includes(portrait))).toHaveLength(2);
      expect(left).toHaveLength(6 + 2);
      // A crashed write's temp file, over an hour old, goes; one being written now stays.
      const folder = join(photoDirB(), portrait.slice(0, 2));
      const stale = join(folder, `${portrait}-320.webp.1.crashed.tmp`);
      const fresh = join(folder, `${portrait}-640.webp.1.writing.tmp`);
      writeFileSync(stale, 'partial');
      writeFileSync(fresh, 'partial');
      const hoursAgo = new Date(Date.now() - 2 * 3_600_000);
      utimesSync(stale, hoursAgo, hoursAgo);
      expect(await fill.prune()).toEqual({ images: 0, files: 1 });
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(fresh)).toBe(true);
      rmSync(fresh);
      // Nothing more to prune, and nothing to fill.
      expect(await fill.prune()).toEqual({ images: 0, files: 0 });
      expect(await fill.fillMissing()).toMatchObject({ missing: 0 });
    } finally {
      storeC.close();
    }
  });

  it('takes no harm from bad rows: a hash that is a path, widths that are not a list', async () => {
    await setUp();
    const db = tablesOf(storeB);
    db.pragma('foreign_keys = OFF');
    db.prepare("INSERT INTO photo_files (hash, width, height, widths, created_at) VALUES ('../../escape', 10, 10, '[10]', 0)").run();
    db.prepare(
      "INSERT INTO photos (owner_kind, owner_id, photo_id, kind, position, source_url, hash, updated_at) VALUES ('listing', 5, 1, 'photograph', 0, ?, '../../escape', 0)",
    ).run(`${host.origin}/front.jpg?sig=SECRET-1`);
    db.prepare("UPDATE photo_files SET widths = 'not json' WHERE hash = (SELECT hash FROM photos WHERE kind = 'floorplan')").run();
    const fill = newFill();
    // The front photo and the portrait; the plan names no width to make, the escape no file.
    expect(await fill.fillMissing()).toEqual({ missing: 2, filled: 2, failed: 0, deferred: 0 });
    expect(existsSync(variantPath(photoDirB(), '../../escape', 10, 'webp'))).toBe(false);
    expect(await fill.fillOne('../../escape')).toBe(false);
    expect(await fill.prune()).toMatchObject({ files: 0 });
  });

  it('stops: downloads under way are aborted, nothing is written', async () => {
    await setUp();
    for (const route of host.routes.values()) route.hold = new Promise(() => undefined);
    const fill = newFill();
    const pass = fill.fillMissing();
    await expect.poll(() => host.requests.length).toBeGreaterThan(0);
    await fill.stop();
    expect(await pass).toMatchObject({ missing: 3, filled: 0 });
    expect(filesOf(photoDirB()).size).toBe(0);
    expect(await fill.fillOne(hashesOf(storeB)[0]!)).toBe(false);
  });
});
