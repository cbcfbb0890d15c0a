import { z } from 'zod';
import { BodyTooLargeError, readCappedBody } from '../runtime/capped-body.ts';
import { parseRetryAfter } from '../runtime/retry-after.ts';

/*
 * The geocoder port (what the places module asks, in its own terms) and its one adapter: a service
 * speaking Nominatim's `/search` API (the public nominatim.openstreetmap.org, a self-hosted
 * Nominatim, a commercial provider). Nominatim's vocabulary (its parameters, `format=jsonv2`, its
 * `lat`/`lon` strings) stays in this file.
 */

/** What to find: a street address, or the middle of a suburb. Only parts the agency lets be known. */
export interface PlaceQuery {
  kind: 'address' | 'suburb';
  /** Number and street ("110 Example Street"); only for kind 'address'. */
  street?: string;
  suburb: string;
  state: string | null;
  postcode: string | null;
  /** ISO 3166-1 alpha-2 ("AU"). */
  country: string | null;
}

/** Where it is; null: the geocoder found nothing (or nothing in the country asked). */
export type GeocodeAnswer = { lat: number; lng: number } | null;

export interface Geocoder {
  /** The service's address, for logs. */
  readonly url: string;
  search(query: PlaceQuery, signal?: AbortSignal): Promise<GeocodeAnswer>;
}

/** The geocoder refused for load (429, or Nominatim's 403 "usage limit reached"): stop asking for a while. */
export class GeocoderBusyError extends Error {
  constructor(
    readonly status: number,
    /** From Retry-After when sent, else undefined. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(`the geocoder answered ${status}${retryAfterMs === undefined ? '' : ` (retry after ${Math.round(retryAfterMs / 1000)} s)`}`);
    this.name = 'GeocoderBusyError';
  }
}

/** Any other failure (network, timeout, 5xx, an answer too big or not in the expected shape). */
export class GeocoderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GeocoderError';
  }
}

export interface NominatimOptions {
  /** Base URL; `/search` is appended. */
  baseUrl: string;
  /** "estate-embed/<version>": the application, as the usage policy asks (a library's default is refused). */
  userAgent: string;
  /** A contact address: in the User-Agent and as `email=`. */
  email?: string;
  timeoutMs: number;
  /** Largest answer read, in bytes (default 256 KiB). */
  maxBytes?: number;
  fetch?: typeof fetch;
}

/**
 * A jsonv2 result: the coordinates (strings in Nominatim's answers) and, asked for with
 * `addressdetails=1`, the country it lies in (`address.country_code`, lower case ISO 3166-1).
 */
const coordinate = z
  .union([z.string().trim().min(1), z.number()])
  .transform(Number)
  .pipe(z.number().finite());
const nominatimAnswer = z.array(
  z.looseObject({
    lat: coordinate.pipe(z.number().min(-90).max(90)),
    lon: coordinate.pipe(z.number().min(-180).max(180)),
    address: z
      .looseObject({ country_code: z.string().optional().catch(undefined) })
      .optional()
      .catch(undefined),
  }),
);

const DEFAULT_MAX_BYTES = 256 * 1024;

/**
 * The Nominatim `/search` client: one free-form query per call, the best match only. With a
 * country in the query, the search is limited to it (`countrycodes`) and the answer is checked
 * against it: a match the geocoder places in another country, or in no country it names, is "not
 * found" (null), whatever the service did with `countrycodes` (a provider may ignore it).
 */
export function nominatimGeocoder(options: NominatimOptions): Geocoder {
  const doFetch = options.fetch ?? fetch;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const userAgent = options.email ? `${options.userAgent} (${options.email})` : options.userAgent;
  const base = options.baseUrl.replace(/\/+$/, '');
  return {
    url: base,
    async search(query, signal) {
      const url = new URL(`${base}/search`);
      url.searchParams.set('q', freeForm(query));
      url.searchParams.set('format', 'jsonv2');
      url.searchParams.set('limit', '1');
      url.searchParams.set('addressdetails', '1');
      if (query.country) url.searchParams.set('countrycodes', query.country.toLowerCase());
      if (options.email) url.searchParams.set('email', options.email);
      const timeout = AbortSignal.timeout(options.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let response: Response;
      try {
        response = await doFetch(url, { headers: { 'User-Agent': userAgent, Accept: 'application/json' }, signal: combined, redirect: 'error' });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new GeocoderError(timeout.aborted ? `no answer within ${options.timeoutMs} ms` : `request failed: ${(error as Error).message}`);
      }
      if (response.status === 429 || response.status === 403) {
        await response.body?.cancel().catch(() => undefined);
        throw new GeocoderBusyError(response.status, parseRetryAfter(response.headers.get('retry-after'), new Date()));
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new GeocoderError(`answered ${response.status}`);
      }
      const text = await readCapped(response, maxBytes, timeout, options.timeoutMs);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new GeocoderError('answer is not JSON');
      }
      const results = nominatimAnswer.safeParse(parsed);
      if (!results.success) throw new GeocoderError(`answer not in Nominatim's jsonv2 shape: ${results.error.issues[0]?.message ?? 'invalid'}`);
      const best = results.data[0];
      if (!best) return null;
      if (query.country && best.address?.country_code?.toUpperCase() !== query.country.toUpperCase()) return null;
      return { lat: best.lat, lng: best.lon };
    },
  };
}

/** "110 Example Street, Kew VIC 3101" / "Kew VIC 3101": the form people (and Nominatim) read best. */
export function freeForm(query: PlaceQuery): string {
  const locality = [query.suburb, query.state, query.postcode].filter(Boolean).join(' ');
  return query.kind === 'address' && query.street ? `${query.street}, ${locality}` : locality;
}

async function readCapped(response: Response, maxBytes: number, timeout: AbortSignal, timeoutMs: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new GeocoderError(`answer larger than ${maxBytes} bytes`);
  }
  try {
    return (await readCappedBody(response, maxBytes)).toString('utf8');
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new GeocoderError(`answer larger than ${maxBytes} bytes`);
    throw new GeocoderError(timeout.aborted ? `no answer within ${timeoutMs} ms` : `answer cut off: ${(error as Error).message}`);
  }
}
