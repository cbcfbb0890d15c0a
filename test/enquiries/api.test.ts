import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { sql } from 'kysely';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../server/http/app.ts';
import { loadConfig } from '../../server/runtime/config.ts';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { enquiryFingerprint, enquiryRequestSchema } from '../../server/enquiries/schema.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { closeStore, openStore, storeAnswers, type Store } from '../../server/store/store.ts';
import { rawRows, storeVariants, type StoreVariant } from '../support/store-variants.ts';
import { destinationOf, enquiryHarness, validEnquiry, type EnquiryHarness, type HarnessOptions } from './support.ts';
import { queriesOf, tablesOf } from '../../server/store/tables.ts';
import { publicOrigins } from '../../server/http/cors.ts';
import { enquiriesFeature } from '../../server/enquiries/feature.ts';

const harnesses: EnquiryHarness[] = [];
afterEach(() => {
  for (const harness of harnesses.splice(0)) harness.close();
});
/** The store the current variant's tests run on (set by its beforeAll; tests in a file run one by one). */
let variant: StoreVariant = { name: 'SQLite' };

async function setup(options: HarnessOptions = {}): Promise<EnquiryHarness> {
  const harness = await enquiryHarness({ postgresServer: variant.postgresServer, ...options });
  harnesses.push(harness);
  return harness;
}

async function rowCount(harness: EnquiryHarness): Promise<number> {
  return (await rawRows(harness.store, 'enquiry_outbox')).length;
}

/** Another connection to the harness's outbox, as another process (or relay) would open it. */
async function secondConnection(harness: EnquiryHarness): Promise<Store> {
  const store = openStore(harness.dataDir);
  if (harness.env.DATABASE_URL) await attachPostgres(store, harness.env.DATABASE_URL);
  return store;
}

const long = (length: number) => 'x'.repeat(length);

// Every acceptance test on each store: the outbox's queries are the same code on both.
for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    beforeAll(() => {
      variant = storeVariant;
    });

    describe('POST /api/v1/enquiries: validation', () => {
      // Each case: a change to a valid body, and the fields the 400 must name.
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['originalId missing', { originalId: undefined }, ['originalId']],
        ['originalId not a UUID', { originalId: 'abc' }, ['originalId']],
        ['originalId a number', { originalId: 12 }, ['originalId']],
        ['neither listingId nor agentId', { listingId: undefined }, ['listingId', 'agentId']],
        ['both listingId and agentId', { agentId: 7 }, ['listingId', 'agentId']],
        ['listingId a string', { listingId: '101' }, ['listingId']],
        ['listingId negative', { listingId: -1 }, ['listingId']],
        ['listingId fractional', { listingId: 1.5 }, ['listingId']],
        ['listingId huge', { listingId: 2 ** 60 }, ['listingId']],
        ['listingId unknown', { listingId: 999 }, ['listingId']],
        ['agentId unknown', { listingId: undefined, agentId: 8 }, ['agentId']],
        ['fullName missing', { fullName: undefined }, ['fullName']],
        ['fullName blank', { fullName: '   ' }, ['fullName']],
        ['fullName 101 characters', { fullName: long(101) }, ['fullName']],
        ['fullName with a line break', { fullName: 'Jane\r\nBcc: x@y.z' }, ['fullName']],
        ['fullName an object', { fullName: { first: 'Jane' } }, ['fullName']],
        // Issue 9 item 12: names that show nothing, or hide something.
        ['fullName only zero-width spaces', { fullName: '\u200b\u200b\u200b' }, ['fullName']],
        ['fullName only bidi overrides', { fullName: '\u202e\u202d\u2066\u2069' }, ['fullName']],
        ['fullName only a line separator', { fullName: '\u2028' }, ['fullName']],
        ['fullName only Hangul fillers', { fullName: '\u3164\u3164' }, ['fullName']],
        ['fullName only punctuation and digits', { fullName: '.-- 42' }, ['fullName']],
        ['fullName with a right-to-left override', { fullName: 'Jane \u202eenitsuA' }, ['fullName']],
        ['fullName with a zero-width space', { fullName: 'Ja\u200bne' }, ['fullName']],
        ['fullName with a soft hyphen', { fullName: 'Jane\u00ad' }, ['fullName']],
        ['email missing', { email: undefined }, ['email']],
        ['email without @', { email: 'jane.example.com' }, ['email']],
        ['email 255 characters', { email: `${long(243)}@example.com` }, ['email']],
        ['email an array', { email: ['jane@example.com'] }, ['email']],
        ['mobile US form', { mobile: '+1 415 555 0100' }, ['mobile']],
        ['mobile letters', { mobile: 'call me' }, ['mobile']],
        ['mobile too short', { mobile: '0412' }, ['mobile']],
        ['mobile a number', { mobile: 412345678 }, ['mobile']],
        ['message missing', { message: undefined }, ['message']],
        ['message blank', { message: '\n \t' }, ['message']],
        ['message 5,001 characters', { message: long(5001) }, ['message']],
        ['message with a NUL', { message: 'hello\u0000' }, ['message']],
        ['subject 201 characters', { subject: long(201) }, ['subject']],
        ['consent a string', { consent: 'yes' }, ['consent']],
        ['website a number', { website: 1 }, ['website']],
        ['elapsedMs missing', { elapsedMs: undefined }, ['elapsedMs']],
        ['elapsedMs negative', { elapsedMs: -5 }, ['elapsedMs']],
        ['elapsedMs a string', { elapsedMs: '25000' }, ['elapsedMs']],
        ['elapsedMs NaN-ish', { elapsedMs: null }, ['elapsedMs']],
        ['several bad fields at once', { email: 'nope', mobile: 'nope', message: '' }, ['email', 'mobile', 'message']],
      ];

      it.each(cases)('%s → 400 naming %j', async (_name, change, fields) => {
        const harness = await setup();
        const body: Record<string, unknown> = { ...validEnquiry(), ...change };
        for (const key of Object.keys(change)) if (change[key] === undefined) delete body[key];
        const response = await request(harness.app).post('/api/v1/enquiries').send(body).expect(400);
        expect(response.body.error).toBe('invalid_enquiry');
        expect(Object.keys(response.body.fields).sort()).toEqual([...fields].sort());
        for (const field of fields) expect(response.body.fields[field]).toEqual(expect.any(String));
        expect(await rowCount(harness)).toBe(0);
      });

      it('accepts every valid AU, NZ and UK phone form and an empty mobile', async () => {
        const harness = await setup();
        const phones = [
          '0412 345 678',
          '+61 412 345 678',
          '(02) 9876 5432',
          '0061 3 9123 4567',
          '1300 123 456',
          '+64 21 123 4567',
          '09 123 4567',
          '+44 (0)20 7946 0018',
          '07700 900123',
          '',
        ];
        for (const mobile of phones) {
          await request(harness.app).post('/api/v1/enquiries').send(validEnquiry({ mobile })).expect(202);
        }
        expect(await rowCount(harness)).toBe(phones.length);
      });

      it('names the problem with a name that has no letter, or hides characters', async () => {
        const harness = await setup();
        const blank = await request(harness.app)
          .post('/api/v1/enquiries')
          .send(validEnquiry({ fullName: '\u200b\u2060' }))
          .expect(400);
        expect(blank.body.fields).toEqual({ fullName: 'Full name must contain at least one letter' });
        const hidden = await request(harness.app)
          .post('/api/v1/enquiries')
          .send(validEnquiry({ fullName: 'Jane \u202eenitsuA' }))
          .expect(400);
        expect(hidden.body.fields.fullName).toMatch(/^Full name contains invisible or control characters/);
      });

      it('accepts names in any script, with marks, apostrophes and joiners between letters', async () => {
        const harness = await setup();
        const names = ["Siobhán O'Connor-Nguyễn", '李小龙', 'محمد‌رضا', 'Zoë Ångström', 'Þórr', 'Ngāti Kahu', 'क्षत्रिय', 'Dr. J. R. R. Tolkien 3rd'];
        for (const fullName of names) {
          await request(harness.app).post('/api/v1/enquiries').send(validEnquiry({ fullName })).expect(202);
        }
        expect(await rowCount(harness)).toBe(names.length);
      });

      it('accepts the limits exactly and drops unknown fields', async () => {
        const harness = await setup();
        const body = { ...validEnquiry({ fullName: long(100), message: long(5000), email: `${long(242)}@example.com` }), isAdmin: true };
        await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const stored = (await harness.service.outbox.get(body.originalId))!;
        expect(stored.payload).not.toHaveProperty('isAdmin');
        expect(stored.payload!.fullName).toHaveLength(100);
      });

      it('answers 413 for a body over 16 KB, storing nothing', async () => {
        const harness = await setup();
        const body = { ...validEnquiry(), padding: long(17 * 1024) };
        const response = await request(harness.app).post('/api/v1/enquiries').send(body).expect(413);
        expect(response.body.error).toBe('payload_too_large');
        expect(await rowCount(harness)).toBe(0);
      });

      it('never answers 500, whatever the body (fuzz table)', async () => {
        const harness = await setup();
        const raw: Array<[string, string]> = [
          ['application/json', ''],
          ['application/json', 'null'],
          ['application/json', '[]'],
          ['application/json', '"text"'],
          ['application/json', '42'],
          ['application/json', '{'],
          ['application/json', '{"__proto__": {"admin": true}, "constructor": {"prototype": {}}}'],
          // eslint-disable-next-line no-loss-of-precision -- Infinity on purpose: JSON.stringify writes it as null
          ['application/json', JSON.stringify({ ...validEnquiry(), elapsedMs: 1e400 })],
          ['application/json', '{"originalId": "' + '\ud800'.repeat(10) + '"}'],
          ['application/json', JSON.stringify({ a: Array.from({ length: 2000 }, () => [[[]]]) })],
          ['application/json', '['.repeat(3000) + ']'.repeat(3000)],
          ['application/json; charset=utf-16', '{}'],
          ['text/plain', JSON.stringify(validEnquiry())],
          ['application/x-www-form-urlencoded', 'fullName=Jane&email=x'],
          ['application/octet-stream', '\u0000\u0001\u0002'],
        ];
        for (const [contentType, body] of raw) {
          const response = await request(harness.app).post('/api/v1/enquiries').set('Content-Type', contentType).send(body);
          expect(response.status, `${contentType} ${body.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
          expect(response.status, `${contentType} ${body.slice(0, 40)}`).toBeLessThan(500);
          expect(response.body.error).toEqual(expect.any(String));
        }
        // Random values in every field.
        const values = [null, true, -1, 0, 1e308, '', ' ', 'x', long(6000), [], {}, [1], { a: 1 }, '0412345678', randomUUID()];
        const fields = ['originalId', 'listingId', 'agentId', 'fullName', 'email', 'mobile', 'subject', 'message', 'consent', 'website', 'elapsedMs'];
        let seed = 7;
        const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
        for (let round = 0; round < 150; round++) {
          const body: Record<string, unknown> = { ...validEnquiry() };
          for (const field of fields) if (next() < 0.3) body[field] = values[Math.floor(next() * values.length)];
          const response = await request(harness.app).post('/api/v1/enquiries').send(body);
          expect([202, 400, 409]).toContain(response.status);
          if (response.status === 400) expect(Object.keys(response.body.fields).length).toBeGreaterThan(0);
        }
      });
    });

    describe('POST /api/v1/enquiries: acceptance and idempotency', () => {
      it('answers 202 only once the enquiry is committed to the store file', async () => {
        const harness = await setup();
        const body = validEnquiry();
        const response = await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        expect(response.body).toEqual({ originalId: body.originalId, status: 'queued' });
        // A second connection to the same store (another process would see the same) reads it.
        const other = await secondConnection(harness);
        try {
          const row = (await new EnquiryOutbox(other).get(body.originalId))!;
          expect(row.status).toBe('queued');
          expect(destinationOf(row.target)).toMatchObject({ saleLifeId: 5101, propertyReference: 'REF-101' });
          expect(row.payload).toMatchObject({ fullName: 'Jane Citizen', email: 'jane@example.com' });
        } finally {
          await closeStore(other);
        }
        if (variant.postgresServer) {
          // A commit returns once its WAL record is flushed to disk.
          const setting = await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(queriesOf(harness.store).db);
          expect(setting.rows[0]!.synchronous_commit).toBe('on');
        } else {
          expect(tablesOf(harness.store).pragma('synchronous', { simple: true })).toBe(2); // FULL
        }
      });

      it('same originalId and body: same answer, one enquiry; elapsedMs may differ on a retry', async () => {
        const harness = await setup();
        const body = validEnquiry();
        const first = await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const again = await request(harness.app)
          .post('/api/v1/enquiries')
          .send({ ...body, elapsedMs: body.elapsedMs + 4000 })
          .expect(202);
        expect(again.body).toEqual(first.body);
        // Case and surrounding space do not make it a different enquiry either.
        await request(harness.app)
          .post('/api/v1/enquiries')
          .send({ ...body, originalId: body.originalId.toUpperCase(), email: ' JANE@example.com ' })
          .expect(202);
        expect(await rowCount(harness)).toBe(1);
        expect(harness.service.metrics.duplicates).toBe(2);
      });

      it('same originalId with a different body: 409 naming originalId, the first enquiry unchanged', async () => {
        const harness = await setup();
        const body = validEnquiry();
        await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const response = await request(harness.app)
          .post('/api/v1/enquiries')
          .send({ ...body, message: 'Something else entirely' })
          .expect(409);
        expect(response.body.error).toBe('conflict');
        expect(response.body.fields).toHaveProperty('originalId');
        expect((await harness.service.outbox.get(body.originalId))!.payload!.message).toBe(body.message);
        expect(await rowCount(harness)).toBe(1);
      });

      it('concurrent submissions of one originalId store one enquiry and all get 202', async () => {
        const harness = await setup();
        const body = validEnquiry();
        const responses = await Promise.all(Array.from({ length: 12 }, () => request(harness.app).post('/api/v1/enquiries').send(body)));
        expect(responses.map((response) => response.status)).toEqual(Array(12).fill(202));
        expect(await rowCount(harness)).toBe(1);
        expect(harness.service.metrics.accepted).toBe(1);
      });

      it('concurrent different bodies under one originalId: exactly one wins, the others get 409', async () => {
        const harness = await setup();
        const originalId = randomUUID();
        const responses = await Promise.all(
          Array.from({ length: 6 }, (_, index) =>
            request(harness.app)
              .post('/api/v1/enquiries')
              .send(validEnquiry({ originalId, message: `Version ${index}` })),
          ),
        );
        const statuses = responses.map((response) => response.status).sort();
        expect(statuses).toEqual([202, 409, 409, 409, 409, 409]);
        expect(await rowCount(harness)).toBe(1);
      });

      it('two connections inserting the same originalId (as two processes would): the unique constraint keeps one', async () => {
        const harness = await setup();
        const second = await secondConnection(harness);
        try {
          const enquiry = enquiryRequestSchema.parse(validEnquiry());
          const input = { enquiry, fingerprint: enquiryFingerprint(enquiry), acceptedAt: Date.now() };
          const outcomes = [(await harness.service.outbox.accept(input)).outcome, (await new EnquiryOutbox(second).accept(input)).outcome];
          expect(outcomes).toEqual(['created', 'duplicate']);
          expect(await rowCount(harness)).toBe(1);
        } finally {
          await closeStore(second);
        }
      });

      it('accepts a contact-me enquiry for an agent', async () => {
        const harness = await setup();
        const body = validEnquiry({ listingId: undefined, agentId: 7 });
        await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        expect(destinationOf((await harness.service.outbox.get(body.originalId))!.target).userId).toBe(7);
      });

      it('accepts the enquiry unresolved when the listing look-up fails, rather than losing it', async () => {
        const harness = await setup({
          targets: {
            listing: async () => {
              throw new Error('CRM unreachable');
            },
            agent: async () => undefined,
          },
        });
        const body = validEnquiry();
        await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const row = (await harness.service.outbox.get(body.originalId))!;
        expect(row.status).toBe('queued');
        expect(row.target).toBeNull();
      });
    });

    describe('GET /api/v1/enquiries/:originalId', () => {
      it('says only that the relay accepted it (not where it is on its way), without personal data, and 404 for ids never accepted', async () => {
        const harness = await setup();
        const body = validEnquiry();
        await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const status = await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200);
        expect(status.body).toEqual({ originalId: body.originalId, status: 'accepted' });
        expect(status.headers['cache-control']).toBe('no-store');
        expect(JSON.stringify(status.body)).not.toMatch(/Jane|example\.com|0412/);

        await harness.service.outbox.markDead(body.originalId, Date.now(), 'CRM 400 bad');
        expect((await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200)).body).toEqual(status.body);

        await request(harness.app).get(`/api/v1/enquiries/${randomUUID()}`).expect(404);
        await request(harness.app).get('/api/v1/enquiries/not-a-uuid').expect(404);
        await request(harness.app)
          .get(`/api/v1/enquiries/${encodeURIComponent("' OR 1=1 --")}`)
          .expect(404);
      });
    });

    describe('CORS', () => {
      it('lets allowed origins and the relay itself post; refuses others with 403 and stores nothing', async () => {
        const harness = await setup({ env: { ALLOWED_ORIGINS: 'https://agency.example', PUBLIC_URL: 'http://relay.local:8787' } });
        const preflight = await request(harness.app)
          .options('/api/v1/enquiries')
          .set('Origin', 'https://agency.example')
          .set('Access-Control-Request-Method', 'POST')
          .set('Access-Control-Request-Headers', 'content-type')
          .expect(204);
        expect(preflight.headers['access-control-allow-origin']).toBe('https://agency.example');
        expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, OPTIONS');

        const allowed = await request(harness.app).post('/api/v1/enquiries').set('Origin', 'https://agency.example').send(validEnquiry()).expect(202);
        expect(allowed.headers['access-control-allow-origin']).toBe('https://agency.example');

        // The relay's own pages (PUBLIC_URL's origin), whatever Host the request names.
        const own = await request(harness.app).post('/api/v1/enquiries').set('Origin', 'http://relay.local:8787').send(validEnquiry());
        expect(own.status).toBe(202);
        // A forged Host does not make the attacker's origin the relay's own.
        const forged = await request(harness.app)
          .post('/api/v1/enquiries')
          .set('Host', 'evil.example')
          .set('Origin', 'http://evil.example')
          .send(validEnquiry());
        expect(forged.status).toBe(403);

        for (const origin of ['https://evil.example', 'https://agency.example.evil.example', 'null']) {
          const refused = await request(harness.app).post('/api/v1/enquiries').set('Origin', origin).send(validEnquiry());
          expect(refused.status).toBe(403);
          expect(refused.headers['access-control-allow-origin']).toBeUndefined();
          await request(harness.app).options('/api/v1/enquiries').set('Origin', origin).set('Access-Control-Request-Method', 'POST').expect(403);
        }
        expect(await rowCount(harness)).toBe(2);
      });
    });

    describe('rate limit', () => {
      it('answers 429 with Retry-After past the per-minute limit, but still answers repeats of accepted ids', async () => {
        const harness = await setup({ env: { ENQUIRY_RATE_LIMIT_PER_MINUTE: '3' } });
        const bodies = [validEnquiry(), validEnquiry(), validEnquiry()];
        for (const body of bodies) await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const limited = await request(harness.app).post('/api/v1/enquiries').send(validEnquiry()).expect(429);
        expect(limited.body.error).toBe('rate_limited');
        const retryAfter = Number(limited.headers['retry-after']);
        expect(retryAfter).toBeGreaterThan(0);
        expect(retryAfter).toBeLessThanOrEqual(60);
        // The widget re-sending an accepted enquiry (its 202 was lost) gets its answer, not a 429.
        await request(harness.app).post('/api/v1/enquiries').send(bodies[0]).expect(202);
        // Status polling is not limited.
        await request(harness.app).get(`/api/v1/enquiries/${bodies[1]!.originalId}`).expect(200);
        expect(await rowCount(harness)).toBe(3);
        expect(harness.service.metrics.rateLimited).toBe(1);
      });
    });

    describe('daily limits (issue 9 item 13)', () => {
      // 21:30 UTC: the day's limits renew in 2 h 30 min.
      const evening = Date.UTC(2026, 10, 22, 21, 30, 0);

      it('caps one client per UTC day, with Retry-After to 00:00 UTC and a message saying so; repeats are free', async () => {
        let now = evening;
        const harness = await setup({ env: { ENQUIRY_DAILY_LIMIT_PER_CLIENT: '3' }, now: () => now });
        const bodies = [validEnquiry(), validEnquiry(), validEnquiry()];
        for (const body of bodies) await request(harness.app).post('/api/v1/enquiries').send(body).expect(202);
        const limited = await request(harness.app).post('/api/v1/enquiries').send(validEnquiry()).expect(429);
        expect(limited.body.error).toBe('daily_limit');
        expect(limited.body.message).toBe(
          'This address has sent 3 enquiries today, the most taken from one connection in a day; try again after 00:00 UTC (in 2 h 30 min), or contact the agency directly.',
        );
        expect(limited.headers['retry-after']).toBe(String(150 * 60));
        // The per-minute limit's headers are still the ones a client reads for the short window.
        expect(limited.headers['ratelimit-policy']).toMatch(/w=60/);
        // A repeat of an accepted enquiry (its 202 was lost) is answered, and does not count.
        await request(harness.app).post('/api/v1/enquiries').send(bodies[0]).expect(202);
        expect(await rowCount(harness)).toBe(3);
        // The next UTC day starts afresh.
        now = Date.UTC(2026, 10, 23, 0, 0, 1);
        await request(harness.app).post('/api/v1/enquiries').send(validEnquiry()).expect(202);
        expect(await rowCount(harness)).toBe(4);
      });

      it('keys the daily cap per client address', async () => {
        const harness = await setup({ env: { ENQUIRY_DAILY_LIMIT_PER_CLIENT: '1', TRUST_PROXY: 'loopback' }, now: () => evening });
        const from = (ip: string) => request(harness.app).post('/api/v1/enquiries').set('X-Forwarded-For', ip);
        await from('203.0.113.7').send(validEnquiry()).expect(202);
        await from('203.0.113.7').send(validEnquiry()).expect(429);
        await from('198.51.100.20').send(validEnquiry()).expect(202);
      });

      it('stops forwarding past the overall daily budget, across restarts, while spam is still answered as usual', async () => {
        let now = evening;
        const harness = await setup({ env: { ENQUIRY_DAILY_BUDGET: '2', TRUST_PROXY: 'loopback' }, now: () => now });
        // Yesterday's enquiries do not count.
        now = evening - 24 * 60 * 60_000;
        await request(harness.app).post('/api/v1/enquiries').set('X-Forwarded-For', '192.0.2.1').send(validEnquiry()).expect(202);
        now = evening;
        // Two clients spend it; a third, new client is refused with the reason and the wait.
        await request(harness.app).post('/api/v1/enquiries').set('X-Forwarded-For', '192.0.2.2').send(validEnquiry()).expect(202);
        await request(harness.app)
          .post('/api/v1/enquiries')
          .set('X-Forwarded-For', '192.0.2.3')
          .send(validEnquiry({ website: 'http://spam.example' }))
          .expect(202);
        await request(harness.app).post('/api/v1/enquiries').set('X-Forwarded-For', '192.0.2.3').send(validEnquiry()).expect(202);
        const refused = await request(harness.app).post('/api/v1/enquiries').set('X-Forwarded-For', '192.0.2.4').send(validEnquiry()).expect(429);
        expect(refused.body.error).toBe('daily_budget');
        expect(refused.body.message).toMatch(
          /^The agency has taken all the enquiries it can through this form today; try again after 00:00 UTC \(in 2 h 30 min\)/,
        );
        expect(refused.headers['retry-after']).toBe(String(150 * 60));
        expect(await rowCount(harness)).toBe(4);

        // A relay restarted on the same store still knows today's count.
        const restartedConfig = loadConfig({ DATA_DIR: harness.dataDir, ENQUIRY_DAILY_BUDGET: '2' });
        const restarted = createApp({
          config: restartedConfig,
          storeAnswers: () => storeAnswers(harness.store),
          log: silentLogger,
          features: [
            enquiriesFeature(harness.service, {
              allowedOrigins: restartedConfig.http.allowedOrigins,
              ownOrigins: publicOrigins(restartedConfig),
              limits: restartedConfig.enquiries,
              log: silentLogger,
              now: () => now,
            }),
          ],
          demoDir: null,
        });
        await request(restarted).post('/api/v1/enquiries').send(validEnquiry()).expect(429);
        now = Date.UTC(2026, 10, 23, 0, 0, 1);
        await request(restarted).post('/api/v1/enquiries').send(validEnquiry()).expect(202);
      });
    });

    describe('spam signals (test/enquiries/spam-signals.test.ts follows them to the CRM)', () => {
      it('a filled honeypot or a form sent too fast gets the same 202; the first is quarantined whole, the second queued to be sent marked; both counted', async () => {
        const harness = await setup({ env: { ENQUIRY_MIN_FILL_MS: '3000' } });
        const honeypot = validEnquiry({ website: 'http://spam.example' });
        const fast = validEnquiry({ elapsedMs: 900 });
        const human = validEnquiry();
        const answers = [];
        for (const body of [honeypot, fast, human]) {
          answers.push((await request(harness.app).post('/api/v1/enquiries').send(body).expect(202)).body);
        }
        expect(answers).toEqual([honeypot, fast, human].map((body) => ({ originalId: body.originalId, status: 'queued' })));
        const quarantined = (await harness.service.outbox.get(honeypot.originalId))!;
        expect(quarantined).toMatchObject({ status: 'spam', spamReason: 'honeypot', payload: { email: 'jane@example.com', message: honeypot.message } });
        expect(await harness.service.outbox.get(fast.originalId)).toMatchObject({ status: 'queued', spamReason: 'too_fast', payload: { elapsedMs: 900 } });
        expect(harness.service.metrics.spam).toEqual({ honeypot: 1, too_fast: 1, repeat_registration: 0 });
        // The person's enquiry and the fast one wait for delivery; the quarantined one does not.
        expect((await harness.service.outbox.due(Date.now() + 1, 10)).map((entry) => entry.originalId)).toEqual([fast.originalId, human.originalId]);
        // A bot polling the status learns nothing: every lead reads the same.
        for (const body of [honeypot, fast, human])
          expect((await request(harness.app).get(`/api/v1/enquiries/${body.originalId}`).expect(200)).body).toEqual({
            originalId: body.originalId,
            status: 'accepted',
          });
        const metrics = await request(harness.app).get('/metrics').expect(200);
        expect(metrics.text).toContain('estate_enquiries_spam_total{reason="honeypot"} 1');
        expect(metrics.text).toContain('estate_enquiries_spam_total{reason="too_fast"} 1');
        expect(metrics.text).toContain('estate_enquiry_outbox{status="queued"} 2');
        expect(metrics.text).toContain('estate_enquiry_outbox{status="quarantined"} 1');
      });
    });
  });
}
