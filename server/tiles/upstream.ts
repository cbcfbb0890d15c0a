import type { ScaledTile } from './area.ts';
import { BodyTooLargeError, readCappedBody } from '../runtime/capped-body.ts';

/** The largest tile read from the provider; the body is cut off here, whatever Content-Length said. */
export const MAX_TILE_BYTES = 512 * 1024;
export const TILE_TIMEOUT_MS = 10_000;
/** Redirects followed within MAP_TILE_URL's origin (scheme, host and port); never to another. */
const MAX_REDIRECTS = 3;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Why a tile could not be had from the provider. `not_found`: the provider has no such tile. */
export class TileFetchError extends Error {
  constructor(
    message: string,
    readonly reason: 'not_found' | 'http_error' | 'too_large' | 'not_png' | 'redirect' | 'timeout' | 'network',
  ) {
    super(message);
    this.name = 'TileFetchError';
  }
}

/** How long the provider lets a tile be used without asking again (seconds; undefined: it did not say), or not at all. */
export interface Freshness {
  maxAgeSeconds: number | undefined;
  /** no-store or private: a shared cache must not keep it. */
  noStore: boolean;
}

export interface TileValidators {
  etag?: string;
  lastModified?: string;
}

export type UpstreamTile =
  | { kind: 'tile'; bytes: Buffer; freshness: Freshness; validators: TileValidators }
  | { kind: 'not-modified'; freshness: Freshness; validators: TileValidators };

export interface FetchTileOptions {
  userAgent: string;
  maxBytes?: number;
  timeoutMs?: number;
  /** The copy held: asked for conditionally (If-None-Match / If-Modified-Since). */
  validators?: TileValidators;
  now?: () => number;
}

export function isPng(bytes: Buffer): boolean {
  return bytes.length > PNG_SIGNATURE.length && bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE);
}

/** MAP_TILE_URL with the tile's numbers in it, and `{r}` (Leaflet's convention) `@2x` for a 2x tile, else nothing. */
export function tileUrl(template: string, { z, x, y, scale }: ScaledTile): URL {
  return new URL(
    template
      .replaceAll('{z}', String(z))
      .replaceAll('{x}', String(x))
      .replaceAll('{y}', String(y))
      .replaceAll('{r}', scale === 2 ? '@2x' : ''),
  );
}

/** Whether MAP_TILE_URL offers 2x tiles (it has `{r}`). */
export function hasHighDensity(template: string): boolean {
  return template.includes('{r}');
}

/** Cache-Control (s-maxage, then max-age; no-store, private, no-cache) and Expires, as a shared cache reads them. */
export function freshnessOf(headers: Headers, now: number): Freshness {
  const cacheControl = (headers.get('cache-control') ?? '').toLowerCase();
  const directives = new Map(
    cacheControl
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name, value] = part.split('=', 2);
        return [name!.trim(), value?.trim().replace(/^"|"$/g, '')] as const;
      }),
  );
  if (directives.has('no-store') || directives.has('private')) return { maxAgeSeconds: 0, noStore: true };
  if (directives.has('no-cache')) return { maxAgeSeconds: 0, noStore: false };
  for (const name of ['s-maxage', 'max-age']) {
    const seconds = Number(directives.get(name));
    if (directives.has(name) && Number.isFinite(seconds) && seconds >= 0) return { maxAgeSeconds: Math.floor(seconds), noStore: false };
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const at = Date.parse(expires);
    // An Expires that does not parse means "already expired" (RFC 9111).
    if (Number.isNaN(at)) return { maxAgeSeconds: 0, noStore: false };
    const date = Date.parse(headers.get('date') ?? '');
    return { maxAgeSeconds: Math.max(0, Math.floor((at - (Number.isNaN(date) ? now : date)) / 1000)), noStore: false };
  }
  return { maxAgeSeconds: undefined, noStore: false };
}

/**
 * Fetches one tile from the provider: only from MAP_TILE_URL's origin (redirects followed by hand,
 * within it, at most MAX_REDIRECTS times), with the relay's User-Agent and nothing of the visitor
 * (no address, cookie or referrer), bounded in time and size, and refused unless the bytes are a
 * PNG. Throws a TileFetchError naming the fault.
 */
export async function fetchTile(template: string, tile: ScaledTile, options: FetchTileOptions): Promise<UpstreamTile> {
  const maxBytes = options.maxBytes ?? MAX_TILE_BYTES;
  let url = tileUrl(template, tile);
  const origin = url.origin;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? TILE_TIMEOUT_MS);
  const headers: Record<string, string> = { Accept: 'image/png', 'User-Agent': options.userAgent };
  if (options.validators?.etag) headers['If-None-Match'] = options.validators.etag;
  if (options.validators?.lastModified) headers['If-Modified-Since'] = options.validators.lastModified;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, { headers, redirect: 'manual', signal: timeout });
    } catch (cause) {
      if (timeout.aborted) throw new TileFetchError('The tile provider did not answer in time.', 'timeout');
      const reason = cause instanceof Error && cause.cause instanceof Error ? cause.cause.message : (cause as Error).message;
      throw new TileFetchError(`The tile provider could not be reached (${reason}).`, 'network');
    }
    const now = options.now?.() ?? Date.now();
    const validators = (): TileValidators => ({
      etag: response.headers.get('etag') ?? undefined,
      lastModified: response.headers.get('last-modified') ?? undefined,
    });
    if (response.status === 304 && options.validators) {
      await response.body?.cancel();
      return { kind: 'not-modified', freshness: freshnessOf(response.headers, now), validators: validators() };
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get('location');
      let next: URL | undefined;
      try {
        next = location ? new URL(location, url) : undefined;
      } catch {
        next = undefined;
      }
      if (!next) throw new TileFetchError(`The tile provider answered ${response.status} without a usable Location.`, 'redirect');
      if (next.origin !== origin)
        throw new TileFetchError(`The tile provider redirected to another origin (${next.origin}); only ${origin} is asked.`, 'redirect');
      if (hop >= MAX_REDIRECTS) throw new TileFetchError(`The tile provider redirected more than ${MAX_REDIRECTS} times.`, 'redirect');
      url = next;
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      const missing = response.status === 404 || response.status === 410;
      throw new TileFetchError(`The tile provider answered ${response.status}.`, missing ? 'not_found' : 'http_error');
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await response.body?.cancel();
      throw new TileFetchError(`The tile is ${declared} bytes, more than the ${maxBytes} a tile may be.`, 'too_large');
    }
    const bytes = await readCapped(response, maxBytes);
    if (!isPng(bytes)) throw new TileFetchError(`The tile provider sent ${response.headers.get('content-type') ?? 'something'} that is not a PNG.`, 'not_png');
    return { kind: 'tile', bytes, freshness: freshnessOf(response.headers, now), validators: validators() };
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  try {
    return await readCappedBody(response, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new TileFetchError(`The tile is more than the ${maxBytes} bytes a tile may be (stopped reading there).`, 'too_large');
    throw new TileFetchError(`The tile download broke off (${(error as Error).message}).`, 'network');
  }
}
