import express, { type Router } from 'express';
import type { Feature } from '../runtime/feature.ts';

/** How long the relay waits for the embedded simulator's page: it is in this process, on loopback. */
const SIMULATOR_TIMEOUT_MS = 5_000;

/**
 * Demo mode: the simulator's back office (its mail catcher's mail, contacts and holding area) at the
 * relay's own origin, `GET /demo/back-office`, so the demo site's "Alerts, step by step" page
 * (demo/alerts.html) can show it in a frame under the relay's Content-Security-Policy (frames from
 * 'self' only). Read-only: the simulator's control routes are not passed on.
 */
export function demoBackOfficeFeature(simulatorOrigin: string): Feature {
  const router: Router = express.Router({ caseSensitive: true, strict: true });
  router.get('/demo/back-office', async (_req, res) => {
    res.set('Cache-Control', 'no-store');
    try {
      const answer = await fetch(`${simulatorOrigin}/__sim/?embed=1`, { signal: AbortSignal.timeout(SIMULATOR_TIMEOUT_MS) });
      res
        .status(answer.ok ? 200 : 502)
        .type('html')
        .send(await answer.text());
    } catch {
      res.status(502).type('text').send('The embedded CRM simulator did not answer.');
    }
  });
  return { name: 'demo-back-office', router, workers: [], readiness: {} };
}
