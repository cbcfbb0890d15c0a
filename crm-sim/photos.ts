import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { ImageRef } from './model.ts';
import { AGENT_SIZE, FLOORPLAN_SIZE, PHOTO_SIZE, sceneSvg } from './scenes.ts';

/**
 * Real JPEG files for the simulated file host. A small pool of drawn scenes is rendered with sharp
 * (SVG → pixels → JPEG, then resized for thumbnails) and shared by every listing, so a seed of
 * thousands of listings starts instantly: nothing is rendered until a photo list or file is asked
 * for. Renders are memoised per process and kept in a disk cache keyed by a hash of the drawing,
 * so later test runs read files instead of rendering again.
 */

export type ImageSize = 'original' | 'thumb_1024' | 'thumb_180' | 'thumb_360';

export interface RenderedFile {
  data: Buffer;
  width: number;
  height: number;
}

export type RenderedImage = Partial<Record<ImageSize, RenderedFile>> & { original: RenderedFile };

const SIZES: Record<ImageRef['pool'], { base: { width: number; height: number }; thumbs: [ImageSize, number][] }> = {
  photo: {
    base: PHOTO_SIZE,
    thumbs: [
      ['thumb_1024', 1024],
      ['thumb_180', 180],
    ],
  },
  floorplan: {
    base: FLOORPLAN_SIZE,
    thumbs: [
      ['thumb_1024', 1024],
      ['thumb_180', 180],
    ],
  },
  agent: { base: AGENT_SIZE, thumbs: [['thumb_360', 360]] },
};

export function thumbnailSizes(pool: ImageRef['pool']): ImageSize[] {
  return SIZES[pool].thumbs.map(([size]) => size);
}

const JPEG = { quality: 82, chromaSubsampling: '4:2:0' } as const;
// Bump when the pipeline (not the drawings, which are hashed) changes.
const PIPELINE_VERSION = 2;

/** Where rendered pool images are kept between runs. */
const cacheDir = join(tmpdir(), 'estate-embed-sim-photos');

const memo = new Map<string, Promise<RenderedImage>>();

/** The rendered files of an image, rendering (or reading from the disk cache) on first use. */
export function renderImage(image: ImageRef): Promise<RenderedImage> {
  const key = `${image.pool}:${image.scene}:${image.revision}`;
  let pending = memo.get(key);
  if (!pending) {
    pending = image.revision === 0 ? renderPooled(image) : renderRevision(image);
    // A failed render must not poison the memo: the next request tries again.
    pending.catch(() => memo.delete(key));
    memo.set(key, pending);
  }
  return pending;
}

async function renderPooled(image: ImageRef): Promise<RenderedImage> {
  const drawing = sceneSvg(image.scene);
  const hash = createHash('sha1').update(`${PIPELINE_VERSION}:${image.pool}:${drawing}`).digest('hex').slice(0, 16);
  const cached = await readCached(image, hash);
  if (cached) return cached;
  const { base } = SIZES[image.pool];
  // Fine grain, as a camera sensor gives: flat vector fills alone would make unrealistically tiny files.
  const pixels = await sharp(Buffer.from(drawing))
    .resize(base.width, base.height)
    .composite([{ input: grainLayer(base.width, base.height), raw: { width: base.width, height: base.height, channels: 3 }, blend: 'soft-light' }])
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rendered = await encodeAll(image.pool, sharp(pixels.data, { raw: pixels.info }));
  await writeCached(image, hash, rendered);
  return rendered;
}

/** A replaced photo: the pooled picture re-graded and marked, so its bytes always differ. */
async function renderRevision(image: ImageRef): Promise<RenderedImage> {
  const pooled = await renderImage({ ...image, revision: 0 });
  const { width, height } = pooled.original;
  const hue = (image.revision * 67) % 360;
  const band = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="0" y="${height - 24}" width="${width}" height="24" fill="hsl(${hue},70%,45%)" opacity="0.85"/><rect x="${(image.revision * 97) % (width - 60)}" y="${height - 24}" width="60" height="24" fill="#fff"/></svg>`;
  const pixels = await sharp(pooled.original.data)
    .modulate({ hue, brightness: 1 + ((image.revision % 3) - 1) * 0.05 })
    .composite([{ input: Buffer.from(band) }])
    .raw()
    .toBuffer({ resolveWithObject: true });
  return encodeAll(image.pool, sharp(pixels.data, { raw: pixels.info }));
}

async function encodeAll(pool: ImageRef['pool'], pixels: sharp.Sharp): Promise<RenderedImage> {
  const { thumbs } = SIZES[pool];
  const original = await pixels.jpeg(JPEG).toBuffer({ resolveWithObject: true });
  const rendered: RenderedImage = {
    original: { data: original.data, width: original.info.width, height: original.info.height },
  };
  await Promise.all(
    thumbs.map(async ([size, width]) => {
      const thumb = await sharp(original.data).resize({ width }).jpeg(JPEG).toBuffer({ resolveWithObject: true });
      rendered[size] = { data: thumb.data, width: thumb.info.width, height: thumb.info.height };
    }),
  );
  return rendered;
}

const grainMemo = new Map<string, Buffer>();

function grainLayer(width: number, height: number): Buffer {
  const key = `${width}x${height}`;
  let grain = grainMemo.get(key);
  if (!grain) {
    // A fixed xorshift sequence: the grain, like everything else, is deterministic.
    grain = Buffer.alloc(width * height * 3);
    let state = 0x2545f491;
    for (let i = 0; i < grain.length; i += 3) {
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      const value = 128 + (((state >>> 0) & 0x3f) - 32);
      grain[i] = value;
      grain[i + 1] = value;
      grain[i + 2] = value;
    }
    grainMemo.set(key, grain);
  }
  return grain;
}

function cachePath(image: ImageRef, hash: string, size: ImageSize): string {
  return join(cacheDir, `${image.scene}-${hash}-${size}.jpg`);
}

async function readCached(image: ImageRef, hash: string): Promise<RenderedImage | undefined> {
  try {
    const sizes: ImageSize[] = ['original', ...thumbnailSizes(image.pool)];
    const files = await Promise.all(sizes.map((size) => readFile(cachePath(image, hash, size))));
    const rendered = {} as RenderedImage;
    await Promise.all(
      files.map(async (data, index) => {
        const meta = await sharp(data).metadata();
        if (meta.format !== 'jpeg' || !meta.width || !meta.height) throw new Error('not a cached JPEG');
        rendered[sizes[index]!] = { data, width: meta.width, height: meta.height };
      }),
    );
    return rendered;
  } catch {
    return undefined;
  }
}

async function writeCached(image: ImageRef, hash: string, rendered: RenderedImage): Promise<void> {
  try {
    await mkdir(cacheDir, { recursive: true });
    await Promise.all(
      (Object.entries(rendered) as [ImageSize, RenderedFile][]).map(async ([size, file]) => {
        const target = cachePath(image, hash, size);
        // Write then rename, so a parallel test process never reads half a file.
        const partial = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.part`;
        await writeFile(partial, file.data);
        await rename(partial, target);
      }),
    );
  } catch {
    // The cache is an optimisation; a read-only temp folder must not break the simulator.
  }
}

/** Which pooled scenes suit a listing: interiors for homes, paddocks for farms, and so on. */
export function photoScenesFor(category: string, typeKey: string): { photographs: string[]; floorplans: string[] } {
  const rooms = ['living-0', 'kitchen-0', 'bedroom-0', 'bathroom-0', 'living-1', 'kitchen-1', 'bedroom-1', 'bathroom-1'];
  if (category === 'land') return { photographs: ['land-0', 'land-1', 'land-2', 'street-0'], floorplans: [] };
  if (category === 'commercialSale' || category === 'commercialLease') {
    return { photographs: ['shopfront-0', 'office-0', 'office-1', 'warehouse-0', 'street-0'], floorplans: ['floorplan-2'] };
  }
  if (category === 'rural') {
    return { photographs: ['paddock-0', 'paddock-1', 'paddock-2', 'facade-3', 'living-1', 'kitchen-0', 'garden-0'], floorplans: ['floorplan-0'] };
  }
  if (typeKey === 'Apartment' || typeKey === 'Unit') {
    return { photographs: ['apartment-0', 'apartment-1', ...rooms, 'street-0'], floorplans: ['floorplan-1', 'floorplan-0'] };
  }
  return { photographs: ['facade-0', 'facade-1', 'facade-2', ...rooms, 'garden-0', 'garden-1', 'street-0'], floorplans: ['floorplan-0', 'floorplan-1'] };
}
