import { Router } from 'express';
import { servedCrossOrigin } from '../cross-origin.ts';
import { HttpError } from '../errors.ts';
import { variantPath } from './variants.ts';

/** `<hash>-<width>.<webp|jpg>`: anything else is not one of our files (and never a path). */
const VARIANT_FILE = /^([0-9a-f]{32})-(\d{1,5})\.(webp|jpg)$/;

/**
 * Serves mirrored photo variants. Names hold the content hash, so a name always means the same
 * bytes: browsers and CDNs may keep them for a year without asking again. Agency sites on any
 * origin load them (cross-origin resource policy relaxed for this route only).
 */
export function photosRouter(photoDir: string, options: { onMissing?: (hash: string) => void } = {}): Router {
  const router = Router({ caseSensitive: true, strict: true });
  router.get('/photos/:file', servedCrossOrigin, (req, res, next) => {
    const match = VARIANT_FILE.exec(String(req.params.file));
    if (!match) return next(new HttpError(404, 'not_found', 'No such photo.'));
    const [, hash, width, extension] = match;
    const path = variantPath(photoDir, hash, Number(width), extension === 'jpg' ? 'jpeg' : 'webp');
    res.sendFile(path, { maxAge: 31_536_000_000, immutable: true, dotfiles: 'deny' }, (error) => {
      if (!error) return;
      if (res.headersSent) return;
      const code = (error as NodeJS.ErrnoException).code;
      // A file gone from the folder (deleted by hand, or while its agency was away): whoever still shows it fetches it again.
      if (code === 'ENOENT') options.onMissing?.(hash!);
      next(code === 'ENOENT' || (error as { status?: number }).status === 404 ? new HttpError(404, 'not_found', 'No such photo.') : error);
    });
  });
  return router;
}
