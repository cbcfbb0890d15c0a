import { afterEach, describe, expect, it } from 'vitest';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';
import { startAgenciesRig, type AgenciesRig } from './rig.ts';

const relays: TestRelay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((relay) => relay.close()));
});

describe('/readyz on a whole relay', () => {
  it('is not ready until the listing cache has been filled once', async () => {
    const relay = await startTestRelay({}, { workers: false });
    relays.push(relay);
    const response = await fetch(`${relay.url}/readyz`);
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ status: 'not-ready', checks: { store: true, listingCache: false } });
  });

  it('is ready once the first sync has succeeded', async () => {
    const relay = await startTestRelay();
    relays.push(relay);
    await relay.listings!.sync.whenLoaded();
    const response = await fetch(`${relay.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ready', checks: { store: true, listingCache: true } });
  });
});

/*
 * With AGENCIES_FILE the relay's /readyz is whether the relay can serve (its store answers, some
 * agency's cache was filled): one agency not filled yet (just added, or its token refused) must not
 * take every other agency out of a load balancer. Each agency's own readiness stays at
 * /a/<slug>/readyz and in the body (`notReady`, with the reason). Real HTTP, SQLite, the simulator.
 */
describe('/readyz of a relay of many agencies', () => {
  let rig: AgenciesRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('is ready once one agency serves; the agencies not ready are listed with their reason, and stay 503 on their own /readyz', async () => {
    rig = await startAgenciesRig({ agencies: 2, listings: 4 });
    // A cold start: no agency filled, nothing to serve.
    let readyz = await rig.request('/readyz');
    expect(readyz.status).toBe(503);
    expect(readyz.body).toMatchObject({ status: 'not-ready', checks: { store: true, agencyServed: false }, agencies: { served: 2, ready: 0 } });
    expect(readyz.body.notReady).toEqual({ 'agency-a': 'filling: the first sync is under way', 'agency-b': 'filling: the first sync is under way' });

    await rig.relay.agencies!.get('agency-a')!.agency.listings.sync.run('full');
    readyz = await rig.request('/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.body).toMatchObject({ status: 'ready', checks: { store: true, agencyServed: true, replicaCopies: true }, agencies: { served: 2, ready: 1 } });
    expect(readyz.body.notReady).toEqual({ 'agency-b': 'filling: the first sync is under way' });
    expect((await rig.request('/a/agency-a/readyz')).status).toBe(200);
    expect((await rig.request('/a/agency-b/readyz')).status).toBe(503);

    // An agency added to a serving relay: the relay stays ready while it fills; the newcomer is named.
    const accountC = rig.sim.key.addAccount({ listings: 3 });
    rig.writeAgencies([...rig.entries, { slug: 'agency-new', name: accountC.agency.name, accessToken: accountC.options.accessToken }]);
    expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, added: ['agency-new'] });
    readyz = await rig.request('/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.body.agencies).toEqual({ served: 3, ready: 1 });
    expect(Object.keys(readyz.body.notReady)).toEqual(['agency-b', 'agency-new']);
    expect((await rig.request('/a/agency-new/readyz')).status).toBe(503);
  }, 60_000);

  it('with one agency in the file, is that agency’s readiness, as a relay of one agency is', async () => {
    rig = await startAgenciesRig({ agencies: 1, listings: 4 });
    expect((await rig.request('/readyz')).status).toBe(503);
    await rig.syncAll();
    const readyz = await rig.request('/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.body).toMatchObject({ status: 'ready', agencies: { served: 1, ready: 1 } });
    expect(readyz.body.notReady).toBeUndefined();
  }, 60_000);
});
