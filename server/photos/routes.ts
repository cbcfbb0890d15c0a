import { Router, type Request, type Response } from 'express';
import { servedCrossOrigin } from '../http/cross-origin.ts';
import { HttpError } from '../http/errors.ts';
import { VARIANT_FILE_NAME, variantPath } from './variant-files.ts';

export interface PhotosRouterOptions {
  /** A file missing (and not filled): whoever still shows its image fetches it again. */
  onMissing?: (hash: string) => void;
  /**
   * Fetches a missing image's files now (a relay that does not run the mirror: PhotoFill.fillOne);
   * true when they are in the folder. The request waits for it, then gets the file or a 404.
   */
  fill?: (hash: string) => Promise<boolean>;
}

/**
 * Serves mirrored photo variants. Names hold the content hash, so a name always means the same
 * bytes: browsers and CDNs may keep them for a year without asking again. Agency sites on any
 * origin load them (cross-origin resource policy relaxed for this route only).
 *
 * The ETag comes from the name, not from the file's size and time as `send` would make it: every
 * relay behind a load balancer makes the same file at its own time, and answers alike. (Weak: a
 * relay on another version of libvips may encode other bytes of the same image. No ranges either,
 * so parts of two relays' encodings are never spliced together.)
 */
export function photosRouter(photoDir: string, options: PhotosRouterOptions = {}): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/photos/:file', servedCrossOrigin, (req, res, next) => {
    const match = VARIANT_FILE_NAME.exec(String(req.params.file));
    if (!match) return next(new HttpError(404, 'not_found', 'No such photo.'));
    const [, hash, width, extension] = match;
    const path = variantPath(photoDir, hash!, Number(width), extension === 'jpg' ? 'jpeg' : 'webp');
    const notFound = () => next(new HttpError(404, 'not_found', 'No such photo.'));
    send(req, res, path, (error) => {
      if (!error) return;
      if (res.headersSent) return;
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && (error as { status?: number }).status !== 404) return next(error);
      if (code !== 'ENOENT') return notFound();
      if (!options.fill) {
        // A file gone from the folder (deleted by hand, or while its agency was away): whoever still shows it fetches it again.
        options.onMissing?.(hash!);
        return notFound();
      }
      options.fill(hash!).then(
        (filled) => {
          if (res.headersSent || req.destroyed) return;
          if (!filled) {
            options.onMissing?.(hash!);
            return notFound();
          }
          send(req, res, path, (again) => {
            if (again && !res.headersSent) notFound();
          });
        },
        (failure: unknown) => next(failure),
      );
    });
  });
  return router;
}

function send(req: Request, res: Response, path: string, done: (error?: Error) => void): void {
  const name = String(req.params.file);
  res.setHeader('ETag', `W/"${name}"`);
  res.sendFile(path, { maxAge: 31_536_000_000, immutable: true, dotfiles: 'deny', etag: false, lastModified: false, acceptRanges: false }, (error) => {
    // An error answer must not carry the photo's validator.
    if (error && !res.headersSent) res.removeHeader('ETag');
    done(error);
  });
}
