import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/errors.ts';
import { SIGNATURE_HEADER, signWebhook, TIMESTAMP_HEADER } from '../../server/listings/index.ts';
import { webhookRouter } from '../../server/listings/webhook.ts';
import { silentLogger } from '../../server/log.ts';
import { allListingIds, publicListingId, startListingRig, type ListingRig } from './rig.ts';

const SECRET = 'webhook-secret-for-tests-0123456789';
const TOLERANCE = 120;

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('POST /hooks/crm', () => {
  let rig: ListingRig;

  beforeAll(async () => {
    rig = await startListingRig({
      listings: 20,
      env: { WEBHOOK_SECRET: SECRET, WEBHOOK_TOLERANCE_SECONDS: String(TOLERANCE), WEBHOOK_DAILY_REFRESHES: '8' },
    });
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
  });
  afterAll(async () => {
    await rig?.close();
  });

  function post(body: string, headers: Record<string, string>) {
    return fetch(`${rig.relay.url}/hooks/crm`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
  }
  function signed(body: string, timestamp = Math.floor(Date.now() / 1000)) {
    return { [TIMESTAMP_HEADER]: String(timestamp), [SIGNATURE_HEADER]: signWebhook(SECRET, timestamp, body) };
  }
  const singleRecordRequests = () =>
    Object.entries(rig.sim.state.getCounters().requestsByEndpoint)
      .filter(([label]) => /^GET \/properties\/\w+\/(sale|lease)\/\{id\}$/.test(label))
      .reduce((sum, [, count]) => sum + count, 0);

  it('with a good signature, refreshes the listing at once (its record and its published list entry, photos inline)', async () => {
    // A property only for sale: one for sale and for lease at once is two records to fetch.
    const id = rig.expectedIds('sale').find((candidate) => rig.sim.state.listings.filter((listing) => listing.id === rig.simListing(candidate).id).length === 1)!;
    rig.sim.state.changeListing(rig.simListing(id).id, { fields: { heading: 'Just reduced' } });
    const before = singleRecordRequests();
    const photoLists = () => rig.sim.state.getCounters().requestsByEndpoint['GET /properties/{id}/photos'] ?? 0;
    const photoListsBefore = photoLists();
    const body = JSON.stringify({ event: 'property.updated', propertyId: rig.simListing(id).id });
    const response = await post(body, signed(body));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: 'accepted', propertyId: rig.simListing(id).id });
    const detail = await until(() => rig.get(`/api/v1/listings/${id}`), (answer) => answer.body.heading === 'Just reduced');
    expect(detail.body.heading).toBe('Just reduced');
    expect(singleRecordRequests() - before).toBe(1);
    // The published list's entry carries the photos: no photo list call.
    expect(photoLists() - photoListsBefore).toBe(0);
  });

  it('refuses a wrong, tampered, missing or stale signature before doing anything', async () => {
    const [id] = rig.expectedIds('sale');
    rig.sim.state.changeListing(rig.simListing(id).id, { fields: { heading: 'Should not show yet' } });
    const before = rig.crmRequests();
    const body = JSON.stringify({ propertyId: rig.simListing(id).id });
    const now = Math.floor(Date.now() / 1000);
    const attempts: Array<[string, string, Record<string, string>]> = [
      ['wrong secret', body, { [TIMESTAMP_HEADER]: String(now), [SIGNATURE_HEADER]: signWebhook('another-secret-0123456789', now, body) }],
      ['tampered body', JSON.stringify({ propertyId: rig.simListing(id).id + 1 }), signed(body, now)],
      ['no signature', body, { [TIMESTAMP_HEADER]: String(now) }],
      ['no timestamp', body, { [SIGNATURE_HEADER]: signWebhook(SECRET, now, body) }],
      ['stale', body, signed(body, now - TOLERANCE - 5)],
      ['from the future', body, signed(body, now + TOLERANCE + 5)],
      ['timestamp not a number', body, { [TIMESTAMP_HEADER]: 'soon', [SIGNATURE_HEADER]: signWebhook(SECRET, 'soon', body) }],
      ['truncated signature', body, { ...signed(body, now), [SIGNATURE_HEADER]: signed(body, now)[SIGNATURE_HEADER].slice(0, 20) }],
      ['not even JSON', '{{{', { [TIMESTAMP_HEADER]: String(now), [SIGNATURE_HEADER]: 'v1=00' }],
    ];
    for (const [name, sentBody, headers] of attempts) {
      const response = await post(sentBody, headers);
      expect(response.status, name).toBe(401);
      const answer = await response.json();
      expect(answer.error, name).toBe(name === 'stale' || name === 'from the future' || name === 'timestamp not a number' ? 'stale_signature' : 'bad_signature');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(rig.crmRequests()).toBe(before);
    expect((await rig.get(`/api/v1/listings/${id}`)).body.heading).not.toBe('Should not show yet');
  });

  it('acts once on a replayed delivery', async () => {
    const [, id] = rig.expectedIds('sale');
    const body = JSON.stringify({ propertyId: rig.simListing(id).id });
    const headers = signed(body);
    expect((await post(body, headers)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const before = singleRecordRequests();
    const replay = await post(body, headers);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ status: 'duplicate' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(singleRecordRequests()).toBe(before);
  });

  it('a signed body that names no property is a 400', async () => {
    for (const body of ['{"propertyId":"12"}', '[]', 'null', '{"id":-4}']) {
      const response = await post(body, signed(body));
      expect(response.status, body).toBe(400);
      expect((await response.json()).fields).toHaveProperty('propertyId');
    }
  });

  it('removes at once a listing the CRM withdrew', async () => {
    const id = rig.expectedIds('sale').at(-1)!;
    rig.sim.state.withdrawListing(rig.simListing(id).id);
    const body = JSON.stringify({ property: { id: rig.simListing(id).id } });
    expect((await post(body, signed(body))).status).toBe(202);
    const gone = await until(() => rig.get(`/api/v1/listings/${id}`), (answer) => answer.status === 404);
    expect(gone.status).toBe(404);
  });

  it('a listing the cache does not know yet is found by an incremental sync started at once', async () => {
    const added = rig.sim.state.addListing({ category: 'residentialLease' });
    const body = JSON.stringify({ id: added.id });
    expect((await post(body, signed(body))).status).toBe(202);
    const ids = await until(() => allListingIds(rig, 'type=lease'), (list) => list.includes(publicListingId(added)), 10_000);
    expect(ids).toContain(publicListingId(added));
  });

  it('stops calling the CRM for webhooks after WEBHOOK_DAILY_REFRESHES in a day', async () => {
    const [id] = rig.expectedIds('lease');
    // Earlier tests used 4 of the 8 refreshes allowed today: spend the rest, and more.
    for (let index = 0; index < 6; index++) {
      const body = JSON.stringify({ propertyId: rig.simListing(id).id, delivery: index });
      expect((await post(body, signed(body))).status).toBe(202);
    }
    // Until the refreshes are done (two requests each; slower on a loaded machine than any fixed wait).
    for (let last = -1; rig.crmRequests() !== last; ) {
      last = rig.crmRequests();
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    const before = rig.crmRequests();
    const body = JSON.stringify({ propertyId: rig.simListing(id).id, delivery: 'over the cap' });
    expect((await post(body, signed(body))).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(rig.crmRequests()).toBe(before);
  });
});

describe('the webhook without WEBHOOK_SECRET', () => {
  it('is off (404) and refreshes nothing', async () => {
    let refreshed = 0;
    const app = express();
    app.use(webhookRouter({ secret: undefined, toleranceSeconds: 300, refreshListing: async () => (refreshed++, 'refreshed'), log: silentLogger }));
    app.use(errorHandler(silentLogger));
    const body = JSON.stringify({ propertyId: 1 });
    const now = Math.floor(Date.now() / 1000);
    const response = await request(app)
      .post('/hooks/crm')
      .set('Content-Type', 'application/json')
      .set(TIMESTAMP_HEADER, String(now))
      .set(SIGNATURE_HEADER, signWebhook('', now, body))
      .send(body);
    expect(response.status).toBe(404);
    expect(refreshed).toBe(0);
  });
});
