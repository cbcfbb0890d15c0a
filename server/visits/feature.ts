import { Router } from 'express';
import type { Feature } from '../runtime/feature.ts';
import { visitRouter, type VisitRouterOptions } from './router.ts';
import type { VisitService } from './service.ts';

/** The visits feature as the relay mounts it: POST /api/v1/visits, the flush/rollover/retention worker, its metrics. */
export function visitsFeature(service: VisitService, options: VisitRouterOptions): Feature {
  const router = Router({ caseSensitive: true, strict: true });
  router.use('/api/v1/visits', visitRouter(service, options));
  return { name: 'visits', router, workers: [service.worker], readiness: {}, metrics: () => service.metrics.render() };
}
