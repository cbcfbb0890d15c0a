import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';

/**
 * Answers that change only when their source does (a cached listing page, the widget bundle, a
 * demo file) are compressed once and then sent as bytes: compressing the same 30 KB on every
 * request held the listing API to a fifth of the rate it reaches without (1,000 against 5,200
 * requests/s for a 24-card page, brotli asked). The global compression middleware
 * is mounted after the routes that use this, so nothing is compressed twice.
 */

export type ContentCoding = 'br' | 'gzip' | 'identity';

/** Below this, compressing saves less than a packet and costs a header. */
const MIN_COMPRESS_BYTES = 1024;

export interface CompressionEffort {
  /** Brotli quality 0-11: 11 for files built once, lower for answers a sync replaces. */
  brotliQuality: number;
  /** gzip level 1-9. */
  gzipLevel: number;
}
/** For answers rebuilt on every cache change, on a request's path: about a millisecond for 30 KB. */
export const DYNAMIC_EFFORT: CompressionEffort = { brotliQuality: 6, gzipLevel: 6 };
/** For files that change with a release: the smallest bytes, paid once. */
export const STATIC_EFFORT: CompressionEffort = { brotliQuality: 11, gzipLevel: 9 };

/**
 * One answer's bytes, strong ETag and compressed forms. The forms are made on first use, once:
 * a client that never asks for gzip never costs a gzip.
 */
export class EncodedBody {
  readonly identity: Buffer;
  /** Strong ETag of the uncompressed bytes, quoted; each coding gets its own (see etagOf). */
  readonly etag: string;
  readonly #effort: CompressionEffort;
  #br: Buffer | undefined;
  #gzip: Buffer | undefined;
  /** Told the size of each compressed form as it is made (the answer cache counts what it holds). */
  onGrow: ((bytes: number) => void) | undefined;

  constructor(body: Buffer, effort: CompressionEffort) {
    this.identity = body;
    this.#effort = effort;
    this.etag = `"${createHash('sha1').update(body).digest('base64url')}"`;
  }

  /** Bytes held: the body and the compressed forms made so far. */
  get byteLength(): number {
    return this.identity.length + (this.#br?.length ?? 0) + (this.#gzip?.length ?? 0);
  }

  /** Worth compressing at all. */
  get compressible(): boolean {
    return this.identity.length >= MIN_COMPRESS_BYTES;
  }

  bytes(coding: ContentCoding): Buffer {
    if (coding === 'br') {
      if (!this.#br) {
        this.#br = compact(
          brotliCompressSync(this.identity, {
            params: {
              [zlib.BROTLI_PARAM_QUALITY]: this.#effort.brotliQuality,
              [zlib.BROTLI_PARAM_SIZE_HINT]: this.identity.length,
            },
          }),
        );
        this.onGrow?.(this.#br.length);
      }
      return this.#br;
    }
    if (coding === 'gzip') {
      if (!this.#gzip) {
        this.#gzip = compact(gzipSync(this.identity, { level: this.#effort.gzipLevel }));
        this.onGrow?.(this.#gzip.length);
      }
      return this.#gzip;
    }
    return this.identity;
  }

  /**
   * Different bytes need different strong validators (RFC 9110 §8.8.1), so a compressed form's ETag
   * carries its coding, as Apache's do; If-None-Match matches any form of the same content.
   */
  etagOf(coding: ContentCoding): string {
    return coding === 'identity' ? this.etag : `${this.etag.slice(0, -1)}-${coding}"`;
  }

  /** True when If-None-Match names this content in any coding (weak comparison, RFC 9110 §13.1.2). */
  matches(ifNoneMatch: string | undefined): boolean {
    if (!ifNoneMatch) return false;
    if (ifNoneMatch.trim() === '*') return true;
    const own = this.etag.slice(1, -1);
    return ifNoneMatch.split(',').some((candidate) => {
      const tag = candidate.trim().replace(/^W\//, '');
      return tag === this.etag || tag === `"${own}-br"` || tag === `"${own}-gzip"`;
    });
  }
}

/**
 * zlib's sync output is a slice of its 16 KB (or larger) working buffer: a 1.5 KB brotli form kept
 * as is would hold the whole 16 KB. A copy holds what it says (and small ones share Node's pool).
 */
function compact(bytes: Buffer): Buffer {
  return bytes.buffer.byteLength > bytes.length + 1024 ? Buffer.from(bytes) : bytes;
}

/** Accept-Encoding values seen, and the coding chosen for each: browsers send a handful of spellings. */
const chosenCodings = new Map<string, ContentCoding>();
const CHOSEN_CODINGS_KEPT = 64;

/** negotiator 1.x takes a server preference for ties; its type package predates the option. */
type EncodingNegotiator = { encodings(available: readonly string[], options: { preferred: readonly string[] }): string[] };

/**
 * The coding to send: the one the request rates highest (q-values, `*`, `identity;q=0` honoured),
 * brotli on a tie. Browsers list gzip first ("gzip, deflate, br, zstd") but mean no preference, so
 * the request's order is not a preference; negotiator's `preferred`, as the compression middleware
 * uses it, settles ties our way.
 */
export function chooseCoding(req: IncomingMessage): ContentCoding {
  const header = req.headers['accept-encoding'];
  if (!header) return 'identity';
  let coding = chosenCodings.get(header);
  if (!coding) {
    const negotiator = new Negotiator(req) as unknown as EncodingNegotiator;
    const accepted = negotiator.encodings(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip'] })[0];
    coding = accepted === 'br' || accepted === 'gzip' ? accepted : 'identity';
    if (chosenCodings.size >= CHOSEN_CODINGS_KEPT) chosenCodings.clear();
    chosenCodings.set(header, coding);
  }
  return coding;
}

/**
 * Sends `body` in the coding the request accepts, with Vary and a strong ETag, or 304 when
 * If-None-Match names it. Other headers (type, caching) are the caller's, set before.
 * `beforeSend` sees a 200's bytes with every header set (to record the answer for replay).
 * Ignores a request's `Cache-Control: no-cache` (unlike Express's req.fresh): fetch() adds it to
 * every conditional request it is given.
 */
export function sendEncoded(req: Request, res: Response, body: EncodedBody, beforeSend?: (bytes: Buffer) => void): void {
  res.vary('Accept-Encoding');
  const coding = body.compressible ? chooseCoding(req) : 'identity';
  res.setHeader('ETag', body.etagOf(coding));
  // Only an answer that would be 2xx is conditional (RFC 9110 §13.2.1): a 404 or 410 page is sent in full.
  if (res.statusCode >= 200 && res.statusCode < 300 && body.matches(req.headers['if-none-match'])) {
    res.status(304).end();
    return;
  }
  const bytes = body.bytes(coding);
  if (coding !== 'identity') res.setHeader('Content-Encoding', coding);
  res.setHeader('Content-Length', bytes.length);
  beforeSend?.(bytes);
  res.end(bytes);
}

interface CachedFile {
  mtimeMs: number;
  size: number;
  body: EncodedBody;
}

export interface PrecompressedStaticOptions {
  /** Cache-Control of every file. */
  cacheControl: string;
  /** Extensions tried for a path without one (`/buy` serves buy.html). */
  extensions?: readonly string[];
  /** Files above this are left to the next handler (express.static streams them). */
  maxBytes?: number;
}

/**
 * Serves the files of `root` from memory, each read and compressed once per change of its file
 * (mtime and size, checked with one stat per request). Paths that do not name a file here (or
 * name a dot file, or leave the folder) fall through to the next handler.
 */
export function precompressedStatic(root: string, options: PrecompressedStaticOptions): RequestHandler {
  const base = resolve(root);
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const files = new Map<string, CachedFile>();

  function fileFor(urlPath: string): { file: string; mtimeMs: number; size: number } | undefined {
    let decoded: string;
    try {
      decoded = decodeURIComponent(urlPath);
    } catch {
      return undefined;
    }
    if (decoded.includes('\0') || decoded.split('/').some((segment) => segment.startsWith('.'))) return undefined;
    const withExtensions = extname(decoded) ? [] : (options.extensions ?? []).map((ext) => `${decoded}.${ext}`);
    const candidates = decoded.endsWith('/') ? [join(decoded, 'index.html')] : [decoded, ...withExtensions];
    for (const candidate of candidates) {
      const file = resolve(base, `.${candidate}`);
      if (!file.startsWith(base + sep)) continue;
      const stat = statSync(file, { throwIfNoEntry: false });
      if (stat?.isFile()) return { file, mtimeMs: stat.mtimeMs, size: stat.size };
    }
    return undefined;
  }

  return (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const found = fileFor(req.path);
    if (!found || found.size > maxBytes) return next();
    const { file, mtimeMs, size } = found;
    let cached = files.get(file);
    if (cached?.mtimeMs !== mtimeMs || cached.size !== size) {
      cached = { mtimeMs, size, body: new EncodedBody(readFileSync(file), STATIC_EFFORT) };
      files.set(file, cached);
    }
    res.type(extname(file) || 'application/octet-stream');
    res.setHeader('Cache-Control', options.cacheControl);
    res.setHeader('Last-Modified', new Date(mtimeMs).toUTCString());
    sendEncoded(req, res, cached.body);
  };
}
