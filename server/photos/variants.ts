import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { PhotoDownloadError } from './download.ts';

/** Formats sharp may decode here: what CRMs store. Anything else (SVG, PDF, TIFF...) is refused. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'avif']);
/** 60 megapixels: far above any listing photo, far below a decompression bomb. */
const MAX_INPUT_PIXELS = 60_000_000;

export type VariantFormat = 'webp' | 'jpeg';
export const FILE_EXTENSION: Record<VariantFormat, string> = { webp: 'webp', jpeg: 'jpg' };

export interface MadeVariants {
  /** Size of the largest variant, after EXIF orientation. */
  width: number;
  height: number;
  /** Widths made, ascending; each exists as WebP and JPEG. */
  widths: number[];
}

/** Where a variant lives: DATA_DIR/photos/ab/<hash>-<width>.<ext> (two-letter fan-out keeps folders small). */
export function variantPath(photoDir: string, hash: string, width: number, format: VariantFormat): string {
  return join(photoDir, hash.slice(0, 2), `${hash}-${width}.${FILE_EXTENSION[format]}`);
}

/** The widths to make for a source `sourceWidth` wide: never upscaled, no duplicates. */
export function targetWidths(wanted: readonly number[], sourceWidth: number): number[] {
  return [...new Set(wanted.map((width) => Math.min(width, sourceWidth)))].sort((a, b) => a - b);
}

/**
 * Checks that `bytes` is a real photo and writes its WebP and JPEG variants. The image is decoded
 * once (to the largest width needed) and every variant is resized from those pixels, which is
 * what makes thousands of photos affordable on two cores.
 */
export async function makeVariants(bytes: Buffer, hash: string, photoDir: string, wantedWidths: readonly number[]): Promise<MadeVariants> {
  let metadata: sharp.Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
  } catch {
    throw new PhotoDownloadError('The photo file is not an image sharp can read.', 'bad_type', true);
  }
  if (!metadata.format || !ACCEPTED_FORMATS.has(metadata.format) || !metadata.width || !metadata.height) {
    throw new PhotoDownloadError(`The photo file is ${metadata.format ?? 'of an unknown format'}, not a photo format.`, 'bad_type', true);
  }
  // EXIF orientations 5-8 swap width and height.
  const sourceWidth = (metadata.orientation ?? 1) >= 5 ? metadata.height : metadata.width;
  const widths = targetWidths(wantedWidths, sourceWidth);
  const largest = widths[widths.length - 1];

  let base: { data: Buffer; info: sharp.OutputInfo };
  try {
    base = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' })
      .rotate()
      .resize({ width: largest, withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch {
    throw new PhotoDownloadError('The photo file is damaged.', 'bad_type', true);
  }
  const raw = { width: base.info.width, height: base.info.height, channels: base.info.channels };

  await mkdir(join(photoDir, hash.slice(0, 2)), { recursive: true });
  const writes: Promise<void>[] = [];
  for (const width of widths) {
    const resized = () => {
      const pipeline = sharp(base.data, { raw });
      return width === raw.width ? pipeline : pipeline.resize({ width });
    };
    writes.push(writeAtomically(variantPath(photoDir, hash, width, 'webp'), resized().webp({ quality: 78, effort: 2 }).toBuffer()));
    writes.push(
      writeAtomically(variantPath(photoDir, hash, width, 'jpeg'), resized().jpeg({ quality: 80, progressive: true, mozjpeg: false }).toBuffer()),
    );
  }
  await Promise.all(writes);
  return { width: raw.width, height: raw.height, widths };
}

/** Write then rename: a reader never sees half a file, and a crash leaves only a stray temp file. */
async function writeAtomically(path: string, content: Promise<Buffer>): Promise<void> {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, await content);
  await rename(temporary, path);
}
