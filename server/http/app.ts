import express, { type Express } from 'express';
import compression from 'compression';
import helmet from 'helmet';
import { existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import type { Config } from '../runtime/config.ts';
import { errorHandler, notFoundHandler } from './errors.ts';
import type { Feature } from '../runtime/feature.ts';
import { metricsAccess, PROMETHEUS_CONTENT_TYPE } from './metrics-access.ts';
import type { Logger } from '../runtime/log.ts';
import { precompressedStatic } from './precompressed.ts';
import { ResponseCache } from './response-cache.ts';
import { answerCacheFor, type AnswerCache } from './answer-cache.ts';
import { widgetRouter } from './widget-assets.ts';
import { hostTrustedBy, type TrustProxyFn } from './request-host.ts';

/** The checkout's root (where package.json is): from server/ when run from source, from dist/server when built. */
export const projectRoot = findProjectRoot(import.meta.dirname);

function findProjectRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return join(start, '..');
  }
}

export interface AppDeps {
  config: Config;
  /** /readyz's first check: whether the store answers a query (false or a throw: it does not). */
  storeAnswers: () => boolean;
  log: Logger;
  /** Folder of the built widget bundle (default dist/widget). */
  widgetDir?: string;
  /** Folder of the demo site (default demo/), mounted in demo mode only. Null: no demo. */
  demoDir?: string | null;
  /** The relay's features (listings, enquiries, CRM access), mounted in this order. */
  features?: readonly Feature[];
  /** The relay's one answer cache, shared with the features' routers (default: one of the app's own, from config.http). */
  answers?: AnswerCache;
}

/**
 * The HTTP server's request listener for `app`: an answer recorded for replay (a cached listing
 * page, sent again as it went out) before Express, everything else to Express.
 */
export function requestListener(app: Express): (req: IncomingMessage, res: ServerResponse) => void {
  const replay = app.locals.replay as ResponseCache;
  return (req, res) => {
    if (!replay.answer(req, res)) app(req, res);
  };
}

/** Builds the relay's HTTP app. Never listens: main.ts and the tests do that. */
export function createApp(deps: AppDeps): Express {
  const { config, log } = deps;
  const features = deps.features ?? [];
  const app = express();
  app.disable('x-powered-by');
  // One spelling per resource: /METRICS or /metrics/ must not slip past a proxy rule for /metrics.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('trust proxy', config.http.trustProxy);
  app.set('etag', 'strong');
  // Routes record answers for replay (server/http/response-cache.ts) through res.locals.replay, once every
  // middleware has set its headers; requestListener() sends them again before Express runs.
  // Keyed by the host as TRUST_PROXY lets the relay believe it, decided before Express as inside it.
  const replay = new ResponseCache(deps.answers ?? answerCacheFor(config.http), (req) => hostTrustedBy(req, app.get('trust proxy fn') as TrustProxyFn) ?? '');
  app.locals.replay = replay;
  app.use((_req, res, next) => {
    res.locals.replay = replay;
    next();
  });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          // The demo pages load the widget from this origin and photos from the mirror.
          'img-src': ["'self'", 'data:', 'blob:'],
          'connect-src': ["'self'"],
        },
      },
    }),
  );

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, boolean> = {};
    try {
      checks.store = deps.storeAnswers();
    } catch {
      checks.store = false;
    }
    for (const [name, check] of features.flatMap((feature) => Object.entries(feature.readiness))) {
      try {
        checks[name] = Boolean(await check());
      } catch {
        checks[name] = false;
      }
    }
    const ready = Object.values(checks).every(Boolean);
    const detail = Object.assign({}, ...features.map((feature) => feature.readinessDetail?.() ?? {})) as Record<string, unknown>;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not-ready', checks, ...detail });
  });

  for (const feature of features) if (feature.router) app.use(feature.router);

  app.use(widgetRouter(deps.widgetDir ?? join(projectRoot, 'dist', 'widget')));

  const demoDir = deps.demoDir === undefined ? join(projectRoot, 'demo') : deps.demoDir;
  if (demoDir && config.demoMode) {
    // From memory, compressed once per change of a file; express.static for anything too big to hold.
    app.use(precompressedStatic(demoDir, { cacheControl: 'public, max-age=300', extensions: ['html'] }));
    app.use(express.static(demoDir, { extensions: ['html'], maxAge: '5m', redirect: false }));
  }

  // gzip/brotli on every request, for the rest (enquiries, metrics, error bodies). The listing API,
  // the widget and the demo above send bytes they compressed once (server/http/precompressed.ts):
  // mounted before them, this would compress the same answer again on every request.
  app.use(compression({ threshold: 1024 }));

  const metrics = features.flatMap((feature) => (feature.metrics ? [feature.metrics] : []));
  if (metrics.length > 0) {
    app.get('/metrics', metricsAccess(config.http.metricsToken), async (_req, res) => {
      res.set('Content-Type', PROMETHEUS_CONTENT_TYPE).set('Cache-Control', 'no-store');
      res.send((await Promise.all(metrics.map(async (render) => render()))).join(''));
    });
  }

  app.use(notFoundHandler);
  app.use(errorHandler(log));
  return app;
}
