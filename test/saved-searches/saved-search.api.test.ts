// POST /api/v1/saved-searches over real HTTP (supertest) on a real store: 202 once stored, the
// enquiry form's protections (origin, honeypot, timing, per-client and daily caps), field-by-field
// 400s naming the bad filter, repeats and conflicts, the status route; no personal data in answers.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { savedSearchHarness, validSavedSearch, type SavedSearchHarness, type SavedSearchHarnessOptions } from './support.ts';
import { onOneUtcDayFor } from '../support/test-clock.ts';

let sim: RunningSimulator;
const honeypotTag = () => randomUUID().slice(0, 8);
beforeAll(async () => {
  sim = await startSimulator({ listings: 12, seed: 5 });
});
afterAll(async () => {
  await sim?.close();
});

for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped)(`saved searches API on ${variant.name}`, () => {
    const harnesses: SavedSearchHarness[] = [];
    const harness = async (options: Partial<SavedSearchHarnessOptions> = {}) => {
      const made = await savedSearchHarness({
        crm: { baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken },
        postgresServer: variant.postgresServer,
        ...options,
      });
      harnesses.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(harnesses.splice(0).map((made) => made.close()));
    });

    it('stores a saved search before answering 202, and answers its status', async () => {
      const { app, store } = await harness();
      const body = validSavedSearch();
      const response = await request(app).post('/api/v1/saved-searches').send(body);
      expect(response.status).toBe(202);
      expect(response.body).toEqual({ originalId: body.originalId, status: 'queued', confirmation: 'email' });
      const rows = await rawRows(store, 'saved_searches');
      expect(rows).toHaveLength(1);
      // Stored, and nothing goes to the CRM until the address's owner confirms (saved-search.confirmation.test.ts).
      expect(rows[0]).toMatchObject({ original_id: body.originalId, status: 'unconfirmed', step: 'person', confirmation: 'email' });
      expect(JSON.parse(String(rows[0]!.payload)).search).toEqual(body.search);
      // The address is kept as a digest for the per-address claim, never in clear outside the payload.
      // A keyed digest of the address (HMAC with the relay's secret), never the address or its bare SHA-256.
      expect(rows[0]!.address_key).toMatch(/^k1:[0-9a-f]{64}$/);
      const status = await request(app).get(`/api/v1/saved-searches/${body.originalId}`);
      expect(status.body).toEqual({ originalId: body.originalId, status: 'accepted' });
      expect(JSON.stringify(status.body)).not.toContain('mary@example.com');
    });

    it('names each bad field, a filter a saved search does not keep, and a missing consent', async () => {
      const { app } = await harness();
      const response = await request(app)
        .post('/api/v1/saved-searches')
        .send({
          ...validSavedSearch(),
          consent: false,
          email: 'not-an-address',
          search: { minBeds: -1, sort: 'price', type: 'rent', minPrice: 900, maxPrice: 100 },
        });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_saved_search');
      const fields = response.body.fields as Record<string, string>;
      expect(fields.consent).toMatch(/consent must be given/);
      expect(fields.email).toMatch(/email address/i);
      expect(fields['search.minBeds']).toMatch(/negative/);
      expect(fields['search.type']).toMatch(/sale, lease/);
      expect(fields['search.sort']).toMatch(/not a filter a saved search keeps/);
      const noSearch = await request(app)
        .post('/api/v1/saved-searches')
        .send({ ...validSavedSearch(), search: 'Kew' });
      expect(noSearch.body.fields.search).toMatch(/object of listing filters/);
      const range = await request(app)
        .post('/api/v1/saved-searches')
        .send({ ...validSavedSearch(), search: { minPrice: 900, maxPrice: 100 } });
      expect(range.body.fields['search.maxPrice']).toMatch(/below/);
      const junk = await request(app).post('/api/v1/saved-searches').set('Content-Type', 'application/json').send('{"originalId":');
      expect(junk.status).toBe(400);
      expect(junk.body.fields.body).toBeDefined();
    });

    it('answers a repeat 202 and a reused originalId with other content 409', async () => {
      const { app, store } = await harness();
      const body = validSavedSearch();
      expect((await request(app).post('/api/v1/saved-searches').send(body)).status).toBe(202);
      expect(
        (
          await request(app)
            .post('/api/v1/saved-searches')
            .send({ ...body, elapsedMs: 99_000 })
        ).status,
      ).toBe(202);
      const conflict = await request(app)
        .post('/api/v1/saved-searches')
        .send({ ...body, search: { suburb: 'Hawthorn' } });
      expect(conflict.status).toBe(409);
      expect(await rawRows(store, 'saved_searches')).toHaveLength(1);
    });

    it('refuses a suburb the CRM does not know with a 400 naming the field and close names it knows, storing nothing; a map area is a list of suburbs', async () => {
      const known = ['Kew', 'Kew East', 'Hawthorn', 'Hawthorn East', 'Richmond'].map((name) => ({ name, postcode: null, state: 'VIC' }));
      const { app, store } = await harness({ knownSuburbs: () => known });
      const typo = await request(app)
        .post('/api/v1/saved-searches')
        .send(validSavedSearch({ search: { suburb: 'Hawthorne' } }));
      expect(typo.status).toBe(400);
      expect(typo.body).toMatchObject({ error: 'unknown_suburb', fields: { 'search.suburb': expect.stringContaining('"Hawthorne"') } });
      expect(typo.body.suggestions).toEqual({ 'search.suburb': ['Hawthorn'] });
      const area = await request(app)
        .post('/api/v1/saved-searches')
        .send(validSavedSearch({ search: { suburbs: ['kew', 'Richmnd', 'Nowhere Town'] } }));
      expect(area.status).toBe(400);
      expect(Object.keys(area.body.fields).sort()).toEqual(['search.suburbs.1', 'search.suburbs.2']);
      expect(area.body.suggestions).toEqual({ 'search.suburbs.1': ['Richmond'], 'search.suburbs.2': [] });
      expect(await rawRows(store, 'saved_searches')).toHaveLength(0);
      // Both a suburb and an area, a repeated suburb, too many: refused by the schema, naming search.suburbs.
      for (const search of [
        { suburb: 'Kew', suburbs: ['Kew'] },
        { suburbs: ['Kew', 'KEW'] },
        { suburbs: Array.from({ length: 13 }, (_, index) => `Kew ${index}`) },
        { suburbs: [] },
      ]) {
        const refused = await request(app).post('/api/v1/saved-searches').send(validSavedSearch({ search }));
        expect(refused.status, JSON.stringify(search)).toBe(400);
        expect(Object.keys(refused.body.fields)).toEqual(['search.suburbs']);
      }
      const taken = validSavedSearch({ search: { type: 'sale', suburbs: ['Kew', 'hawthorn east'] } });
      expect((await request(app).post('/api/v1/saved-searches').send(taken)).status).toBe(202);
      const rows = await rawRows(store, 'saved_searches');
      expect(rows).toHaveLength(1);
      expect(JSON.parse(String(rows[0]!.payload)).search).toEqual(taken.search);
    });

    it('takes a filled honeypot or a form sent too fast with a 202: the first kept whole in the quarantine, the second queued to be saved, marked (saved-search.spam-signals.test.ts)', async () => {
      const { app, store, deliver } = await harness();
      // Addresses of this test's own: the simulator keeps the file's contacts.
      const [bot, person] = [`bot-${honeypotTag()}@example.com`, `fast-${honeypotTag()}@example.com`];
      const honeypot = validSavedSearch({ website: 'http://spam.example', email: bot });
      const fast = validSavedSearch({ elapsedMs: 10, email: person });
      expect((await request(app).post('/api/v1/saved-searches').send(honeypot)).status).toBe(202);
      expect((await request(app).post('/api/v1/saved-searches').send(fast)).status).toBe(202);
      const rows = await rawRows(store, 'saved_searches');
      expect(rows.map((row) => [row.status, row.spam_reason, JSON.parse(String(row.payload)).email])).toEqual([
        ['spam', 'honeypot', bot],
        ['unconfirmed', 'too_fast', person],
      ]);
      await deliver();
      expect(sim.state.contacts.posted().filter((contact) => contact.emails.includes(bot))).toEqual([]);
      expect(sim.state.contacts.posted().filter((contact) => contact.emails.includes(person))).toHaveLength(1);
      for (const body of [honeypot, fast])
        expect((await request(app).get(`/api/v1/saved-searches/${body.originalId}`)).body).toEqual({ originalId: body.originalId, status: 'accepted' });
    });

    it('refuses other origins, and limits one client per minute and all clients per day', async () => {
      const { app } = await harness({ env: { ALLOWED_ORIGINS: 'https://agency.example', ENQUIRY_RATE_LIMIT_PER_MINUTE: '2', SAVED_SEARCH_DAILY_BUDGET: '3' } });
      const refused = await request(app).post('/api/v1/saved-searches').set('Origin', 'https://evil.example').send(validSavedSearch());
      expect(refused.status).toBe(403);
      const ok = await request(app).post('/api/v1/saved-searches').set('Origin', 'https://agency.example').send(validSavedSearch());
      expect(ok.status).toBe(202);
      expect(ok.headers['access-control-allow-origin']).toBe('https://agency.example');
      expect((await request(app).post('/api/v1/saved-searches').send(validSavedSearch())).status).toBe(202);
      const limited = await request(app).post('/api/v1/saved-searches').send(validSavedSearch());
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBeDefined();
    });

    it('refuses past the daily budget with Retry-After until 00:00 UTC', async () => {
      // The feature counts on the wall clock (the harness hands it no other): the three posts on one UTC day.
      await onOneUtcDayFor(10_000);
      const { app } = await harness({ env: { SAVED_SEARCH_DAILY_BUDGET: '2' } });
      // Three different searches: the same one again would be one saved search (one per intent), costing no budget.
      const search = (minBeds: number) => validSavedSearch({ search: { type: 'sale', minBeds } });
      expect((await request(app).post('/api/v1/saved-searches').send(search(1))).status).toBe(202);
      expect((await request(app).post('/api/v1/saved-searches').send(search(2))).status).toBe(202);
      const spent = await request(app).post('/api/v1/saved-searches').send(search(3));
      expect(spent.status).toBe(429);
      expect(spent.body.error).toBe('daily_budget');
      expect(Number(spent.headers['retry-after'])).toBeGreaterThan(0);
    });
  });
}
