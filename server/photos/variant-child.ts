/**
 * The image process (variant-process.ts): makes each photo's variants as the relay asks over IPC,
 * and ends when the relay lets go of it.
 */
import sharp from 'sharp';
import { PhotoDownloadError } from './download.ts';
import type { VariantAnswer } from './variant-process.ts';
import { makeVariants } from './variants.ts';

// Every photo is another image: libvips' operation cache (50 MB by default) would only hold what is never asked again.
sharp.cache(false);

interface VariantRequest {
  id: number;
  bytes: Uint8Array;
  hash: string;
  photoDir: string;
  widths: number[];
}

process.on('message', (request: VariantRequest) => {
  const bytes = Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength);
  makeVariants(bytes, request.hash, request.photoDir, request.widths).then(
    (made) => answer({ id: request.id, made }),
    (error: unknown) =>
      answer({
        id: request.id,
        error:
          error instanceof PhotoDownloadError
            ? { message: error.message, reason: error.reason, permanent: error.permanent }
            : { message: error instanceof Error ? error.message : String(error) },
      }),
  );
});
process.on('disconnect', () => process.exit(0));

function answer(message: VariantAnswer): void {
  process.send?.(message);
}
