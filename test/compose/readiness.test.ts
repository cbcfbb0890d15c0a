import { afterEach, describe, expect, it } from 'vitest';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

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
