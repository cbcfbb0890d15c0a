/**
 * The image process (image-process.ts): downloads photos as the relay asks over IPC, keeps their
 * bytes until the relay says to make their variants or drop them, and ends when the relay lets go
 * of it.
 */
import sharp from 'sharp';
import { contentHash, downloadPhoto, PhotoDownloadError } from './download.ts';
import { PhotoHostAllowList } from './hosts.ts';
import type { ImageAnswer, ImageRequest } from './image-process.ts';
import { makeVariants } from './variants.ts';

// Every photo is another image: libvips' operation cache (50 MB by default) would only hold what is never asked again.
sharp.cache(false);

const keptBytes = new Map<number, { bytes: Buffer; hash: string }>();
const downloads = new Map<number, AbortController>();

process.on('message', (request: ImageRequest) => {
  switch (request.op) {
    case 'download': {
      const controller = new AbortController();
      downloads.set(request.id, controller);
      downloadPhoto(request.url, {
        allowList: new PhotoHostAllowList(request.hosts),
        maxBytes: request.maxBytes,
        timeoutMs: request.timeoutMs,
        signal: controller.signal,
      })
        .then(({ bytes, contentType }) => {
          if (controller.signal.aborted) throw new PhotoDownloadError('The photo download was stopped.', 'network', false);
          const hash = contentHash(bytes);
          keptBytes.set(request.id, { bytes, hash });
          answer({ id: request.id, kept: { hash, contentType } });
        })
        .catch((error: unknown) => answer({ id: request.id, error: describe(error) }))
        .finally(() => downloads.delete(request.id));
      return;
    }
    case 'make': {
      const photo = keptBytes.get(request.keptId);
      keptBytes.delete(request.keptId);
      if (!photo) {
        answer({ id: request.id, error: { message: 'The image process no longer holds this photo.', reason: 'timeout', permanent: false } });
        return;
      }
      makeVariants(photo.bytes, photo.hash, request.photoDir, request.widths).then(
        (made) => answer({ id: request.id, made }),
        (error: unknown) => answer({ id: request.id, error: describe(error) }),
      );
      return;
    }
    case 'drop':
      keptBytes.delete(request.keptId);
      return;
    case 'abort':
      downloads.get(request.id)?.abort();
      return;
  }
});
process.on('disconnect', () => process.exit(0));

function describe(error: unknown): { message: string; reason?: PhotoDownloadError['reason']; permanent?: boolean } {
  return error instanceof PhotoDownloadError
    ? { message: error.message, reason: error.reason, permanent: error.permanent }
    : { message: error instanceof Error ? error.message : String(error) };
}

function answer(message: ImageAnswer): void {
  process.send?.(message);
}
