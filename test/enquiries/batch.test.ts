// A shortlist's enquiry is one act (issue 28): "Enquire about these" sends one
// POST /api/v1/enquiries/batch for every kept home, which counts once against the client's limits
// (the default 5 a minute here), and each home still becomes its own lead, exactly once, through
// CRM faults and a retry of the whole batch. On each store, over HTTP to the CRM simulator.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { EnquiryBatchAnswer, EnquiryBatchRequest } from '../../contract/relay-api.ts';
import { listingId } from '../../server/crm/public-fields.ts';
import { ENQUIRY_BATCH_LIMITS } from '../../server/enquiries/schema.ts';
import { clockedRelays, type EnquiryHarness, validEnquiry } from './support.ts';
import { storeVariants } from '../support/store-variants.ts';

/** Relays with the shipped per-client limits: 5 a minute, 30 a day. */
const { crm, useStore, setup, deliverAll } = clockedRelays(
  { listings: 60, seed: 2812 },
  { env: { ENQUIRY_RATE_LIMIT_PER_MINUTE: '5', ENQUIRY_DAILY_LIMIT_PER_CLIENT: '30' } },
);

async function listingIds(harness: EnquiryHarness, count: number): Promise<number[]> {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, published: true, pageSize: 100 });
  const ids = page.items.filter((item) => item.saleLifeId != null).map((item) => listingId('sale', item));
  expect(ids.length).toBeGreaterThanOrEqual(count);
  return ids.slice(0, count);
}

/** The shortlist's form: one question, and each home with its own originalId and its address as the subject. */
function batchFor(ids: number[]): EnquiryBatchRequest {
  const { originalId: _ignored, listingId: _listing, subject: _subject, ...question } = validEnquiry();
  return { ...question, homes: ids.map((listingId) => ({ originalId: randomUUID(), listingId, subject: `Home ${listingId}` })) };
}

const send = (harness: EnquiryHarness, body: object) => request(harness.app).post('/api/v1/enquiries/batch').send(body);

for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    useStore(storeVariant);

    it('12 kept homes, one press: 12 leads at the CRM through faults, no 429 at 5 a minute, each its own; a retry of the batch sends nothing more', async () => {
      const harness = await setup();
      const ids = await listingIds(harness, 12);
      const batch = batchFor(ids);
      crm.sim.state.faults.set([
        { match: 'POST /enquiries', errorRate: 1, errorStatus: 500, times: 2 },
        { match: 'POST /enquiries', rate429: 1, retryAfterSeconds: null, times: 2 },
        { match: 'POST /enquiries', dropResponseRate: 1, times: 2 },
      ]);
      const answer = await send(harness, batch).expect(200);
      expect((answer.body as EnquiryBatchAnswer).results).toEqual(
        batch.homes.map((home) => ({ listingId: home.listingId, originalId: home.originalId, httpStatus: 202, status: 'queued' })),
      );
      // The answer was lost: the widget sends the same batch again. Answered the same, counted as nothing.
      for (let again = 0; again < 6; again++) expect((await send(harness, batch).expect(200)).body).toEqual(answer.body);
      await deliverAll(harness, 30);

      const posted = crm.sim.state.postedEnquiries();
      expect(posted.map((lead) => lead.originalId).sort()).toEqual(batch.homes.map((home) => home.originalId).sort());
      // Each home's lead is about its own listing.
      for (const home of batch.homes) {
        const lead = posted.find((one) => one.originalId === home.originalId)!;
        expect(lead.subject).toContain(`Home ${home.listingId}`);
      }
      expect(harness.service.metrics.rateLimited).toBe(0);
      for (const home of batch.homes) expect((await request(harness.app).get(`/api/v1/enquiries/${home.originalId}`).expect(200)).body.status).toBe('accepted');
    });

    it('counts once against the per-client limit: after a batch of 12, four more requests are taken and the sixth in the minute is refused', async () => {
      const harness = await setup();
      const ids = await listingIds(harness, 17);
      expect((await send(harness, batchFor(ids.slice(0, 12)))).status).toBe(200);
      for (const listingId of ids.slice(12, 16)) await request(harness.app).post('/api/v1/enquiries').send(validEnquiry({ listingId })).expect(202);
      await request(harness.app)
        .post('/api/v1/enquiries')
        .send(validEnquiry({ listingId: ids[16] }))
        .expect(429);
    });

    it('answers each home: a listing it does not know or a bad originalId refuses that home (naming the field), the others are taken', async () => {
      const harness = await setup();
      const ids = await listingIds(harness, 2);
      const batch = batchFor([...ids, 999_999]);
      batch.homes[1]!.originalId = 'not-a-uuid';
      const results = (await send(harness, batch).expect(200)).body.results as EnquiryBatchAnswer['results'];
      expect(results.map((result) => [result.httpStatus, 'fields' in result ? result.fields : undefined])).toEqual([
        [202, undefined],
        [400, { originalId: 'originalId must be a UUID' }],
        [400, { listingId: 'No listing with this id' }],
      ]);
      await deliverAll(harness, 30);
      expect(crm.sim.state.postedEnquiries().map((lead) => lead.originalId)).toEqual([batch.homes[0]!.originalId]);
    });

    it('the question fields are checked for every home (400 naming them); a malformed batch is refused whole', async () => {
      const harness = await setup();
      const ids = await listingIds(harness, 2);
      const results = (await send(harness, { ...batchFor(ids), email: 'not an address' }).expect(200)).body.results as EnquiryBatchAnswer['results'];
      expect(results.map((result) => ('fields' in result ? Object.keys(result.fields ?? {}) : []))).toEqual([['email'], ['email']]);
      const tooMany = batchFor(Array.from({ length: ENQUIRY_BATCH_LIMITS.homes + 1 }, (_, index) => index + 1));
      expect((await send(harness, tooMany).expect(400)).body.fields).toEqual({ homes: `Give at most ${ENQUIRY_BATCH_LIMITS.homes} homes` });
      expect((await send(harness, { ...batchFor(ids), homes: 'all' }).expect(400)).body.fields).toEqual({ homes: 'homes must be a list of homes' });
      expect((await send(harness, { ...batchFor([ids[0]!, ids[0]!]) }).expect(400)).body.fields).toEqual({ homes: 'The same listing is given twice' });
      expect((await send(harness, [1, 2]).expect(400)).body.fields).toBeDefined();
      expect(crm.sim.state.postedEnquiries()).toHaveLength(0);
      expect(await harness.service.outbox.counts()).toMatchObject({ queued: 0, delivered: 0 });
    });
  });
}
