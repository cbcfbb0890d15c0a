import { createHash } from 'node:crypto';
import { Router } from 'express';
import sharp from 'sharp';

/*
 * Plain map tiles for demo mode (the relay's MAP_TILE_URL points here): GET /tiles/{z}/{x}/{y}.png,
 * 256×256 PNGs drawn with sharp: a light background, a faint grid of quarters and the tile's
 * numbers, the same bytes for the same tile. Answered as a tile provider would: Cache-Control
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
    const match = /^(\d{1,7})\.png$/.exec(file);
    const z = Number(zText);
    const x = Number(xText);
    const y = Number(match?.[1]);
    if (!match || !/^\d{1,2}$/.test(zText) || !/^\d{1,7}$/.test(xText) || z > MAX_ZOOM || x >= 2 ** z || y >= 2 ** z) {
      res.status(404).type('text/plain').send('No such tile.');
      return;
    }
    const key = `${z}/${x}/${y}`;
    const etag = `"sim-${createHash('sha1').update(key).digest('hex').slice(0, 16)}"`;
    res.set({ 'Cache-Control': `public, max-age=${SIM_TILE_MAX_AGE_SECONDS}`, ETag: etag });
    if (req.get('If-None-Match') === etag) {
      res.status(304).end();
      return;
    }
    let pending = memo.get(key);
    if (!pending) {
      pending = drawTile(z, x, y);
      pending.catch(() => memo.delete(key));
      if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
      memo.set(key, pending);
    }
    pending.then((png) => res.type('image/png').send(png), next);
  });
  return router;
}

/** The tile: a pale land colour, quarter lines and its numbers, faint (tile 0/0/0 is the whole world). */
function drawTile(z: number, x: number, y: number): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">
<rect width="256" height="256" fill="#eef1ea"/>
<path d="M128 0V256M0 128H256" stroke="#e1e6dc" stroke-width="1"/>
<path d="M0.5 0.5H255.5V255.5H0.5Z" fill="none" stroke="#d6dcd1" stroke-width="1"/>
<text x="8" y="18" font-family="sans-serif" font-size="11" fill="#b4bcb0">${z}/${x}/${y}</text>
</svg>`;
  return sharp(Buffer.from(svg)).png({ palette: true, compressionLevel: 9 }).toBuffer();
}
