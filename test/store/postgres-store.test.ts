import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { ConfigError } from '../../server/runtime/config.ts';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { enquiryFingerprint, enquiryRequestSchema } from '../../server/enquiries/schema.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { closeStore, openStore, type Store } from '../../server/store/store.ts';
import { sharedStoreKind } from '../../server/store/tables.ts';
import { freePort, freshDatabase } from '../support/postgres.ts';
import { startTestRelay } from '../support/relay-fixture.ts';
import { validEnquiry } from '../enquiries/support.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const opened: Array<{ store: Store; dir: string }> = [];
function sqliteStore(): Store {
  const dir = mkdtempSync(join(tmpdir(), 'estate-pg-store-'));
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

describe.skipIf(skipped)(`PostgreSQL store${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  const serverUrl = () => (postgres as { url: string }).url;

  it('five relays starting at once on an empty database: the schema is made once, and all of them start', async () => {
    const url = await freshDatabase(serverUrl());
    const stores = Array.from({ length: 5 }, () => sqliteStore());
    await Promise.all(stores.map((store) => attachPostgres(store, url)));
    expect(stores.map((store) => sharedStoreKind(store))).toEqual(Array(5).fill('postgres'));

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id FROM schema_migrations ORDER BY id');
      expect(rows.map((row) => row.id)).toEqual([
        '010-enquiries-outbox',
        '020-listings-shared-sync',
        '030-listings-lead-destination',
        '040-listings-replica-guard',
        '050-enquiries-once-key',
        '060-saved-searches',
        '080-enquiries-intent-and-keyed-digests',
        '090-saved-searches-intent-and-keyed-digests',
        '100-saved-searches-confirmation',
        '110-listings-agents-contact',
        '120-saved-searches-mail-claim',
        '130-visits-counts',
        '140-reports-links',
        '150-outbox-by-listing',
      ]);
      const { rows: tables } = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
      expect(tables.map((row) => row.tablename)).toEqual([
        'crm_webhook_inbox',
        'enquiry_outbox',
        'enquiry_repeats',
        'relay_secrets',
        'replica_copies',
        'replica_rows',
        'report_links',
        'saved_search_address_claims',
        'saved_search_repeats',
        'saved_searches',
        'schema_migrations',
        'sync_lease',
        'visit_counts',
        'visit_dropped',
        'visit_salt',
        'visit_visitors',
      ]);
    } finally {
      await client.end();
    }
  });

  it("stores in separate schemas of one database (one per agency) never see each other's outbox rows", async () => {
    const url = await freshDatabase(serverUrl());
    const [first, second] = [sqliteStore(), sqliteStore()];
    await attachPostgres(first, url, { schema: 'agency_one' });
    await attachPostgres(second, url, { schema: 'agency_two' });
    const enquiry = enquiryRequestSchema.parse(validEnquiry());
    await new EnquiryOutbox(first).accept({ enquiry, fingerprint: enquiryFingerprint(enquiry), acceptedAt: Date.now() });
    expect(await new EnquiryOutbox(first).counts()).toMatchObject({ queued: 1 });
    expect(await new EnquiryOutbox(second).counts()).toMatchObject({ queued: 0 });
    expect(await new EnquiryOutbox(second).claimDue(Date.now() + 1, 10)).toEqual([]);
    await expect(attachPostgres(sqliteStore(), url, { schema: 'Agency; DROP TABLE x' })).rejects.toThrow(
      /schema name "Agency; DROP TABLE x" must be lower-case/,
    );
  });

  it('a wrong password is refused naming DATABASE_URL, without the password', async () => {
    const url = new URL(serverUrl());
    url.password = 'wrong-password-7f3a9';
    const store = sqliteStore();
    const error = await attachPostgres(store, url.toString()).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^DATABASE_URL: could not prepare the PostgreSQL store at postgres:\/\/postgres:\*\*\*@/);
    expect((error as Error).message).toMatch(/password authentication failed/);
    expect((error as Error).message).not.toContain('wrong-password-7f3a9');
    expect(sharedStoreKind(store)).toBe('sqlite');
  });
});

describe('without a PostgreSQL server', () => {
  it('a server that is not there is refused within the connect timeout, naming DATABASE_URL', async () => {
    const port = await freePort();
    const store = sqliteStore();
    const started = Date.now();
    const error = await attachPostgres(store, `postgres://relay:secret-pw-123@127.0.0.1:${port}/estate`).catch((caught: unknown) => caught as Error);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((error as Error).message).toMatch(/^DATABASE_URL: .*ECONNREFUSED/);
    expect((error as Error).message).not.toContain('secret-pw-123');
  });

  it('a password given as ?password= is left out too', async () => {
    const port = await freePort();
    const error = await attachPostgres(sqliteStore(), `postgres://relay@127.0.0.1:${port}/estate?password=query-pw-789`).catch(
      (caught: unknown) => caught as Error,
    );
    expect((error as Error).message).toMatch(/^DATABASE_URL: .*password=\*\*\*.*ECONNREFUSED/);
    expect((error as Error).message).not.toContain('query-pw-789');
  });

  it('a relay whose DATABASE_URL does not answer refuses to start, reported as a bad setting without the password', async () => {
    const port = await freePort();
    const error = await startTestRelay({ DATABASE_URL: `postgres://relay:secret-pw-456@127.0.0.1:${port}/estate` }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(/^DATABASE_URL: could not prepare the PostgreSQL store at postgres:\/\/relay:\*\*\*@127\.0\.0\.1:\d+\/estate: .*ECONNREFUSED/),
    ]);
    expect((error as Error).message).not.toContain('secret-pw-456');
  });
});
