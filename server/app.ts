import express, { type Express, type RequestHandler } from 'express';
import compression from 'compression';
import helmet from 'helmet';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from './config.ts';
import { publicOrigins } from './cors.ts';
import { errorHandler, notFoundHandler } from './errors.ts';
import { metricsAccess } from './metrics-access.ts';
import { PROMETHEUS_CONTENT_TYPE } from './enquiries/metrics.ts';
import { enquiryRouter } from './enquiries/router.ts';
import type { EnquiryService } from './enquiries/service.ts';
import type { Logger } from './log.ts';
import type { Store } from './store/store.ts';
import { widgetRouter } from './widget-assets.ts';

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
  store: Store;
  log: Logger;
  /** Folder of the built widget bundle (default dist/widget). */
  widgetDir?: string;
  /** Folder of the demo site (default demo/), mounted in demo mode only. Null: no demo. */
  demoDir?: string | null;
  /**
   * Origins of pages the relay serves itself, which may always call its API (default: PUBLIC_URL's
   * origin). startRelay adds its loopback URLs in demo mode. Never taken from a request's Host.
   */
  ownOrigins?: readonly string[];
  /** Extra readiness checks for /readyz (a name and a check that throws or returns false). */
  readiness?: Record<string, () => boolean | Promise<boolean>>;
  /** More for the /readyz body when a check fails (what is missing, what to do). */
  readinessDetail?: () => Record<string, unknown>;
  /** The enquiry outbox, worker and metrics: mounts /api/v1/enquiries when given. */
  enquiries?: EnquiryService;
  /**
   * The listing API, agents, photo mirror and CRM webhook (server/listings): mounted when given.
   * Mounted before any body parser: POST /hooks/crm checks its signature over the raw body.
   */
  listings?: { router: RequestHandler; metrics?(): string };
  /** Server-rendered listing pages, sitemaps and fragments (server/pages): mounted when given. */
  pages?: { router: RequestHandler };
}

/** Builds the relay's HTTP app. Never listens: main.ts and the tests do that. */
export function createApp(deps: AppDeps): Express {
  const { config, store, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  // One spelling per resource: /METRICS or /metrics/ must not slip past a proxy rule for /metrics.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('trust proxy', config.TRUST_PROXY);
  app.set('etag', 'strong');
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

  // gzip/brotli for text: the widget bundle shrinks from ~120 KB to ~35 KB on the wire, JSON pages
  // by 80-90%. Images are already compressed and are skipped by compression's own filter.
  app.use(compression({ threshold: 1024 }));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks: Record<string, boolean> = {};
    try {
      store.db.prepare('SELECT 1').get();
      checks.store = true;
    } catch {
      checks.store = false;
    }
    for (const [name, check] of Object.entries(deps.readiness ?? {})) {
      try {
        checks[name] = Boolean(await check());
      } catch {
        checks[name] = false;
      }
    }
    const ready = Object.values(checks).every(Boolean);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not-ready', checks, ...deps.readinessDetail?.() });
  });

  if (deps.listings) app.use(deps.listings.router);
  if (deps.pages) app.use(deps.pages.router);

  app.use(widgetRouter(deps.widgetDir ?? join(projectRoot, 'dist', 'widget')));

  const demoDir = deps.demoDir === undefined ? join(projectRoot, 'demo') : deps.demoDir;
  if (demoDir && config.demoMode) app.use(express.static(demoDir, { extensions: ['html'], maxAge: '5m', redirect: false }));

  if (deps.enquiries) {
    const ownOrigins = deps.ownOrigins ?? publicOrigins(config);
    app.use('/api/v1/enquiries', enquiryRouter(deps.enquiries, { allowedOrigins: config.ALLOWED_ORIGINS, ownOrigins }));
    const { metrics } = deps.enquiries;
    app.get('/metrics', metricsAccess(config.METRICS_TOKEN), (_req, res) => {
      res.set('Content-Type', PROMETHEUS_CONTENT_TYPE).set('Cache-Control', 'no-store');
      res.send(metrics.render() + (deps.listings?.metrics?.() ?? ''));
    });
  }

  app.use(notFoundHandler);
  app.use(errorHandler(log));
  return app;
}

