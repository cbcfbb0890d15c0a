import { createHash } from 'node:crypto';
import { Router, type Request, type Response, type NextFunction } from 'express';
import { drawTile, TILE_DRAWING_VERSION, type TileDrawingLayer } from '../tile-drawing.ts';

/*
 * Made-up map tiles for demo mode (the relay's MAP_TILE_URL points here): GET /tiles/{z}/{x}/{y}.png,
 * 256×256 PNGs drawn by tile-drawing.ts (sea and a coarse Australian coast, highways, the listings'
 * cities and suburbs by name, a street grid zoomed in), the same bytes for the same tile; and
 * GET /tiles/{z}/{x}/{y}@2x.png, the same drawing at 512×512 for high-density screens (a provider's
 * `{r}`, as Leaflet names it). Split in two layers as real providers offer them (CARTO's
 * `light_nolabels` and `light_only_labels`): GET /tiles/base/{z}/{x}/{y}.png, the ground without
 * names, and GET /tiles/labels/{z}/{x}/{y}.png, the names alone on a transparent tile (the relay's
 * MAP_LABEL_TILE_URL, drawn above the map's markers); both with `@2x`. Answered as a tile provider
 * would: Cache-Control max-age, an ETag (of the layer, the tile and the drawing's version, so a
 * cache revalidating after a redraw gets the new tile), and 304 to a request naming it. Drawn tiles
 * are kept in a small memo.
 */

export const SIM_TILE_MAX_AGE_SECONDS = 86_400;
const MAX_ZOOM = 22;
const MEMO_SIZE = 256;

export function tilesRouter(): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const memo = new Map<string, Promise<Buffer>>();
  const serve = (layer: TileDrawingLayer, req: Request, res: Response, next: NextFunction) => {
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
    // The combined tile's key (and ETag) is what it was before the layers: caches holding it keep it.
    const key = `${layer === 'all' ? '' : `${layer}/`}${z}/${x}/${y}${scale === 2 ? '@2x' : ''}`;
    const etag = `"sim-${createHash('sha1').update(`${TILE_DRAWING_VERSION}:${key}`).digest('hex').slice(0, 16)}"`;
    res.set({ 'Cache-Control': `public, max-age=${SIM_TILE_MAX_AGE_SECONDS}`, ETag: etag });
    if (req.get('If-None-Match') === etag) {
      res.status(304).end();
      return;
    }
    let pending = memo.get(key);
    if (!pending) {
      pending = drawTile(z, x, y, scale, layer);
      pending.catch(() => memo.delete(key));
      if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
      memo.set(key, pending);
    }
    pending.then((png) => res.type('image/png').send(png), next);
  };
  router.get('/tiles/:z/:x/:file', (req, res, next) => serve('all', req, res, next));
  router.get('/tiles/base/:z/:x/:file', (req, res, next) => serve('base', req, res, next));
  router.get('/tiles/labels/:z/:x/:file', (req, res, next) => serve('labels', req, res, next));
  return router;
}
