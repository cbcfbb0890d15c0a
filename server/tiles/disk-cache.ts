import { mkdir, readdir, readFile, rename, rm, rmdir, stat, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScaledTile } from './area.ts';
import type { TileValidators } from './upstream.ts';

/** What is kept with each tile: until when it may be used without asking the provider, and how to ask. */
export interface TileMeta {
  /** ms since the epoch. */
  expiresAt: number;
  storedAt: number;
  validators: TileValidators;
}

export interface CachedTile {
  bytes: Buffer;
  meta: TileMeta;
}

interface Entry {
  /** Bytes the tile's file takes on disk: its allocated blocks, not its length. */
  disk: number;
}

/**
 * The disk the tiles may never take from the store beside them (the outbox, the listings): below
 * this much free space, or this share of free inodes, nothing more is cached (tiles are still
 * served, fetched from the provider). 1 GiB, or a tenth of a smaller filesystem.
 */
export const MIN_FREE_BYTES = 1024 * 1024 * 1024;
export const MIN_FREE_SHARE = 0.1;
export const MIN_FREE_INODE_SHARE = 0.05;
/** A tile file: 4 bytes (the length of the metadata, big-endian), the metadata as JSON, the PNG. */
const HEADER_BYTES = 4;
const TILE_FILE = /^(\d+)(@2x)?\.tile$/;
const NUMBER = /^\d+$/;

export interface TileDiskCacheOptions {
  /** Free bytes left to the filesystem (default: MIN_FREE_BYTES, or MIN_FREE_SHARE of a smaller one). */
  minFreeBytes?: number;
}

/**
 * Tiles on disk: DATA_DIR/tiles/{z}/{x}/{y}.tile (a 2x tile {y}@2x.tile), one file a tile holding
 * its metadata and its PNG, kept for every agency together (a tile is the same for all). At most
 * `maxBytes` (MAP_TILE_CACHE_MB) of disk in all, counted as `du` counts it: every file's and every
 * folder's allocated blocks (a 200-byte tile takes a 4 KiB block, and so does each folder), so a
 * cache of small tiles holds fewer of them rather than taking many times its limit and an inode
 * each. Past it the least recently used go first, and a folder left empty goes with them. Nothing
 * is written while the filesystem is short of space or inodes (MIN_FREE_BYTES, MIN_FREE_INODE_SHARE):
 * the store beside it (the outbox) comes first.
 *
 * Files are written to a temporary name and renamed, so a reader never sees half a tile; the index
 * of what is there (disk use, in use order) is in memory, rebuilt from the folder (oldest files
 * first) at the first use after a start. Files of the earlier layout (`{y}.png` with `{y}.json`
 * beside it, two files a tile) are removed then: the tiles are fetched again as they are asked for.
 */
export class TileDiskCache {
  private readonly entries = new Map<string, Entry>();
  /** Disk taken by each folder (the cache's own folder, {z} and {z}/{x}), by path. */
  private readonly folders = new Map<string, number>();
  private total = 0;
  private loading: Promise<void> | undefined;
  evictions = 0;
  /** Tiles not kept because the filesystem was short of space or inodes. */
  skippedForSpace = 0;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
    private readonly options: TileDiskCacheOptions = {},
  ) {}

  /** Disk taken: the tiles' files and the folders, in allocated bytes. */
  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.entries.size;
  }

  /** Reads the folder once (later calls wait for the same read). */
  load(): Promise<void> {
    return (this.loading ??= this.scan());
  }

  async read(tile: ScaledTile): Promise<CachedTile | undefined> {
    await this.load();
    const key = keyOf(tile);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    try {
      const held = decode(await readFile(this.tilePath(tile)));
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return held;
    } catch {
      // Deleted by hand, or not a tile file: forget it; the next request fetches it again.
      await this.remove(key);
      return undefined;
    }
  }

  /** Keeps a tile; false when it was not kept (the filesystem is short of space or inodes). */
  async write(tile: ScaledTile, bytes: Buffer, meta: TileMeta): Promise<boolean> {
    await this.load();
    if (!(await this.roomOnDisk())) {
      this.skippedForSpace++;
      await this.remove(keyOf(tile));
      return false;
    }
    await this.store(tile, bytes, meta);
    await this.evict(keyOf(tile));
    return true;
  }

  /** A tile the provider said is unchanged (304): its new expiry and validators, the bytes as they are. */
  async refresh(tile: ScaledTile, bytes: Buffer, meta: TileMeta): Promise<void> {
    if (!this.entries.has(keyOf(tile))) return;
    await this.store(tile, bytes, meta);
    await this.evict(keyOf(tile));
  }

  async forget(tile: ScaledTile): Promise<void> {
    await this.remove(keyOf(tile));
  }

  private async store(tile: ScaledTile, bytes: Buffer, meta: TileMeta): Promise<void> {
    const zDir = join(this.dir, String(tile.z));
    const xDir = join(zDir, String(tile.x));
    const path = this.tilePath(tile);
    const data = encode(bytes, meta);
    await mkdir(xDir, { recursive: true });
    await atomicWrite(path, data).catch(async (error: NodeJS.ErrnoException) => {
      // The folder was emptied and removed by an eviction meanwhile: made again, once.
      if (error.code !== 'ENOENT') throw error;
      await mkdir(xDir, { recursive: true });
      await atomicWrite(path, data);
    });
    const disk = await diskOf(path);
    const key = keyOf(tile);
    const previous = this.entries.get(key);
    if (previous) this.total -= previous.disk;
    this.entries.delete(key);
    this.entries.set(key, { disk });
    this.total += disk;
    // A folder grows a block as its names outgrow the last one.
    for (const folder of [this.dir, zDir, xDir]) await this.measureFolder(folder);
  }

  /** Whether the filesystem holding the cache has room to spare for one more tile. */
  private async roomOnDisk(): Promise<boolean> {
    let fs: Awaited<ReturnType<typeof statfs>>;
    try {
      fs = await statfs(this.dir);
    } catch {
      return false;
    }
    const floor = this.options.minFreeBytes ?? Math.min(MIN_FREE_BYTES, fs.blocks * fs.bsize * MIN_FREE_SHARE);
    if (fs.bavail * fs.bsize < floor) return false;
    // Some filesystems report no inode counts (0): nothing to check then.
    return !(fs.files > 0 && fs.ffree < fs.files * MIN_FREE_INODE_SHARE);
  }

  private async measureFolder(path: string): Promise<void> {
    const disk = await diskOf(path).catch(() => undefined);
    this.total -= this.folders.get(path) ?? 0;
    if (disk === undefined) this.folders.delete(path);
    else {
      this.folders.set(path, disk);
      this.total += disk;
    }
  }

  /** The least recently used go until the cache fits (never `keep`, just written). */
  private async evict(keep: string): Promise<void> {
    for (const key of this.entries.keys()) {
      if (this.total <= this.maxBytes) break;
      if (key === keep) continue;
      await this.remove(key);
      this.evictions++;
    }
  }

  private async remove(key: string): Promise<void> {
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.total -= entry.disk;
    }
    const tile = tileOf(key);
    await rm(this.tilePath(tile), { force: true });
    // Folders left empty go too (rmdir refuses one that is not: another tile is in it, or just arrived).
    const zDir = join(this.dir, String(tile.z));
    for (const folder of [join(zDir, String(tile.x)), zDir]) {
      if (!this.folders.has(folder)) break;
      const removed = await rmdir(folder).then(
        () => true,
        () => false,
      );
      if (!removed) {
        await this.measureFolder(folder);
        break;
      }
      this.total -= this.folders.get(folder) ?? 0;
      this.folders.delete(folder);
    }
  }

  private async scan(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const found: Array<{ key: string; disk: number; at: number }> = [];
    for (const z of await names(this.dir)) {
      const zDir = join(this.dir, z);
      for (const x of await names(zDir)) {
        const xDir = join(zDir, x);
        for (const file of await names(xDir)) {
          const path = join(xDir, file);
          const match = TILE_FILE.exec(file);
          if (!match || !NUMBER.test(z) || !NUMBER.test(x)) {
            // The earlier layout ({y}.png and {y}.json), a write cut off ({…}.tmp), anything else.
            await rm(path, { force: true, recursive: true });
            continue;
          }
          const tile: ScaledTile = { z: Number(z), x: Number(x), y: Number(match[1]), scale: match[2] ? 2 : 1 };
          try {
            const info = await stat(path);
            found.push({ key: keyOf(tile), disk: info.blocks * 512, at: info.mtimeMs });
          } catch {
            await rm(path, { force: true });
          }
        }
        await rmdir(xDir).catch(() => undefined);
      }
      await rmdir(zDir).catch(() => undefined);
    }
    found.sort((a, b) => a.at - b.at);
    for (const { key, disk } of found) {
      this.entries.set(key, { disk });
      this.total += disk;
    }
    await this.measureFolder(this.dir);
    for (const z of await names(this.dir)) {
      await this.measureFolder(join(this.dir, z));
      for (const x of await names(join(this.dir, z))) await this.measureFolder(join(this.dir, z, x));
    }
    // A smaller MAP_TILE_CACHE_MB since the last start.
    await this.evict('');
  }

  private tilePath(tile: ScaledTile): string {
    return join(this.dir, String(tile.z), String(tile.x), `${fileName(tile)}.tile`);
  }
}

/** Bytes a file or folder takes on disk (allocated 512-byte units, as `du` counts them). */
async function diskOf(path: string): Promise<number> {
  return (await stat(path)).blocks * 512;
}

function encode(bytes: Buffer, meta: TileMeta): Buffer {
  const metaBytes = Buffer.from(JSON.stringify(meta));
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(metaBytes.length);
  return Buffer.concat([header, metaBytes, bytes]);
}

function decode(file: Buffer): CachedTile {
  const metaLength = file.readUInt32BE(0);
  if (HEADER_BYTES + metaLength > file.length) throw new Error('not a tile file');
  const meta = JSON.parse(file.subarray(HEADER_BYTES, HEADER_BYTES + metaLength).toString('utf8')) as TileMeta;
  return { meta, bytes: Buffer.from(file.subarray(HEADER_BYTES + metaLength)) };
}

/** `{y}`, or `{y}@2x` for a 2x tile. */
function fileName({ y, scale }: ScaledTile): string {
  return scale === 2 ? `${y}@2x` : String(y);
}

function keyOf(tile: ScaledTile): string {
  return `${tile.z}/${tile.x}/${fileName(tile)}`;
}

function tileOf(key: string): ScaledTile {
  const [z, x, file] = key.split('/');
  return { z: Number(z), x: Number(x), y: Number(file!.replace('@2x', '')), scale: file!.endsWith('@2x') ? 2 : 1 };
}

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

let writes = 0;
async function atomicWrite(path: string, data: Buffer): Promise<void> {
  const temporary = `${path}.${process.pid}.${++writes}.tmp`;
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
