import { afterEach, describe, expect, it } from 'vitest';
import { parseCrmWebhook, verifyCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, CRM_DATE_TIME, manualClock, startWebhookReceiver, type WebhookReceiver } from './helpers.ts';

let sim: RunningSimulator | undefined;
let receiver: WebhookReceiver | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  receiver?.close();
  receiver = undefined;
});

async function startReceiver(): Promise<WebhookReceiver> {
  receiver = await startWebhookReceiver();
  return receiver;
}

describe('CRM simulator: GET /eventStream', () => {
  it('lists changes since a time, then from the cursor in urls.next, in the documented shape', async () => {
    const clock = manualClock('2026-03-02T00:00:00Z');
    sim = await startSimulator({ listings: 6, now: clock.now });
    const call = apiClient(sim);
    const [first, second] = sim.state.listings;
    clock.advance(1000);
    sim.state.changeListing(first!.id, { fields: { heading: 'One' } });
    sim.state.changeUser(sim.state.users[0]!.id, { fields: { position: 'Director' } });

    const page = await call('/eventStream?eventsSince=2026-03-01T23:00:00Z');
    expect(page.status).toBe(200);
    expect(page.body.items).toHaveLength(2);
    expect(page.body.items[0]).toEqual({
      id: expect.any(String),
      timestamp: expect.stringMatching(CRM_DATE_TIME),
      type: 'property',
      action: 'update',
      data: { id: first!.id },
    });
    expect(page.body.items[1]).toMatchObject({ type: 'user', action: 'update', data: { id: sim.state.users[0]!.id } });
    const next = new URL(page.body.urls.next);
    expect(next.pathname).toBe('/api/v1.3/eventStream');

    const empty = await call(`/eventStream?cursor=${next.searchParams.get('cursor')}`);
    expect(empty.body.items).toEqual([]);
    sim.state.changeListing(second!.id, { status: 'withdrawn' });
    const after = await call(`/eventStream?cursor=${new URL(empty.body.urls.next).searchParams.get('cursor')}`);
    expect(after.body.items.map((item: { data: { id: number } }) => item.data.id)).toEqual([second!.id]);

    // eventsSince after the changes: nothing.
    expect((await call('/eventStream?eventsSince=2026-03-02T01:00:00Z')).body.items).toEqual([]);
    // Neither parameter, or a bad one: 400.
    expect((await call('/eventStream')).status).toBe(400);
    expect((await call('/eventStream?eventsSince=yesterday')).status).toBe(400);
  });

  it('events expire after 30 days; an expired cursor is refused (400 INVALID_CURSOR)', async () => {
    const clock = manualClock('2026-03-02T00:00:00Z');
    sim = await startSimulator({ listings: 4, now: clock.now });
    const call = apiClient(sim);
    sim.state.changeListing(sim.state.listings[0]!.id, { fields: { heading: 'Old news' } });
    const page = await call('/eventStream?eventsSince=2026-03-01T00:00:00Z');
    const cursor = new URL(page.body.urls.next).searchParams.get('cursor');
    clock.advance(31 * 86_400_000);
    const stale = await call(`/eventStream?cursor=${cursor}`);
    expect(stale.status).toBe(400);
    expect(stale.body.code).toBe('INVALID_CURSOR');
    sim.state.changeListing(sim.state.listings[1]!.id, { fields: { heading: 'New' } });
    const since = await call('/eventStream?eventsSince=2026-02-01T00:00:00Z');
    expect(since.body.items.map((item: { data: { id: number } }) => item.data.id)).toEqual([sim.state.listings[1]!.id]);
  });
});

describe('CRM simulator: webhooks', () => {
  it('POSTs each change signed as the CRM does, with the record in itemBodies', async () => {
    const { url, received } = await startReceiver();
    sim = await startSimulator({ listings: 6, webhookUrl: url });
    // A property with one life (one both for sale and for lease sends two records: next test).
    const listing = sim.state.listings.find((candidate) => candidate.market === 'sale' && sim!.state.listingsOfProperty(candidate.id).length === 1)!;
    sim.state.changeListing(listing.id, { fields: { heading: 'Signed' } });
    await sim.state.webhooks.settled();
    expect(received).toHaveLength(1);
    const [delivery] = received;
    const header = String(delivery!.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()]);
    expect(header).toMatch(/^t=\d{13},sha512=[0-9a-f]{128}$/);
    expect(delivery!.headers['content-type']).toBe('application/json');
    const check = verifyCrmWebhook(sim.apiKey, header, delivery!.body, Date.now(), 60_000);
    expect(check.ok).toBe(true);
    const body = JSON.parse(delivery!.body.toString('utf8'));
    expect(body).toMatchObject({ event: 'property.update', data: { id: listing.id }, accountid: expect.any(Number), timestamp: expect.any(String) });
    expect(body.itemBodies).toHaveLength(1);
    expect(typeof body.itemBodies[0].data).toBe('string');
    const notice = parseCrmWebhook(delivery!.body, Date.now());
    expect(notice).toMatchObject({ kind: 'listing', id: listing.id, invalidRecords: 0 });
    expect(notice.records[0]).toMatchObject({ id: listing.id, heading: 'Signed' });
    expect(notice.records[0]!.photos!.length).toBe(listing.photos.length);
  });

  it('a property for sale and for lease at once: itemBodies carry the record of each life', async () => {
    const { url, received } = await startReceiver();
    sim = await startSimulator({ listings: 30, webhookUrl: url });
    const both = sim.state.listings.find((candidate) => sim!.state.listingsOfProperty(candidate.id).length === 2)!;
    expect(both).toBeDefined();
    sim.state.changeListing(both.id, { fields: { heading: 'Lease only changed' } }, 'lease');
    await sim.state.webhooks.settled();
    expect(received).toHaveLength(1);
    const notice = parseCrmWebhook(received[0]!.body, Date.now());
    expect(notice).toMatchObject({ kind: 'listing', id: both.id, invalidRecords: 0 });
    expect(notice.records).toHaveLength(2);
    const sale = notice.records.find((record) => record.saleLifeId != null)!;
    const lease = notice.records.find((record) => record.leaseLifeId != null)!;
    expect(sale).toMatchObject({ id: both.id, saleLifeId: sim.state.listing(both.id, 'sale')!.lifeId, leaseLifeId: null });
    expect(lease).toMatchObject({ id: both.id, leaseLifeId: sim.state.listing(both.id, 'lease')!.lifeId, saleLifeId: null, heading: 'Lease only changed' });
    expect(sale.heading).not.toBe('Lease only changed');

    // A photo is the property's: a change to one goes out with both records too.
    await sim.state.replacePhoto(both.photos[0]!.id);
    await sim.state.webhooks.settled();
    expect(parseCrmWebhook(received.at(-1)!.body, Date.now()).records).toHaveLength(2);
  });

  it('drops the injected share evenly (0.5: every other one), never retries, and can leave out itemBodies', async () => {
    const { url, received } = await startReceiver();
    sim = await startSimulator({ listings: 6, webhookUrl: url, webhookDropRate: 0.5 });
    for (const listing of sim.state.listings.slice(0, 4)) sim.state.changeListing(listing.id, { fields: { heading: 'Drop test' } });
    await sim.state.webhooks.settled();
    expect(sim.state.webhooks.counts).toEqual({ sent: 2, dropped: 2, failed: 0 });
    expect(received.map((delivery) => JSON.parse(delivery.body.toString()).data.id)).toEqual([sim.state.listings[0]!.id, sim.state.listings[2]!.id]);

    // Through the control surface: no drops, no records.
    const put = await fetch(`${sim.origin}/__sim/webhooks`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ dropRate: 0, itemBodies: false }),
    });
    expect(await put.json()).toMatchObject({ url, dropRate: 0, itemBodies: false });
    const bad = await fetch(`${sim.origin}/__sim/webhooks`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ dropRate: 2 }),
    });
    expect(bad.status).toBe(400);
    const user = sim.state.users[0]!;
    const patched = await fetch(`${sim.origin}/__sim/users/${user.id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ fields: { position: 'Partner' } }),
    });
    expect(patched.status).toBe(200);
    await sim.state.webhooks.settled();
    const last = JSON.parse(received.at(-1)!.body.toString());
    expect(last).toMatchObject({ event: 'user.update', data: { id: user.id }, itemBodies: [] });
    const counts = await (await fetch(`${sim.origin}/__sim/webhooks`)).json();
    expect(counts).toMatchObject({ sent: 3, dropped: 2 });
  });
});
