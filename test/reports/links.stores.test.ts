// Issue 32: the report links and the leads the report reads, on both stores the relay runs on: the
// SQLite file of DATA_DIR, and an agency's schema of PostgreSQL (DATABASE_URL), where every relay
// of the agency reads the same links.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { listingLeadCounts } from '../../server/enquiries/report-counts.ts';
import { enquiryFingerprint, enquiryRequestSchema, type ParsedOpenHomeRegistration } from '../../server/enquiries/schema.ts';
import { ReportLinks } from '../../server/reports/links.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { clockAsDatabaseClock } from '../../server/store/shared-database.ts';
import { closeStore, openStore, type Store } from '../../server/store/store.ts';
import { freshDatabase } from '../support/postgres.ts';
import { validEnquiry } from '../enquiries/support.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
const DAY_MS = 86_400_000;
/** Midday in Sydney on a quiet Wednesday (test/support/test-clock.ts QUIET_DAY_NOON is UTC noon: 22:00 there). */
const NOW = Date.parse('2031-06-18T02:00:00.000Z');
const TIME_ZONE = 'Australia/Sydney';

const opened: Array<{ store: Store; dir: string }> = [];
function sqliteStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), 'estate-report-links-'));
  const store = openStore(dir);
  opened.push({ store, dir });
  return store;
}
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
});

const kinds: Array<{ name: string; skip?: string; store: () => Promise<Store> }> = [
  { name: 'SQLite', store: async () => sqliteStore() },
  {
    name: 'PostgreSQL',
    skip: skipped,
    store: async () => {
      const store = sqliteStore();
      await attachPostgres(store, await freshDatabase((postgres as { url: string }).url), { schema: 'agency_reports' });
      return store;
    },
  },
];

for (const kind of kinds) {
  describe.skipIf(kind.skip)(`report links and lead counts on ${kind.name}${kind.skip ? ` (SKIPPED: ${kind.skip})` : ''}`, () => {
    it('a link opens its listing until it is replaced, revoked or expired', async () => {
      const links = new ReportLinks(await kind.store());
      const first = await links.create(7, { now: NOW, days: 10 });
      expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await links.listingOf(first.token, NOW)).toBe(7);
      expect(await links.listingOf(first.token, NOW + 10 * DAY_MS - 1)).toBe(7);
      expect(await links.listingOf(first.token, NOW + 10 * DAY_MS)).toBeUndefined();
      const second = await links.create(7, { now: NOW + DAY_MS });
      expect(await links.listingOf(first.token, NOW + DAY_MS)).toBeUndefined();
      expect(await links.listingOf(second.token, NOW + DAY_MS)).toBe(7);
      const other = await links.create(8, { now: NOW });
      expect(await links.revoke(7, NOW + 2 * DAY_MS)).toBe(true);
      expect(await links.revoke(7, NOW + 2 * DAY_MS)).toBe(false);
      expect(await links.listingOf(second.token, NOW + 2 * DAY_MS)).toBeUndefined();
      expect(await links.listingOf(other.token, NOW + 2 * DAY_MS)).toBe(8);
      expect((await links.list()).map((link) => [link.listingId, link.revokedAt])).toEqual([
        [7, NOW + 2 * DAY_MS],
        [8, null],
      ]);
      await expect(links.create(9, { now: NOW, days: 0 })).rejects.toThrow(/days must be a whole number from 1 to 366/);
    });

    it("counts a listing's leads by the agency's day and kind, and each open home's registrations, never spam", async () => {
      const store = await kind.store();
      const accept = async (body: Record<string, unknown>, acceptedAt: number, spamReason?: 'honeypot' | 'too_fast') => {
        const enquiry = enquiryRequestSchema.parse(validEnquiry({ listingId: 42, ...body } as never));
        // The relay's enquiry route adds the open home's times to a registration (its look-up in the listing cache).
        if (enquiry.kind === 'open-home')
          (enquiry as ParsedOpenHomeRegistration).openHome = { start: '2031-06-21T00:00:00.000Z', end: '2031-06-21T00:30:00.000Z' };
        // The outbox dates a lead by its clock (on PostgreSQL the database's): the test's own here.
        const outbox = new EnquiryOutbox(store, { clock: clockAsDatabaseClock(() => acceptedAt) });
        await outbox.accept({ enquiry, fingerprint: enquiryFingerprint(enquiry), acceptedAt, spamReason });
      };
      const yesterday = NOW - DAY_MS;
      await accept({ email: 'a@example.com' }, yesterday);
      await accept({ email: 'b@example.com' }, NOW);
      await accept({ kind: 'open-home', openHomeId: 5, attendees: 2, email: 'c@example.com', message: undefined }, NOW);
      await accept({ kind: 'open-home', openHomeId: 5, attendees: 1, email: 'd@example.com', message: undefined }, NOW);
      await accept({ kind: 'inspection', preferredTimes: ['2031-06-20T00:00:00.000Z'], email: 'e@example.com', message: undefined }, NOW);
      await accept({ email: 'spam@example.com' }, NOW, 'honeypot');
      await accept({ email: 'fast@example.com' }, NOW, 'too_fast');
      await accept({ listingId: 43, email: 'f@example.com' }, NOW);
      // By the agency's day, not UTC's: 01:00 on the 17th in Sydney is in the range (the 16th in UTC), 00:30 on the 19th is not (the 18th in UTC).
      await accept({ email: 'g@example.com' }, Date.parse('2031-06-16T15:00:00.000Z'));
      await accept({ email: 'h@example.com' }, Date.parse('2031-06-18T14:30:00.000Z'));
      const counts = await listingLeadCounts(store, 42, { since: '2031-06-17', until: '2031-06-18' }, TIME_ZONE);
      expect(counts.days).toEqual([
        { day: '2031-06-17', enquiry: 2, 'open-home': 0, inspection: 0 },
        { day: '2031-06-18', enquiry: 1, 'open-home': 2, inspection: 1 },
      ]);
      expect(counts.openHomes).toEqual([{ openHomeId: 5, start: '2031-06-21T00:00:00.000Z', end: '2031-06-21T00:30:00.000Z', registrations: 2 }]);
      expect(counts.erased).toEqual([]);
    });
  });
}
