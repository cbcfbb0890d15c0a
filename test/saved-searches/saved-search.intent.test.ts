// One saved search per intent (issue 28): the same "Get alerts for this search" sent again within a
// day under a new originalId (a reload, a second tab, two relays) is one saved search: answered as
// the first, one requirement and one holding note in the CRM; a day later it is a new one. The
// digests kept of the address (address_key, the fingerprint, the intent key) are keyed with the
// relay's own secret, re-keyed in place on upgrade, and cleared on erasure. On each store, through
// HTTP to the CRM simulator.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SavedSearchRequest } from '../../contract/saved-search.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import {
  addressKey,
  savedSearchFingerprint,
  savedSearchIntentDigest,
  savedSearchRequestSchema,
  type ParsedSavedSearch,
} from '../../server/saved-searches/schema.ts';
import { SAVED_SEARCH_INTENT_WINDOW_MS, SavedSearchStore } from '../../server/saved-searches/store.ts';
import { clockAsDatabaseClock } from '../../server/store/shared-database.ts';
import { freshDatabase } from '../support/postgres.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { savedSearchHarness, validSavedSearch, type SavedSearchHarness } from './support.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator({ listings: 8, seed: 28 });
});
afterAll(async () => {
  await sim?.close();
});
const crmOf = () => ({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken });

let clock = Date.now();
const advance = (ms: number) => {
  clock += ms;
};

const post = async (harness: SavedSearchHarness, body: object, status = 202) => {
  const response = await request(harness.app).post('/api/v1/saved-searches').send(body);
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${JSON.stringify(response.body)}`);
  return response;
};
const statusOf = async (harness: SavedSearchHarness, originalId: string) =>
  (await request(harness.app).get(`/api/v1/saved-searches/${originalId}`).expect(200)).body.status as string;

/** The requirements the CRM holds for an address, on every contact of it. */
const requirementsOf = (email: string) => sim.state.contacts.byEmail(email).flatMap((contact) => contact.requirements);
/** The holding-area notes the CRM holds from an address. */
const notesOf = (email: string) => sim.state.postedEnquiries().filter((note) => note.email?.toLowerCase() === email);

/** Drains the worker, moving the clock past every backoff, until nothing is queued. */
async function saveAll(harness: SavedSearchHarness): Promise<void> {
  for (let round = 0; round < 40; round++) {
    await harness.deliver();
    if ((await harness.service.store.counts()).queued === 0) return;
    advance(1_000);
  }
  throw new Error('saved searches still queued after 40 rounds');
}

/** The same saved search as a reload or a second tab sends it: a new originalId, the form's timing measured again. */
const resent = (body: SavedSearchRequest, changes: Partial<SavedSearchRequest> = {}): SavedSearchRequest => ({
  ...body,
  originalId: randomUUID(),
  elapsedMs: body.elapsedMs + 4_321,
  ...changes,
});

const parse = (body: SavedSearchRequest) => savedSearchRequestSchema.parse(body) as ParsedSavedSearch;

for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped)(`one saved search per intent on ${variant.name}`, () => {
    const harnesses: SavedSearchHarness[] = [];
    const harness = async () => {
      clock = Date.now();
      const made = await savedSearchHarness({ crm: crmOf(), postgresServer: variant.postgresServer, now: () => clock });
      harnesses.push(made);
      return made;
    };
    afterEach(async () => {
      await Promise.all(harnesses.splice(0).map((made) => made.close()));
      sim.state.reset();
    });

    it('a resend within a day (another case of the address) is one saved search: answered as the first, one requirement and one note', async () => {
      const relay = await harness();
      const first = validSavedSearch({ email: 'resend@example.com' });
      const again = resent(first, { email: '  Resend@Example.COM ', fullName: 'Mary J. Citizen' });
      expect((await post(relay, first)).body).toEqual({ originalId: first.originalId, status: 'queued', confirmation: 'email' });
      expect((await post(relay, again)).body).toEqual({ originalId: again.originalId, status: 'queued', confirmation: 'email' });
      expect(await statusOf(relay, again.originalId)).toBe('accepted');
      // The resend's own retry (its answer lost) is answered again; other content under its id is a conflict.
      await post(relay, again);
      await post(relay, { ...again, search: { ...again.search, minBeds: 5 } }, 409);

      await saveAll(relay);
      expect(requirementsOf('resend@example.com')).toHaveLength(1);
      expect(notesOf('resend@example.com')).toHaveLength(1);
      expect(await relay.service.store.counts()).toMatchObject({ queued: 0, saved: 1 });
      expect(await statusOf(relay, again.originalId)).toBe('accepted');
    });

    it('the same saved search a day later is a new one; just under a day it is not', async () => {
      const relay = await harness();
      const first = validSavedSearch({ email: 'daily@example.com' });
      await post(relay, first);
      await saveAll(relay);
      advance(SAVED_SEARCH_INTENT_WINDOW_MS - 60_000);
      await post(relay, resent(first));
      await saveAll(relay);
      expect(requirementsOf('daily@example.com')).toHaveLength(1);
      advance(60_000);
      await post(relay, resent(first));
      await saveAll(relay);
      expect(requirementsOf('daily@example.com')).toHaveLength(2);
      // The later one holds the intent now: sent again at once, it is one with the later one.
      const soonAfter = resent(first);
      await post(relay, soonAfter);
      await saveAll(relay);
      expect(requirementsOf('daily@example.com')).toHaveLength(2);
      expect(await statusOf(relay, soonAfter.originalId)).toBe('accepted');
    });

    it('two tabs sending the same saved search at the same moment: one', async () => {
      const relay = await harness();
      const first = validSavedSearch({ email: 'tabs@example.com' });
      const tabs = [first, resent(first), resent(first), resent(first)];
      const answers = await Promise.all(tabs.map((body) => request(relay.app).post('/api/v1/saved-searches').send(body)));
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
      await saveAll(relay);
      expect(requirementsOf('tabs@example.com')).toHaveLength(1);
      for (const tab of tabs) expect(await statusOf(relay, tab.originalId)).toBe('accepted');
    });

    it('what "the same search" is: suburbs in any order and case are; another filter or another address is another', async () => {
      const relay = await harness();
      const area = validSavedSearch({ search: { type: 'sale', minBeds: 2, propertyType: 'House', suburbs: ['Hawthorn', 'Kew East', 'Richmond'] } });
      await post(relay, area);
      await post(relay, resent(area, { search: { type: 'sale', minBeds: 2, propertyType: 'house', suburbs: ['RICHMOND', 'kew east', 'Hawthorn'] } }));
      const one = validSavedSearch({ search: { type: 'sale', suburb: 'Hawthorn' } });
      await post(relay, one);
      await post(relay, resent(one, { search: { type: 'sale', suburb: 'HAWTHORN' } }));
      await post(relay, resent(area, { search: { ...area.search, minBeds: 3 } }));
      await post(relay, resent(area, { email: 'someone.else@example.com' }));
      // Stored: the area, the one suburb, the area with 3 beds, the area for someone else; the two resends are repeats.
      expect((await rawRows(relay.store, 'saved_searches')).length).toBe(4);
      expect((await rawRows(relay.store, 'saved_search_repeats')).length).toBe(2);
    });

    it('the store holds no unkeyed digest of an address, and erasure removes the keys', async () => {
      const relay = await harness();
      const body = validSavedSearch({ email: 'guessable.person@example.com' });
      const repeat = resent(body);
      await post(relay, body);
      await post(relay, repeat);
      await saveAll(relay);
      // What anyone with a backup could compute from a guessed address and the search.
      const guessable = [
        createHash('sha256').update(addressKey(body.email)).digest('hex'),
        savedSearchFingerprint(parse(body)),
        savedSearchFingerprint(parse(repeat)),
        savedSearchIntentDigest(parse(body)),
      ];
      const rows = JSON.stringify([await rawRows(relay.store, 'saved_searches'), await rawRows(relay.store, 'saved_search_repeats')]);
      expect(rows).toContain('guessable.person@example.com'); // the payload, until erasure
      for (const digest of guessable) expect(rows).not.toContain(digest);
      if (variant.postgresServer === undefined) {
        const files = [relay.store.file, `${relay.store.file}-wal`].filter(existsSync).map((file) => readFileSync(file).toString('latin1'));
        for (const digest of guessable) for (const file of files) expect(file).not.toContain(digest);
      }

      expect(await relay.service.store.eraseSaved(clock + 1, clock + 1)).toBe(1);
      const erased = await rawRows(relay.store, 'saved_searches');
      expect(erased.map((row) => [row.payload, row.address_key, row.intent_key])).toEqual([[null, null, null]]);
      // The answers stay: a retry of either originalId is still answered 202, and its status read too.
      await post(relay, body);
      await post(relay, repeat);
      expect(await statusOf(relay, repeat.originalId)).toBe('accepted');
    });

    it('rows and address claims stored with unkeyed digests before the upgrade are keyed in place: their retries still match', async () => {
      const relay = await harness();
      const older = validSavedSearch({ email: 'older@example.com' });
      const parsed = parse(older);
      const bareAddress = createHash('sha256').update(addressKey(older.email)).digest('hex');
      // As the relay before this change stored them (its own store, before the secret is read).
      const legacy = new SavedSearchStore(relay.store, { clock: clockAsDatabaseClock(() => clock) });
      await legacy.accept({
        originalId: older.originalId,
        fingerprint: savedSearchFingerprint(parsed),
        acceptedAt: clock,
        addressKey: bareAddress,
        payload: { fullName: older.fullName, email: older.email, mobile: older.mobile!, consent: true, search: older.search },
      });
      expect(await legacy.claimAddress({ originalId: older.originalId, addressKey: bareAddress }, clock)).toEqual({ held: true });

      await post(relay, older);
      await post(relay, { ...older, search: { ...older.search, minBeds: 6 } }, 409);
      const rows = await rawRows(relay.store, 'saved_searches');
      expect(rows.map((row) => [String(row.fingerprint).slice(0, 3), String(row.address_key).slice(0, 3)])).toEqual([['k1:', 'k1:']]);
      const claims = await rawRows(relay.store, 'saved_search_address_claims');
      expect(claims.map((claim) => [String(claim.address_key).slice(0, 3), claim.holder])).toEqual([['k1:', older.originalId]]);
      expect(JSON.stringify([rows, claims])).not.toContain(bareAddress);
      await saveAll(relay);
      expect(requirementsOf('older@example.com')).toHaveLength(1);
    });
  });
}

const postgres = storeVariants()[1]!;
describe.skipIf(postgres.skipped)('two relays on one PostgreSQL database', () => {
  afterEach(() => sim.state.reset());
  it('share one secret, and the same saved search sent to both at once is one', async () => {
    const databaseUrl = await freshDatabase(postgres.postgresServer!, 'estate_ssintent');
    const relays = await Promise.all(['relay-a', 'relay-b'].map((owner) => savedSearchHarness({ crm: crmOf(), databaseUrl, owner })));
    try {
      const first = validSavedSearch({ email: 'two.relays@example.com' });
      const bodies = [first, resent(first), resent(first), resent(first)];
      const answers = await Promise.all(
        bodies.map((body, index) =>
          request(relays[index % 2]!.app)
            .post('/api/v1/saved-searches')
            .send(body),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
      // One saved search, the other three stored as one with it (so the workers have one to send).
      expect((await rawRows(relays[0]!.store, 'saved_searches')).length).toBe(1);
      expect((await rawRows(relays[1]!.store, 'saved_search_repeats')).length).toBe(3);
      await Promise.all(relays.map((relay) => relay.deliver()));
      expect(requirementsOf('two.relays@example.com')).toHaveLength(1);
      const [one, two] = await Promise.all(relays.map((relay) => relay.service.store.keys()));
      expect(one!.keyed('x')).toBe(two!.keyed('x'));
    } finally {
      await Promise.all(relays.map((relay) => relay.close()));
    }
  });
});
