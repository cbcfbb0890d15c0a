import { beforeAll, describe, expect, it } from 'vitest';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { enquiryFingerprint, enquiryRequestSchema } from '../../server/enquiries/schema.ts';
import { closeStore } from '../../server/store/store.ts';
import { leadQueueCliRig } from '../support/lead-queue-cli.ts';
import { storeVariants, type StoreVariant } from '../support/store-variants.ts';
import { LISTINGS, validEnquiry } from './support.ts';

const { dataDir: freshDataDir, open: openSeeded, cli } = leadQueueCliRig({ dirPrefix: 'estate-cli-', database: 'estate_cli' });

/** The store the current variant's tests run on (set by its beforeAll). */
let variant: StoreVariant = { name: 'SQLite' };

/** A DATA_DIR with one delivered, one dead and one queued enquiry, as a relay would have left it. */
async function seededDataDir() {
  const dataDir = await freshDataDir(variant);
  const store = await openSeeded(dataDir);
  const outbox = new EnquiryOutbox(store);
  const ids = { delivered: '', dead: '', queued: '' };
  for (const key of Object.keys(ids) as Array<keyof typeof ids>) {
    const enquiry = enquiryRequestSchema.parse(validEnquiry({ fullName: 'Private Person', email: 'private@example.com' }));
    await outbox.accept({ enquiry, fingerprint: enquiryFingerprint(enquiry), acceptedAt: Date.now() - 60_000, target: LISTINGS[101].destination! });
    ids[key] = enquiry.originalId;
  }
  await outbox.markDelivered(ids.delivered, Date.now(), 77, false);
  await outbox.markDead(ids.dead, Date.now(), 'CRM 400 Invalid saleLifeId');
  await closeStore(store);
  return { dataDir, ids };
}

// On each store: with DATABASE_URL the CLI works on the PostgreSQL outbox.
for (const storeVariant of storeVariants()) {
  describe.skipIf(storeVariant.skipped)(storeVariant.name, () => {
    beforeAll(() => {
      variant = storeVariant;
    });

    describe('npm run relay -- outbox', () => {
      it('list shows dead letters by default, with the CRM message and no personal data', async () => {
        const { dataDir, ids } = await seededDataDir();
        const result = await cli(dataDir, 'outbox', 'list');
        expect(result.code).toBe(0);
        expect(result.out).toContain('1 queued, 1 delivered, 1 dead, 0 spam');
        expect(result.out).toContain(ids.dead);
        expect(result.out).toContain('CRM 400 Invalid saleLifeId');
        expect(result.out).not.toContain(ids.delivered);
        expect(result.out).not.toMatch(/Private Person|private@example\.com|0412/);

        const all = await cli(dataDir, 'outbox', 'list', '--status', 'all', '--json');
        const entries = JSON.parse(all.out) as Array<{ originalId: string; status: string }>;
        expect(entries.map((entry) => entry.status).sort()).toEqual(['dead', 'delivered', 'queued']);
        expect(all.out).not.toMatch(/Private Person|private@example\.com/);
      });

      it('retry queues a dead letter again with a fresh window; refuses ids that are not dead', async () => {
        const { dataDir, ids } = await seededDataDir();
        const result = await cli(dataDir, 'outbox', 'retry', ids.dead);
        expect(result.code).toBe(0);
        const store = await openSeeded(dataDir);
        try {
          const entry = (await new EnquiryOutbox(store).get(ids.dead))!;
          expect(entry.status).toBe('queued');
          expect(entry.attempts).toBe(0);
          expect(entry.windowStart).toBeGreaterThan(entry.acceptedAt);
        } finally {
          await closeStore(store);
        }
        expect((await cli(dataDir, 'outbox', 'retry', ids.delivered)).code).toBe(1);
        expect((await cli(dataDir, 'outbox', 'retry', '00000000-0000-4000-8000-000000000000')).code).toBe(1);
      });

      it('purge deletes one dead letter or all of them, never anything else', async () => {
        const { dataDir, ids } = await seededDataDir();
        expect((await cli(dataDir, 'outbox', 'purge', ids.queued)).code).toBe(1);
        expect((await cli(dataDir, 'outbox', 'purge', ids.dead)).code).toBe(0);
        const result = await cli(dataDir, 'outbox', 'purge', '--dead');
        expect(result.out).toContain('Purged 0 dead letter(s)');
        const store = await openSeeded(dataDir);
        try {
          expect(await new EnquiryOutbox(store).counts()).toEqual({ queued: 1, delivered: 1, dead: 0, spam: 0, quarantined: 0 });
        } finally {
          await closeStore(store);
        }
      });

      it('answers usage errors with exit code 2', async () => {
        const { dataDir } = await seededDataDir();
        expect((await cli(dataDir)).code).toBe(2);
        expect((await cli(dataDir, 'nonsense')).code).toBe(2);
        expect((await cli(dataDir, 'outbox', 'list', '--status', 'weird')).code).toBe(2);
        expect((await cli(dataDir, 'outbox', 'frobnicate')).code).toBe(2);
      });
    });
  });
}
