/** Counting what happens to listings without tracking (issue #32): see docs/visits.md. */
export { createVisitService, type VisitService, type VisitServiceOptions } from './service.ts';
export { visitsFeature } from './feature.ts';
export { VISIT_TABLES } from './repository.ts';
export type { VisitCounts, ListingVisits, ListingDay, ListingSourceDay, DayRange, VisitSource } from './counts.ts';
