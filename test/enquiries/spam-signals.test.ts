import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import type { OpenHomeRegistrationRequest } from '../../contract/relay-api.ts';
import type { SimEnquiry } from '../../crm-sim/model.ts';
import type { RelayStatus } from '../../server/ops/status.ts';
import { SharedDatabase } from '../../server/store/shared-database.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { clockedRelays, relayCli, saleListing, validEnquiry, type EnquiryHarness } from './support.ts';

// Issue 28: a guess never loses a lead, and the public status tells nothing about anyone else.
// A lead sent too fast (a weak signal: autofill does that) reaches the CRM marked for the agent; one
// whose honeypot is filled in (a strong signal) is kept whole in the quarantine, which the operator
// lists and releases with the relay CLI (released once, delivered once), counted in `status` and
// /metrics, and erased after LEAD_QUARANTINE_DAYS. The status route reads the same for every lead
// it holds, whatever its verdict. Real SQLite and PostgreSQL, real HTTP to the CRM simulator.

const { crm, now, advance, useStore, setup, deliverAll } = clockedRelays({ listings: 16, seed: 28 });
const DAY = 24 * 60 * 60_000;

async function post(harness: EnquiryHarness, body: object) {
  const response = await request(harness.app).post('/api/v1/enquiries').send(body);
  if (response.status !== 202) throw new Error(`expected 202, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as unknown;
}

const posted = (originalId: string): SimEnquiry[] => crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === originalId);
const spamSignal = (enquiry: SimEnquiry) => enquiry.metaData.find((entry) => entry.key === 'spamSignal')?.value;

const cli = relayCli;

/** An open home of a listing for sale that starts more than an hour from the relay's now. */
async function comingOpenHome(harness: EnquiryHarness) {
  const list = await harness.crm.listOpenHomes({ startingAfter: new Date(now() + 60 * 60_000), pageSize: 100 });
  const openHome = list.items.find((item) => item.property?.saleLifeId != null && item.isRental !== true && Date.parse(item.start!) > now() + 3600_000)!;
  expect(openHome).toBeDefined();
  return openHome;
}

/** A registration for `openHome` from `email` (a new originalId each). */
const registrationFor =
  (openHome: { id: number; property?: { id?: number | null } | null }) =>
  (email: string, changes: Partial<OpenHomeRegistrationRequest> = {}): OpenHomeRegistrationRequest => ({
    kind: 'open-home',
    originalId: randomUUID(),
    fullName: 'Priya Raman',
    email,
    mobile: '0412 345 678',
    consent: true,
    website: '',
    elapsedMs: 30_000,
    listingId: openHome.property!.id!,
    openHomeId: openHome.id,
    attendees: 2,
    ...changes,
  });

const statusOf = async (harness: EnquiryHarness, originalId: string) => (await request(harness.app).get(`/api/v1/enquiries/${originalId}`)).body as unknown;

for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    useStore(storeVariant);

    it('an enquiry sent too fast (autofill) reaches the CRM once, marked for the agent in its metaData, and is counted', async () => {
      const harness = await setup();
      const listing = await saleListing(harness);
      const fast = validEnquiry({ listingId: listing.id, elapsedMs: 800 });
      const human = validEnquiry({ listingId: listing.id, email: 'sam@example.com' });
      await post(harness, fast);
      await post(harness, human);
      crm.sim.state.faults.set([{ match: 'POST /enquiries', dropResponseRate: 1, times: 1 }]);
      await deliverAll(harness);

      const [held, ...more] = posted(fast.originalId);
      expect(more).toEqual([]);
      expect(held).toMatchObject({ email: 'jane@example.com', saleLifeId: listing.saleLifeId });
      expect(spamSignal(held!)).toMatch(/^too_fast: sent 0\.8 s after the form was shown;/);
      expect(spamSignal(posted(human.originalId)[0]!)).toBeUndefined();
      expect(await harness.service.outbox.get(fast.originalId)).toMatchObject({ status: 'delivered', spamReason: 'too_fast' });
      const metrics = await request(harness.app).get('/metrics').expect(200);
      expect(metrics.text).toContain('estate_enquiries_spam_total{reason="too_fast"} 1');
      expect(metrics.text).toContain('estate_enquiries_delivered_total 2');
    });

    it('a filled honeypot is kept whole in the quarantine: listed by the CLI, counted in status and /metrics, released once, then in the CRM exactly once, marked', async () => {
      const harness = await setup();
      const listing = await saleListing(harness);
      const bot = validEnquiry({ listingId: listing.id, website: 'http://spam.example', fullName: 'Quinn Quarantine', email: 'quinn@example.com' });
      const human = validEnquiry({ listingId: listing.id });
      // Answered as any lead is.
      expect(await post(harness, bot)).toEqual({ originalId: bot.originalId, status: 'queued' });
      await post(harness, human);
      await deliverAll(harness);
      expect(posted(bot.originalId)).toEqual([]);
      expect(posted(human.originalId)).toHaveLength(1);
      const kept = (await harness.service.outbox.get(bot.originalId))!;
      expect(kept).toMatchObject({ status: 'spam', spamReason: 'honeypot', erasedAt: null });
      expect(kept.payload).toMatchObject({ fullName: 'Quinn Quarantine', email: 'quinn@example.com', message: bot.message, website: 'http://spam.example' });

      // The operator sees it: the CLI's list (no personal data), status, /metrics.
      const listed = await cli(harness, 'outbox', 'quarantine');
      expect(listed.code).toBe(0);
      expect(listed.out).toContain('0 spam, 1 quarantined');
      expect(listed.out).toMatch(new RegExp(`${bot.originalId}\\s+quarantined`));
      expect(listed.out).not.toContain(human.originalId);
      expect(listed.out).not.toMatch(/Quinn|quinn@example\.com|0412/);
      const json = JSON.parse((await cli(harness, 'outbox', 'quarantine', '--json')).out) as Array<Record<string, unknown>>;
      expect(json).toEqual([expect.objectContaining({ originalId: bot.originalId, status: 'quarantined', spamReason: 'honeypot', personalDataErased: false })]);
      // `status` counts the outbox in the store the relay keeps it in (PostgreSQL with DATABASE_URL,
      // where a relay starting makes the registry of relays `status` also reads).
      if (harness.env.DATABASE_URL) await (await SharedDatabase.open(harness.env.DATABASE_URL, { poolSize: 1 })).close();
      const status = JSON.parse((await cli(harness, 'status', '--json')).out) as RelayStatus;
      expect(status.outbox).toMatchObject({ queued: 0, delivered: 1, spam: 0, quarantined: 1 });
      expect((await cli(harness, 'status')).out).toMatch(/Enquiry outbox\s+0 queued, 1 delivered, 0 dead, 0 spam, 1 quarantined/);
      const metrics = await request(harness.app).get('/metrics').expect(200);
      expect(metrics.text).toContain('estate_enquiry_outbox{status="quarantined"} 1');
      expect(metrics.text).toContain('estate_enquiry_outbox{status="spam"} 0');
      expect(metrics.text).toContain('estate_enquiries_spam_total{reason="honeypot"} 1');

      // Two operators release it at once: one queues it, the other hears it is not in the quarantine.
      const releases = await Promise.all([cli(harness, 'outbox', 'release', bot.originalId), cli(harness, 'outbox', 'release', bot.originalId.toUpperCase())]);
      expect(releases.map((release) => release.code).sort()).toEqual([0, 1]);
      expect(releases.find((release) => release.code === 1)!.err).toContain('not in the quarantine');
      expect((await cli(harness, 'outbox', 'quarantine')).out).toContain('No enquiries in the quarantine.');
      // The CRM drops the answer after storing it: looked up, not posted again.
      crm.sim.state.faults.set([{ match: 'POST /enquiries', dropResponseRate: 1, times: 1 }]);
      await deliverAll(harness);
      await deliverAll(harness);
      const [held, ...more] = posted(bot.originalId);
      expect(more).toEqual([]);
      expect(held).toMatchObject({ fullName: 'Quinn Quarantine', email: 'quinn@example.com', saleLifeId: listing.saleLifeId });
      expect(spamSignal(held!)).toMatch(/^honeypot: .*released it from quarantine/);
      expect(await harness.service.outbox.get(bot.originalId)).toMatchObject({ status: 'delivered', spamReason: 'honeypot' });
      // Released again later: nothing more is sent.
      expect((await cli(harness, 'outbox', 'release', bot.originalId)).code).toBe(1);
      await deliverAll(harness);
      expect(posted(bot.originalId)).toHaveLength(1);
    });

    it('a released open-home registration is once per person and open home: one that repeats a registration taken outside the quarantine is recorded as it and not sent; one released first holds the place', async () => {
      const harness = await setup();
      const registration = registrationFor(await comingOpenHome(harness));
      // The bot-like copy came first (autofill filled the honeypot), then the person registered again.
      const caught = registration('priya.raman@example.com', { website: 'http://spam.example' });
      const real = registration('PRIYA.Raman@example.com');
      await post(harness, caught);
      await post(harness, real);
      await deliverAll(harness);
      const released = await cli(harness, 'outbox', 'release', caught.originalId);
      expect(released.code).toBe(0);
      expect(released.out).toContain('not sent again');
      await deliverAll(harness);
      expect(posted(real.originalId)).toHaveLength(1);
      expect(posted(caught.originalId)).toEqual([]);
      expect(await harness.service.outbox.get(caught.originalId)).toMatchObject({ status: 'spam', spamReason: 'repeat_registration', payload: null });
      expect(await statusOf(harness, caught.originalId)).toEqual({ originalId: caught.originalId, status: 'accepted' });
      expect((await cli(harness, 'outbox', 'release', caught.originalId)).code).toBe(1);

      // Released before the person registers again: the released one holds the place, the later one is the repeat.
      const first = registration('ravi@example.com', { website: 'http://spam.example' });
      const later = registration('Ravi@Example.com');
      await post(harness, first);
      expect((await cli(harness, 'outbox', 'release', first.originalId)).out).toContain('released from the quarantine and queued');
      await post(harness, later);
      await deliverAll(harness);
      expect(posted(first.originalId)).toHaveLength(1);
      expect(posted(later.originalId)).toEqual([]);
    });

    it('a released enquiry the same person also sent outside the quarantine within a day is one lead: recorded as that one, not sent again', async () => {
      const harness = await setup();
      const listing = await saleListing(harness);
      const caught = validEnquiry({ listingId: listing.id, website: 'http://spam.example', email: 'quinn@example.com' });
      const again = { ...caught, originalId: randomUUID(), website: '', email: 'Quinn@Example.com' };
      await post(harness, caught);
      await post(harness, again);
      await deliverAll(harness);
      const released = await cli(harness, 'outbox', 'release', caught.originalId);
      expect(released.code).toBe(0);
      expect(released.out).toContain('not sent again');
      await deliverAll(harness);
      expect(crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.body === caught.message)).toHaveLength(1);
      expect(posted(again.originalId)).toHaveLength(1);
      expect(await harness.service.outbox.get(caught.originalId)).toBeUndefined();
      expect(await statusOf(harness, caught.originalId)).toEqual({ originalId: caught.originalId, status: 'accepted' });
      expect((await cli(harness, 'outbox', 'release', caught.originalId)).code).toBe(1);
    });

    it('a quarantined enquiry nobody released is erased after LEAD_QUARANTINE_DAYS, leaving a spam row the operator still sees', async () => {
      const harness = await setup({ env: { LEAD_QUARANTINE_DAYS: '3' } });
      const bot = validEnquiry({ website: 'http://spam.example', fullName: 'Quinn Quarantine', email: 'quinn@example.com' });
      await post(harness, bot);
      advance(3 * DAY - 60_000);
      await harness.service.worker.drain();
      expect((await harness.service.outbox.get(bot.originalId))!.payload).not.toBeNull();
      advance(2 * 60_000);
      const erasing = now();
      await harness.service.worker.drain();
      const erased = await harness.service.outbox.get(bot.originalId);
      expect(erased).toMatchObject({ status: 'spam', spamReason: 'honeypot', payload: null });
      // Erased by that drain, on the relay's clock (which runs on: the moment is within the drain's).
      expect(erased!.erasedAt).toBeGreaterThanOrEqual(erasing);
      expect(erased!.erasedAt).toBeLessThanOrEqual(now());
      expect(JSON.stringify(await rawRows(harness.store, 'enquiry_outbox'))).not.toMatch(/Quinn|quinn@example\.com|0412/);
      expect((await cli(harness, 'outbox', 'quarantine')).out).toContain('No enquiries in the quarantine.');
      const release = await cli(harness, 'outbox', 'release', bot.originalId);
      expect(release.code).toBe(1);
      expect(release.err).toContain('is spam, not in the quarantine');
      expect((await cli(harness, 'outbox', 'list', '--status', 'spam')).out).toContain(bot.originalId);
      const metrics = await request(harness.app).get('/metrics').expect(200);
      expect(metrics.text).toContain('estate_enquiries_quarantine_erased_total 1');
      expect(metrics.text).toContain('estate_enquiry_outbox{status="quarantined"} 0');
      expect(metrics.text).toContain('estate_enquiry_outbox{status="spam"} 1');
      await harness.service.worker.drain();
      expect(posted(bot.originalId)).toEqual([]);
    });

    it('the status route reads the same for a first and a repeat open-home registration (any letter case), a quarantined, a flagged and a delivered lead, at every step', async () => {
      const harness = await setup();
      const registration = registrationFor(await comingOpenHome(harness));
      const listing = await saleListing(harness);
      const leads = {
        first: registration('priya.raman@example.com'),
        repeat: registration('PRIYA.Raman@Example.COM'),
        quarantined: validEnquiry({ listingId: listing.id, website: 'http://spam.example' }),
        flagged: validEnquiry({ listingId: listing.id, elapsedMs: 500 }),
        delivered: validEnquiry({ listingId: listing.id }),
      };
      const names = Object.keys(leads) as Array<keyof typeof leads>;
      const timelines = Object.fromEntries(names.map((name) => [name, [] as unknown[]])) as Record<keyof typeof leads, unknown[]>;
      // What the route says of a lead, with its originalId left out: equal timelines mean equal answers.
      const lookAt = async (name: keyof typeof leads) => {
        const body = (await statusOf(harness, leads[name].originalId)) as { originalId: string };
        expect(body.originalId).toBe(leads[name].originalId);
        timelines[name].push({ ...body, originalId: undefined });
      };
      const look = async () => {
        for (const name of names) await lookAt(name);
      };
      // Each right after its own 202, then all of them after each step.
      for (const name of names) {
        await post(harness, leads[name]);
        await lookAt(name);
      }
      await look();
      await deliverAll(harness);
      await look();
      expect(posted(leads.first.originalId)).toHaveLength(1);
      expect(posted(leads.repeat.originalId)).toHaveLength(0);
      expect(posted(leads.flagged.originalId)).toHaveLength(1);
      // After the erasure of delivered leads' personal data.
      advance(8 * DAY);
      await harness.service.worker.drain();
      await look();
      expect(timelines.repeat).toEqual(timelines.first);
      for (const name of names) expect(timelines[name], name).toEqual(timelines.first);
      expect(timelines.first[0]).toEqual({ originalId: undefined, status: 'accepted' });
    });
  });
}
