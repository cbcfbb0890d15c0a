import { createHash } from 'node:crypto';
import { Router } from 'express';
import sharp from 'sharp';

/*
 * Plain map tiles for demo mode (the relay's MAP_TILE_URL points here): GET /tiles/{z}/{x}/{y}.png,
 * 256×256 PNGs drawn with sharp: land, parks and a made-up street grid, the same bytes for the
 * same tile; and GET /tiles/{z}/{x}/{y}@2x.png, the same drawing at 512×512 for high-density
 * screens (a provider's `{r}`, as Leaflet names it). Answered as a tile provider would: Cache-Control
 * max-age, an ETag, and 304 to a request naming it.
 */

export const SIM_TILE_MAX_AGE_SECONDS = 86_400;
const MAX_ZOOM = 22;
const MEMO_SIZE = 256;

export function tilesRouter(): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const memo = new Map<string, Promise<Buffer>>();
  router.get('/tiles/:z/:x/:file', (req, res, next) => {
    const { z: zText, x: xText, file } = req.params as { z: string; x: string; file: string };
    const match = /^(\d{1,7})(@2x)?\.png$/.exec(file);
    const z = Number(zText);
    const x = Number(xText);
    const y = Number(match?.[1]);
    if (!match || !/^\d{1,2}$/.test(zText) || !/^\d{1,7}$/.test(xText) || z > MAX_ZOOM || x >= 2 ** z || y >= 2 ** z) {
      res.status(404).type('text/plain').send('No such tile.');
      return;
    }
    const scale = match[2] ? 2 : 1;
    const key = scale === 2 ? `${z}/${x}/${y}@2x` : `${z}/${x}/${y}`;
    const etag = `"sim-${createHash('sha1').update(key).digest('hex').slice(0, 16)}"`;
    res.set({ 'Cache-Control': `public, max-age=${SIM_TILE_MAX_AGE_SECONDS}`, ETag: etag });
    if (req.get('If-None-Match') === etag) {
      res.status(304).end();
      return;
    }
    let pending = memo.get(key);
    if (!pending) {
      pending = drawTile(z, x, y, scale);
      pending.catch(() => memo.delete(key));
      if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
      memo.set(key, pending);
    }
    pending.then((png) => res.type('image/png').send(png), next);
  });
  return router;
}

/** Global pixel spacing of the drawn streets: main roads, and (zoomed in) the side streets between them. */
const MAIN_ROAD_EVERY = 256;
const STREET_EVERY = 64;

/** A number in [0, 1) for a block of the world, the same on every tile that shows it. */
function blockNoise(z: number, column: number, row: number): number {
  return createHash('sha1').update(`${z}:${column}:${row}`).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * The tile: land, parks, and a street grid laid out on the world's pixels (so streets run on from
 * one tile into the next), denser as one zooms in. Plain and made up, but read as a street map.
 */
function drawTile(z: number, x: number, y: number, scale: 1 | 2): Promise<Buffer> {
  const originX = x * 256;
  const originY = y * 256;
  const shapes: string[] = [];
  const streets = z >= 13;
  const block = streets ? STREET_EVERY : MAIN_ROAD_EVERY;
  // Parks: a few blocks in ten, whole blocks inside the roads.
  for (let column = Math.floor(originX / block); column * block < originX + 256; column++) {
    for (let row = Math.floor(originY / block); row * block < originY + 256; row++) {
      if (z >= 10 && blockNoise(z >= 13 ? 13 : z, column, row) < 0.1) {
        shapes.push(
          `<rect x="${column * block - originX + 4}" y="${row * block - originY + 4}" width="${block - 8}" height="${block - 8}" rx="3" fill="#d7e8c6"/>`,
        );
      }
    }
  }
  const lines = (every: number, width: number, colour: string) => {
    for (let at = Math.ceil(originX / every) * every; at <= originX + 256; at += every)
      shapes.push(`<path d="M${at - originX} 0V256" stroke="${colour}" stroke-width="${width}"/>`);
    for (let at = Math.ceil(originY / every) * every; at <= originY + 256; at += every)
      shapes.push(`<path d="M0 ${at - originY}H256" stroke="${colour}" stroke-width="${width}"/>`);
  };
  if (streets) lines(STREET_EVERY, 3, '#ffffff');
  if (z >= 8) {
    lines(MAIN_ROAD_EVERY, z >= 13 ? 8 : 4, '#e4ddd0');
    lines(MAIN_ROAD_EVERY, z >= 13 ? 6 : 2.5, '#fdfcf8');
  }
  // Drawn in the 256-unit tile's terms, rendered at 256 or 512 pixels.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${256 * scale}" height="${256 * scale}" viewBox="0 0 256 256">
<rect width="256" height="256" fill="#f2efe9"/>
${shapes.join('\n')}
</svg>`;
  return sharp(Buffer.from(svg)).png({ palette: true, compressionLevel: 9 }).toBuffer();
}
