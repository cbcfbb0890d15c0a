import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import type { SavedSearchOptions } from '../../contract/saved-search.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { runningClock } from '../support/test-clock.ts';
import { ALERT_WORDS, AlertText } from '../../server/saved-searches/words.ts';
import { savedSearchHarness, stillToSave, validSavedSearch, type SavedSearchHarness, type SavedSearchHarnessOptions } from './support.ts';

// Issue 29: double opt-in. A saved search reaches the CRM only once the owner of its address
// follows the link the relay e-mailed them (through a real SMTP server on loopback) and presses
// the page's button; unconfirmed ones are erased when the link lapses; a contact who unsubscribed
// is never subscribed again; agent confirmation adds the person unsubscribed for an agent to
// confirm; without SMTP, alerts are not offered. Both stores.

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ listings: 12, seed: 29 });
});
afterAll(async () => {
  await sim?.close();
});

const DAY = 24 * 60 * 60_000;
const contactsOf = (email: string) => sim.state.contacts.contacts.filter((contact) => contact.emails.some((address) => address.toLowerCase() === email));
const linkOf = (text: string) => /http:\/\/relay\.test(\/alerts\/confirm\/[0-9a-f]{64})/.exec(text)?.[1];

for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped)(`saved-search confirmation on ${variant.name}`, () => {
    const harnesses: SavedSearchHarness[] = [];
    let clock = runningClock();
    const harness = async (options: Partial<SavedSearchHarnessOptions> = {}) => {
      clock = runningClock();
      const made = await savedSearchHarness({
        crm: { baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken },
        postgresServer: variant.postgresServer,
        now: () => clock(),
        ...options,
      });
      harnesses.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(harnesses.splice(0).map((made) => made.close()));
      sim.state.reset();
    });
    const post = async (made: SavedSearchHarness, body: object) => {
      const response = await request(made.app).post('/api/v1/saved-searches').send(body);
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      return response.body as { confirmation: string };
    };

    it('e-mails the owner a link; nothing reaches the CRM until its page is confirmed; then the contact, requirement and consent record', async () => {
      const made = await harness({ env: { SAVED_SEARCH_HOLDING_ENQUIRY: '1' } });
      const body = validSavedSearch({
        email: 'owner@example.com',
        search: { type: 'sale', minBeds: 3, maxPrice: 1_500_000 },
        page: 'https://agency.example/buy',
        consentText: 'Email me new homes that match this search. I can unsubscribe at any time.',
      });
      expect(await post(made, body)).toMatchObject({ confirmation: 'email' });
      await made.service.confirmer.drain();
      const mail = await made.mail.waitFor((message) => message.to.includes('owner@example.com'), 10_000);
      expect(mail.subject).toBe('Confirm your property alerts from Harness Realty');
      expect(mail.from).toContain('alerts@harness.example');
      expect(mail.text).toContain('homes for sale, 3+ bed, up to $1,500,000');
      const path = linkOf(mail.text)!;
      expect(path).toBeDefined();
      expect(mail.html).toContain(`http://relay.test${path}`);
      // The worker runs, the page is only looked at (as a mail scanner does): nothing in the CRM.
      await made.service.worker.drain();
      const page = await request(made.app).get(path);
      expect(page.status).toBe(200);
      expect(page.headers['x-robots-tag']).toBe('noindex');
      expect(page.text).toContain('Confirm my alerts');
      expect(page.text).toContain('I can unsubscribe at any time.');
      await made.service.worker.drain();
      expect(contactsOf('owner@example.com')).toEqual([]);
      expect(sim.state.postedEnquiries()).toEqual([]);
      // The owner presses the button.
      const confirmed = await request(made.app).post(path);
      expect(confirmed.status).toBe(303);
      expect(confirmed.headers.location).toBe(path);
      const confirmedAt = clock();
      await made.service.worker.drain();
      const [contact] = contactsOf('owner@example.com');
      expect(contact).toBeDefined();
      // Subscribed to e-mail, which they confirmed; nothing else claimed.
      expect(contact!.unsubscribe.email).toBe(false);
      expect(contact!.requirements).toHaveLength(1);
      expect(contact!.requirements[0]).toMatchObject({ active: true, type: 'sale', minimumBed: 3, maximumPrice: 1_500_000 });
      expect(contact!.notes).toHaveLength(1);
      const record = contact!.notes[0]!.body;
      expect(record).toContain(body.originalId);
      expect(record).toContain('https://agency.example/buy');
      expect(record).toContain('"Email me new homes that match this search. I can unsubscribe at any time."');
      expect(record).toContain(`Confirmed ${new Date(confirmedAt).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
      expect(record).toContain('owner@example.com');
      const [holding] = sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === body.originalId);
      expect(holding!.metaData).toContainEqual({ key: 'consent', value: 'confirmed by e-mail' });
      // The page now says so; a second press changes nothing.
      expect((await request(made.app).get(path)).text).toContain('Your alerts are on');
      expect((await request(made.app).post(path)).status).toBe(303);
      await made.service.worker.drain();
      expect(contactsOf('owner@example.com')[0]!.requirements).toHaveLength(1);
      expect(made.service.metrics.confirmed).toBe(1);
    });

    it("in the language the form was in: the e-mail, its link's page and what it says of the search; else the agency's language", async () => {
      // The agency's pages are in Spanish (SITE_LANGUAGE=es).
      const made = await harness({ confirmation: { language: 'es' } });
      const search = { type: 'sale' as const, minBeds: 3, maxPrice: 1_500_000 };
      const send = async (email: string, language?: string) => {
        await post(made, validSavedSearch({ email, search, ...(language ? { language } : {}) }));
        await made.service.confirmer.drain();
        return made.mail.waitFor((message) => message.to.includes(email), 10_000);
      };
      const vi = await send('vi@example.com', 'vi-VN');
      expect(vi.subject).toBe(ALERT_WORDS.vi!.subject.replace('{agency}', 'Harness Realty'));
      expect(vi.html).toMatch(/^<!doctype html><html lang="vi">/);
      const viText = new AlertText('vi');
      expect(vi.text).toContain(viText.describe(search));
      expect(viText.describe(search)).not.toContain('homes');
      // Its date in Vietnamese, not English.
      expect(vi.text).not.toMatch(/January|February|March|April|May|June|July|August|September|October|November|December/);
      const viPage = await request(made.app).get(linkOf(vi.text)!);
      expect(viPage.text).toMatch(/<html lang="vi">/);
      expect(viPage.text).toContain(ALERT_WORDS.vi!.askTitle);
      expect(viPage.text).toContain(ALERT_WORDS.vi!.confirmButton);
      // Arabic: right to left, in the e-mail and on the page.
      const ar = await send('ar@example.com', 'ar');
      expect(ar.html).toMatch(/^<!doctype html><html lang="ar" dir="rtl">/);
      expect((await request(made.app).get(linkOf(ar.text)!)).text).toMatch(/<html lang="ar" dir="rtl">/);
      // A form in a language the relay has no words for, or none named: the agency's.
      for (const [email, language] of [
        ['fr@example.com', 'fr'],
        ['none@example.com', undefined],
      ] as const) {
        const mail = await send(email, language);
        expect(mail.subject).toBe(ALERT_WORDS.es!.subject.replace('{agency}', 'Harness Realty'));
        expect(mail.html).toMatch(/<html lang="es">/);
      }
      // An unknown link: the agency's language too.
      const gone = await request(made.app).get(`/alerts/confirm/${'0'.repeat(64)}`);
      expect(gone.status).toBe(404);
      expect(gone.text).toContain(ALERT_WORDS.es!.goneTitle);
    });

    it('erases a search nobody confirmed when its link lapses: nothing in the CRM, nothing personal kept, the link refused', async () => {
      const made = await harness();
      const body = validSavedSearch({ email: 'stranger@example.com', fullName: 'Zebedee Stranger' });
      await post(made, body);
      await made.service.confirmer.drain();
      const mail = await made.mail.waitFor((message) => message.to.includes('stranger@example.com'), 10_000);
      const path = linkOf(mail.text)!;
      // Six days on, still waiting; past the seventh, erased.
      const start = clock();
      clock = () => start + 6 * DAY;
      await made.service.confirmer.drain();
      expect((await made.service.store.get(body.originalId))!.status).toBe('unconfirmed');
      clock = () => start + 7 * DAY + 60_000;
      await made.service.confirmer.drain();
      const [row] = await rawRows(made.store, 'saved_searches');
      expect(row).toMatchObject({ status: 'expired', payload: null, address_key: null, intent_key: null, confirm_key: null });
      expect(JSON.stringify(row)).not.toContain('Zebedee');
      expect(JSON.stringify(row)).not.toContain('stranger@example.com');
      const lapsed = await request(made.app).post(path);
      expect(lapsed.status).toBe(303);
      const page = await request(made.app).get(path);
      expect(page.status).toBe(404);
      expect(page.text).toContain('This link has expired');
      await made.service.worker.drain();
      expect(contactsOf('stranger@example.com')).toEqual([]);
      expect(made.service.metrics.expired).toBe(1);
    });

    it('never subscribes a contact who unsubscribed: no requirement, no note, their flags kept, and the owner told on the page', async () => {
      const made = await harness({ env: { SAVED_SEARCH_HOLDING_ENQUIRY: '1', SAVED_SEARCH_CATEGORY_IDS: '64' } });
      const existing = sim.state.contacts.add({
        firstName: 'Una',
        lastName: 'Subscribed',
        emails: ['una@example.com'],
        phoneNumbers: [],
        unsubscribe: { email: true, sms: true, letters: true },
        categories: [],
        requirements: [],
        notes: [],
        origin: 'api',
      });
      const body = validSavedSearch({ email: 'una@example.com' });
      // Three times, as the review did: each one is one intent, and none subscribes her.
      await post(made, body);
      await post(made, validSavedSearch({ email: 'una@example.com', search: { type: 'lease' } }));
      expect(await made.confirmAll()).toBe(2);
      // One address is worked one search at a time: the second waits for the first's claim.
      for (let round = 0; round < 20 && (await stillToSave(made.service.store)); round++) {
        await made.deliver();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(existing.requirements).toEqual([]);
      expect(existing.notes).toEqual([]);
      expect(existing.categories).toEqual([]);
      expect(existing.unsubscribe).toEqual({ email: true, sms: true, letters: true });
      expect(sim.state.postedEnquiries()).toEqual([]);
      expect((await made.service.store.get(body.originalId))!.status).toBe('unsubscribed');
      const mail = made.mail.messages().find((message) => message.to.includes('una@example.com'))!;
      const page = await request(made.app).get(linkOf(mail.text)!);
      expect(page.text).toContain('We have not subscribed you');
      expect(page.text).toContain('ask Harness Realty to start them');
      expect(made.service.metrics.unsubscribed).toBe(2);
    });

    it('agent confirmation: no e-mail; the person added unsubscribed, the requirement inactive, no lists, and an entry asking an agent to confirm', async () => {
      const made = await harness({
        env: { SAVED_SEARCH_CATEGORY_IDS: '64', SAVED_SEARCH_HOLDING_ENQUIRY: '0' },
        confirmation: { mode: 'agent', mailer: undefined },
      });
      expect((await request(made.app).get('/api/v1/saved-searches/options')).body).toEqual({
        offered: true,
        confirmation: 'agent',
      } satisfies SavedSearchOptions);
      const body = validSavedSearch({ email: 'agent-mode@example.com', search: { type: 'sale', minBeds: 2 } });
      expect(await post(made, body)).toMatchObject({ confirmation: 'agent' });
      await made.service.worker.drain();
      const [contact] = contactsOf('agent-mode@example.com');
      expect(contact!.unsubscribe).toMatchObject({ email: true, sms: true });
      expect(contact!.requirements).toHaveLength(1);
      expect(contact!.requirements[0]!.active).toBe(false);
      expect(contact!.categories).toEqual([]);
      expect(contact!.notes).toEqual([]);
      const [entry] = sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === body.originalId);
      expect(entry!.subject).toMatch(/^Confirm alert subscriber: Mary Jane Citizen, homes for sale, 2\+ bed/);
      expect(entry!.body).toContain('Confirm with the person that they asked');
      expect(made.mail.messages()).toEqual([]);
      expect((await made.service.store.get(body.originalId))!.status).toBe('saved');
    });

    it('without an SMTP server, e-mail confirmation is not offered: the options say why, a post is refused 403 and nothing is stored', async () => {
      const made = await harness({ confirmation: { mailer: undefined } });
      const options = (await request(made.app).get('/api/v1/saved-searches/options')).body as SavedSearchOptions;
      expect(options.offered).toBe(false);
      expect(options.setup).toContain('SMTP_URL');
      const refused = await request(made.app).post('/api/v1/saved-searches').send(validSavedSearch());
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ error: 'alerts_not_offered', setup: options.setup });
      expect(await rawRows(made.store, 'saved_searches')).toEqual([]);
    });

    it('an e-mail the SMTP server defers (4xx) is sent again after a back-off, and the link in it works', async () => {
      let deferrals = 2;
      const made = await harness({ mail: { refuseRecipient: () => (deferrals-- > 0 ? 451 : undefined) } });
      const body = validSavedSearch({ email: 'later@example.com' });
      await post(made, body);
      await made.service.confirmer.drain();
      expect(made.service.metrics.confirmationMail.failed).toBe(1);
      const row = (await made.service.store.get(body.originalId))!;
      expect(row).toMatchObject({ status: 'unconfirmed', mailSentAt: null });
      expect(row.lastError).toMatch(/^confirmation e-mail failed/);
      expect(row.lastError).not.toContain('later@example.com');
      // Not due again at once; after 30 s (the first back-off) it is, and is deferred again; then after 60 s it goes.
      await made.service.confirmer.drain();
      expect(made.service.metrics.confirmationMail.failed).toBe(1);
      const start = clock();
      clock = () => start + 31_000;
      await made.service.confirmer.drain();
      expect(made.service.metrics.confirmationMail.failed).toBe(2);
      clock = () => start + 31_000 + 61_000;
      await made.service.confirmer.drain();
      expect(made.service.metrics.confirmationMail.sent).toBe(1);
      expect(await made.confirmAll()).toBe(1);
      await made.service.worker.drain();
      expect(contactsOf('later@example.com')).toHaveLength(1);
    });

    it('one released from the quarantine waits for its owner too: mailed, not sent to the CRM', async () => {
      const made = await harness();
      const bot = validSavedSearch({ email: 'released@example.com', website: 'http://spam.example' });
      await post(made, bot);
      await made.service.confirmer.drain();
      expect(made.mail.messages()).toEqual([]);
      expect(await made.service.store.release(bot.originalId, clock())).toBe(true);
      expect((await made.service.store.get(bot.originalId))!.status).toBe('unconfirmed');
      await made.service.worker.drain();
      expect(contactsOf('released@example.com')).toEqual([]);
      await made.service.confirmer.drain();
      expect(made.mail.messages().filter((message) => message.to.includes('released@example.com'))).toHaveLength(1);
    });

    it('a released quarantined search that the person also sent themselves within a day is recorded as that one, not mailed or sent twice', async () => {
      const made = await harness();
      const bot = validSavedSearch({ email: 'twice@example.com', website: 'http://spam.example' });
      const person = validSavedSearch({ email: 'Twice@Example.com', search: bot.search });
      await post(made, bot);
      await post(made, person);
      expect(await made.service.store.release(bot.originalId, clock())).toBe('repeat');
      await made.service.confirmer.drain();
      expect(made.mail.messages().filter((message) => message.to.some((to) => to.toLowerCase() === 'twice@example.com'))).toHaveLength(1);
      expect(await made.confirmAll()).toBe(1);
      for (let round = 0; round < 10 && (await stillToSave(made.service.store)); round++) await made.deliver();
      expect(contactsOf('twice@example.com')[0]!.requirements).toHaveLength(1);
      expect((await request(made.app).get(`/api/v1/saved-searches/${bot.originalId}`)).body).toMatchObject({ status: 'accepted' });
    });
  });
}
