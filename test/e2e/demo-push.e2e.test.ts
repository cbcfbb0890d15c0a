// Demo mode as `npm start` runs it: the embedded simulator sends its webhooks to the relay itself,
// so a change made through the simulator's control surface (plain HTTP, as the README's curl does)
// reaches the listing API within seconds, with no sync run by hand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startTestRelay({ SIM_LISTINGS: '12', PHOTO_WIDTHS: '240' });
  await relay.listings.sync.whenLoaded();
}, 120_000);

afterAll(async () => {
  await relay?.close();
});

async function listing(id: number): Promise<{ status: number; body: { heading?: string; displayPrice?: string } }> {
  const response = await fetch(`${relay.url}/api/v1/listings/${id}`);
  return { status: response.status, body: (await response.json()) as { heading?: string } };
}

describe('demo mode: a change in the simulator reaches the listing API by webhook', () => {
  it('PATCH /__sim/listings/:id shows within seconds; a withdrawal removes the listing', async () => {
    const { items } = (await (await fetch(`${relay.url}/api/v1/listings?pageSize=5`)).json()) as { items: Array<{ id: number }> };
    const [first, second] = items;
    const sim = relay.simulator!.origin;
    // A listing is one sale or lease life of a CRM property: the control surface names the property
    // (and, for one both for sale and for lease, the market).
    const { items: records } = (await (await fetch(`${sim}/__sim/listings`)).json()) as {
      items: Array<{ id: number; market: 'sale' | 'lease'; lifeId: number }>;
    };
    const lifeOf = (listingId: number) => {
      const record = records.find((candidate) => candidate.lifeId * 2 + (candidate.market === 'lease' ? 1 : 0) === listingId);
      if (!record) throw new Error(`no simulated record behind listing ${listingId}`);
      return `${record.id}?market=${record.market}`;
    };
    const changedAt = Date.now();
    const patch = await fetch(`${sim}/__sim/listings/${lifeOf(first!.id)}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fields: { heading: 'Price reduced (demo)', displayPrice: '$1,150,000' } }),
    });
    expect(patch.status).toBe(200);
    let answer = await listing(first!.id);
    while (answer.body.heading !== 'Price reduced (demo)' && Date.now() - changedAt < 5_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await listing(first!.id);
    }
    expect(answer.body).toMatchObject({ heading: 'Price reduced (demo)', displayPrice: '$1,150,000' });
    expect(Date.now() - changedAt).toBeLessThan(5_000);

    await fetch(`${sim}/__sim/listings/${lifeOf(second!.id).replace('?', '/withdraw?')}`, { method: 'POST' });
    let gone = await listing(second!.id);
    while (gone.status !== 404 && Date.now() - changedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      gone = await listing(second!.id);
    }
    expect(gone.status).toBe(404);
    const counts = (await (await fetch(`${sim}/__sim/webhooks`)).json()) as { sent: number; failed: number };
    expect(counts).toMatchObject({ sent: 2, failed: 0 });
  });
});
