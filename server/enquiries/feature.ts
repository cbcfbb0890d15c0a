import { Router } from 'express';
import type { Feature } from '../runtime/feature.ts';
import { enquiryRouter, type EnquiryRouterOptions } from './router.ts';
import type { EnquiryService } from './service.ts';

/** The enquiries feature as the relay mounts it: POST /api/v1/enquiries (and its status), the delivery worker, the enquiry metrics. */
export function enquiriesFeature(service: EnquiryService, options: EnquiryRouterOptions): Feature {
  const router = Router({ caseSensitive: true, strict: true });
  router.use('/api/v1/enquiries', enquiryRouter(service, options));
  return { name: 'enquiries', router, workers: [service.worker], readiness: {}, metrics: () => service.metrics.render() };
}
