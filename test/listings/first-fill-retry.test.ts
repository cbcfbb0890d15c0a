// A first fill that fails is tried again within seconds, not at the next hourly poll: until the
// cache is filled the agency's listing API answers "filling" (seen in the integrator bench, where
// one timed-out first sweep kept an agency's site empty for an hour).
import { afterEach, describe, expect, it } from 'vitest';
import { crmListingSource } from '../../server/crm/listing-source.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { ListingSync } from '../../server/listings/sync.ts';
import { startListingRig, type ListingRig } from './rig.ts';

describe('a failed first fill', () => {
  let rig: ListingRig | undefined;
  let sync: ListingSync | undefined;
  afterEach(async () => {
    await sync?.stop();
    await rig?.close();
  });

  it('is tried again soon (doubling from the first wait) until the cache is filled, then polls at LIST_POLL_MINUTES', async () => {
    rig = await startListingRig({ listings: 12 });
    // The first two sweeps fail on their first list page (a refusal the client does not retry).
    rig.sim.state.faults.add({ match: 'GET /properties/residential/sale/available', errorRate: 1, errorStatus: 400, times: 2 });
    const { relay } = rig;
    const source = crmListingSource({ client: relay.crm, config: relay.config });
    sync = new ListingSync({
      source,
      cache: relay.listings.cache,
      mirror: relay.listings.mirror,
      log: silentLogger,
      config: relay.config,
      firstFillRetryMs: 300,
    });
    expect(relay.config.listings.listPollMinutes).toBe(60);

    const started = Date.now();
    sync.start();
    while (relay.listings.cache.readState().lastSuccessAt === null && Date.now() - started < 15_000) await new Promise((resolve) => setTimeout(resolve, 50));
    const filledAfterMs = Date.now() - started;

    expect(relay.listings.cache.readState().lastSuccessAt).not.toBeNull();
    // Two failures: waits of 0.3 s and 0.6 s, then the sweep that fills; nowhere near an hour.
    expect(filledAfterMs).toBeGreaterThanOrEqual(850);
    expect(filledAfterMs).toBeLessThan(15_000);
    expect((await rig.get('/api/v1/listings')).status).toBe(200);

    // Filled: the schedule is back to the hourly poll (no API request in the next second; the
    // first fill's photos, downloaded once it serves, are the file host's).
    const apiRequests = () =>
      Object.entries(rig!.sim.state.getCounters().requestsByEndpoint)
        .filter(([endpoint]) => !endpoint.includes('/files/'))
        .reduce((sum, [, count]) => sum + count, 0);
    const requests = apiRequests();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(apiRequests()).toBe(requests);
  });
});
