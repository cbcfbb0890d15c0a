import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListingRig, type ListingRig } from './rig.ts';
import { tablesOf } from '../../server/store/tables.ts';

const streamReads = (rig: ListingRig) => rig.sim.state.getCounters().requestsByEndpoint['GET /eventStream'] ?? 0;
/** A change to the life of a property behind a public listing id. */
const change = (rig: ListingRig, listingId: number, what: Parameters<ListingRig['sim']['state']['changeListing']>[1]) =>
  rig.sim.state.changeListing(rig.simListing(listingId).id, what, rig.simListing(listingId).market);
const cursorIn = (rig: ListingRig) =>
  tablesOf(rig.relay.store).prepare("SELECT value FROM crm_event_stream_state WHERE key = 'cursor'").pluck().get() as string | undefined;

describe('the event stream as the safety net', () => {
  let rig: ListingRig;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 20, seed: 5 });
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('first read starts at the last sweep (eventsSince) and refreshes what no webhook announced', async () => {
    const [id] = rig.expectedIds('sale');
    change(rig, id!, { fields: { heading: 'Caught by the stream' } });
    const reads = streamReads(rig);
    const result = await rig.relay.listings.changes.readStream();
    expect(result.events).toBe(1);
    expect(result.queued).toBe(1);
    expect(streamReads(rig) - reads).toBe(1);
    expect((await rig.get(`/api/v1/listings/${id}`)).body.heading).toBe('Caught by the stream');
    expect(cursorIn(rig)).toEqual(expect.any(String));
  });

  it('a change a webhook already applied costs the stream read only', async () => {
    rig.sim.state.webhooks.configure({ url: `${rig.relay.url}/hooks/crm`, dropRate: 0 });
    try {
      const [, id] = rig.expectedIds('sale');
      change(rig, id!, { fields: { heading: 'Pushed first' } });
      await rig.sim.state.webhooks.settled();
      await rig.relay.listings.changes.drain();
      expect((await rig.get(`/api/v1/listings/${id}`)).body.heading).toBe('Pushed first');
      const before = rig.crmRequests();
      const result = await rig.relay.listings.changes.readStream();
      expect(result).toMatchObject({ events: 1, queued: 0 });
      expect(rig.crmRequests() - before).toBe(1);
    } finally {
      rig.sim.state.webhooks.configure({ url: null });
    }
  });

  it('the cursor survives a restart: the next process reads on from it, nothing twice', async () => {
    const cursor = cursorIn(rig);
    const restarted = await rig.startAnotherRelay();
    try {
      expect(await restarted.listings.changes.readStream()).toMatchObject({ events: 0, queued: 0 });
      const id = rig.expectedIds('lease')[0]!;
      change(rig, id, { fields: { heading: 'After the restart' } });
      expect(await restarted.listings.changes.readStream()).toMatchObject({ events: 1, queued: 1 });
      const detail = await fetch(`${restarted.url}/api/v1/listings/${id}`);
      expect(((await detail.json()) as { heading: string }).heading).toBe('After the restart');
      const moved = tablesOf(restarted.store).prepare("SELECT value FROM crm_event_stream_state WHERE key = 'cursor'").pluck().get();
      expect(moved).not.toBe(cursor);
    } finally {
      await restarted.close();
    }
  });

  it('an expired cursor falls back to eventsSince from the last read, losing nothing', async () => {
    // Fresh state for this relay: the other process moved the shared file's cursor on.
    const id = rig.expectedIds('sale')[2]!;
    tablesOf(rig.relay.store)
      .prepare("INSERT INTO crm_event_stream_state (key, value) VALUES ('cursor', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
      .run(Buffer.from(`1.${Date.now() - 40 * 86_400_000}`).toString('base64url'));
    change(rig, id, { fields: { heading: 'Despite the expired cursor' } });
    const result = await rig.relay.listings.changes.readStream();
    expect(result.queued).toBeGreaterThanOrEqual(1);
    expect((await rig.get(`/api/v1/listings/${id}`)).body.heading).toBe('Despite the expired cursor');
    expect(Buffer.from(cursorIn(rig)!, 'base64url').toString()).not.toMatch(/^1\./);
  });

  it('a listing withdrawn in the CRM and named only by the stream leaves the API', async () => {
    const id = rig.expectedIds('sale').at(-1)!;
    rig.sim.state.withdrawListing(rig.simListing(id).id, rig.simListing(id).market);
    await rig.relay.listings.changes.readStream();
    expect((await rig.get(`/api/v1/listings/${id}`)).status).toBe(404);
  });
});
