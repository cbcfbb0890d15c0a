// A first fill that fails is tried again within seconds, not at the next hourly poll: until the
// cache is filled the agency's listing API answers "filling" (seen in the integrator bench, where
// one timed-out first sweep kept an agency's site empty for an hour).
import { afterEach, describe, expect, it } from 'vitest';
import { crmListingSource } from '../../server/crm/listing-source.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { ListingSync } from '../../server/listings/sync.ts';
import { startListingRig, type ListingRig } from './rig.ts';

describe('a first fill', () => {
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

  it('serves before its photos; a relay stopped before they are all in mirrors the rest at its next run', async () => {
    rig = await startListingRig({ listings: 8 });
    const { relay } = rig;
    // The file host is slow: the photos are still coming when the listings serve.
    rig.sim.state.faults.add({ match: '/files/photos/**', latencyMs: 3_000 });
    const make = () =>
      new ListingSync({
        source: crmListingSource({ client: relay.crm, config: relay.config }),
        cache: relay.listings.cache,
        mirror: relay.listings.mirror,
        log: silentLogger,
        config: relay.config,
      });
    sync = make();
    const firstRun = sync.run('full');
    const started = Date.now();
    while (relay.listings.cache.readState().lastSuccessAt === null && Date.now() - started < 20_000) await new Promise((resolve) => setTimeout(resolve, 20));
    const served = await rig.get('/api/v1/listings?pageSize=50');
    expect(served.status).toBe(200);
    const cards = (served.body as { items: Array<{ photo: unknown; photoCount: number }> }).items;
    expect(cards.length).toBeGreaterThan(0);
    expect(cards.every((card) => card.photo === null && card.photoCount === 0)).toBe(true);
    // Stopped (a restart) before any photo was in: they stay recorded as to be mirrored.
    await sync.stop();
    expect((await firstRun).error).toBeUndefined();
    expect(relay.listings.mirror.ownersToFinish('listing').length).toBeGreaterThan(0);
    rig.sim.state.faults.clear();
    sync = make();
    expect((await sync.run('incremental')).error).toBeUndefined();
    expect(relay.listings.mirror.ownersToFinish('listing')).toEqual([]);
    const after = (await rig.get('/api/v1/listings?pageSize=50')).body as { items: Array<{ photo: unknown; photoCount: number }> };
    expect(after.items.every((card) => card.photo !== null && card.photoCount > 0)).toBe(true);
  });
});
