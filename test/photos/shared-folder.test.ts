import { mkdtempSync, rmSync, unlinkSync, existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/runtime/log.ts';
import { PhotoFolderGuard } from '../../server/photos/folder-guard.ts';
import { PhotoHostAllowList } from '../../server/photos/hosts.ts';
import { holdsPhoto, PhotoMirror, type SourcePhoto } from '../../server/photos/mirror.ts';
import { variantPath } from '../../server/photos/variants.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';

/*
 * Two agencies' mirrors write to one photo folder. Agency A's clean-up may run while agency B is
 * recording the very image A just let go: B has written the files but not yet its row, so asking
 * B's store finds nothing. The interleaving is made deterministic with a file host that holds B's
 * second photo back until A's clean-up is done: B's first image must keep its files.
 */

const WIDTHS = [160];

describe('one photo folder, two agencies cleaning up and recording at once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'estate-shared-photos-'));
  const photoDir = join(dir, 'photos');
  let stores: Store[] = [];
  let close: () => Promise<void>;
  let origin = '';
  const images = new Map<string, Buffer>();
  let releaseHeld: (() => void) | undefined;

  beforeAll(async () => {
    images.set(
      '/x.jpg',
      await sharp({ create: { width: 320, height: 200, channels: 3, background: '#336699' } })
        .jpeg()
        .toBuffer(),
    );
    images.set(
      '/y.jpg',
      await sharp({ create: { width: 320, height: 200, channels: 3, background: '#993366' } })
        .jpeg()
        .toBuffer(),
    );
    const server = createServer((req, res: ServerResponse) => {
      const body = images.get(req.url ?? '');
      if (!body) return void res.writeHead(404).end();
      const send = () => res.writeHead(200, { 'Content-Type': 'image/jpeg', 'Content-Length': String(body.length) }).end(body);
      // Y's first request is answered only when the test says so.
      if (req.url === '/y.jpg' && releaseHeld === undefined) {
        let sent = false;
        releaseHeld = () => {
          if (!sent) send();
          sent = true;
        };
        return;
      }
      send();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => {
    releaseHeld?.();
    for (const store of stores) store.close();
    await close?.();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the files of an image B is recording while A's clean-up runs", async () => {
    const storeA = openStore(join(dir, 'a'));
    const storeB = openStore(join(dir, 'b'));
    stores = [storeA, storeB];
    const guard = new PhotoFolderGuard();
    const allowList = new PhotoHostAllowList([new URL(origin).host]);
    const mirror = (store: Store, other: () => Store) =>
      new PhotoMirror({
        store,
        log: silentLogger,
        allowList,
        widths: WIDTHS,
        maxBytes: 5_000_000,
        photoDir,
        guard,
        inUseElsewhere: (hash) => holdsPhoto(other(), hash),
      });
    const a = mirror(storeA, () => storeB);
    const b = mirror(storeB, () => storeA);
    const photo = (photoId: number, path: string): SourcePhoto => ({
      photoId,
      kind: 'photograph',
      position: photoId,
      caption: null,
      url: `${origin}${path}`,
      modified: '2026-01-01',
    });
    const files = (hash: string) => WIDTHS.flatMap((width) => [variantPath(photoDir, hash, width, 'webp'), variantPath(photoDir, hash, width, 'jpeg')]);

    // A shows image X, then stops showing it: X's row is an orphan of A, due for A's clean-up.
    await a.syncOwner('listing', 1, [photo(1, '/x.jpg')]);
    const [hash] = tablesOf(storeA).prepare('SELECT hash FROM photo_files').pluck().all() as [string];
    await a.syncOwner('listing', 1, []);
    // (Its files are removed by hand, so that B's writing them is seen.)
    for (const file of files(hash)) unlinkSync(file);

    // B records a listing with X and Y; Y's file host holds its answer: X's files are written, its row not yet.
    const recording = b.syncOwner('listing', 5, [photo(1, '/x.jpg'), photo(2, '/y.jpg')]);
    for (let waited = 0; !(files(hash).every(existsSync) && releaseHeld); waited += 20) {
      if (waited > 10_000) throw new Error('B never wrote X');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(holdsPhoto(storeB, hash), 'B has not recorded X yet').toBe(false);

    // A's clean-up runs now: B's store does not hold X yet.
    expect(await a.collectGarbage()).toBe(1);
    releaseHeld!();
    const counts = await recording;
    expect(counts.failed).toBe(0);
    expect(holdsPhoto(storeB, hash)).toBe(true);
    expect(
      files(hash).filter((file) => !existsSync(file)),
      'the files of the image B now shows',
    ).toEqual([]);
  });

  it('a claim made while a clean-up pass runs waits for the pass', async () => {
    const guard = new PhotoFolderGuard();
    const order: string[] = [];
    let finishPass!: () => void;
    const pass = guard.clean(() => new Promise<void>((resolve) => (finishPass = resolve)).then(() => order.push('pass done')));
    const claimed = guard.claim('abc').then((release) => {
      order.push('claimed');
      return release;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([]);
    finishPass();
    await pass;
    const release = await claimed;
    expect(order).toEqual(['pass done', 'claimed']);
    expect(guard.isClaimed('abc')).toBe(true);
    release();
    release();
    expect(guard.isClaimed('abc')).toBe(false);
  });
});
