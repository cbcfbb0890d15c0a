import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PerClientLimit } from '../http/client-limit.ts';
import type { Clock } from '../runtime/clock.ts';
import type { TileSettings } from '../runtime/config.ts';
import type { Logger } from '../runtime/log.ts';
import type { ScaledTile } from './area.ts';
import { TileDiskCache, type CachedTile, type TileDiskCacheOptions, type TileMeta } from './disk-cache.ts';
import { fetchTile, hasHighDensity, TileFetchError, type FetchTileOptions, type Freshness } from './upstream.ts';

/** A tile whose provider gave no freshness (no Cache-Control max-age, no Expires) is used this long before it is asked about again. */
export const DEFAULT_TILE_SECONDS = 24 * 60 * 60;
/** A held tile served while the provider fails (past its expiry): browsers ask again after this. */
export const STALE_TILE_SECONDS = 60;
/** Tiles fetched from the provider at the same time, for every agency and visitor together (no bulk downloading). */
export const UPSTREAM_CONCURRENCY = 4;
const WARN_EVERY_MS = 60_000;

/** A tile as the route sends it. */
export interface ServedTile {
  bytes: Buffer;
  /** How long browsers may keep it (what is left of the provider's freshness). */
  maxAgeSeconds: number;
  etag: string;
  /** Where it came from: the disk cache, the provider (new or revalidated), or a stale copy while the provider fails. */
  from: 'disk' | 'provider' | 'revalidated' | 'stale';
}

export interface TileSourceOptions {
  settings: TileSettings & { url: string };
  dataDir: string;
  /** The cache's folder in DATA_DIR (default `tiles`; the labels layer's `label-tiles`). */
  folder?: string;
  /** Which layer, for the log: the base tiles, or the labels drawn above the markers (MAP_LABEL_TILE_URL). */
  layer?: 'base' | 'labels';
  /** The relay's fetches from tile providers, shared by its layers (default: this source's own, UPSTREAM_CONCURRENCY at once). */
  slots?: FetchSlots;
  /** "estate-embed/<version>": the provider's usage policy asks for an application's own User-Agent. */
  userAgent: string;
  log: Logger;
  now?: Clock;
  /** Overrides for tests: the disk cache's free-space floor. */
  cacheOptions?: TileDiskCacheOptions;
  /** Overrides for tests: tile size cap and timeout. */
  fetch?: Partial<Pick<FetchTileOptions, 'maxBytes' | 'timeoutMs'>>;
}

/** At most `max` fetches from tile providers at once, the others waiting their turn: one for the relay, whatever the layers. */
export class FetchSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly max: number = UPSTREAM_CONCURRENCY) {}

  async acquire(): Promise<void> {
    if (this.running < this.max) {
      this.running++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/**
 * The relay's map tiles of one layer (one per relay and layer: every agency's map shows the same tiles): read from the
 * disk cache while the provider's freshness lasts, else fetched from MAP_TILE_URL, or
 * MAP_LABEL_TILE_URL for the labels layer (conditionally when a copy is held: a 304 keeps it), one
 * fetch per tile at a time and at most UPSTREAM_CONCURRENCY in all (`slots`, shared by the layers). Which tiles an agency may ask for is the route's business (area.ts);
 * so is the per-client rate (`limit`, one for the relay).
 */
export class TileSource {
  readonly cache: TileDiskCache;
  /** Tiles a minute per client (MAP_TILE_RATE_PER_MINUTE), over every agency. */
  readonly limit: PerClientLimit;
  readonly counts = { disk: 0, provider: 0, revalidated: 0, stale: 0, failed: 0 };
  private readonly inFlight = new Map<string, Promise<ServedTile>>();
  readonly slots: FetchSlots;
  private readonly now: Clock;
  private readonly warnedAt = new Map<string, number>();

  constructor(private readonly options: TileSourceOptions) {
    this.now = options.now ?? Date.now;
    this.cache = new TileDiskCache(join(options.dataDir, options.folder ?? 'tiles'), options.settings.cacheBytes, options.cacheOptions);
    this.slots = options.slots ?? new FetchSlots();
    this.limit = new PerClientLimit(options.settings.ratePerMinute, this.now);
  }

  get attribution(): string {
    return this.options.settings.attribution ?? '';
  }

  get maxZoom(): number {
    return this.options.settings.maxZoom;
  }

  /** Whether 2x tiles can be had (MAP_TILE_URL has `{r}`); else only 1x ones are served. */
  get highDensity(): boolean {
    return hasHighDensity(this.options.settings.url);
  }

  /** The tile, from disk or the provider; throws a TileFetchError when neither has it. */
  async get(tile: ScaledTile): Promise<ServedTile> {
    const held = await this.cache.read(tile);
    const now = this.now();
    if (held && now < held.meta.expiresAt) {
      this.counts.disk++;
      return served(held.bytes, Math.floor((held.meta.expiresAt - now) / 1000), 'disk');
    }
    const key = `${tile.z}/${tile.x}/${tile.y}@${tile.scale}x`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fromProvider(tile, held).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async fromProvider(tile: ScaledTile, held: CachedTile | undefined): Promise<ServedTile> {
    await this.slots.acquire();
    try {
      const answer = await fetchTile(this.options.settings.url, tile, {
        userAgent: this.options.userAgent,
        validators: held?.meta.validators,
        now: this.now,
        ...this.options.fetch,
      });
      const now = this.now();
      if (answer.kind === 'not-modified' && held) {
        // Unchanged: kept for as long as the provider now says (or as long as it said before).
        const previous = Math.max(0, held.meta.expiresAt - held.meta.storedAt);
        const seconds = answer.freshness.maxAgeSeconds ?? previous / 1000;
        const meta: TileMeta = { expiresAt: now + seconds * 1000, storedAt: now, validators: { ...held.meta.validators, ...defined(answer.validators) } };
        await this.cache.refresh(tile, held.bytes, meta);
        this.counts.revalidated++;
        return served(held.bytes, seconds, 'revalidated');
      }
      if (answer.kind === 'not-modified') throw new TileFetchError('The tile provider answered 304 to an unconditional request.', 'http_error');
      const seconds = keepSeconds(answer.freshness);
      if (answer.freshness.noStore) await this.cache.forget(tile);
      else if (!(await this.cache.write(tile, answer.bytes, { expiresAt: now + seconds * 1000, storedAt: now, validators: answer.validators })))
        this.warnOnce('disk_full', 'map tiles are not cached: the disk holding DATA_DIR is short of free space or inodes (served from the provider meanwhile)');
      this.counts.provider++;
      return served(answer.bytes, seconds, 'provider');
    } catch (error) {
      this.counts.failed++;
      const fault = error instanceof TileFetchError ? error : new TileFetchError(`The tile could not be kept (${(error as Error).message}).`, 'network');
      if (fault.reason === 'not_found') {
        await this.cache.forget(tile);
        throw fault;
      }
      this.warn(fault);
      // The provider fails: a copy held, however old, is better than a hole in the map.
      if (held) {
        this.counts.stale++;
        return served(held.bytes, STALE_TILE_SECONDS, 'stale');
      }
      throw fault;
    } finally {
      this.slots.release();
    }
  }

  /** One warning a minute for each kind of fault: a provider down must not flood the log. */
  private warn(fault: TileFetchError): void {
    this.warnOnce(fault.reason, `map tile not fetched: ${fault.message}`, { tileHost: new URL(this.options.settings.url.replace(/[{}]/g, '')).host });
  }

  private warnOnce(reason: string, message: string, fields: Record<string, unknown> = {}): void {
    const now = this.now();
    if (now - (this.warnedAt.get(reason) ?? -Infinity) < WARN_EVERY_MS) return;
    this.warnedAt.set(reason, now);
    this.options.log.warn({ reason, layer: this.options.layer ?? 'base', ...fields }, message);
  }
}

/** Seconds to keep a tile: the provider's word, or DEFAULT_TILE_SECONDS when it says nothing. */
function keepSeconds(freshness: Freshness): number {
  if (freshness.noStore) return 0;
  return freshness.maxAgeSeconds ?? DEFAULT_TILE_SECONDS;
}

function served(bytes: Buffer, maxAgeSeconds: number, from: ServedTile['from']): ServedTile {
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  return { bytes, maxAgeSeconds: Math.max(0, Math.floor(maxAgeSeconds)), etag, from };
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}
