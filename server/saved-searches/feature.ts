import { Router } from 'express';
import type { Feature } from '../runtime/feature.ts';
import { CONFIRM_PATH } from './confirmation.ts';
import { confirmPageRouter } from './confirm-page.ts';
import { savedSearchRouter, type SavedSearchRouterOptions } from './router.ts';
import type { SavedSearchService } from './service.ts';

/** Saved searches as the relay mounts them: POST /api/v1/saved-searches (its status, its options), the confirmation link's page, the workers, the metrics. */
export function savedSearchesFeature(service: SavedSearchService, options: SavedSearchRouterOptions): Feature {
  const router = Router({ caseSensitive: true, strict: true });
  router.use('/api/v1/saved-searches', savedSearchRouter(service, options));
  router.use(
    CONFIRM_PATH,
    confirmPageRouter({
      store: service.store,
      metrics: service.metrics,
      wake: () => service.worker.wake(),
      agencyName: service.confirmation.agencyName,
      language: service.confirmation.language,
      log: options.log,
      now: options.now,
      settleMs: options.confirmSettleMs,
    }),
  );
  return { name: 'saved-searches', router, workers: [service.worker, service.confirmer], readiness: {}, metrics: () => service.metrics.render() };
}
