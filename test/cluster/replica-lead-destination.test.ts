// pg-migrations 030: the listing and agent rows a sync holder published before the upgrade (in
// replica_rows, as JSON of the SQLite row) get the lead destination SQLite migration 100 gives the
// cache, so a relay copying the agency's cache after the upgrade still knows where enquiries go.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { shareAgencySync } from '../../server/cluster/replica.ts';
import { decodeDestination, listingDestination, userDestination } from '../../server/crm/lead-destination.ts';
import { LISTING_CACHE_TABLES, ListingCache } from '../../server/listings/cache.ts';
import { pgMigrations } from '../../server/store/pg-migrations.ts';
import { attachPostgres, migratePostgres, openPool } from '../../server/store/postgres.ts';
import { closeStore, openStore, type Store } from '../../server/store/store.ts';
import { freshDatabase } from '../support/postgres.ts';
import { queryDatabase } from '../compose/pg-rig.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const opened: Array<{ store: Store; dir: string }> = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Public fields of the API's shape (server/listings/public-schema.ts): a copied row is checked against it. */
const publicFields = (id: number, type: 'sale' | 'lease') => ({
  id,
  type,
  status: 'available',
  badge: null,
  heading: null,
  address: { display: 'Kew VIC', suburb: 'Kew', postcode: null, state: 'VIC' },
  displayPrice: null,
  propertyType: null,
  bed: null,
  bath: null,
  cars: null,
  landArea: null,
  floorArea: null,
  methodOfSale: null,
  auctionDateTime: null,
  modified: '2026-01-01T00:00:00.000Z',
  description: null,
  links: [],
  auction: null,
  features: [],
  ensuites: null,
  toilets: null,
  geolocation: null,
  inserted: null,
});

const listingRow = (id: number, type: 'sale' | 'lease', saleLifeId: number | null, leaseLifeId: number | null, reference: string | null) => ({
  id,
  property_id: 7001,
  source: `residential/${type}/available`,
  type,
  status: 'available',
  sale_life_id: saleLifeId,
  lease_life_id: leaseLifeId,
  reference,
  crm_modified: null,
  inserted_at: null,
  modified_at: null,
  suburb: null,
  property_type: null,
  price_low_cents: null,
  price_high_cents: null,
  bed: null,
  bath: null,
  cars: null,
  land_area_sqm: null,
  public_json: JSON.stringify(publicFields(id, type)),
  seen_sweep: 0,
  synced_at: 1,
});

describe.skipIf(skipped)(`replica rows published before the lead destination${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  it('are converted, so a relay rebuilding its cache from them resolves enquiries to the same life and user', async () => {
    const url = await freshDatabase((postgres as { url: string }).url);
    const pool = openPool(url);
    try {
      await migratePostgres(
        pool,
        pgMigrations.filter((migration) => migration.id < '030'),
      );
    } finally {
      await pool.end();
    }
    const publish = (seq: number, tbl: string, pk: unknown[], row: object | null) =>
      queryDatabase(url, 'INSERT INTO replica_rows (tbl, pk, row, seq, changed_at) VALUES ($1, $2, $3, $4, 1)', [
        tbl,
        JSON.stringify(pk),
        row && JSON.stringify(row),
        seq,
      ]);
    await publish(1, 'listings', [1000], listingRow(1000, 'sale', 500, 900, 'R-1'));
    await publish(2, 'listings', [1801], listingRow(1801, 'lease', 500, 900, 'R-1'));
    await publish(3, 'listings', [2002], listingRow(2002, 'lease', 1001, null, null));
    await publish(4, 'listings', [3000], null);
    await publish(5, 'agents', [42], {
      id: 42,
      show_on_web: 1,
      public_json: JSON.stringify({ id: 42, name: 'Ann Agent', position: null, phone: null, email: null }),
      synced_at: 1,
    });
    await queryDatabase(url, "SELECT setval('replica_seq', 5)");

    const dir = mkdtempSync(join(tmpdir(), 'estate-replica-destination-'));
    const store = openStore(dir);
    opened.push({ store, dir });
    // Attaching applies the rest of the PostgreSQL schema (030) before anything reads it.
    await attachPostgres(store, url);
    const converted = await queryDatabase<{ pk: string; row: string | null }>(url, "SELECT pk, row FROM replica_rows WHERE tbl = 'listings' ORDER BY seq");
    for (const { row } of converted) if (row !== null) expect(Object.keys(JSON.parse(row) as object).filter((key) => /life/.test(key))).toEqual([]);
    expect(converted.at(-1)!.row).toBeNull();

    const { replica } = shareAgencySync(store, { tables: LISTING_CACHE_TABLES, holder: 'relay-b' });
    expect(await replica.rebuild()).toBe(4);
    const cache = new ListingCache(store);
    const decoded = (id: number) => decodeDestination(cache.listingTarget(id)!.destination);
    expect(decoded(1000)).toEqual(decodeDestination(listingDestination('sale', { saleLifeId: 500, leaseLifeId: 900, referenceID: 'R-1' })));
    expect(decoded(1801)).toEqual(decodeDestination(listingDestination('lease', { saleLifeId: 500, leaseLifeId: 900, referenceID: 'R-1' })));
    // Only the life of the listing's own type: a lease listing whose lease life is missing goes nowhere.
    expect(cache.listingTarget(2002)).toEqual({ destination: null });
    expect(decodeDestination(cache.agentTarget(42)!.destination)).toEqual(decodeDestination(userDestination(42)));
  });
});
