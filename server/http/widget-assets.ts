import express, { Router } from 'express';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { HttpError } from './errors.ts';
import { servedCrossOrigin } from './cross-origin.ts';
import { EncodedBody, precompressedStatic, sendEncoded, STATIC_EFFORT } from './precompressed.ts';

export const WIDGET_FILE = 'widget.js';

/** An element's or a shared chunk's file, as vite.config.ts names them: widget-<name>.<hash>.js. */
export const WIDGET_CHUNK_PATTERN = /^\/widget-[A-Za-z0-9_.-]+\.[A-Za-z0-9_-]{8}\.js$/;

export interface WidgetBundle {
  /** The bundle's bytes. */
  source: Buffer;
  /** First 10 hex digits of its SHA-256: the versioned name is widget.<hash>.js. */
  hash: string;
  /** Subresource Integrity value (sha384) for the versioned script tag. */
  integrity: string;
  versionedName: string;
  /** Its ETag and brotli/gzip forms, made once per build. */
  encoded: EncodedBody;
}

/** Reads the built bundle once per change of its file (mtime), hashing it for the versioned URL. */
export function widgetBundleReader(widgetDir: string): () => WidgetBundle | undefined {
  const file = join(widgetDir, WIDGET_FILE);
  let cached: { mtimeMs: number; bundle: WidgetBundle } | undefined;
  return () => {
    if (!existsSync(file)) return undefined;
    const { mtimeMs } = statSync(file);
    if (cached?.mtimeMs !== mtimeMs) {
      const source = readFileSync(file);
      const hash = createHash('sha256').update(source).digest('hex').slice(0, 10);
      const integrity = `sha384-${createHash('sha384').update(source).digest('base64')}`;
      cached = { mtimeMs, bundle: { source, hash, integrity, versionedName: `widget.${hash}.js`, encoded: new EncodedBody(source, STATIC_EFFORT) } };
    }
    return cached.bundle;
  };
}

/**
 * `/widget.js`, the loader (short cache, so a new release reaches pages within minutes),
 * `/widget.<hash>.js` (immutable, for pages that pin a version with SRI), and the elements' chunks
 * the loader fetches, `/widget-<name>.<hash>.js` (immutable: a new build has new names; the loader
 * checks each against the SHA-384 it carries). Each is sent from memory in the coding the browser
 * accepts, compressed once per build.
 */
export function widgetRouter(widgetDir: string): Router {
  const read = widgetBundleReader(widgetDir);
  const router = Router({ caseSensitive: true, strict: true });
  const immutable = 'public, max-age=31536000, immutable';
  // Chunks from memory, compressed once; express.static only for one too big to hold (none today).
  const chunks = precompressedStatic(widgetDir, { cacheControl: immutable });
  const bigChunks = express.static(widgetDir, { index: false, immutable: true, maxAge: '365d', fallthrough: true });
  router.get(WIDGET_CHUNK_PATTERN, servedCrossOrigin, chunks, bigChunks, () => {
    throw new HttpError(404, 'not_found', 'No such widget chunk on this relay (a page may hold an older widget.js: reload it).');
  });
  router.get(/^\/widget(?:\.([0-9a-f]{10}))?\.js$/, servedCrossOrigin, (req, res) => {
    const bundle = read();
    if (!bundle) throw new HttpError(503, 'widget_not_built', 'The widget bundle is not built: run `npm run build:widget`.');
    const requestedHash = (req.params as Record<string, string | undefined>)[0];
    if (requestedHash && requestedHash !== bundle.hash) {
      throw new HttpError(404, 'not_found', 'No widget bundle with that version on this relay.');
    }
    res.type('text/javascript; charset=utf-8');
    res.set('Cache-Control', requestedHash ? immutable : 'public, max-age=300, stale-while-revalidate=86400');
    sendEncoded(req, res, bundle.encoded);
  });
  return router;
}
