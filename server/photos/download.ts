import { createHash } from 'node:crypto';
import type { PhotoHostAllowList } from './hosts.ts';
import { BodyTooLargeError, readCappedBody } from '../runtime/capped-body.ts';

/** Why a photo could not be mirrored; `permanent` ones are not worth retrying until the photo changes. */
export class PhotoDownloadError extends Error {
  constructor(
    message: string,
    readonly reason: 'host_not_allowed' | 'bad_url' | 'too_large' | 'bad_type' | 'bad_dimensions' | 'http_error' | 'network' | 'timeout' | 'redirects',
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = 'PhotoDownloadError';
  }
}

export interface DownloadOptions {
  allowList: PhotoHostAllowList;
  maxBytes: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Downloaded {
  bytes: Buffer;
  contentType: string;
}

/** The name of an image's files: sha256 of the downloaded bytes, hex, first 32 characters (the same on every relay). */
export function contentHash(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 32);
}

const IMAGE_TYPES = /^image\/(jpeg|pjpeg|png|webp|gif|avif)\b/i;
const MAX_REDIRECTS = 3;

/**
 * Downloads one photo file. The request carries no credentials (the CRM's API key and token are
 * for the API, never for its file host), every hop including redirects must be on the allow-list,
 * and the body is cut off as soon as it passes `maxBytes`.
 */
export async function downloadPhoto(source: string, options: DownloadOptions): Promise<Downloaded> {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new PhotoDownloadError('The photo URL does not parse.', 'bad_url', true);
  }
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

  for (let hop = 0; ; hop++) {
    if (!options.allowList.allows(url)) {
      throw new PhotoDownloadError(`Refused to fetch a photo from ${url.protocol}//${url.host}: the host is not in PHOTO_HOSTS.`, 'host_not_allowed', true);
    }
    let response: Response;
    try {
      response = await fetch(url, {
        // Only these headers: never the CRM credentials, never cookies.
        headers: { Accept: 'image/webp,image/jpeg,image/png,image/*;q=0.8', 'User-Agent': 'estate-embed-relay' },
        redirect: 'manual',
        signal,
      });
    } catch (cause) {
      const timedOut = timeout.aborted;
      throw new PhotoDownloadError(
        timedOut ? 'The photo download timed out.' : `The photo download failed (${(cause as Error).message}).`,
        timedOut ? 'timeout' : 'network',
        false,
      );
    }

    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = response.headers.get('location');
      if (!location || hop >= MAX_REDIRECTS) {
        throw new PhotoDownloadError('The photo host redirected too often or nowhere.', 'redirects', true);
      }
      url = new URL(location, url);
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      // 404/410: the file is gone until the CRM says the photo changed. Others may pass.
      const permanent = response.status === 404 || response.status === 410;
      throw new PhotoDownloadError(`The photo host answered ${response.status}.`, 'http_error', permanent);
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!IMAGE_TYPES.test(contentType)) {
      await response.body?.cancel();
      throw new PhotoDownloadError(`The photo host sent ${contentType || 'no content type'}, not an image.`, 'bad_type', true);
    }
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body?.cancel();
      throw new PhotoDownloadError(`The photo is ${declared} bytes, over PHOTO_MAX_BYTES (${options.maxBytes}).`, 'too_large', true);
    }
    const bytes = await readCapped(response, options.maxBytes);
    return { bytes, contentType };
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  try {
    return await readCappedBody(response, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new PhotoDownloadError(`The photo is over PHOTO_MAX_BYTES (${maxBytes}).`, 'too_large', true);
    throw new PhotoDownloadError(`The photo download broke off (${(error as Error).message}).`, 'network', false);
  }
}
