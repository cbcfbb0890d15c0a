// One lead per intent (issue 28): the same person's same lead sent again within a day under a new
// originalId (a reload and resend, a second tab, two relays) reaches the CRM once, and is answered
// as the first was; a day later it is a new lead. The keys that decide it (and the fingerprint and
// the open-home once key) are keyed with the relay's own secret, so a backup of the store confirms
// no guessed address, and erasure removes them. On each store, through HTTP to the CRM simulator.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { AppraisalRequest, InspectionRequest, QuestionRequest } from '../../contract/relay-api.ts';
import { EnquiryOutbox, INTENT_WINDOW_MS } from '../../server/enquiries/outbox.ts';
import { clockAsDatabaseClock } from '../../server/store/shared-database.ts';
import { enquiryFingerprint, enquiryRequestSchema, intentDigest, onceKey } from '../../server/enquiries/schema.ts';
import { clockedRelays, enquiryHarness, saleListing, type EnquiryHarness, validEnquiry } from './support.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { freshDatabase } from '../support/postgres.ts';

const { crm, now, advance, useStore, setup, deliverAll } = clockedRelays({ listings: 16, seed: 28 });

const post = async (harness: EnquiryHarness, body: object, status = 202) => {
  const response = await request(harness.app).post('/api/v1/enquiries').send(body);
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response;
};
const statusOf = async (harness: EnquiryHarness, originalId: string) =>
  (await request(harness.app).get(`/api/v1/enquiries/${originalId}`).expect(200)).body.status as string;
/** The leads the CRM holds whose message is `message` (a lead's own words). */
const arrived = (message: string) => crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.body?.includes(message));

/** A 500, a 429 and an answer dropped after the CRM stored the lead, one each, on the next POSTs. */
function crmFaults(): void {
  crm.sim.state.faults.set([
    { match: 'POST /enquiries', errorRate: 1, errorStatus: 500, times: 1 },
    { match: 'POST /enquiries', rate429: 1, retryAfterSeconds: null, times: 1 },
    { match: 'POST /enquiries', dropResponseRate: 1, times: 1 },
  ]);
}

const saleListingId = async (harness: EnquiryHarness): Promise<number> => (await saleListing(harness)).id!;

/** The same lead as a reload or a second tab sends it: a new originalId, the form's timing measured again. */
const resent = <T extends { originalId: string; elapsedMs: number }>(body: T, changes: Partial<T> = {}): T => ({
  ...body,
  originalId: randomUUID(),
  elapsedMs: body.elapsedMs + 4_321,
  ...changes,
});

const futureTime = (days: number, hour: number) => new Date(Math.floor(now() / 86_400_000 + days) * 86_400_000 + hour * 3_600_000).toISOString();

for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    useStore(storeVariant);

    it('a reload-and-resend within a day is one lead: answered as the first, its status read answered, sent once through CRM faults', async () => {
      const harness = await setup();
      const first = validEnquiry({ listingId: await saleListingId(harness) });
      // A reload: a new originalId, the same words (spaced differently), the address in other letter case.
      const again = resent(first, { email: 'Jane@Example.COM', message: `  ${first.message.replace(' ', '\n')} ` });
      expect((await post(harness, first)).body).toEqual({ originalId: first.originalId, status: 'queued' });
      expect((await post(harness, again)).body).toEqual({ originalId: again.originalId, status: 'queued' });
      expect(await statusOf(harness, again.originalId)).toBe('accepted');
      // The repeat's own retry (its answer lost) is answered again; other content under its id is a conflict.
      await post(harness, again);
      await post(harness, { ...again, message: 'Something else entirely' }, 409);

      crmFaults();
      await deliverAll(harness);
      expect(arrived(first.message)).toHaveLength(1);
      expect(arrived(first.message)[0]!.originalId).toBe(first.originalId);
      expect(await statusOf(harness, first.originalId)).toBe('accepted');
      expect(await statusOf(harness, again.originalId)).toBe('accepted');
      expect(await harness.service.outbox.counts()).toMatchObject({ queued: 0, delivered: 1, spam: 0 });
    });

    it('the same lead sent again a day later is a new lead; just under a day it is not', async () => {
      const harness = await setup();
      const first = validEnquiry({ listingId: await saleListingId(harness) });
      await post(harness, first);
      await deliverAll(harness);
      advance(INTENT_WINDOW_MS - 60_000);
      const sameDay = resent(first);
      await post(harness, sameDay);
      await deliverAll(harness);
      expect(arrived(first.message)).toHaveLength(1);
      advance(60_000);
      const nextDay = resent(first);
      await post(harness, nextDay);
      await deliverAll(harness);
      expect(arrived(first.message).map((lead) => lead.originalId)).toEqual([first.originalId, nextDay.originalId]);
      // The later lead holds the intent now: sent again at once, it is one with the later one.
      const soonAfter = resent(first);
      await post(harness, soonAfter);
      await deliverAll(harness);
      expect(arrived(first.message)).toHaveLength(2);
      expect(await statusOf(harness, soonAfter.originalId)).toBe('accepted');
    });

    it('two tabs sending the same lead at the same moment: one lead', async () => {
      const harness = await setup();
      const first = validEnquiry({ listingId: await saleListingId(harness) });
      const tabs = [first, resent(first), resent(first), resent(first)];
      const answers = await Promise.all(tabs.map((body) => request(harness.app).post('/api/v1/enquiries').send(body)));
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
      await deliverAll(harness);
      expect(arrived(first.message)).toHaveLength(1);
      for (const tab of tabs) expect(await statusOf(harness, tab.originalId)).toBe('accepted');
    });

    it('what "the same" is, per kind: another message, listing or person is another lead; an appraisal is its address, an inspection its times', async () => {
      const harness = await setup();
      const listingId = await saleListingId(harness);
      const question = validEnquiry({ listingId });
      await post(harness, question);
      await post(harness, resent(question, { fullName: 'Jane Q. Citizen', mobile: '0413 000 111', subject: 'Another subject' }));
      await post(harness, resent(question, { message: `${question.message} And the garage?` }));
      await post(harness, resent(question, { email: 'sam@example.com' }));

      const appraisal: AppraisalRequest = {
        kind: 'appraisal',
        originalId: randomUUID(),
        fullName: 'Priya Raman',
        email: 'priya@example.com',
        elapsedMs: 20_000,
        street: '12 Wattle Street',
        suburb: 'Hawthorn',
        postcode: '3122',
        message: 'Thinking of selling in spring.',
      };
      await post(harness, appraisal);
      await post(harness, resent(appraisal, { street: '12  wattle street', suburb: 'HAWTHORN', bedrooms: 3 }));
      await post(harness, resent(appraisal, { street: '14 Wattle Street' }));

      const times = [futureTime(5, 1), futureTime(6, 2)];
      const inspection: InspectionRequest = {
        kind: 'inspection',
        originalId: randomUUID(),
        fullName: 'Li Wei',
        email: 'li@example.com',
        elapsedMs: 9_000,
        listingId,
        preferredTimes: times,
      };
      await post(harness, inspection);
      await post(harness, resent(inspection, { preferredTimes: [...times].reverse() }));
      await post(harness, resent(inspection, { preferredTimes: [times[0]!] }));

      await deliverAll(harness);
      // Question: the first, another message, another person. Appraisal: two addresses. Inspection: two sets of times.
      expect(await harness.service.outbox.counts()).toMatchObject({ delivered: 3 + 2 + 2, queued: 0 });
      expect(crm.sim.state.postedEnquiries()).toHaveLength(7);
    });

    it('the store holds no unkeyed digest of an address, and erasure removes the keys', async () => {
      const harness = await setup();
      const listingId = await saleListingId(harness);
      const body: QuestionRequest = validEnquiry({ listingId, email: 'guessable.person@example.com' });
      await post(harness, body);
      const repeat = resent(body);
      await post(harness, repeat);
      await deliverAll(harness);
      const parsed = enquiryRequestSchema.parse(body);
      // What anyone with a backup could compute from a guessed address and the lead's other fields.
      const guessable = [enquiryFingerprint(parsed), enquiryFingerprint(enquiryRequestSchema.parse(repeat)), intentDigest(parsed)!];
      const openHome = enquiryRequestSchema.parse({ kind: 'open-home', ...body, originalId: randomUUID(), openHomeId: 4, attendees: 1 });
      const keys = await harness.service.outbox.keys();
      await harness.service.outbox.accept({ enquiry: openHome, fingerprint: keys.fingerprint(openHome), acceptedAt: now(), onceKey: keys.onceKey(openHome) });
      guessable.push(onceKey(openHome)!);

      const rows = JSON.stringify([await rawRows(harness.store, 'enquiry_outbox'), await rawRows(harness.store, 'enquiry_repeats')]);
      expect(rows).toContain('guessable.person@example.com'); // the payload, until erasure
      for (const digest of guessable) expect(rows).not.toContain(digest);
      const secret = (await rawRows(harness.store, 'relay_secrets'))[0]!.secret as string;
      if (storeVariant.postgresServer === undefined) {
        const files = [harness.store.file, `${harness.store.file}-wal`].filter(existsSync).map((file) => readFileSync(file).toString('latin1'));
        for (const digest of guessable) for (const file of files) expect(file).not.toContain(digest);
      }
      // The secret is the relay's own: a new one per store, never in an answer.
      expect(secret).toMatch(/^[A-Za-z0-9+/]{43}=$/);

      const outbox = harness.service.outbox;
      expect(await outbox.eraseDelivered(now() + 1, now() + 1)).toBe(1);
      await outbox.markDelivered(openHome.originalId, now(), 1, false);
      expect(await outbox.eraseDelivered(now() + 1, now() + 1)).toBe(1);
      const erased = await rawRows(harness.store, 'enquiry_outbox');
      expect(erased.map((row) => [row.payload, row.once_key, row.intent_key])).toEqual([
        [null, null, null],
        [null, null, null],
      ]);
      // The answers stay: a retry of either originalId is still answered 202, and its status read too.
      await post(harness, body);
      await post(harness, repeat);
      expect(await statusOf(harness, repeat.originalId)).toBe('accepted');
    });

    it('rows stored with unkeyed digests before the upgrade are keyed in place: their retries still match, no bare digest is left', async () => {
      const harness = await setup();
      const listingId = await saleListingId(harness);
      const older = validEnquiry({ listingId });
      const erasedOne = validEnquiry({ listingId });
      const parsed = enquiryRequestSchema.parse(older);
      const parsedErased = enquiryRequestSchema.parse(erasedOne);
      // As the relay before this change stored them (its own outbox, before the secret is read).
      const legacy = new EnquiryOutbox(harness.store, { clock: clockAsDatabaseClock(now) });
      await legacy.accept({ enquiry: parsed, fingerprint: enquiryFingerprint(parsed), acceptedAt: now() });
      await legacy.accept({ enquiry: parsedErased, fingerprint: enquiryFingerprint(parsedErased), acceptedAt: now() });
      await legacy.markDelivered(erasedOne.originalId, now(), 7, false);
      await legacy.eraseDelivered(now(), now());

      await post(harness, older);
      await post(harness, erasedOne);
      await post(harness, { ...older, message: 'Other words' }, 409);
      const rows = await rawRows(harness.store, 'enquiry_outbox');
      expect(rows.map((row) => String(row.fingerprint).slice(0, 3))).toEqual(['k1:', 'k1:']);
      expect(JSON.stringify(rows)).not.toContain(enquiryFingerprint(parsedErased));
    });
  });
}

const postgres = storeVariants()[1]!;
describe.skipIf(postgres.skipped)('two relays on one PostgreSQL outbox', () => {
  it('share one secret, and the same lead sent to both at once is one lead', async () => {
    const databaseUrl = await freshDatabase(postgres.postgresServer!, 'estate_intent');
    const { baseUrl, apiKey, accessToken } = crm.sim;
    const relays = await Promise.all([0, 1].map(() => enquiryHarness({ crm: { baseUrl, apiKey, accessToken }, targets: 'crm', databaseUrl })));
    try {
      const listingId = await saleListingId(relays[0]!);
      const first = validEnquiry({ listingId });
      const bodies = [first, resent(first), resent(first), resent(first)];
      const answers = await Promise.all(
        bodies.map((body, index) =>
          request(relays[index % 2]!.app)
            .post('/api/v1/enquiries')
            .send(body),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
      await Promise.all(relays.map((relay) => relay.service.worker.drain()));
      expect(arrived(first.message)).toHaveLength(1);
      const [one, two] = await Promise.all(relays.map((relay) => relay.service.outbox.keys()));
      expect(one!.keyed('x')).toBe(two!.keyed('x'));
    } finally {
      for (const relay of relays) relay.close();
    }
  });
});
