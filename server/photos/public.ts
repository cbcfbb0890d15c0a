import type { ImageVariant, Photo } from '../../contract/relay-api.ts';
import type { MirroredPhoto } from './mirror.ts';
import { FILE_EXTENSION } from './variant-files.ts';

/** The public path of a variant (what routes.ts serves). */
export function variantUrl(base: string, hash: string, width: number, format: 'webp' | 'jpeg'): string {
  return `${base}/photos/${hash}-${width}.${FILE_EXTENSION[format]}`;
}

/**
 * A mirrored photo as the public API describes it: only relay URLs (never the CRM file host's),
 * both srcsets, and the intrinsic size of the largest variant so pages can reserve its box.
 * `base` is the relay's origin as browsers reach it ('' for relay-relative URLs).
 */
export function publicPhoto(photo: MirroredPhoto, base: string): Photo {
  const variants: ImageVariant[] = [];
  for (const format of ['webp', 'jpeg'] as const) {
    for (const width of photo.widths) variants.push({ url: variantUrl(base, photo.hash, width, format), width, format });
  }
  const srcset = (format: 'webp' | 'jpeg') =>
    variants
      .filter((variant) => variant.format === format)
      .map((variant) => `${variant.url} ${variant.width}w`)
      .join(', ');
  // A medium width is the fallback <img src>: sharp enough for a card, light enough for a phone.
  const medium = photo.widths[Math.floor((photo.widths.length - 1) / 2)];
  return {
    id: photo.photoId,
    caption: photo.caption,
    width: photo.width,
    height: photo.height,
    url: variantUrl(base, photo.hash, medium, 'jpeg'),
    srcset: { webp: srcset('webp'), jpeg: srcset('jpeg') },
    variants,
  };
}
