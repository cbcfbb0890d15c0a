import type { RequestHandler } from 'express';
import type { Worker } from './worker.ts';

/** A check of /readyz: false or a throw means "not ready". */
export type ReadinessCheck = () => boolean | Promise<boolean>;

/**
 * What every feature of the relay hands the composition root, in one shape: startRelay starts
 * their workers and createApp mounts the list (routers in list order, each readiness check on
 * /readyz, each metrics text on /metrics).
 */
export interface Feature {
  name: string;
  /** Its routes, with their full paths. Mounted before any body parser: a webhook checks its signature over the raw body. */
  router?: RequestHandler;
  /** Background jobs, started after the server listens and stopped before the store closes. */
  workers: Worker[];
  readiness: Record<string, ReadinessCheck>;
  /** More for the /readyz body while something is missing (what, and what to do). */
  readinessDetail?: () => Record<string, unknown>;
  /** Prometheus text for /metrics. */
  metrics?: () => string | Promise<string>;
}
