// Issue 9, item 2: once the outbox erases an enquiry's personal data, no byte of it is left on
// disk: not in relay.db's free space, not in its WAL, not in a backup taken afterwards.
import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { enquiryFingerprint, enquiryRequestSchema } from '../../server/enquiries/schema.ts';
import { backupStore } from '../../server/ops/backup.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { LISTINGS, validEnquiry } from './support.ts';
import { tablesOf } from '../../server/store/tables.ts';

const MARKER = 'Quokka7Zebedee';
const dirs: string[] = [];
const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** How many times the marker occurs in a file (0 for a file that does not exist). */
function occurrences(file: string): number {
  if (!existsSync(file)) return 0;
  const bytes = readFileSync(file);
  let count = 0;
  for (let at = bytes.indexOf(MARKER); at !== -1; at = bytes.indexOf(MARKER, at + 1)) count++;
  return count;
}

async function acceptDelivered(outbox: EnquiryOutbox, count: number, at: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const enquiry = enquiryRequestSchema.parse(
      validEnquiry({
        fullName: `Jo ${MARKER} ${index}`,
        email: `jo.${MARKER}.${index}@example.com`.toLowerCase(),
        message: `Please call me, ${MARKER}. `.repeat(20 + (index % 7)),
      }),
    );
    await outbox.accept({ enquiry, fingerprint: enquiryFingerprint(enquiry), acceptedAt: at, target: LISTINGS[101].destination! });
    await outbox.markDelivered(enquiry.originalId, at, 1000 + index, false);
  }
}

describe('erasure of personal data', () => {
  it('leaves no byte of an erased enquiry in relay.db, its WAL or a later backup', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-erase-'));
    dirs.push(dir);
    const store = openStore(join(dir, 'data'));
    stores.push(store);
    const outbox = new EnquiryOutbox(store);
    const files = [store.file, `${store.file}-wal`];

    // Some pages reach the database file (as automatic checkpoints do), some stay in the WAL.
    await acceptDelivered(outbox, 40, 1_000);
    tablesOf(store).pragma('wal_checkpoint(PASSIVE)');
    await acceptDelivered(outbox, 40, 2_000);
    // The scan finds what is there: before erasure the marker is on disk, many times.
    expect(files.reduce((sum, file) => sum + occurrences(file), 0)).toBeGreaterThan(80);

    expect(await outbox.eraseDelivered(10_000, 10_000)).toBe(80);
    expect(tablesOf(store).prepare('SELECT COUNT(*) FROM enquiry_outbox WHERE payload IS NOT NULL').pluck().get()).toBe(0);

    const found = Object.fromEntries(files.map((file) => [file.slice(dir.length), occurrences(file)]));
    expect(found).toEqual({ '/data/relay.db': 0, '/data/relay.db-wal': 0 });

    const backup = join(dir, 'backup.db');
    await backupStore(store.dataDir, backup);
    expect(occurrences(backup)).toBe(0);
    // The rows themselves stay (status checks and repeats still get their answers).
    expect((await outbox.counts()).delivered).toBe(80);
  });

  it('opens the store with secure_delete on and a bounded WAL', () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-erase-'));
    dirs.push(dir);
    const store = openStore(dir);
    stores.push(store);
    expect(tablesOf(store).pragma('secure_delete', { simple: true })).toBe(1);
    expect(tablesOf(store).pragma('journal_size_limit', { simple: true })).toBeGreaterThan(0);
    expect(tablesOf(store).pragma('wal_autocheckpoint', { simple: true })).toBeGreaterThan(0);
  });
});
