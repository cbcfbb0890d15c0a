import type { MapBounds } from '../../contract/relay-api.ts';
import type { Config } from '../runtime/config.ts';
import type { Feature } from '../runtime/feature.ts';
import type { Logger } from '../runtime/log.ts';
import { publicOrigins } from '../http/cors.ts';
import { tilesRouter } from './routes.ts';
import { TileSource } from './source.ts';

export { TileSource } from './source.ts';
export { OPEN_ZOOM, tileInArea } from './area.ts';

/**
 * The relay's tile source (one per relay, shared by its agencies), or undefined without
 * MAP_TILE_URL; either way the log says what the map will show.
 */
export function createTileSource(options: { config: Config; userAgent: string; log: Logger }): TileSource | undefined {
  const { config, log } = options;
  const settings = config.tiles;
  if (!settings.url) {
    log.info('the map has no tile source (MAP_TILE_URL is not set): maps show a plain background with suburb labels');
    return undefined;
  }
  const host = new URL(settings.url.replace(/[{}]/g, '')).host;
  log.info(
    {
      tileHost: host,
      cacheMb: Math.round(settings.cacheBytes / 1024 / 1024),
      maxZoom: settings.maxZoom,
      perMinute: settings.ratePerMinute,
      highDensity: settings.url.includes('{r}'),
    },
    'map tiles are fetched from MAP_TILE_URL, cached in DATA_DIR/tiles and served from the relay at /tiles/{z}/{x}/{y}.png',
  );
  return new TileSource({ settings: { ...settings, url: settings.url }, dataDir: config.dataDir, userAgent: options.userAgent, log });
}

/** One agency's map routes: the relay's tiles within the area of its listings, and GET /api/v1/map/config. */
export function tilesFeature(options: { config: Config; source: TileSource | undefined; bounds: () => MapBounds | null; ownOrigins?: string[] }): Feature {
  const { config } = options;
  return {
    name: 'tiles',
    router: tilesRouter({
      source: options.source,
      bounds: options.bounds,
      maxZoom: config.tiles.maxZoom,
      cors: { allowedOrigins: config.http.allowedOrigins, ownOrigins: options.ownOrigins ?? publicOrigins(config), allowAnyOrigin: config.demoMode },
    }),
    workers: [],
    readiness: {},
  };
}
