import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import type { SimEnquiry } from '../../crm-sim/model.ts';
import { runCli } from '../../server/cli.ts';
import type { RelayStatus } from '../../server/ops/status.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { savedSearchHarness, validSavedSearch, type SavedSearchHarness, type SavedSearchHarnessOptions } from './support.ts';

// Issue 28 for "Get alerts for this search": a saved search sent too fast (a weak signal) reaches
// the CRM as any other, with a holding-area note marking it for the agent (left even when the
// agency asks for no notes: it is where the agent sees the mark); one whose honeypot is filled in
// is kept whole in the quarantine, listed and released with the relay CLI (once), counted, and
// erased after LEAD_QUARANTINE_DAYS. The status route reads the same for each. Both stores.

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ listings: 12, seed: 28 });
});
afterAll(async () => {
  await sim?.close();
});

const DAY = 24 * 60 * 60_000;
const notes = (originalId: string): SimEnquiry[] => sim.state.postedEnquiries().filter((enquiry) => enquiry.originalId === originalId);
const spamSignal = (enquiry: SimEnquiry) => enquiry.metaData.find((entry) => entry.key === 'spamSignal')?.value;
const contactsOf = (email: string) => sim.state.contacts.posted().filter((contact) => contact.emails.some((address) => address.toLowerCase() === email));

for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped)(`saved-search spam signals on ${variant.name}`, () => {
    const harnesses: SavedSearchHarness[] = [];
    let clock = Date.now();
    const harness = async (options: Partial<SavedSearchHarnessOptions> = {}) => {
      clock = Date.now();
      const made = await savedSearchHarness({
        crm: { baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken },
        postgresServer: variant.postgresServer,
        now: () => clock,
        ...options,
      });
      harnesses.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(harnesses.splice(0).map((made) => made.close()));
      sim.state.reset();
    });
    const cli = async (made: SavedSearchHarness, ...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(args, { env: made.env, out: (text) => out.push(text), err: (text) => err.push(text) });
      return { code, out: out.join('\n'), err: err.join('\n') };
    };
    const post = async (made: SavedSearchHarness, body: object) => {
      const response = await request(made.app).post('/api/v1/saved-searches').send(body);
      expect(response.status, JSON.stringify(response.body)).toBe(202);
    };
    const status = async (made: SavedSearchHarness, originalId: string) =>
      (await request(made.app).get(`/api/v1/saved-searches/${originalId}`)).body as unknown;

    it('one sent too fast is saved as any other, with a note marking it for the agent though the agency asks for none', async () => {
      // The agency turns the holding-area notes off (they are on by default).
      const made = await harness({ env: { SAVED_SEARCH_HOLDING_ENQUIRY: '0' } });
      const fast = validSavedSearch({ email: 'fast@example.com', elapsedMs: 700 });
      const human = validSavedSearch({ email: 'slow@example.com' });
      await post(made, fast);
      await post(made, human);
      await made.deliver();
      expect(contactsOf('fast@example.com')).toHaveLength(1);
      expect(contactsOf('slow@example.com')).toHaveLength(1);
      const [note, ...more] = notes(fast.originalId);
      expect(more).toEqual([]);
      expect(note).toMatchObject({ email: 'fast@example.com' });
      expect(spamSignal(note!)).toMatch(/^too_fast: /);
      // SAVED_SEARCH_HOLDING_ENQUIRY is off: a person's saved search leaves no note.
      expect(notes(human.originalId)).toEqual([]);
      expect(await made.service.store.get(fast.originalId)).toMatchObject({ status: 'saved', spamReason: 'too_fast' });
      expect(await status(made, fast.originalId)).toEqual(
        await status(made, human.originalId).then((body) => ({ ...(body as object), originalId: fast.originalId })),
      );
      expect((await request(made.app).get('/metrics')).text).toContain('estate_saved_searches_spam_total{reason="too_fast"} 1');
    });

    it('one with its honeypot filled in is quarantined whole, listed, counted, released once, then saved once with its note marked', async () => {
      const made = await harness();
      const bot = validSavedSearch({ email: 'quinn@example.com', fullName: 'Quinn Quarantine', website: 'http://spam.example' });
      await post(made, bot);
      await made.deliver();
      expect(contactsOf('quinn@example.com')).toEqual([]);
      const kept = (await made.service.store.get(bot.originalId))!;
      expect(kept).toMatchObject({ status: 'spam', spamReason: 'honeypot', addressKey: expect.stringMatching(/^k1:[0-9a-f]{64}$/) });
      expect(kept.payload).toMatchObject({ fullName: 'Quinn Quarantine', email: 'quinn@example.com', search: bot.search });
      expect(await status(made, bot.originalId)).toEqual({ originalId: bot.originalId, status: 'accepted' });

      const listed = await cli(made, 'saved-searches', 'quarantine');
      expect(listed.code).toBe(0);
      expect(listed.out).toContain('0 spam, 1 quarantined');
      expect(listed.out).toMatch(new RegExp(`${bot.originalId}\\s+quarantined`));
      expect(listed.out).not.toMatch(/Quinn|quinn@example\.com|Kew/);
      if (!variant.postgresServer) {
        const figures = JSON.parse((await cli(made, 'status', '--json')).out) as RelayStatus;
        expect(figures.savedSearches).toMatchObject({ queued: 0, spam: 0, quarantined: 1 });
      }
      const metrics = (await request(made.app).get('/metrics')).text;
      expect(metrics).toContain('estate_saved_searches{status="quarantined"} 1');
      expect(metrics).toContain('estate_saved_searches_spam_total{reason="honeypot"} 1');

      const releases = await Promise.all([cli(made, 'saved-searches', 'release', bot.originalId), cli(made, 'saved-searches', 'release', bot.originalId)]);
      expect(releases.map((release) => release.code).sort()).toEqual([0, 1]);
      // The CLI queued it on the real clock, a moment after the relay's (frozen) one.
      clock = Date.now() + 1_000;
      await made.deliver();
      await made.deliver();
      expect(contactsOf('quinn@example.com')).toHaveLength(1);
      expect(contactsOf('quinn@example.com')[0]!.requirements).toHaveLength(1);
      const [note, ...more] = notes(bot.originalId);
      expect(more).toEqual([]);
      expect(spamSignal(note!)).toMatch(/^honeypot: .*released it from quarantine/);
      expect(await made.service.store.get(bot.originalId)).toMatchObject({ status: 'saved' });
      expect((await cli(made, 'saved-searches', 'release', bot.originalId)).code).toBe(1);
    });

    it('one nobody released is erased after LEAD_QUARANTINE_DAYS, its row kept as spam', async () => {
      const made = await harness({ env: { LEAD_QUARANTINE_DAYS: '1' } });
      const bot = validSavedSearch({ email: 'quinn@example.com', fullName: 'Quinn Quarantine', website: 'http://spam.example' });
      await post(made, bot);
      clock += DAY - 60_000;
      await made.deliver();
      expect((await made.service.store.get(bot.originalId))!.payload).not.toBeNull();
      clock += 2 * 60_000;
      await made.deliver();
      expect(await made.service.store.get(bot.originalId)).toMatchObject({ status: 'spam', payload: null, addressKey: null, erasedAt: clock });
      expect(JSON.stringify(await rawRows(made.store, 'saved_searches'))).not.toMatch(/Quinn|quinn@example\.com/);
      expect((await cli(made, 'saved-searches', 'quarantine')).out).toContain('No saved searches in the quarantine.');
      expect((await cli(made, 'saved-searches', 'release', bot.originalId)).code).toBe(1);
      expect((await request(made.app).get('/metrics')).text).toContain('estate_saved_searches_quarantine_erased_total 1');
    });
  });
}
