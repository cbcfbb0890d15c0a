import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppraisalRequest, InspectionRequest, OpenHomeRegistrationRequest } from '../../contract/relay-api.ts';
import type { SimEnquiry } from '../../crm-sim/model.ts';
import { staticEnquiryTargets } from '../../server/enquiries/targets.ts';
import { listingId } from '../../server/crm/public-fields.ts';
import { AGENTS, LISTINGS, type EnquiryHarness, type HarnessOptions, simulatedCrm } from './support.ts';
import { storeVariants, type StoreVariant } from '../support/store-variants.ts';

// The other kinds of lead (issue 22): an appraisal request, an open-home registration and a
// private inspection request, each through the relay's route, outbox and delivery worker to the
// CRM simulator over HTTP, with the CRM failing (500, 429, an answer dropped after storing), and
// each must arrive exactly once with its fields. On each store: the open-home once key is a
// partial unique index on both.

const crm = simulatedCrm({ listings: 16, seed: 22 });

let clock = Date.now();
const advance = (ms: number) => {
  clock += ms;
};
let variant: StoreVariant = { name: 'SQLite' };

async function setup(options: HarnessOptions = {}): Promise<EnquiryHarness> {
  clock = Date.now();
  return crm.harness({
    postgresServer: variant.postgresServer,
    now: () => clock,
    ...options,
    // The agency files seller leads under the simulator's "Appraisal request" category.
    env: { SITE_TIME_ZONE: 'Australia/Melbourne', ...(options.env?.ENQUIRY_SELLER_CATEGORIES === '' ? {} : { ENQUIRY_SELLER_CATEGORIES: '54' }) },
    settings: { retryBaseMs: 1_000, retryMaxMs: 4_000, reconcileDelayMs: 0, concurrency: 2, ...options.settings },
  });
}

const post = async (harness: EnquiryHarness, body: object, status = 202) => {
  const response = await request(harness.app).post('/api/v1/enquiries').send(body);
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response;
};
const posted = (originalId: string): SimEnquiry[] => crm.sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === originalId);
const meta = (enquiry: SimEnquiry) => Object.fromEntries(enquiry.metaData.map(({ key, value }) => [key, value]));
/** A time as the relay writes it into a lead for the CRM: the site's zone (SITE_TIME_ZONE above), in words. */
const siteTime = new Intl.DateTimeFormat('en-AU', {
  timeZone: 'Australia/Melbourne',
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZoneName: 'short',
});

/** Drains the worker, moving the clock past every backoff, until nothing is queued. */
async function deliverAll(harness: EnquiryHarness): Promise<void> {
  for (let round = 0; round < 20; round++) {
    await harness.service.worker.drain();
    if ((await harness.service.outbox.counts()).queued === 0) return;
    advance(5_000);
  }
  throw new Error('leads still queued after 20 rounds');
}

/** A 500, a 429 and an answer dropped after the CRM stored the lead, one each, on the next POSTs. */
function crmFaults(): void {
  crm.sim.state.faults.set([
    { match: 'POST /enquiries', errorRate: 1, errorStatus: 500, times: 1 },
    { match: 'POST /enquiries', rate429: 1, retryAfterSeconds: null, times: 1 },
    { match: 'POST /enquiries', dropResponseRate: 1, times: 1 },
  ]);
}

const contact = () => ({
  originalId: randomUUID(),
  fullName: 'Priya Raman',
  email: 'priya.raman@example.com',
  mobile: '0412 345 678',
  consent: true,
  website: '',
  elapsedMs: 30_000,
});

function appraisal(overrides: Partial<AppraisalRequest> = {}): AppraisalRequest {
  return {
    kind: 'appraisal',
    ...contact(),
    street: '14 Wellington Street',
    suburb: 'Kew',
    postcode: '3101',
    propertyType: 'House',
    bedrooms: 4,
    sellingWhen: '3-months',
    message: 'We are thinking of downsizing.',
    ...overrides,
  };
}

async function upcomingOpenHome(harness: EnquiryHarness) {
  const list = await harness.crm.listOpenHomes({ startingAfter: new Date(clock + 60 * 60_000), pageSize: 100 });
  // startingAfter is a date (the CRM's filter is by day): the hour is checked here.
  const openHome = list.items.find((item) => item.property?.saleLifeId != null && item.isRental !== true && Date.parse(item.start!) > clock + 3600_000)!;
  expect(openHome).toBeDefined();
  return openHome;
}

for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    beforeAll(() => {
      variant = storeVariant;
    });

    describe('appraisal request', () => {
      it('reaches the holding area once through a 500, a 429 and a dropped answer, as an agent recognises it: subject, body, seller categories, source, details in metaData', async () => {
        const harness = await setup();
        const body = appraisal();
        await post(harness, body);
        crmFaults();
        await deliverAll(harness);
        const [held, ...more] = posted(body.originalId);
        expect(more).toEqual([]);
        expect(held).toMatchObject({
          subject: 'Appraisal request: 14 Wellington Street, Kew 3101',
          source: 'OFFICEWEBSITE',
          fullName: 'Priya Raman',
          email: 'priya.raman@example.com',
          mobile: '0412345678',
          // The office: no listing, no agent.
          saleLifeId: null,
          leaseLifeId: null,
          userId: null,
          categories: [{ id: 54, name: 'Appraisal request' }],
        });
        expect(held!.body).toBe(
          [
            'Appraisal request',
            '',
            'Property: 14 Wellington Street, Kew 3101',
            'Property type: House',
            'Bedrooms: 4',
            'Thinking of selling: within 3 months',
            '',
            'Message:',
            'We are thinking of downsizing.',
          ].join('\n'),
        );
        expect(meta(held!)).toEqual({
          consent: 'given',
          channel: 'estate-embed website form',
          leadType: 'appraisal',
          street: '14 Wellington Street',
          suburb: 'Kew',
          postcode: '3101',
          propertyType: 'House',
          bedrooms: '4',
          sellingWhen: '3-months',
        });
        // The faults happened: a POST failed, one was throttled, one was stored and its answer lost.
        expect(crm.sim.state.counters.injectedErrors).toBe(1);
        expect(crm.sim.state.counters.injected429s).toBe(1);
        expect(crm.sim.state.counters.droppedResponses).toBe(1);
        expect((await harness.service.outbox.get(body.originalId))!.foundByReconcile).toBe(true);
      });

      it('goes to the agent the page names (userId), with no categories when none are set', async () => {
        const harness = await setup({ env: { ENQUIRY_SELLER_CATEGORIES: '' } }); // '': left unset
        const agent = (await harness.crm.listUsers({ pageSize: 100 })).items.find((user) => user.showOnWeb === true)!;
        const body = appraisal({ agentId: agent.id, propertyType: undefined, bedrooms: undefined, sellingWhen: undefined, message: undefined });
        await post(harness, body);
        await deliverAll(harness);
        const [held] = posted(body.originalId);
        expect(held).toMatchObject({ userId: agent.id, categories: [], body: 'Appraisal request\n\nProperty: 14 Wellington Street, Kew 3101' });
      });

      it('refuses what is missing or wrong, naming each field', async () => {
        const harness = await setup();
        const { body } = await post(harness, appraisal({ street: ' ', postcode: 'not a postcode!', bedrooms: 2.5, sellingWhen: 'someday' as never }), 400);
        expect(body.fields).toEqual({
          street: 'Street address is required',
          postcode: 'Postcode must be a postcode such as 3101',
          bedrooms: 'Bedrooms must be a whole number',
          sellingWhen: 'sellingWhen must be one of now, 3-months, 6-months, 12-months, not-sure',
        });
        expect((await post(harness, { ...appraisal(), kind: 'valuation' }, 400)).body.fields).toEqual({
          kind: 'kind must be one of enquiry, appraisal, open-home, inspection',
        });
        expect((await post(harness, appraisal({ agentId: 999_999 }), 400)).body.fields).toEqual({ agentId: 'No agent with this id takes enquiries here' });
      });
    });

    describe('open-home registration', () => {
      it('reaches the listing once through CRM faults, naming the open home in the agency time zone, with the people coming', async () => {
        const harness = await setup();
        const openHome = await upcomingOpenHome(harness);
        const property = openHome.property!;
        const body: OpenHomeRegistrationRequest = { kind: 'open-home', ...contact(), listingId: property.id!, openHomeId: openHome.id, attendees: 3 };
        await post(harness, body);
        crmFaults();
        await deliverAll(harness);
        const [held, ...more] = posted(body.originalId);
        expect(more).toEqual([]);
        const start = new Date(openHome.start!);
        const when = siteTime.format(start);
        expect(held).toMatchObject({ saleLifeId: property.saleLifeId, source: 'OFFICEWEBSITE', categories: [] });
        expect(held!.subject).toContain('Open home registration');
        expect(held!.subject).toContain(when);
        expect(held!.body).toContain(`Open home: ${when} – `);
        expect(held!.body).toContain('People coming: 3');
        expect(meta(held!)).toMatchObject({
          leadType: 'open-home',
          openHomeId: String(openHome.id),
          openHomeStart: start.toISOString(),
          openHomeEnd: new Date(openHome.end!).toISOString(),
          attendees: '3',
        });
      });

      it('a second registration of the same e-mail for the same open home is answered the same and sent once; another address is sent', async () => {
        const harness = await setup();
        const openHome = await upcomingOpenHome(harness);
        const listingId = openHome.property!.id!;
        const first: OpenHomeRegistrationRequest = { kind: 'open-home', ...contact(), listingId, openHomeId: openHome.id, attendees: 2 };
        const again = { ...first, originalId: randomUUID(), email: 'Priya.Raman@Example.com', attendees: 4 };
        const friend = { ...first, originalId: randomUUID(), email: 'sam@example.com' };
        expect((await post(harness, first)).body).toEqual({ originalId: first.originalId, status: 'queued' });
        expect((await post(harness, again)).body).toEqual({ originalId: again.originalId, status: 'queued' });
        // A retry of the repeat (its answer lost) hears the same again.
        await post(harness, again);
        await post(harness, friend);
        await deliverAll(harness);
        expect(posted(first.originalId)).toHaveLength(1);
        expect(posted(again.originalId)).toHaveLength(0);
        expect(posted(friend.originalId)).toHaveLength(1);
        // The repeat keeps no personal data, and its status reads like any other lead's (test/enquiries/spam-signals.test.ts compares them).
        const repeat = (await harness.service.outbox.get(again.originalId))!;
        expect(repeat).toMatchObject({ status: 'spam', spamReason: 'repeat_registration', payload: null });
        expect((await request(harness.app).get(`/api/v1/enquiries/${again.originalId}`).expect(200)).body.status).toBe('accepted');
        expect(harness.service.metrics.spam.repeat_registration).toBe(1);
      });

      it('a passed or cancelled open home takes no registration: 400 naming openHomeId', async () => {
        const past = { start: new Date(Date.now() - 3 * 3600_000).toISOString(), end: new Date(Date.now() - 2 * 3600_000).toISOString() };
        const later = { start: new Date(Date.now() + 24 * 3600_000).toISOString(), end: new Date(Date.now() + 25 * 3600_000).toISOString() };
        const harness = await setup({ targets: staticEnquiryTargets(LISTINGS, AGENTS, { 101: { 1: past, 2: later } }) });
        const body = (openHomeId: number): OpenHomeRegistrationRequest => ({ kind: 'open-home', ...contact(), listingId: 101, openHomeId, attendees: 1 });
        expect((await post(harness, body(1), 400)).body.fields).toEqual({ openHomeId: 'This open home is over: it takes no more registrations' });
        expect((await post(harness, body(3), 400)).body.fields).toEqual({
          openHomeId: 'This open home is not on the listing: it may have been cancelled or moved',
        });
        expect((await post(harness, { ...body(2), attendees: 0 }, 400)).body.fields).toEqual({ attendees: 'Number of people must be at least 1' });
        expect((await post(harness, { ...body(2), openHomeId: undefined }, 400)).body.fields).toEqual({ openHomeId: 'openHomeId is required' });
        await post(harness, body(2));
        expect((await harness.service.outbox.counts()).queued).toBe(1);
      });

      it('a look-up that cannot tell (no open-home look-up, or it fails) is a 503 the form retries, nothing stored', async () => {
        const harness = await setup({ targets: staticEnquiryTargets(LISTINGS, AGENTS) });
        harness.service.targets.openHome = async () => {
          throw new Error('cache cold');
        };
        const response = await post(harness, { kind: 'open-home', ...contact(), listingId: 101, openHomeId: 1, attendees: 1 }, 503);
        expect(response.headers['retry-after']).toBe('30');
        expect((await harness.service.outbox.counts()).queued).toBe(0);
      });
    });

    describe('private inspection request', () => {
      it('reaches the listing once through CRM faults with up to three preferred times in the agency time zone', async () => {
        const harness = await setup();
        const lease = (await harness.crm.listProperties({ class: 'residential', saleOrLease: 'lease', available: true, pageSize: 5 })).items.find(
          (item) => item.leaseLifeId != null,
        )!;
        const listing = { id: listingId('lease', lease), leaseLifeId: lease.leaseLifeId };
        const day = 24 * 3600_000;
        const times = [clock + 2 * day, clock + 3 * day, clock + 10 * day].map((time) => new Date(Math.floor(time / 60_000) * 60_000).toISOString());
        const body: InspectionRequest = { kind: 'inspection', ...contact(), listingId: listing.id, preferredTimes: times, message: 'After 5 pm if possible.' };
        await post(harness, body);
        crmFaults();
        await deliverAll(harness);
        const [held, ...more] = posted(body.originalId);
        expect(more).toEqual([]);
        expect(held).toMatchObject({ leaseLifeId: listing.leaseLifeId, saleLifeId: null, subject: expect.stringMatching(/^Private inspection request/) });
        expect(held!.body).toBe(
          [
            'Private inspection request',
            '',
            'Preferred times:',
            ...times.map((time, index) => `${index + 1}. ${siteTime.format(new Date(time))}`),
            '',
            'Message:',
            'After 5 pm if possible.',
          ].join('\n'),
        );
        expect(meta(held!)).toMatchObject({ leadType: 'inspection', preferredTime1: times[0], preferredTime2: times[1], preferredTime3: times[2] });
      });

      it('refuses times in the past, too far ahead, repeated, more than three, or not date-times', async () => {
        const harness = await setup({ targets: staticEnquiryTargets(LISTINGS, AGENTS) });
        const day = 24 * 3600_000;
        const at = (offset: number) => new Date(clock + offset).toISOString();
        const body = (preferredTimes: string[]): InspectionRequest => ({ kind: 'inspection', ...contact(), listingId: 101, preferredTimes });
        const fields = async (times: string[]) => (await post(harness, body(times), 400)).body.fields;
        expect(await fields([at(day), at(-60_000)])).toEqual({ preferredTimes: 'Each preferred time must be in the future' });
        expect(await fields([at(61 * day)])).toEqual({ preferredTimes: 'Each preferred time must be within the next 60 days' });
        expect(await fields([at(day), at(day)])).toEqual({ preferredTimes: 'The same time is given twice' });
        expect(await fields([at(day), at(2 * day), at(3 * day), at(4 * day)])).toEqual({ preferredTimes: 'Give at most 3 preferred times' });
        expect(await fields([])).toEqual({ preferredTimes: 'Give at least one preferred time' });
        expect(await fields(['next Saturday'])).toEqual({ preferredTimes: 'Each preferred time must be a date and time such as 2025-06-14T10:30:00+10:00' });
        // Without an offset a time means nothing definite: refused too.
        expect(await fields(['2030-06-14T10:30'])).toEqual({ preferredTimes: 'Each preferred time must be a date and time such as 2025-06-14T10:30:00+10:00' });
        await post(harness, body([at(day)]));
      });

      it('a retry of an accepted request is answered even once its times have passed', async () => {
        const harness = await setup({ targets: staticEnquiryTargets(LISTINGS, AGENTS) });
        const body: InspectionRequest = { kind: 'inspection', ...contact(), listingId: 101, preferredTimes: [new Date(clock + 3600_000).toISOString()] };
        await post(harness, body);
        advance(2 * 3600_000);
        await post(harness, body);
      });
    });
  });
}
