import { join } from 'node:path';

/** What the relay knows of photo variants without loading sharp: their names, paths and widths (sharp's work is in variants.ts, run in image-process.ts). */

export type VariantFormat = 'webp' | 'jpeg';
export const FILE_EXTENSION: Record<VariantFormat, string> = { webp: 'webp', jpeg: 'jpg' };

export interface MadeVariants {
  /** Size of the largest variant, after EXIF orientation. */
  width: number;
  height: number;
  /** Widths made, ascending; each exists as WebP and JPEG. */
  widths: number[];
}

/** A variant's file name, `<hash>-<width>.<webp|jpg>` (hash, width, extension): anything else is not one of ours. */
export const VARIANT_FILE_NAME = /^([0-9a-f]{32})-(\d{1,5})\.(webp|jpg)$/;

/** Where a variant lives: DATA_DIR/photos/ab/<hash>-<width>.<ext> (two-letter fan-out keeps folders small). */
export function variantPath(photoDir: string, hash: string, width: number, format: VariantFormat): string {
  return join(photoDir, hash.slice(0, 2), `${hash}-${width}.${FILE_EXTENSION[format]}`);
}

/** The widths to make for a source `sourceWidth` wide: never upscaled, no duplicates. */
export function targetWidths(wanted: readonly number[], sourceWidth: number): number[] {
  return [...new Set(wanted.map((width) => Math.min(width, sourceWidth)))].sort((a, b) => a - b);
}
