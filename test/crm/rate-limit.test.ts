import { afterEach, describe, expect, it } from 'vitest';
import type { CrmClient } from '../../server/crm/client.ts';
import { clientFor, startSim, tempStore } from './support.ts';

/**
 * The rate limit as the CRM sees it: the simulator records, per API key, the highest number of
 * requests that ARRIVED in any one-second window (refused ones included). Our client's own
 * bookkeeping is not trusted here.
 */

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(requestsPerSecond: number) {
  const simulator = await startSim({ requestsPerSecond });
  const temp = tempStore();
  cleanups.push(() => simulator.sim.close(), temp.cleanup);
  return { ...simulator, store: temp.store };
}

/** A mix of the calls a sync makes, so requests differ in size and server work. */
function mixedCall(crm: CrmClient, index: number): Promise<unknown> {
  switch (index % 4) {
    case 0:
      return crm.getScopes();
    case 1:
      return crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
    case 2:
      return crm.listUsers();
    default:
      return crm.listPhotos(1 + (index % 3) /* ids may not exist: 404s count too */).catch(() => undefined);
  }
}

describe('CRM client rate limit, counted by the CRM', () => {
  it('keeps 200 concurrent calls under 50/s in every second the CRM counts, and is never refused', async () => {
    const { sim, store, counters } = await setup(50);
    const crm = clientFor(sim, store, { requestsPerSecond: 50, maxRetries: 0 });
    cleanups.push(() => crm.close());

    const started = performance.now();
    const results = await Promise.allSettled(Array.from({ length: 200 }, (_, index) => mixedCall(crm, index)));
    const elapsed = performance.now() - started;

    const seen = await counters();
    expect(seen.totalRequests).toBe(200);
    expect(seen.key.peakRequestsPerSecond).toBeLessThanOrEqual(50);
    expect(seen.key.refusedPerSecond).toBe(0);
    // No call failed on a 429 (maxRetries 0 would have surfaced it).
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    // Close to the limit, not far below it. 200 = 4 × 50: about 3 × (1 s + latency) on a quiet
    // machine; the bound is loose because the machine is shared.
    // (Very loose bounds: CI shares two cores with the other suites; the bench measures speed.)
    expect(seen.key.peakRequestsPerSecond).toBeGreaterThanOrEqual(25);
    expect(elapsed).toBeLessThan(30_000);
    expect(crm.budget().used).toBe(200);
  });

  it('keeps to the default 10/s too', async () => {
    const { sim, store, counters } = await setup(10);
    const crm = clientFor(sim, store, { maxRetries: 0 }); // default requestsPerSecond: 10
    cleanups.push(() => crm.close());

    await Promise.all(Array.from({ length: 25 }, (_, index) => mixedCall(crm, index)));

    const seen = await counters();
    expect(seen.totalRequests).toBe(25);
    expect(seen.key.peakRequestsPerSecond).toBeLessThanOrEqual(10);
    expect(seen.key.refusedPerSecond).toBe(0);
  });

  it('(control) the simulator does see a burst above the limit when the client is allowed one', async () => {
    const { sim, store, counters } = await setup(50);
    const crm = clientFor(sim, store, { requestsPerSecond: 1000, maxRetries: 0 });
    cleanups.push(() => crm.close());

    const results = await Promise.allSettled(Array.from({ length: 80 }, () => crm.getScopes()));

    const seen = await counters();
    expect(seen.key.peakRequestsPerSecond).toBeGreaterThan(50);
    expect(seen.key.refusedPerSecond).toBeGreaterThan(0);
    const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ name: 'CrmError', code: 'rate_limited', status: 429, retryable: true });
  });
});
