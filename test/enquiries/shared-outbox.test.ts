// Two relays on one PostgreSQL outbox (DATABASE_URL): each delivery worker claims rows with
// FOR UPDATE SKIP LOCKED for a lease, so no enquiry reaches the CRM twice, and a relay that dies
// holding a claim has its rows taken over once the lease lapses (looked up before any re-post).
import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { describe, expect, inject, it } from 'vitest';
import { toAddEnquiry } from '../../server/crm/lead-sink.ts';
import { databaseClock } from '../../server/store/shared-database.ts';
import { cuttableProxy, freshDatabase } from '../support/postgres.ts';
import { destinationOf, validEnquiry, type EnquiryHarness, type HarnessOptions, simulatedCrm } from './support.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const crm = simulatedCrm({ listings: 12, seed: 5 });

/** One relay's enquiry service on the shared database: its own DATA_DIR, CRM client and worker. */
async function relayOn(databaseUrl: string, options: HarnessOptions = {}): Promise<EnquiryHarness> {
  return crm.harness({
    databaseUrl,
    ...options,
    settings: { retryBaseMs: 1_000, retryMaxMs: 4_000, reconcileDelayMs: 0, concurrency: 3, ...options.settings },
  });
}

async function saleListingId(harness: EnquiryHarness): Promise<number> {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
  return page.items.find((item) => item.saleLifeId != null)!.id;
}

const postedIds = () => crm.sim.state.postedEnquiries().map((enquiry) => enquiry.originalId);

describe.skipIf(skipped)(`two relays on one PostgreSQL outbox${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  const server = () => (postgres as { url: string }).url;

  it('both deliver, and every enquiry accepted by either reaches the CRM exactly once', async () => {
    const url = await freshDatabase(server(), 'estate_shared');
    const [first, second] = [await relayOn(url), await relayOn(url)];
    const listingId = await saleListingId(first);
    const bodies = Array.from({ length: 30 }, () => validEnquiry({ listingId }));
    // Accepted through either relay, as a load balancer would spread them.
    for (const [index, body] of bodies.entries())
      await request((index % 2 ? second : first).app)
        .post('/api/v1/enquiries')
        .send(body)
        .expect(202);
    // Slow enough that both workers' claims overlap in time.
    crm.sim.state.faults.set([{ match: 'POST /enquiries', latencyMs: 40 }]);

    const deliveredBy = { first: 0, second: 0 };
    const countDeliveries = (harness: EnquiryHarness, key: keyof typeof deliveredBy) => {
      const markDelivered = harness.service.outbox.markDelivered.bind(harness.service.outbox);
      harness.service.outbox.markDelivered = async (...args) => {
        const moved = await markDelivered(...args);
        if (moved) deliveredBy[key]++;
        return moved;
      };
    };
    countDeliveries(first, 'first');
    countDeliveries(second, 'second');
    await Promise.all([first.service.worker.drain(), second.service.worker.drain(), second.service.worker.drain()]);

    const ids = postedIds();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(bodies.map((body) => body.originalId).sort());
    expect(deliveredBy.first + deliveredBy.second).toBe(30);
    expect(deliveredBy.first).toBeGreaterThan(0);
    expect(deliveredBy.second).toBeGreaterThan(0);
    expect(await first.service.outbox.counts()).toMatchObject({ queued: 0, delivered: 30 });
  });

  it("a dead relay's claim is left alone until its lease lapses, then taken over: looked up first, posted only if the CRM lacks it", async () => {
    const url = await freshDatabase(server(), 'estate_shared');
    let clock = Date.now();
    const now = () => clock;
    const leaseMs = 60_000;
    const dying = await relayOn(url, { now, settings: { claimLeaseMs: leaseMs } });
    const survivor = await relayOn(url, { now, settings: { claimLeaseMs: leaseMs } });
    const listingId = await saleListingId(dying);
    const landed = validEnquiry({ listingId });
    const lost = validEnquiry({ listingId, message: 'This one never reached the CRM' });
    for (const body of [landed, lost]) await request(dying.app).post('/api/v1/enquiries').send(body).expect(202);

    // The first relay claims both and marks them sending, one POST lands, and the process dies.
    const claimed = await dying.service.outbox.claimDue(clock, 10, leaseMs);
    expect(claimed.map((entry) => entry.originalId)).toEqual([landed.originalId, lost.originalId]);
    for (const body of [landed, lost]) expect(await dying.service.outbox.startSending(body.originalId, clock, leaseMs)).toBe(true);
    const entry = (await dying.service.outbox.get(landed.originalId))!;
    await dying.crm.addEnquiry(toAddEnquiry(entry.payload!, destinationOf(entry.target), { source: 'OFFICEWEBSITE', acceptedAt: new Date(entry.acceptedAt) }));
    expect(postedIds()).toEqual([landed.originalId]);

    // Within the lease the other relay leaves them alone.
    clock += leaseMs / 2;
    await survivor.service.worker.drain();
    expect(postedIds()).toEqual([landed.originalId]);
    expect(await survivor.service.outbox.counts()).toMatchObject({ queued: 2, delivered: 0 });

    // The lease lapses: the survivor takes both over. Claimed by it, the stalled relay may no longer send.
    clock += leaseMs / 2 + 1;
    expect((await survivor.service.outbox.claimDue(clock, 10, leaseMs)).length).toBe(2);
    expect(await dying.service.outbox.startSending(lost.originalId, clock, leaseMs)).toBe(false);
    await survivor.service.worker.drain();

    expect(await survivor.service.outbox.get(landed.originalId)).toMatchObject({ status: 'delivered', foundByReconcile: true });
    expect(await survivor.service.outbox.get(lost.originalId)).toMatchObject({ status: 'delivered', foundByReconcile: false });
    expect(postedIds().sort()).toEqual([landed.originalId, lost.originalId].sort());
    expect(crm.sim.state.counters.requestsByEndpoint['POST /enquiries']).toBe(2);
  });

  // Issue 24: relays' clocks need not agree. Relay B's clock is 180 s ahead (past the 2-minute
  // claim lease), the CRM takes 3 s to answer: B must not take A's live claims (which it did when
  // claims were compared on each relay's clock: every enquiry reached the CRM twice).
  it("clock skew: a relay whose clock is 180 s ahead takes none of another relay's live claims, and every enquiry reaches the CRM once", async () => {
    const url = await freshDatabase(server(), 'estate_shared');
    const skewMs = 180_000;
    const settings = { concurrency: 4 };
    const first = await relayOn(url, { now: Date.now, databaseClock, crmTimeoutMs: 15_000, settings });
    const ahead = await relayOn(url, { now: () => Date.now() + skewMs, databaseClock, crmTimeoutMs: 15_000, settings });
    const listingId = await saleListingId(first);
    const bodies = Array.from({ length: 4 }, () => validEnquiry({ listingId }));
    for (const body of bodies) await request(first.app).post('/api/v1/enquiries').send(body).expect(202);
    crm.sim.state.faults.set([{ match: 'POST /enquiries', latencyMs: 3_000 }]);

    // Relay A claims all four and its POSTs are in the CRM's hands...
    const delivering = first.service.worker.drain();
    for (let waited = 0; waited < 10_000; waited += 50) {
      const rows = await first.service.outbox.list();
      if (rows.every((row) => row.sendingSince !== null)) break;
      await sleep(50);
    }
    expect((await first.service.outbox.list()).every((row) => row.sendingSince !== null)).toBe(true);
    // ...while relay B, its clock past A's claims, looks for work: nothing is free.
    await ahead.service.worker.drain();
    await delivering;

    // Each in the CRM's holding area once.
    expect(postedIds().sort()).toEqual(bodies.map((body) => body.originalId).sort());
    expect(crm.sim.state.counters.requestsByEndpoint['POST /enquiries']).toBe(4);
    expect(await first.service.outbox.counts()).toMatchObject({ queued: 0, delivered: 4 });
  });

  it('clock skew: a retry scheduled by a relay whose clock is 180 s ahead falls due on the database clock, for the other relay too', async () => {
    const url = await freshDatabase(server(), 'estate_shared');
    const skewMs = 180_000;
    const settings = { retryBaseMs: 200, retryMaxMs: 400 };
    const first = await relayOn(url, { now: Date.now, databaseClock, settings });
    const ahead = await relayOn(url, { now: () => Date.now() + skewMs, databaseClock, settings });
    const listingId = await saleListingId(first);
    const body = validEnquiry({ listingId });
    await request(ahead.app).post('/api/v1/enquiries').send(body).expect(202);
    // Accepted by B, due at once on the database's clock: A would take it now.
    expect(Math.abs((await first.service.outbox.get(body.originalId))!.nextAttemptAt - Date.now())).toBeLessThan(5_000);
    // B's one attempt gets a 500: it schedules a retry 100-200 ms on.
    crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 500, times: 1 }]);
    await ahead.service.worker.drain();
    const waiting = (await first.service.outbox.get(body.originalId))!;
    expect(waiting).toMatchObject({ status: 'queued', attempts: 1 });
    // On the database's clock, not 180 s into A's future.
    expect(Math.abs(waiting.nextAttemptAt - Date.now())).toBeLessThan(5_000);

    await sleep(500);
    await first.service.worker.drain();
    expect(await first.service.outbox.get(body.originalId)).toMatchObject({ status: 'delivered' });
    expect(postedIds()).toEqual([body.originalId]);
  });

  it('PostgreSQL going away: new enquiries get 503 with Retry-After, nothing crashes; once it is back they are taken and delivered', async () => {
    const proxy = await cuttableProxy(new URL(await freshDatabase(server(), 'estate_shared')));
    try {
      const relay = await relayOn(proxy.url);
      const listingId = await saleListingId(relay);
      const before = validEnquiry({ listingId });
      await request(relay.app).post('/api/v1/enquiries').send(before).expect(202);

      await proxy.cut();
      const during = validEnquiry({ listingId });
      const refused = await request(relay.app).post('/api/v1/enquiries').send(during).expect(503);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(5);
      expect(refused.body.error).toBe('unavailable');
      await request(relay.app).get(`/api/v1/enquiries/${before.originalId}`).expect(503);
      await relay.service.worker.drain(); // logs and backs off; throws nothing
      expect(postedIds()).toEqual([]);

      await proxy.restore();
      let status = 503;
      for (let waited = 0; status === 503 && waited < 15_000; waited += 250) {
        status = (await request(relay.app).post('/api/v1/enquiries').send(during)).status;
        if (status === 503) await sleep(250);
      }
      expect(status).toBe(202);
      await relay.service.worker.drain();
      expect(postedIds().sort()).toEqual([before.originalId, during.originalId].sort());
    } finally {
      await proxy.close();
    }
  });
});
