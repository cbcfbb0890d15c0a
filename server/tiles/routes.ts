import { Router, type RequestHandler } from 'express';
import type { MapBounds, MapConfig } from '../../contract/relay-api.ts';
import { clientOf } from '../http/client-limit.ts';
import { corsPolicy } from '../http/cors.ts';
import { servedCrossOrigin } from '../http/cross-origin.ts';
import { HttpError } from '../http/errors.ts';
import { OPEN_ZOOM, tileInArea, validTile, type ScaledTile } from './area.ts';
import type { TileSource } from './source.ts';
import { TileFetchError } from './upstream.ts';

export interface TilesRouterOptions {
  /** The relay's tiles (undefined: MAP_TILE_URL unset, no tiles). */
  source: TileSource | undefined;
  /** The relay's labels-only layer, drawn above the map's markers (undefined: MAP_LABEL_TILE_URL unset, the base carries its names). */
  labels?: TileSource | undefined;
  /** The box around this agency's placed listings (null while none is placed): tiles beyond its area are refused. */
  bounds: () => MapBounds | null;
  /** Deepest zoom served (MAP_MAX_ZOOM). */
  maxZoom: number;
  /** CORS of GET /api/v1/map/config, as the listing API's. */
  cors: Parameters<typeof corsPolicy>[0];
}

/** Refusals a browser may keep a little: the area moves only as listings do. */
const REFUSED_SECONDS = 300;
const NUMBER = /^(0|[1-9]\d{0,6})$/;
/** `{y}.png`, or `{y}@2x.png` for a 2x tile (512 px, high-density screens). */
const TILE_FILE = /^(0|[1-9]\d{0,6})(@2x)?\.png$/;

/**
 * GET /tiles/{z}/{x}/{y}.png (and `{y}@2x.png`, 512 px, when MAP_TILE_URL has `{r}`), from the
 * relay's own origin (so an agency site's CSP needs no tile provider in img-src, and visitors'
 * addresses never reach the provider): a 2x tile is the same ground as the 1x one, under the same
 * area and rate rules and kept in the same disk cache. GET /tiles/labels/{z}/{x}/{y}.png (and
 * `@2x`), the labels-only layer of MAP_LABEL_TILE_URL, under the same rules with its own cache and
 * rate. And GET /api/v1/map/config, what the map needs to know: the tile templates (or null),
 * attribution, zooms and the area of the agency's listings.
 */
export function tilesRouter(options: TilesRouterOptions): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const { source, labels, maxZoom } = options;

  /** One tile of a layer, after the checks: a refusal never reaches the provider. */
  const serve =
    (layer: TileSource | undefined, missing: string): RequestHandler =>
    (req, res, next) => {
      const params = req.params as { z: string; x: string; file: string };
      const file = TILE_FILE.exec(params.file);
      if (!NUMBER.test(params.z) || !NUMBER.test(params.x) || !file) return next(refused('No such tile.'));
      const tile: ScaledTile = { z: Number(params.z), x: Number(params.x), y: Number(file[1]), scale: file[2] ? 2 : 1 };
      if (!layer) return next(refused(missing));
      const wait = layer.limit.take(clientOf(req));
      if (wait !== undefined)
        return next(
          new HttpError(429, 'too_many_tiles', 'Too many map tiles from this address in a minute. Ask again after Retry-After seconds.', undefined, {
            'Retry-After': String(wait),
            'Cache-Control': 'no-store',
          }),
        );
      if (!validTile(tile, maxZoom)) return next(refused(`No such tile (zoom 0 to ${maxZoom}).`));
      if (!tileInArea(tile, options.bounds())) return next(refused("This tile is outside the area of the agency's listings."));
      if (tile.scale === 2 && !layer.highDensity)
        return next(refused('This relay has no 2x tiles of this layer (its template has no {r}): ask for the 1x tile.'));
      layer.get(tile).then(
        (served) => {
          res.set({
            'Content-Type': 'image/png',
            'Cache-Control': `public, max-age=${served.maxAgeSeconds}`,
            'X-Content-Type-Options': 'nosniff',
            ETag: served.etag,
            'X-Tile-Source': served.from,
          });
          // send() answers 304 itself when If-None-Match names the ETag.
          res.send(served.bytes);
        },
        (error: unknown) => {
          if (error instanceof TileFetchError && error.reason === 'not_found') return next(refused('The tile provider has no such tile.'));
          if (error instanceof TileFetchError)
            return next(
              new HttpError(502, 'tile_unavailable', 'The map tile could not be fetched; try again later.', undefined, { 'Cache-Control': 'no-store' }),
            );
          next(error);
        },
      );
    };

  router.get('/tiles/labels/:z/:x/:file', servedCrossOrigin, serve(labels, 'This relay has no map labels layer (MAP_LABEL_TILE_URL is not set).'));
  router.get('/tiles/:z/:x/:file', servedCrossOrigin, serve(source, 'This relay has no map tiles (MAP_TILE_URL is not set).'));

  router.use('/api/v1/map', corsPolicy(options.cors));
  router.get('/api/v1/map/config', (req, res) => {
    // Labels only over a base: without tiles the map draws its own names.
    const labelLayer = source ? labels : undefined;
    const body: MapConfig = {
      // A path on the relay, under the agency's own (/a/<slug>/ with AGENCIES_FILE), resolved as the API's paths are.
      tiles: source ? `${req.baseUrl}/tiles/{z}/{x}/{y}.png` : null,
      tiles2x: source?.highDensity ? `${req.baseUrl}/tiles/{z}/{x}/{y}@2x.png` : null,
      labels: labelLayer ? `${req.baseUrl}/tiles/labels/{z}/{x}/{y}.png` : null,
      labels2x: labelLayer?.highDensity ? `${req.baseUrl}/tiles/labels/{z}/{x}/{y}@2x.png` : null,
      attribution: source ? source.attribution : null,
      minZoom: 0,
      maxZoom: source ? maxZoom : OPEN_ZOOM,
      bounds: options.bounds(),
    };
    res.set('Cache-Control', 'public, max-age=60');
    res.json(body);
  });
  return router;
}

function refused(message: string): HttpError {
  return new HttpError(404, 'not_found', message, undefined, { 'Cache-Control': `public, max-age=${REFUSED_SECONDS}` });
}
