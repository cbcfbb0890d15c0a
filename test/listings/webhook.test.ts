import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { renderListing, renderPhoto } from '../../crm-sim/views.ts';
import { allListingIds, publicListingId, startListingRig, type ListingRig } from './rig.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { freshDatabase } from '../support/postgres.ts';
import { storeVariants } from '../support/store-variants.ts';

const TOLERANCE = 120;

async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// With DATABASE_URL the notice goes to the shared inbox in PostgreSQL (any relay may receive it)
// and the change worker takes it from there: every answer and outcome must be the same.
for (const storeVariant of storeVariants())
  describe.skipIf(storeVariant.skipped)(`POST /hooks/crm (the CRM's own webhook format), ${storeVariant.name}`, () => {
    let rig: ListingRig;
    let relay: RunningRelay;

    beforeAll(async () => {
      const databaseUrl = storeVariant.postgresServer ? await freshDatabase(storeVariant.postgresServer, 'webhooks') : undefined;
      rig = await startListingRig({
        listings: 20,
        env: { WEBHOOK_TOLERANCE_SECONDS: String(TOLERANCE), WEBHOOK_DAILY_REFRESHES: '1000', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) },
      });
      relay = rig.relay;
      expect(relay.listings.webhookTarget.inbox !== undefined).toBe(databaseUrl !== undefined);
      expect((await relay.listings.sync.run('full')).error).toBeUndefined();
      // The change worker only (the rig leaves workers stopped): applies what the webhook stores.
      relay.listings.changes.start();
    });
    afterAll(async () => {
      await rig?.close();
    });

    const apiKey = () => rig.sim.apiKey;
    function post(body: string, headers: Record<string, string>, url = relay.url) {
      return fetch(`${url}/hooks/crm`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
    }
    function signed(body: string, t = Date.now(), key = apiKey()) {
      return { [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(key, t, body) };
    }
    /**
     * The body the CRM sends for a property, with its records in itemBodies (one per life, sale and
     * lease; photos inline) or none. `lives` picks which records go (default: every life).
     */
    async function propertyEvent(propertyId: number, withRecord: boolean, event = 'property.update', lives?: Array<'sale' | 'lease'>): Promise<string> {
      const records = rig.sim.state.listingsOfProperty(propertyId).filter((listing) => !lives || lives.includes(listing.market));
      const itemBodies = withRecord
        ? await Promise.all(
            records.map(async (listing) => ({
              dataModel: 'Property',
              data: JSON.stringify({
                ...renderListing(listing, rig.sim.state, rig.sim.origin, 'single'),
                photos: await Promise.all(listing.photos.map((photo) => renderPhoto(photo, rig.sim.origin))),
              }),
            })),
          )
        : [];
      return JSON.stringify({
        event,
        data: { id: propertyId },
        accountid: rig.sim.key.accounts[0]!.accountId,
        timestamp: new Date().toISOString(),
        itemBodies,
      });
    }
    /** The CRM property behind a public listing id, and a change to that life of it. */
    const propertyOf = (listingId: number) => rig.simListing(listingId).id;
    const change = (listingId: number, what: Parameters<ListingRig['sim']['state']['changeListing']>[1]) =>
      rig.sim.state.changeListing(propertyOf(listingId), what, rig.simListing(listingId).market);
    /** Listings of properties with one life only (the property both for sale and for lease has tests of its own). */
    const single = (kind: 'sale' | 'lease') => rig.expectedIds(kind).filter((id) => rig.sim.state.listingsOfProperty(propertyOf(id)).length === 1);
    const applied = () => relay.listings.changes.drain();
    const pending = () => tablesOf(relay.store).prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get() as number;

    it('good signature, record in itemBodies: stored, then applied with zero CRM requests', async () => {
      const [id] = single('sale');
      change(id!, { fields: { heading: 'Pushed heading', displayPrice: 'Offers over $990,000' } });
      const body = await propertyEvent(propertyOf(id!), true);
      const before = rig.crmRequests();
      const response = await post(body, signed(body));
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ status: 'accepted', event: 'property.update', id: propertyOf(id!) });
      const detail = await until(
        () => rig.get(`/api/v1/listings/${id}`),
        (answer) => answer.body.heading === 'Pushed heading',
      );
      expect(detail.body.heading).toBe('Pushed heading');
      expect(detail.body.displayPrice).toContain('990,000');
      await applied();
      expect(rig.crmRequests()).toBe(before);
      expect(pending()).toBe(0);
    });

    it('itemBodies without the record: refreshed from the CRM lists, few requests', async () => {
      const [, id] = single('sale');
      change(id!, { fields: { heading: 'Read from the list' } });
      const body = await propertyEvent(propertyOf(id!), false);
      const before = rig.crmRequests();
      expect((await post(body, signed(body))).status).toBe(202);
      const detail = await until(
        () => rig.get(`/api/v1/listings/${id}`),
        (answer) => answer.body.heading === 'Read from the list',
      );
      expect(detail.body.heading).toBe('Read from the list');
      await applied();
      // One page of each list of its class (sale and lease: a property may be both), plus its photo
      // list when list items do not carry photos inline.
      expect(rig.crmRequests() - before).toBeGreaterThan(0);
      expect(rig.crmRequests() - before).toBeLessThanOrEqual(relay.listings.sync.specs.length + 1);
    });

    it('refuses a bad, tampered (one whitespace byte), malformed-header or stale signature, changing nothing', async () => {
      const [id] = single('lease');
      change(id!, { fields: { heading: 'Must not show' } });
      const body = await propertyEvent(propertyOf(id!), true);
      const now = Date.now();
      const good = signCrmWebhook(apiKey(), now, body);
      const spaced = body.replace('{"event"', '{ "event"');
      expect(spaced.length).toBe(body.length + 1);
      const attempts: Array<[string, string, Record<string, string>, string]> = [
        ['signed with another key', body, signed(body, now, 'another-key'), 'bad_signature'],
        ['body altered by one whitespace byte', spaced, { [WEBHOOK_SIGNATURE_HEADER]: good }, 'bad_signature'],
        ['no signature', body, {}, 'bad_signature'],
        [
          'upper-case hex',
          body,
          { [WEBHOOK_SIGNATURE_HEADER]: good.replace(/sha512=(.*)$/, (_m, hex: string) => `sha512=${hex.toUpperCase()}`) },
          'bad_signature',
        ],
        ['a space after the comma', body, { [WEBHOOK_SIGNATURE_HEADER]: good.replace(',', ', ') }, 'bad_signature'],
        ['parts swapped', body, { [WEBHOOK_SIGNATURE_HEADER]: good.split(',').reverse().join(',') }, 'bad_signature'],
        ['seconds instead of ms', body, signed(body, Math.floor(now / 1000)), 'stale_signature'],
        ['stale', body, signed(body, now - (TOLERANCE + 5) * 1000), 'stale_signature'],
        ['from the future', body, signed(body, now + (TOLERANCE + 5) * 1000), 'stale_signature'],
      ];
      const before = rig.crmRequests();
      for (const [name, sentBody, headers, error] of attempts) {
        const response = await post(sentBody, headers);
        expect(response.status, name).toBe(401);
        expect((await response.json()).error, name).toBe(error);
      }
      await applied();
      expect(pending()).toBe(0);
      expect(rig.crmRequests()).toBe(before);
      expect((await rig.get(`/api/v1/listings/${id}`)).body.heading).not.toBe('Must not show');
    });

    it('a malformed or oversized signed body: 4xx, nothing stored', async () => {
      const cases: Array<[string, string, number]> = [
        ['not JSON', '{{{', 400],
        ['no event', JSON.stringify({ data: { id: 1 } }), 400],
        ['property event without an id', JSON.stringify({ event: 'property.update', data: {} }), 400],
        [
          'itemBodies data not a JSON string',
          JSON.stringify({ event: 'property.update', data: { id: 1 }, itemBodies: [{ dataModel: 'Property', data: '{oops' }] }),
          400,
        ],
        ['oversized', JSON.stringify({ event: 'property.update', data: { id: 1 }, padding: 'x'.repeat(600 * 1024) }), 413],
      ];
      for (const [name, body, status] of cases) {
        const response = await post(body, signed(body));
        expect(response.status, name).toBe(status);
      }
      expect(pending()).toBe(0);
    });

    it('a replay is refused by its digest, also after a restart of the relay', async () => {
      const id = single('sale')[2]!;
      const body = await propertyEvent(propertyOf(id), true);
      const headers = signed(body);
      expect((await post(body, headers)).status).toBe(202);
      await applied();
      const replay = await post(body, headers);
      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual({ status: 'duplicate' });
      expect(pending()).toBe(0);

      // A second relay process on the same DATA_DIR (the first keeps running: same file, same table).
      const restarted = await rig.startAnotherRelay();
      try {
        const again = await post(body, headers, restarted.url);
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual({ status: 'duplicate' });
        const queued = tablesOf(restarted.store).prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get();
        expect(queued).toBe(0);
      } finally {
        await restarted.close();
      }
    });

    it('an unknown event or model is acknowledged and counted, never an error', async () => {
      const ignoredBefore = relay.listings.webhookCounts.ignored;
      for (const event of ['contact.create', 'tasks.completed']) {
        const body = JSON.stringify({
          event,
          data: { id: 77 },
          accountid: rig.sim.key.accounts[0]!.accountId,
          timestamp: new Date().toISOString(),
          itemBodies: [],
        });
        const response = await post(body, signed(body));
        expect(response.status, event).toBe(200);
        expect(await response.json()).toEqual({ status: 'ignored', event });
      }
      expect(relay.listings.webhookCounts.ignored - ignoredBefore).toBe(2);
      expect(pending()).toBe(0);
      const metrics = await (await fetch(`${relay.url}/metrics`)).text();
      expect(metrics).toContain(`estate_crm_webhooks_total{outcome="ignored"} ${relay.listings.webhookCounts.ignored}`);
      expect(metrics).toMatch(/estate_crm_webhooks_total\{outcome="refused"\} [1-9]/);
    });

    it('a withdrawn listing (status in the pushed record) is removed with zero CRM requests', async () => {
      const id = single('sale').at(-1)!;
      rig.sim.state.withdrawListing(propertyOf(id), rig.simListing(id).market);
      const body = await propertyEvent(propertyOf(id), true);
      const before = rig.crmRequests();
      expect((await post(body, signed(body))).status).toBe(202);
      const gone = await until(
        () => rig.get(`/api/v1/listings/${id}`),
        (answer) => answer.status === 404,
      );
      expect(gone.status).toBe(404);
      expect(rig.crmRequests()).toBe(before);
    });

    it('a listing taken off the web, announced without its record, is removed', async () => {
      const id = single('lease').at(-1)!;
      change(id, { published: false });
      const body = await propertyEvent(propertyOf(id), false);
      expect((await post(body, signed(body))).status).toBe(202);
      const gone = await until(
        () => rig.get(`/api/v1/listings/${id}`),
        (answer) => answer.status === 404,
      );
      expect(gone.status).toBe(404);
    });

    it('a new listing is confirmed by its list (web visibility) and appears', async () => {
      const added = rig.sim.state.addListing({ category: 'residentialLease' });
      const body = await propertyEvent(added.id, true, 'property.create');
      expect((await post(body, signed(body))).status).toBe(202);
      const ids = await until(
        () => allListingIds(rig, 'type=lease'),
        (list) => list.includes(publicListingId(added)),
        10_000,
      );
      expect(ids).toContain(publicListingId(added));
    });

    it('user.update refreshes the staff', async () => {
      const { body: agents } = await rig.get('/api/v1/agents');
      const agent = agents.items[0];
      rig.sim.state.changeUser(agent.id, { fields: { position: 'Head of Sales (pushed)' } });
      const body = JSON.stringify({
        event: 'user.update',
        data: { id: agent.id },
        accountid: rig.sim.key.accounts[0]!.accountId,
        timestamp: new Date().toISOString(),
        itemBodies: [],
      });
      expect((await post(body, signed(body))).status).toBe(202);
      const after = await until(
        () => rig.get('/api/v1/agents'),
        (answer) => JSON.stringify(answer.body).includes('Head of Sales (pushed)'),
      );
      expect(JSON.stringify(after.body)).toContain('Head of Sales (pushed)');
    });
  });

describe('a property for sale and for lease at once: every listing of it follows the push', () => {
  let rig: ListingRig;
  let propertyId: number;
  let saleId: number;
  let leaseId: number;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 30, env: { WEBHOOK_DAILY_REFRESHES: '1000' } });
    const both = rig.sim.state.listings.find((listing) => rig.sim.state.listingsOfProperty(listing.id).length === 2)!;
    expect(both).toBeDefined();
    propertyId = both.id;
    saleId = publicListingId(rig.sim.state.listing(propertyId, 'sale')!);
    leaseId = publicListingId(rig.sim.state.listing(propertyId, 'lease')!);
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    rig.relay.listings.changes.start();
  });
  afterAll(async () => {
    await rig?.close();
  });

  function post(body: string) {
    return fetch(`${rig.relay.url}/hooks/crm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(rig.sim.apiKey, Date.now(), body) },
      body,
    });
  }
  async function event(lives: Array<'sale' | 'lease'>): Promise<string> {
    const itemBodies = await Promise.all(
      lives.map(async (market) => {
        const listing = rig.sim.state.listing(propertyId, market)!;
        const record = {
          ...renderListing(listing, rig.sim.state, rig.sim.origin, 'single'),
          photos: await Promise.all(listing.photos.map((photo) => renderPhoto(photo, rig.sim.origin))),
        };
        return { dataModel: 'Property', data: JSON.stringify(record) };
      }),
    );
    return JSON.stringify({
      event: 'property.update',
      data: { id: propertyId },
      accountid: rig.sim.key.accounts[0]!.accountId,
      timestamp: new Date().toISOString(),
      itemBodies,
    });
  }
  const heading = async (id: number) => (await rig.get(`/api/v1/listings/${id}`)).body.heading as string;
  const status = async (id: number) => (await rig.get(`/api/v1/listings/${id}`)).status;
  const applied = () => rig.relay.listings.changes.drain();

  it('itemBodies with both records update both listings, with zero CRM requests', async () => {
    rig.sim.state.changeListing(propertyId, { fields: { heading: 'Sale, pushed' } }, 'sale');
    rig.sim.state.changeListing(propertyId, { fields: { heading: 'Lease, pushed' } }, 'lease');
    const before = rig.crmRequests();
    expect((await post(await event(['sale', 'lease']))).status).toBe(202);
    await until(
      () => heading(leaseId),
      (value) => value === 'Lease, pushed',
    );
    await applied();
    expect(await heading(saleId)).toBe('Sale, pushed');
    expect(await heading(leaseId)).toBe('Lease, pushed');
    expect(rig.crmRequests()).toBe(before);
  });

  it('only the sale record pushed: the lease, changed too, is refreshed from the lists', async () => {
    rig.sim.state.changeListing(propertyId, { fields: { heading: 'Sale, second push' } }, 'sale');
    rig.sim.state.changeListing(propertyId, { fields: { heading: 'Lease, not pushed' } }, 'lease');
    expect((await post(await event(['sale']))).status).toBe(202);
    await until(
      () => heading(leaseId),
      (value) => value === 'Lease, not pushed',
    );
    await applied();
    expect(await heading(saleId)).toBe('Sale, second push');
    expect(await heading(leaseId)).toBe('Lease, not pushed');
  });

  it('an event without records refreshes every listing of the property from the lists', async () => {
    rig.sim.state.changeListing(propertyId, { fields: { heading: 'Lease, read from the list' } }, 'lease');
    expect((await post(await event([]))).status).toBe(202);
    await until(
      () => heading(leaseId),
      (value) => value === 'Lease, read from the list',
    );
    await applied();
    expect(await heading(leaseId)).toBe('Lease, read from the list');
    expect(await heading(saleId)).toBe('Sale, second push');
  });

  it('the lease taken off the web, named only by the event stream: the lease goes, the sale stays', async () => {
    // Within a second of the change pushed above (the CRM dates events to the second): this one
    // must not be taken for that one.
    rig.sim.state.changeListing(propertyId, { published: false }, 'lease');
    // (The stream's first read also names the changes above: two lives changed per webhook sent.)
    expect((await rig.relay.listings.changes.readStream()).queued).toBeGreaterThanOrEqual(1);
    expect(await status(leaseId)).toBe(404);
    expect(await status(saleId)).toBe(200);
  });

  it('the lease back on the web: a life not cached is confirmed by its list and appears again', async () => {
    rig.sim.state.changeListing(propertyId, { published: true }, 'lease');
    expect((await post(await event(['sale', 'lease']))).status).toBe(202);
    await until(
      () => status(leaseId),
      (value) => value === 200,
    );
    expect(await status(leaseId)).toBe(200);
  });

  it('the lease record leaving its list (withdrawn) removes the lease listing only, with zero CRM requests', async () => {
    await applied();
    rig.sim.state.withdrawListing(propertyId, 'lease');
    const before = rig.crmRequests();
    expect((await post(await event(['sale', 'lease']))).status).toBe(202);
    await until(
      () => status(leaseId),
      (value) => value === 404,
    );
    await applied();
    expect(await status(leaseId)).toBe(404);
    expect(await status(saleId)).toBe(200);
    expect(await heading(saleId)).toBe('Sale, second push');
    expect(rig.crmRequests()).toBe(before);
  });
});

describe('the simulator drops every other webhook; the event stream catches up', () => {
  let rig: ListingRig;

  beforeAll(async () => {
    // Event stream every 3 s: the promised catch-up interval in this test.
    rig = await startListingRig({
      listings: 16,
      seed: 11,
      env: { SYNC_INTERVAL_MINUTES: String(3 / 60), LIST_POLL_MINUTES: '600', CRM_DAILY_LIMIT: '1000000' },
    });
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    rig.sim.state.webhooks.configure({ url: `${rig.relay.url}/hooks/crm`, dropRate: 0.5 });
    rig.relay.listings.changes.start();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('every change reaches the listing API within the promised interval', async () => {
    const promisedMs = rig.relay.listings.plan.freshness.withoutWebhooksSeconds * 1000;
    const ids = [...rig.expectedIds('sale').slice(0, 3), ...rig.expectedIds('lease').slice(0, 1)];
    const lifeOf = (id: number) => rig.simListing(id);
    const latencies: number[] = [];
    await Promise.all(
      ids.map(async (id, index) => {
        await pause(index * 150);
        const heading = `Changed ${index} at ${Date.now()}`;
        const changedAt = Date.now();
        rig.sim.state.changeListing(lifeOf(id).id, { fields: { heading } }, lifeOf(id).market);
        const detail = await until(
          () => rig.get(`/api/v1/listings/${id}`),
          (answer) => answer.body?.heading === heading,
          promisedMs + 2_000,
        );
        expect(detail.body.heading).toBe(heading);
        latencies.push(Date.now() - changedAt);
      }),
    );
    await rig.sim.state.webhooks.settled();
    const counts = rig.sim.state.webhooks.counts;
    expect(counts.dropped).toBe(2);
    expect(counts.sent).toBe(2);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(promisedMs);
    expect(rig.relay.listings.changes.counts.streamReads).toBeGreaterThan(0);
  });
});

describe('a pushed record waiting in the queue', () => {
  it('keeps only the fields the CRM client reads: confidential extras are dropped before it is stored', async () => {
    const { parseCrmWebhook } = await import('../../server/crm/events.ts');
    const record = {
      id: 7,
      saleLifeId: 70,
      status: 'listing',
      heading: 'Kept',
      internalRemarks: 'CANARY-remarks',
      tenantName: 'CANARY-tenant',
      vpa: 'CANARY-vpa',
    };
    const body = Buffer.from(
      JSON.stringify({ event: 'property.update', data: { id: 7 }, itemBodies: [{ dataModel: 'Property', data: JSON.stringify(record) }] }),
    );
    const notice = parseCrmWebhook(body, Date.now());
    expect(notice.records).toHaveLength(1);
    expect(notice.records[0]).toMatchObject({ id: 7, heading: 'Kept', status: 'listing' });
    expect(JSON.stringify(notice.records)).not.toContain('CANARY');
  });
});
