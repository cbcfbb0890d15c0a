import { Router } from 'express';
import type { Feature } from '../runtime/feature.ts';
import { savedSearchRouter, type SavedSearchRouterOptions } from './router.ts';
import type { SavedSearchService } from './service.ts';

/** Saved searches as the relay mounts them: POST /api/v1/saved-searches (and its status), the worker, the metrics. */
export function savedSearchesFeature(service: SavedSearchService, options: SavedSearchRouterOptions): Feature {
  const router = Router({ caseSensitive: true, strict: true });
  router.use('/api/v1/saved-searches', savedSearchRouter(service, options));
  return { name: 'saved-searches', router, workers: [service.worker], readiness: {}, metrics: () => service.metrics.render() };
}
