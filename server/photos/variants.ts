import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { PhotoDownloadError } from './download.ts';
import { targetWidths, variantPath, type MadeVariants } from './variant-files.ts';

export { FILE_EXTENSION, VARIANT_FILE_NAME, targetWidths, variantPath, type MadeVariants, type VariantFormat } from './variant-files.ts';

/** Formats sharp may decode here: what CRMs store. Anything else (SVG, PDF, TIFF...) is refused. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'heif', 'avif']);
/** 60 megapixels: far above any listing photo, far below a decompression bomb. */
const MAX_INPUT_PIXELS = 60_000_000;
/**
 * Longest side: WebP's own limit, and above any camera. The pixel cap alone lets a 1 x 30,000,000
 * strip through, which costs seconds of CPU per variant; the header says so before any decoding.
 */
export const MAX_PHOTO_SIDE = 16_383;
/** Panoramas stay in (about 8:1); slivers that are all edge do not. */
export const MAX_ASPECT_RATIO = 12;
/** A backstop for what the checks above cannot foresee: no decode or encode may take longer. */
const SHARP_TIMEOUT_SECONDS = 10;

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
  const { width: sourceW, height: sourceH } = metadata;
  if (Math.max(sourceW, sourceH) > MAX_PHOTO_SIDE || Math.max(sourceW, sourceH) / Math.min(sourceW, sourceH) > MAX_ASPECT_RATIO) {
    throw new PhotoDownloadError(
      `The photo is ${sourceW} x ${sourceH} px: over ${MAX_PHOTO_SIDE} px on a side or ${MAX_ASPECT_RATIO}:1, not a listing photo.`,
      'bad_dimensions',
      true,
    );
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
      .timeout({ seconds: SHARP_TIMEOUT_SECONDS })
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw timedOut(error) ?? new PhotoDownloadError('The photo file is damaged.', 'bad_type', true);
  }
  const raw = { width: base.info.width, height: base.info.height, channels: base.info.channels };

  await mkdir(join(photoDir, hash.slice(0, 2)), { recursive: true });
  const writes: Promise<void>[] = [];
  for (const width of widths) {
    const resized = () => {
      const pipeline = sharp(base.data, { raw }).timeout({ seconds: SHARP_TIMEOUT_SECONDS });
      return width === raw.width ? pipeline : pipeline.resize({ width });
    };
    writes.push(writeAtomically(variantPath(photoDir, hash, width, 'webp'), resized().webp({ quality: 78, effort: 2 }).toBuffer()));
    writes.push(writeAtomically(variantPath(photoDir, hash, width, 'jpeg'), resized().jpeg({ quality: 80, progressive: true, mozjpeg: false }).toBuffer()));
  }
  try {
    await Promise.all(writes);
  } catch (error) {
    throw timedOut(error) ?? error;
  }
  return { width: raw.width, height: raw.height, widths };
}

/** sharp's timeout error as ours (retried later: the machine may just have been busy), else undefined. */
function timedOut(error: unknown): PhotoDownloadError | undefined {
  if (!(error instanceof Error) || !/\btimeout: \d+% complete/i.test(error.message)) return undefined;
  return new PhotoDownloadError(`Processing the photo took over ${SHARP_TIMEOUT_SECONDS} s.`, 'timeout', false);
}

/** Write then rename: a reader never sees half a file, and a crash leaves only a stray temp file. */
async function writeAtomically(path: string, content: Promise<Buffer>): Promise<void> {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, await content);
  await rename(temporary, path);
}
