import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SavedSearchStore } from '../../server/saved-searches/store.ts';
import { closeStore } from '../../server/store/store.ts';
import { leadQueueCliRig } from '../support/lead-queue-cli.ts';
import { storeVariants, type StoreVariant } from '../support/store-variants.ts';

// `npm run relay -- saved-searches list | retry | purge`, as `outbox` for enquiries: on a real
// SQLite DATA_DIR, and with DATABASE_URL on the run's PostgreSQL.

const { dataDir: freshDataDir, open: openSeeded, cli } = leadQueueCliRig({ dirPrefix: 'estate-ss-cli-', database: 'estate_ss_cli' });

let variant: StoreVariant = { name: 'SQLite' };

/** A DATA_DIR with one saved, one dead (stopped at the requirement step) and one queued saved search. */
async function seededDataDir() {
  const dataDir = await freshDataDir(variant);
  const store = await openSeeded(dataDir);
  const searches = new SavedSearchStore(store);
  const ids = { saved: '', dead: '', queued: '' };
  for (const key of Object.keys(ids) as Array<keyof typeof ids>) {
    ids[key] = randomUUID();
    await searches.accept({
      originalId: ids[key],
      fingerprint: `fp-${key}`,
      acceptedAt: Date.now() - 60_000,
      addressKey: `address-${key}`,
      payload: {
        fullName: 'Private Person',
        email: 'private@example.com',
        mobile: '0412 345 678',
        consent: true,
        search: { type: 'sale', suburb: 'Kew', minBeds: 3 },
      },
    });
  }
  await searches.markSaved(ids.saved, Date.now());
  await searches.advance(ids.dead, { step: 'search', personId: 41 });
  await searches.markDead(ids.dead, Date.now(), 'CRM 400 suburbs: unknown suburb');
  await closeStore(store);
  return { dataDir, ids };
}

for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    beforeAll(() => {
      variant = storeVariant;
    });

    describe('npm run relay -- saved-searches', () => {
      it('list shows dead ones by default, with their step and the CRM message, and no personal data or search', async () => {
        const { dataDir, ids } = await seededDataDir();
        const result = await cli(dataDir, 'saved-searches', 'list');
        expect(result.code).toBe(0);
        expect(result.out).toContain('1 queued, 0 unconfirmed, 1 saved, 0 unsubscribed, 0 expired, 1 dead, 0 spam');
        expect(result.out).toContain(ids.dead);
        expect(result.out).toContain('CRM 400 suburbs: unknown suburb');
        expect(result.out).toMatch(new RegExp(`${ids.dead}\\s+dead\\s+\\S+\\s+\\d+\\s+search`));
        expect(result.out).not.toContain(ids.saved);
        expect(result.out).not.toMatch(/Private Person|private@example\.com|0412|Kew/);

        const all = await cli(dataDir, 'saved-searches', 'list', '--status', 'all', '--json');
        const entries = JSON.parse(all.out) as Array<{ originalId: string; status: string; crmContactId: number | null }>;
        expect(entries.map((entry) => entry.status).sort()).toEqual(['dead', 'queued', 'saved']);
        expect(entries.find((entry) => entry.originalId === ids.dead)!.crmContactId).toBe(41);
        expect(all.out).not.toMatch(/Private Person|private@example\.com|Kew/);
      });

      it('retry queues a dead one again at the step it stopped at; refuses ids that are not dead', async () => {
        const { dataDir, ids } = await seededDataDir();
        const result = await cli(dataDir, 'saved-searches', 'retry', ids.dead);
        expect(result.code).toBe(0);
        expect(result.out).toContain('step "search"');
        const store = await openSeeded(dataDir);
        try {
          const entry = (await new SavedSearchStore(store).get(ids.dead))!;
          expect([entry.status, entry.step, entry.attempts, entry.personId]).toEqual(['queued', 'search', 0, 41]);
        } finally {
          await closeStore(store);
        }
        expect((await cli(dataDir, 'saved-searches', 'retry', ids.saved)).code).toBe(1);
        expect((await cli(dataDir, 'saved-searches', 'retry', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
      });

      it('purge deletes one dead saved search or all of them, never anything else', async () => {
        const { dataDir, ids } = await seededDataDir();
        expect((await cli(dataDir, 'saved-searches', 'purge', ids.queued)).code).toBe(1);
        expect((await cli(dataDir, 'saved-searches', 'purge', ids.saved)).code).toBe(1);
        expect((await cli(dataDir, 'saved-searches', 'purge', ids.dead)).code).toBe(0);
        expect((await cli(dataDir, 'saved-searches', 'purge', '--dead')).out).toContain('Purged 0 dead saved search(es)');
        const store = await openSeeded(dataDir);
        try {
          expect(await new SavedSearchStore(store).counts()).toEqual({
            queued: 1,
            unconfirmed: 0,
            saved: 1,
            unsubscribed: 0,
            expired: 0,
            dead: 0,
            spam: 0,
            quarantined: 0,
          });
        } finally {
          await closeStore(store);
        }
      });

      it('answers usage errors with exit code 2, and is in the help', async () => {
        const { dataDir } = await seededDataDir();
        expect((await cli(dataDir, 'saved-searches', 'list', '--status', 'weird')).code).toBe(2);
        expect((await cli(dataDir, 'saved-searches', 'frobnicate')).code).toBe(2);
        expect((await cli(dataDir, 'saved-searches', 'retry')).code).toBe(2);
        expect((await cli(dataDir, 'help')).out).toMatch(/saved-searches +List, retry and purge saved searches/);
      });
    });
  });
}
