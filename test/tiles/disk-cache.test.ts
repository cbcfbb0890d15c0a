// Issue 29: the tile cache's limit counts disk. MAP_TILE_CACHE_MB=1 with 8,000 small tiles held
// 1.05 MB of content in 15,306 files using 63.5 MB on disk (two files a tile, a 4 KiB block each).
// The cache on a real folder, measured with the real `du -sk`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TileDiskCache, type TileMeta } from '../../server/tiles/disk-cache.ts';

const META: TileMeta = { expiresAt: Date.UTC(2030, 0, 1), storedAt: Date.UTC(2025, 5, 1), validators: { etag: '"v1"' } };
/** A small tile, as an ocean or a plain field is: about 130 bytes. */
const SMALL = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(123, 7)]);

function duKib(dir: string): number {
  return Number(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }).split(/\s/)[0]);
}

function countFiles(dir: string): number {
  let files = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) files++;
  return files;
}

let dir: string;
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the tile disk cache', () => {
  it('at 1 MB with 8,000 small tiles: `du` of its folder within the limit, one file a tile', async () => {
    dir = mkdtempSync(join(tmpdir(), 'estate-tile-disk-'));
    const limit = 1024 * 1024;
    const cache = new TileDiskCache(join(dir, 'tiles'), limit);
    // 8,000 tiles of a city at zoom 16: 80 columns of 100 rows.
    for (let index = 0; index < 8_000; index++)
      await cache.write({ z: 16, x: 59_000 + Math.floor(index / 100), y: 39_000 + (index % 100), scale: 1 }, SMALL, META);
    const du = duKib(join(dir, 'tiles'));
    const files = countFiles(join(dir, 'tiles'));
    console.info(`tile cache at 1 MB after 8,000 tiles of ${SMALL.length} bytes: du ${du} KiB, ${files} files, ${cache.count} tiles held`);
    expect(du * 1024).toBeLessThanOrEqual(limit);
    // As du counts it (du rounds its total up to a KiB).
    expect(Math.ceil(cache.bytes / 1024)).toBe(du);
    expect(files).toBe(cache.count);
    expect(cache.count).toBeGreaterThan(100);
    // The most recent are the ones held, whole.
    const last = await cache.read({ z: 16, x: 59_079, y: 39_099, scale: 1 });
    expect(last?.bytes.equals(SMALL)).toBe(true);
    expect(last?.meta).toEqual(META);
    expect(await cache.read({ z: 16, x: 59_000, y: 39_000, scale: 1 })).toBeUndefined();

    // After a restart the index is rebuilt from the folder, to the same figures.
    const reopened = new TileDiskCache(join(dir, 'tiles'), limit);
    await reopened.load();
    expect(reopened.count).toBe(cache.count);
    expect(Math.ceil(reopened.bytes / 1024)).toBe(duKib(join(dir, 'tiles')));
  }, 120_000);

  it('keeps nothing while the filesystem is short of free space (statfs below the floor), and says so', async () => {
    dir = mkdtempSync(join(tmpdir(), 'estate-tile-disk-'));
    const free = statfsSync(dir);
    // A floor above what this filesystem has free: as a disk near full would be.
    const cache = new TileDiskCache(join(dir, 'tiles'), 64 * 1024 * 1024, { minFreeBytes: free.bavail * free.bsize + 1024 * 1024 * 1024 });
    expect(await cache.write({ z: 14, x: 1, y: 2, scale: 1 }, SMALL, META)).toBe(false);
    expect(cache.count).toBe(0);
    expect(cache.skippedForSpace).toBe(1);
    expect(countFiles(join(dir, 'tiles'))).toBe(0);
    // With the floor well below what is free, it keeps.
    const roomy = new TileDiskCache(join(dir, 'tiles'), 64 * 1024 * 1024, { minFreeBytes: 1024 });
    expect(await roomy.write({ z: 14, x: 1, y: 2, scale: 1 }, SMALL, META)).toBe(true);
    expect(roomy.count).toBe(1);
  });

  it("removes the earlier layout's files (a .png and a .json a tile) when it first reads its folder", async () => {
    dir = mkdtempSync(join(tmpdir(), 'estate-tile-disk-'));
    const column = join(dir, 'tiles', '14', '3');
    mkdirSync(column, { recursive: true });
    writeFileSync(join(column, '7.png'), SMALL);
    writeFileSync(join(column, '7.json'), JSON.stringify(META));
    const cache = new TileDiskCache(join(dir, 'tiles'), 1024 * 1024);
    await cache.load();
    expect(cache.count).toBe(0);
    expect(countFiles(join(dir, 'tiles'))).toBe(0);
    expect(Math.ceil(cache.bytes / 1024)).toBe(duKib(join(dir, 'tiles')));
  });
});
