import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScaledTile } from './area.ts';
import type { TileValidators } from './upstream.ts';

/** What is kept beside each tile (`y.json`): until when it may be used without asking the provider, and how to ask. */
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
  bytes: number;
}

/**
 * Tiles on disk: DATA_DIR/tiles/{z}/{x}/{y}.png with {y}.json beside it (a 2x tile {y}@2x.png and
 * {y}@2x.json), kept for every agency
 * together (a tile is the same for all). At most `maxBytes` (MAP_TILE_CACHE_MB) in all: past it the
 * least recently used go first. Files are written to a temporary name and renamed, so a reader
 * never sees half a tile; the index of what is there (sizes, in use order) is in memory, rebuilt
 * from the folder (oldest files first) at the first use after a start.
 */
export class TileDiskCache {
  private readonly entries = new Map<string, Entry>();
  private total = 0;
  private loading: Promise<void> | undefined;
  evictions = 0;

  constructor(
    readonly dir: string,
    readonly maxBytes: number,
  ) {}

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
      const [bytes, meta] = await Promise.all([readFile(this.pngPath(tile)), readFile(this.metaPath(tile), 'utf8')]);
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, entry);
      return { bytes, meta: JSON.parse(meta) as TileMeta };
    } catch {
      // Deleted by hand, or half a pair: forget it; the next request fetches it again.
      await this.remove(key);
      return undefined;
    }
  }

  async write(tile: ScaledTile, bytes: Buffer, meta: TileMeta): Promise<void> {
    await this.load();
    const key = keyOf(tile);
    await mkdir(join(this.dir, String(tile.z), String(tile.x)), { recursive: true });
    const metaText = JSON.stringify(meta);
    await atomicWrite(this.pngPath(tile), bytes);
    await atomicWrite(this.metaPath(tile), metaText);
    this.account(key, bytes.length + Buffer.byteLength(metaText));
    await this.evict(key);
  }

  /** A tile the provider said is unchanged (304): its new expiry and validators, the bytes as they are. */
  async refresh(tile: ScaledTile, meta: TileMeta): Promise<void> {
    const key = keyOf(tile);
    const entry = this.entries.get(key);
    if (!entry) return;
    await atomicWrite(this.metaPath(tile), JSON.stringify(meta));
  }

  async forget(tile: ScaledTile): Promise<void> {
    await this.remove(keyOf(tile));
  }

  private account(key: string, bytes: number): void {
    const previous = this.entries.get(key);
    if (previous) this.total -= previous.bytes;
    this.entries.delete(key);
    this.entries.set(key, { bytes });
    this.total += bytes;
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
      this.total -= entry.bytes;
    }
    const tile = tileOf(key);
    await Promise.all([rm(this.pngPath(tile), { force: true }), rm(this.metaPath(tile), { force: true })]);
  }

  private async scan(): Promise<void> {
    const found: Array<{ key: string; bytes: number; at: number }> = [];
    for (const z of await names(this.dir)) {
      for (const x of await names(join(this.dir, z))) {
        for (const file of await names(join(this.dir, z, x))) {
          const match = /^(\d+)(@2x)?\.png$/.exec(file);
          if (!match || !/^\d+$/.test(z) || !/^\d+$/.test(x)) continue;
          const tile: ScaledTile = { z: Number(z), x: Number(x), y: Number(match[1]), scale: match[2] ? 2 : 1 };
          try {
            const [png, meta] = await Promise.all([stat(this.pngPath(tile)), stat(this.metaPath(tile))]);
            found.push({ key: keyOf(tile), bytes: png.size + meta.size, at: png.mtimeMs });
          } catch {
            await rm(this.pngPath(tile), { force: true });
          }
        }
      }
    }
    found.sort((a, b) => a.at - b.at);
    for (const { key, bytes } of found) this.account(key, bytes);
    // A smaller MAP_TILE_CACHE_MB since the last start.
    await this.evict('');
  }

  private pngPath(tile: ScaledTile): string {
    return join(this.dir, String(tile.z), String(tile.x), `${fileName(tile)}.png`);
  }

  private metaPath(tile: ScaledTile): string {
    return join(this.dir, String(tile.z), String(tile.x), `${fileName(tile)}.json`);
  }
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
async function atomicWrite(path: string, data: Buffer | string): Promise<void> {
  const temporary = `${path}.${process.pid}.${++writes}.tmp`;
  try {
    await writeFile(temporary, data);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
