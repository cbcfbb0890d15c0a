import request from 'supertest';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.ts';
import { toCrmDateTime } from '../../server/crm/client.ts';
import { toAddEnquiry } from '../../server/crm/lead-sink.ts';
import type { EnquiryTargets } from '../../server/enquiries/targets.ts';
import { destinationOf, validEnquiry, type EnquiryHarness, type HarnessOptions, simulatedCrm } from './support.ts';
import { userDestination } from '../../server/crm/lead-destination.ts';
import { rawRows, storeVariants, type StoreVariant } from '../support/store-variants.ts';

const crm = simulatedCrm({ listings: 12, seed: 3 });

/** A test clock for the worker (scheduling, backoff, windows, erasure); the CRM client runs in real time. */
let clock = Date.now();
const advance = (ms: number) => {
  clock += ms;
};

/** The store the current variant's tests run on (set by its beforeAll; tests in a file run one by one). */
let variant: StoreVariant = { name: 'SQLite' };

async function setup(options: HarnessOptions = {}): Promise<EnquiryHarness> {
  clock = Date.now();
  return crm.harness({
    postgresServer: variant.postgresServer,
    now: () => clock,
    ...options,
    settings: { retryBaseMs: 1_000, retryMaxMs: 4_000, reconcileDelayMs: 0, concurrency: 2, ...options.settings },
  });
}

async function saleListing(harness: EnquiryHarness) {
  const page = await harness.crm.listProperties({ class: 'residential', saleOrLease: 'sale', available: true, pageSize: 5 });
  const listing = page.items.find((item) => item.saleLifeId != null)!;
  expect(listing).toBeDefined();
  return listing;
}

async function webAgent(harness: EnquiryHarness) {
  const users = await harness.crm.listUsers({ pageSize: 100 });
  return users.items.find((user) => user.showOnWeb === true)!;
}

async function post(harness: EnquiryHarness, body: object, status = 202) {
  return request(harness.app).post('/api/v1/enquiries').send(body).expect(status);
}

const posted = () => crm.sim.state.postedEnquiries();

// The whole suite on each store: the outbox's queries are the same code on both (server/store/tables.ts).
for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    beforeAll(() => {
      variant = storeVariant;
    });

    describe('mapping to AddEnquiry, as the CRM receives it', () => {
      it('property mode: life id, reference, names, source, date, consent', async () => {
        const harness = await setup();
        expect(harness.service.outbox.kind).toBe(variant.postgresServer ? 'postgres' : 'sqlite');
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id, fullName: 'Mary Jane Citizen', mobile: '+61 412-345-678', subject: undefined });
        const before = clock;
        await post(harness, body);
        await harness.service.worker.drain();

        expect(posted()).toHaveLength(1);
        const stored = posted()[0]!;
        expect(stored).toMatchObject({
          originalId: body.originalId,
          source: 'OFFICEWEBSITE',
          saleLifeId: listing.saleLifeId,
          leaseLifeId: null,
          userId: null,
          propertyReference: listing.referenceID ?? null,
          // The place as the public listing names it, the reference after it (subjects.test.ts).
          subject: expect.stringMatching(/^Website enquiry: \S/),
          body: body.message,
          fullName: 'Mary Jane Citizen',
          firstName: 'Mary Jane',
          lastName: 'Citizen',
          email: 'jane@example.com',
          mobile: '+61412345678',
        });
        // enquiryDate: the acceptance time, to the second, sent as 'YYYY-MM-DDThh:mm:ss+00:00'.
        expect(stored.enquiryDate).toBe(Math.floor(before / 1000) * 1000);
        expect(stored.metaData).toContainEqual({ key: 'consent', value: 'given' });

        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('delivered');
        expect(entry.crmEnquiryId).toBe(stored.id);
        expect((await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200)).body.status).toBe('accepted');
      });

      it('contact-me mode: userId, no property fields', async () => {
        const harness = await setup();
        const agent = await webAgent(harness);
        const body = validEnquiry({ listingId: undefined, agentId: agent.id, consent: undefined, subject: 'Appraisal please' });
        await post(harness, body);
        await harness.service.worker.drain();
        expect(posted()).toHaveLength(1);
        expect(posted()[0]).toMatchObject({ userId: agent.id, saleLifeId: null, leaseLifeId: null, propertyReference: null, subject: 'Appraisal please' });
        expect(posted()[0]!.metaData).toContainEqual({ key: 'consent', value: 'not asked' });
      });

      it('a contact-me lead whose agent left after its 202 goes to the office, naming whom it was for; never a dead letter', async () => {
        const agent = await webAgent(await setup());
        let stillThere = true;
        const harness = await setup({
          targets: {
            listing: async () => undefined,
            agent: async (id) => (stillThere && id === agent.id ? { destination: userDestination(agent.id) } : undefined),
          },
        });
        const body = validEnquiry({ listingId: undefined, agentId: agent.id, subject: 'Please call me' });
        await post(harness, body);
        // Accepted while they were on the team (the target is resolved and kept); they leave before it is sent.
        expect(destinationOf((await harness.service.outbox.get(body.originalId))!.target).userId).toBe(agent.id);
        stillThere = false;
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.status).toBe('delivered');
        expect(posted()).toHaveLength(1);
        expect(posted()[0]).toMatchObject({ userId: null, saleLifeId: null, leaseLifeId: null, subject: 'Please call me' });
        expect(posted()[0]!.metaData).toContainEqual({ key: 'addressedTo', value: `user ${agent.id}, no longer with the agency: sent to the office` });
      });

      it('builds the date in the spec format and never sends the honeypot or timing fields', () => {
        const body = toAddEnquiry(
          { ...validEnquiry({ listingId: 5 }), fullName: 'Cher', website: undefined, mobile: undefined } as never,
          { saleLifeId: 9, leaseLifeId: 11, propertyReference: 'R1' },
          { source: 'OFFICEWEBSITE', acceptedAt: new Date('2024-05-01T10:00:00.123Z') },
        );
        expect(body.enquiryDate).toBe('2024-05-01T10:00:00+00:00');
        expect(body.enquiryDate).toBe(toCrmDateTime(new Date('2024-05-01T10:00:00Z')));
        expect(body).toMatchObject({ firstName: 'Cher', saleLifeId: 9, propertyReference: 'R1' });
        expect(body).not.toHaveProperty('lastName');
        expect(body).not.toHaveProperty('leaseLifeId');
        expect(body).not.toHaveProperty('mobile');
        expect(Object.keys(body)).not.toEqual(expect.arrayContaining(['website', 'elapsedMs', 'listingId', 'consent']));
      });

      it('an enquiry accepted while the listing cache was cold is resolved from the CRM before delivery', async () => {
        const real = await setup();
        const listing = await saleListing(real);
        // The listing cache before its first sync: it cannot tell.
        const cold: EnquiryTargets = {
          listing: async () => {
            throw new Error('The listing cache has not been filled from the CRM yet.');
          },
          agent: async () => {
            throw new Error('The listing cache has not been filled from the CRM yet.');
          },
        };
        const harness = await setup({ targets: cold });
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        expect((await harness.service.outbox.get(body.originalId))!.target).toBeNull();

        // The CRM's lists are failing too: nothing is sent, the enquiry waits.
        crm.sim.state.faults.set([{ match: 'GET /properties/**', errorRate: 1 }]);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.status).toBe('queued');
        expect(posted()).toHaveLength(0);

        crm.sim.state.faults.clear();
        advance(5_000);
        await harness.service.worker.drain();
        expect(posted()).toHaveLength(1);
        expect(posted()[0]!.saleLifeId).toBe(listing.saleLifeId);
        expect(destinationOf((await harness.service.outbox.get(body.originalId))!.target).saleLifeId).toBe(listing.saleLifeId);
      });

      it('an unknown listing found only at delivery is dead-lettered, not sent', async () => {
        const harness = await setup({
          targets: {
            listing: async () => {
              throw new Error('cold');
            },
            agent: async () => undefined,
          },
        });
        const body = validEnquiry({ listingId: 987_654 });
        await post(harness, body);
        await harness.service.worker.drain();
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('dead');
        expect(entry.lastError).toContain('listing 987654 not found');
        expect(posted()).toHaveLength(0);
      });
    });

    describe('retries, order and dead letters', () => {
      it('5xx: the POST may have landed, so it is looked up before each re-post; delivered once', async () => {
        const harness = await setup();
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, times: 2 }]);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.sendingSince).not.toBeNull();
        for (let round = 0; round < 2; round++) {
          advance(5_000);
          await harness.service.worker.drain();
        }
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('delivered');
        expect(entry.attempts).toBe(3);
        expect(posted()).toHaveLength(1);
        expect(harness.service.metrics.reconciliations).toEqual({ found: 0, notFound: 2 });
        expect(crm.sim.state.counters.requestsByEndpoint['GET /enquiries']).toBe(2);
      });

      it("429s past the client's own retries: retried later without a look-up (a 429 proves nothing was stored)", async () => {
        const harness = await setup();
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', rate429: 1, retryAfterSeconds: null, times: 4 }]);
        await harness.service.worker.drain();
        const waiting = (await harness.service.outbox.get(body.originalId))!;
        expect(waiting.status).toBe('queued');
        expect(waiting.sendingSince).toBeNull();
        expect(waiting.lastError).toContain('rate_limited');
        advance(5_000);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.status).toBe('delivered');
        expect(posted()).toHaveLength(1);
        expect(crm.sim.state.counters.requestsByEndpoint['GET /enquiries'] ?? 0).toBe(0);
      });

      it('delivers in acceptance order; a failing enquiry backs off alone while the others go through', async () => {
        const harness = await setup({ settings: { concurrency: 1 } });
        const listing = await saleListing(harness);
        const bodies = [0, 1, 2].map((index) => validEnquiry({ listingId: listing.id, message: `Enquiry ${index}` }));
        for (const body of bodies) {
          await post(harness, body);
          advance(1);
        }
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 503, times: 1 }]);
        await harness.service.worker.drain();
        // The head failed; the two behind it did not wait for it (the old worker paused them all).
        expect(posted().map((enquiry) => enquiry.originalId)).toEqual([bodies[1]!.originalId, bodies[2]!.originalId]);
        expect((await harness.service.outbox.get(bodies[0]!.originalId))!.status).toBe('queued');
        expect(harness.service.worker.breakerState).toBe('closed');
        for (let round = 0; round < 3; round++) {
          advance(2_000);
          await harness.service.worker.drain();
        }
        expect(posted().map((enquiry) => enquiry.originalId)).toEqual([1, 2, 0].map((index) => bodies[index]!.originalId));
      });

      it('a 5xx the CRM answered is looked up once the row backs off; only a request that may still land waits the reconcile delay', async () => {
        const harness = await setup({ settings: { reconcileDelayMs: 30_000 } });
        const listing = await saleListing(harness);
        const answered = validEnquiry({ listingId: listing.id });
        await post(harness, answered);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 500, times: 1 }]);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(answered.originalId))!.sendingSince).not.toBeNull();
        advance(4_000); // retryMaxMs: the row's own backoff is over, 26 s before the reconcile delay would be
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(answered.originalId))!.status).toBe('delivered');
        expect(posted().map((enquiry) => enquiry.originalId)).toEqual([answered.originalId]);

        // A gateway's 504: the CRM may still be working on it. The early look-up (2 s) finds
        // nothing, and that is not believed: nothing is posted again until the reconcile delay is over.
        const gateway = validEnquiry({ listingId: listing.id });
        await post(harness, gateway);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 504, times: 1 }]);
        await harness.service.worker.drain();
        const lookUps = () => crm.sim.state.counters.requestsByEndpoint['GET /enquiries'] ?? 0;
        const lookUpsBefore = lookUps();
        advance(4_000);
        await harness.service.worker.drain();
        expect(lookUps()).toBeGreaterThan(lookUpsBefore);
        expect((await harness.service.outbox.get(gateway.originalId))!.status).toBe('queued');
        expect(posted().filter((enquiry) => enquiry.originalId === gateway.originalId)).toHaveLength(0);
        advance(20_000);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(gateway.originalId))!.status).toBe('queued');
        advance(6_000);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(gateway.originalId))!.status).toBe('delivered');
      });

      it('a dropped answer is found by the early look-up within seconds, not after the reconcile delay, and never posted twice', async () => {
        const harness = await setup({ settings: { reconcileDelayMs: 30_000, earlyLookupMs: 2_000 } });
        const listing = await saleListing(harness);
        const dropped = validEnquiry({ listingId: listing.id });
        await post(harness, dropped);
        // The CRM stores the enquiry and the connection is cut before its answer.
        crm.sim.state.faults.set([{ match: 'POST /enquiries', dropResponseRate: 1, times: 1 }]);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(dropped.originalId))!.status).toBe('queued');
        advance(1_000);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(dropped.originalId))!.status).toBe('queued');
        advance(1_500);
        await harness.service.worker.drain();
        const row = (await harness.service.outbox.get(dropped.originalId))!;
        expect(row.status).toBe('delivered');
        expect(posted().filter((enquiry) => enquiry.originalId === dropped.originalId)).toHaveLength(1);
      });

      it('an outage opens the circuit: sending stops, one probe per cooldown, and the queue drains once the CRM is back', async () => {
        const harness = await setup({ settings: { concurrency: 2, breaker: { consecutiveFailures: 4 } } });
        const listing = await saleListing(harness);
        const bodies = Array.from({ length: 10 }, (_, index) => validEnquiry({ listingId: listing.id, message: `Enquiry ${index}` }));
        for (const body of bodies) await post(harness, body);
        const posts = () => crm.sim.state.counters.requestsByEndpoint['POST /enquiries'] ?? 0;
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 503 }]);

        await harness.service.worker.drain();
        expect(harness.service.worker.breakerState).toBe('open');
        const metrics = (await request(harness.app).get('/metrics').expect(200)).text;
        expect(metrics).toMatch(/^estate_enquiry_delivery_circuit_open 1$/m);
        expect(metrics).toMatch(/^estate_enquiry_delivery_circuit_opened_total 1$/m);
        // Four failures in a row opened it (two were in flight together): the other rows spent nothing.
        expect(posts()).toBeGreaterThanOrEqual(4);
        expect(posts()).toBeLessThanOrEqual(5);
        const atOpen = posts();
        advance(500); // rows' own backoff is over for some, but the circuit is still open
        await harness.service.worker.drain();
        expect(posts()).toBe(atOpen);

        advance(1_000); // the cooldown (retryBaseMs) is over: one probe, which fails, so twice as long now
        await harness.service.worker.drain();
        expect(posts()).toBe(atOpen + 1);
        expect(harness.service.worker.breakerState).toBe('open');
        advance(1_500);
        await harness.service.worker.drain();
        expect(posts()).toBe(atOpen + 1);

        crm.sim.state.faults.clear();
        advance(1_000);
        await harness.service.worker.drain();
        expect(harness.service.worker.breakerState).toBe('closed');
        expect((await request(harness.app).get('/metrics').expect(200)).text).toMatch(/^estate_enquiry_delivery_circuit_open 0$/m);
        for (let round = 0; round < 4; round++) {
          advance(4_000);
          await harness.service.worker.drain();
        }
        // Every one exactly once, though several POSTs got a 503 whose outcome was unknown.
        const ids = posted().map((enquiry) => enquiry.originalId);
        expect([...ids].sort()).toEqual(bodies.map((body) => body.originalId).sort());
        expect(await harness.service.outbox.counts()).toMatchObject({ queued: 0, delivered: 10, dead: 0 });
      });

      it('a CRM 400 dead-letters at once with the CRM message, visible to the operator', async () => {
        const harness = await setup();
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 400, times: 1 }]);
        await harness.service.worker.drain();
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('dead');
        expect(entry.attempts).toBe(1);
        expect(entry.lastError).toMatch(/^CRM 400 .+/);
        expect(posted()).toHaveLength(0);
        expect((await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200)).body.status).toBe('accepted');
        expect(harness.service.metrics.dead).toBe(1);

        // The operator replays it once the cause is fixed.
        const out: string[] = [];
        expect(await runCli(['outbox', 'list'], { env: harness.env, out: (text) => out.push(text), err: () => {} })).toBe(0);
        expect(out.join('\n')).toContain(body.originalId);
        expect(await runCli(['outbox', 'retry', body.originalId], { env: harness.env, out: () => {}, err: () => {} })).toBe(0);
        clock = Date.now(); // the CLI queued it on the wall clock
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.status).toBe('delivered');
        expect(posted()).toHaveLength(1);
      });

      it('retryable failures past the retry window: looked up one last time, then dead-lettered', async () => {
        const harness = await setup({ settings: { maxAgeMs: 10_000 } });
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 502 }]);
        for (let round = 0; round < 8 && (await harness.service.outbox.get(body.originalId))!.status === 'queued'; round++) {
          await harness.service.worker.drain();
          advance(3_000);
        }
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('dead');
        expect(entry.lastError).toContain('retry window over');
        expect(posted()).toHaveLength(0);
        // The last act before dying was a look-up, not a post.
        expect(harness.service.metrics.reconciliations.notFound).toBeGreaterThanOrEqual(entry.attempts);
      });

      it('bad credentials (401) never dead-letter: the lead waits for the operator', async () => {
        const harness = await setup({ crm: { baseUrl: crm.sim.baseUrl, apiKey: crm.sim.apiKey, accessToken: 'wrong-token' }, targets: undefined });
        const body = validEnquiry();
        await post(harness, body);
        await harness.service.worker.drain();
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('queued');
        expect(entry.lastError).toContain('unauthorized');
        expect(entry.nextAttemptAt - clock).toBeGreaterThanOrEqual(5 * 60_000);
      });
    });

    describe('the running worker', () => {
      it('delivers on its own, waiting on in-flight requests instead of polling the store in a loop', async () => {
        const harness = await setup({ now: Date.now, settings: { concurrency: 1, pollMs: 1_000 } });
        const listing = await saleListing(harness);
        const bodies = [validEnquiry({ listingId: listing.id }), validEnquiry({ listingId: listing.id })];
        for (const body of bodies) await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', latencyMs: 300 }]);
        const outbox = harness.service.outbox;
        let storeReads = 0;
        const claimDue = outbox.claimDue.bind(outbox);
        outbox.claimDue = (...args) => {
          storeReads++;
          return claimDue(...args);
        };
        harness.service.worker.start();
        try {
          for (let waited = 0; waited < 10_000 && posted().length < 2; waited += 50) await sleep(50);
        } finally {
          await harness.service.worker.stop();
        }
        expect(posted().map((enquiry) => enquiry.originalId)).toEqual(bodies.map((body) => body.originalId));
        // About one read per delivery and a few wake-ups; a busy loop would make thousands in 600 ms.
        expect(storeReads).toBeLessThan(20);
      });
    });

    describe('reconciliation before re-posting', () => {
      it('a dropped response (stored, connection cut) is found by originalId, not posted again', async () => {
        const harness = await setup();
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', dropResponseRate: 1, times: 1 }]);
        await harness.service.worker.drain();
        expect(crm.sim.state.counters.droppedResponses).toBe(1);
        expect((await harness.service.outbox.get(body.originalId))!.status).toBe('queued');
        advance(5_000);
        await harness.service.worker.drain();
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.status).toBe('delivered');
        expect(entry.foundByReconcile).toBe(true);
        expect(entry.crmEnquiryId).toBe(posted()[0]!.id);
        expect(posted()).toHaveLength(1);
        expect(crm.sim.state.counters.requestsByEndpoint['POST /enquiries']).toBe(1);
      });

      it('a timeout: no look-up before the reconcile delay, then a look-up, then exactly one enquiry in the CRM', async () => {
        const harness = await setup({ crmTimeoutMs: 300, settings: { reconcileDelayMs: 2_000 } });
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', latencyMs: 700, times: 1 }]);
        await harness.service.worker.drain();
        const waiting = (await harness.service.outbox.get(body.originalId))!;
        expect(waiting.lastError).toContain('timeout');
        expect(waiting.nextAttemptAt - clock).toBeGreaterThanOrEqual(2_000);
        advance(1_000);
        await harness.service.worker.drain(); // not due yet: no look-up while the request may still land
        expect(crm.sim.state.counters.requestsByEndpoint['GET /enquiries'] ?? 0).toBe(0);
        await sleep(600); // the slow request has been handled (or dropped) by the CRM by now
        advance(1_500);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.status).toBe('delivered');
        expect(harness.service.metrics.reconciliations.found + harness.service.metrics.reconciliations.notFound).toBe(1);
        expect(posted()).toHaveLength(1);
      });

      it('after a crash mid-POST (row still marked sending), a restarted worker looks first: found → no second POST', async () => {
        const first = await setup();
        const listing = await saleListing(first);
        const landed = validEnquiry({ listingId: listing.id });
        const lost = validEnquiry({ listingId: listing.id, message: 'This one never reached the CRM' });
        await post(first, landed);
        await post(first, lost);
        // As the worker does just before sending, and then the process dies: one POST landed, one never left.
        for (const body of [landed, lost]) await first.service.outbox.startSending(body.originalId, clock);
        const entry = (await first.service.outbox.get(landed.originalId))!;
        await first.crm.addEnquiry(
          toAddEnquiry(entry.payload!, destinationOf(entry.target), { source: 'OFFICEWEBSITE', acceptedAt: new Date(entry.acceptedAt) }),
        );
        expect(posted()).toHaveLength(1);

        // The restarted relay: a new service on the same store.
        advance(1_000);
        const { createEnquiryService } = await import('../../server/enquiries/service.ts');
        const { loadConfig } = await import('../../server/runtime/config.ts');
        const { silentLogger } = await import('../../server/runtime/log.ts');
        const { crmLeadSink } = await import('../../server/crm/lead-sink.ts');
        const { crmEnquiryTargets } = await import('../../server/crm/enquiry-targets.ts');
        const restartedConfig = loadConfig({ DATA_DIR: first.dataDir });
        const restarted = createEnquiryService({
          store: first.store,
          log: silentLogger,
          sink: crmLeadSink(first.crm, { source: restartedConfig.enquiries.source }),
          sinkTargets: crmEnquiryTargets(first.crm, { log: silentLogger }),
          now: () => clock,
          settings: { ...restartedConfig.enquiries, reconcileDelayMs: 0 },
        });
        await restarted.worker.drain();
        expect(await restarted.outbox.get(landed.originalId)).toMatchObject({ status: 'delivered', foundByReconcile: true });
        expect(await restarted.outbox.get(lost.originalId)).toMatchObject({ status: 'delivered', foundByReconcile: false });
        expect(
          posted()
            .map((enquiry) => enquiry.originalId)
            .sort(),
        ).toEqual([landed.originalId, lost.originalId].sort());
        expect(crm.sim.state.counters.requestsByEndpoint['POST /enquiries']).toBe(2);
      });
    });

    describe('erasure and metrics', () => {
      it('erases personal data N days after delivery, keeping the status', async () => {
        const harness = await setup({ settings: { eraseAfterMs: 7 * 24 * 60 * 60_000 } });
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.payload).not.toBeNull();
        advance(6 * 24 * 60 * 60_000);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.payload).not.toBeNull();
        advance(2 * 24 * 60 * 60_000);
        await harness.service.worker.drain();
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry.payload).toBeNull();
        expect(entry.erasedAt).toBe(clock);
        const raw = await rawRows(harness.store, 'enquiry_outbox');
        expect(JSON.stringify(raw)).not.toMatch(/Jane|jane@example\.com|0412/);
        expect((await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200)).body.status).toBe('accepted');
        // The same submission again still gets its answer (the fingerprint stays).
        await post(harness, body);
      });

      it('erases the personal data of a dead letter nobody replayed within its retention, keeping its status', async () => {
        const harness = await setup({ settings: { deadEraseAfterMs: 30 * 24 * 60 * 60_000 } });
        const listing = await saleListing(harness);
        const body = validEnquiry({ listingId: listing.id });
        await post(harness, body);
        crm.sim.state.faults.set([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 400, times: 1 }]);
        await harness.service.worker.drain();
        expect(await harness.service.outbox.get(body.originalId)).toMatchObject({ status: 'dead' });
        advance(29 * 24 * 60 * 60_000);
        await harness.service.worker.drain();
        expect((await harness.service.outbox.get(body.originalId))!.payload).not.toBeNull();
        advance(2 * 24 * 60 * 60_000);
        await harness.service.worker.drain();
        const entry = (await harness.service.outbox.get(body.originalId))!;
        expect(entry).toMatchObject({ status: 'dead', payload: null, erasedAt: clock });
        const raw = await rawRows(harness.store, 'enquiry_outbox');
        expect(JSON.stringify(raw)).not.toMatch(/Jane|jane@example\.com|0412/);
        expect((await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200)).body.status).toBe('accepted');
        // Nothing left to send: the operator's replay is refused, and nothing reaches the CRM.
        const errors: string[] = [];
        expect(await runCli(['outbox', 'retry', body.originalId], { env: harness.env, out: () => {}, err: (text) => errors.push(text) })).toBe(1);
        expect(errors.join('\n')).toContain('content is gone');
        expect(posted()).toHaveLength(0);
      });

      it('/metrics reports queued, delivered, dead, quarantined and the delivery latency histogram', async () => {
        const harness = await setup();
        const listing = await saleListing(harness);
        await post(harness, validEnquiry({ listingId: listing.id }));
        await post(harness, validEnquiry({ listingId: listing.id, website: 'bot' }));
        advance(1_500);
        await harness.service.worker.drain();
        await post(harness, validEnquiry({ listingId: listing.id }));
        const metrics = await request(harness.app).get('/metrics').expect(200);
        expect(metrics.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
        expect(metrics.text).toContain('estate_enquiries_delivered_total 1');
        expect(metrics.text).toContain('estate_enquiry_outbox{status="queued"} 1');
        expect(metrics.text).toContain('estate_enquiry_outbox{status="delivered"} 1');
        expect(metrics.text).toContain('estate_enquiry_outbox{status="quarantined"} 1');
        expect(metrics.text).toContain('estate_enquiry_outbox{status="spam"} 0');
        expect(metrics.text).toContain('estate_enquiries_dead_total 0');
        expect(metrics.text).toContain('estate_enquiry_delivery_latency_seconds_count 1');
        expect(metrics.text).toContain('estate_enquiry_delivery_latency_seconds_bucket{le="1"} 0');
        expect(metrics.text).toContain('estate_enquiry_delivery_latency_seconds_bucket{le="2.5"} 1');
        expect(metrics.text).not.toMatch(/jane|0412/i);
      });
    });
  });
}
