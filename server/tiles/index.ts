import type { MapBounds } from '../../contract/relay-api.ts';
import type { Config } from '../runtime/config.ts';
import type { Feature } from '../runtime/feature.ts';
import type { Logger } from '../runtime/log.ts';
import { publicOrigins } from '../http/cors.ts';
import { tilesRouter } from './routes.ts';
import { TileSource } from './source.ts';

export { FetchSlots, TileSource } from './source.ts';
export { OPEN_ZOOM, tileInArea } from './area.ts';

/**
 * The relay's map tiles, one set for every agency: the base layer (MAP_TILE_URL), and, with
 * MAP_LABEL_TILE_URL, a labels-only layer that maps draw above their markers.
 */
export interface MapTiles {
  base: TileSource;
  labels: TileSource | undefined;
}

/** DATA_DIR's folder of the labels layer's tiles: beside `tiles`, not in it (the base cache owns its folder and removes what is not its own). */
export const LABEL_TILE_FOLDER = 'label-tiles';
/**
 * The labels layer's share of MAP_TILE_CACHE_MB (the base tiles keep the rest). A split, not one
 * budget for both: each layer is its own least-recently-used cache, so a burst of one never evicts
 * the other's tiles, and the bound is still one number. A labels tile is asked for with every base
 * tile of the view, but is mostly transparent: a few hundred bytes to a few KiB, one or two 4 KiB
 * blocks, where a provider's base tile takes some 10–40 KiB. A quarter holds as many labels tiles
 * as the rest holds base tiles once these average three blocks or more.
 */
export const LABEL_CACHE_SHARE = 0.25;

/**
 * The relay's tiles (one set per relay, shared by its agencies), or undefined without
 * MAP_TILE_URL; either way the log says what the map will show.
 */
export function createMapTiles(options: { config: Config; userAgent: string; log: Logger }): MapTiles | undefined {
  const { config, log } = options;
  const settings = config.tiles;
  if (!settings.url) {
    log.info('the map has no tile source (MAP_TILE_URL is not set): maps show a plain background with suburb labels');
    return undefined;
  }
  const labelUrl = settings.labelUrl;
  const labelBytes = labelUrl ? Math.floor(settings.cacheBytes * LABEL_CACHE_SHARE) : 0;
  log.info(
    {
      tileHost: hostOf(settings.url),
      cacheMb: Math.round((settings.cacheBytes - labelBytes) / 1024 / 1024),
      maxZoom: settings.maxZoom,
      perMinute: settings.ratePerMinute,
      highDensity: settings.url.includes('{r}'),
    },
    'map tiles are fetched from MAP_TILE_URL, cached in DATA_DIR/tiles and served from the relay at /tiles/{z}/{x}/{y}.png',
  );
  const base = new TileSource({
    settings: { ...settings, url: settings.url, cacheBytes: settings.cacheBytes - labelBytes },
    dataDir: config.dataDir,
    userAgent: options.userAgent,
    log,
  });
  if (!labelUrl) return { base, labels: undefined };
  log.info(
    { tileHost: hostOf(labelUrl), cacheMb: Math.round(labelBytes / 1024 / 1024), highDensity: labelUrl.includes('{r}') },
    'map labels are fetched from MAP_LABEL_TILE_URL, cached in DATA_DIR/label-tiles and served from the relay at /tiles/labels/{z}/{x}/{y}.png, drawn above the pins',
  );
  const labels = new TileSource({
    settings: { ...settings, url: labelUrl, cacheBytes: labelBytes },
    dataDir: config.dataDir,
    folder: LABEL_TILE_FOLDER,
    layer: 'labels',
    // One bound on fetches from providers for the whole relay, whichever layer asks.
    slots: base.slots,
    userAgent: options.userAgent,
    log,
  });
  return { base, labels };
}

/** One agency's map routes: the relay's tiles (and labels) within the area of its listings, and GET /api/v1/map/config. */
export function tilesFeature(options: { config: Config; tiles: MapTiles | undefined; bounds: () => MapBounds | null; ownOrigins?: string[] }): Feature {
  const { config } = options;
  return {
    name: 'tiles',
    router: tilesRouter({
      source: options.tiles?.base,
      labels: options.tiles?.labels,
      bounds: options.bounds,
      maxZoom: config.tiles.maxZoom,
      cors: { allowedOrigins: config.http.allowedOrigins, ownOrigins: options.ownOrigins ?? publicOrigins(config), allowAnyOrigin: config.demoMode },
    }),
    workers: [],
    readiness: {},
  };
}

function hostOf(template: string): string {
  return new URL(template.replace(/[{}]/g, '')).host;
}
