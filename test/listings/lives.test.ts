import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { decodeDestination } from '../../server/crm/lead-destination.ts';
import { migrations } from '../../server/store/migrations.ts';
import { openStore } from '../../server/store/store.ts';
import { allListingIds, publicListingId, startListingRig, type ListingRig } from './rig.ts';
import { tablesOf } from '../../server/store/tables.ts';

/*
 * One listing per sale or lease life: a property for sale and for lease at once shows as both,
 * each with its own id, detail, photos, enquiry target and removal.
 */
describe('a property for sale and for lease at once', () => {
  let rig: ListingRig;
  let propertyId: number;
  let saleId: number;
  let leaseId: number;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 30 });
    const records = rig.sim.state.listings;
    const both = records.filter((listing) => records.some((other) => other.id === listing.id && other.market !== listing.market));
    expect(both).toHaveLength(2);
    propertyId = both[0]!.id;
    saleId = publicListingId(both.find((listing) => listing.market === 'sale')!);
    leaseId = publicListingId(both.find((listing) => listing.market === 'lease')!);
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('lists both, under distinct ids, each in its own list', async () => {
    expect(saleId).not.toBe(leaseId);
    expect(await allListingIds(rig, 'type=sale')).toContain(saleId);
    expect(await allListingIds(rig, 'type=lease')).toContain(leaseId);
    expect(await allListingIds(rig, 'type=sale')).not.toContain(leaseId);
    expect(await allListingIds(rig, 'type=sale')).toEqual(rig.expectedIds('sale'));
    expect(await allListingIds(rig, 'type=lease')).toEqual(rig.expectedIds('lease'));
  });

  it('answers each detail with its own price and type, the same address, and the property photos', async () => {
    const sale = (await rig.get<ListingDetail>(`/api/v1/listings/${saleId}`)).body;
    const lease = (await rig.get<ListingDetail>(`/api/v1/listings/${leaseId}`)).body;
    expect(sale).toMatchObject({ id: saleId, type: 'sale' });
    expect(lease).toMatchObject({ id: leaseId, type: 'lease' });
    expect(lease.address.display).toBe(sale.address.display);
    expect(lease.displayPrice).not.toBe(sale.displayPrice);
    expect(sale.photos.length).toBeGreaterThan(0);
    expect(lease.photos.map((photo) => photo.id)).toEqual(sale.photos.map((photo) => photo.id));
  });

  it('an old link naming the CRM property still opens its listing (the sale first)', async () => {
    const old = await rig.get<ListingDetail>(`/api/v1/listings/${propertyId}`);
    expect(old.status).toBe(200);
    expect(old.body.id).toBe(saleId);
  });

  it("an enquiry about each carries that listing's life only", async () => {
    const sale = rig.sim.state.listing(propertyId, 'sale')!;
    const lease = rig.sim.state.listing(propertyId, 'lease')!;
    // The destinations are the CRM adapter's tokens: only it (and this test) reads them.
    expect(decodeDestination((await rig.relay.listings.enquiryTargets.listing(saleId))!.destination)).toMatchObject({
      saleLifeId: sale.lifeId,
      leaseLifeId: null,
    });
    expect(decodeDestination((await rig.relay.listings.enquiryTargets.listing(leaseId))!.destination)).toMatchObject({
      saleLifeId: null,
      leaseLifeId: lease.lifeId,
    });
  });

  it('the lease leaving its list removes the lease listing only; the sale keeps its photos', async () => {
    rig.sim.state.withdrawListing(propertyId, 'lease');
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
    expect((await rig.get(`/api/v1/listings/${leaseId}`)).status).toBe(404);
    const sale = await rig.get<ListingDetail>(`/api/v1/listings/${saleId}`);
    expect(sale.status).toBe(200);
    expect(sale.body.photos.length).toBeGreaterThan(0);
    for (const photo of sale.body.photos) expect((await fetch(rig.toRelay(photo.url))).status).toBe(200);
  });
});

describe('migration 040: the cache keyed by life', () => {
  it('moves an existing cache to listing ids without losing rows, agent links or mirrored photos', () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-lives-'));
    try {
      const before = openStore(
        dir,
        migrations.filter((migration) => migration.id < '040'),
      );
      const db = tablesOf(before);
      const row = (id: number, type: string, saleLife: number | null, leaseLife: number | null) =>
        db
          .prepare(
            `INSERT INTO listings (id, source, type, status, sale_life_id, lease_life_id, public_json, synced_at)
             VALUES (?, ?, ?, 'available', ?, ?, ?, 0)`,
          )
          .run(id, `residential/${type}/available`, type, saleLife, leaseLife, JSON.stringify({ id, heading: `home ${id}` }));
      row(7001, 'sale', 500, null);
      row(7002, 'lease', null, 600);
      db.prepare('INSERT INTO listing_agents (listing_id, agent_id, position) VALUES (7001, 42, 0), (7002, 43, 0)').run();
      db.prepare("INSERT INTO photo_files (hash, width, height, widths, created_at) VALUES ('h', 10, 10, '[]', 0)").run();
      db.prepare(
        `INSERT INTO photos (owner_kind, owner_id, photo_id, kind, position, source_url, hash, updated_at)
         VALUES ('listing', 7001, 1, 'photograph', 0, 'https://files.example/1.jpg', 'h', 0),
                ('listing', 7002, 2, 'photograph', 0, 'https://files.example/2.jpg', 'h', 0),
                ('agent', 42, 0, 'portrait', 0, 'https://files.example/a.jpg', 'h', 0)`,
      ).run();
      db.prepare("INSERT INTO open_homes (id, listing_id, starts_at, ends_at) VALUES (1, 7001, 'a', 'b')").run();
      before.close();

      const after = openStore(dir);
      try {
        const listings = tablesOf(after).prepare('SELECT id, property_id AS propertyId, public_json FROM listings ORDER BY id').all() as Array<{
          id: number;
          propertyId: number;
          public_json: string;
        }>;
        expect(listings.map(({ id, propertyId }) => ({ id, propertyId }))).toEqual([
          { id: 1000, propertyId: 7001 },
          { id: 1201, propertyId: 7002 },
        ]);
        expect(listings.map((listing) => JSON.parse(listing.public_json).id)).toEqual([1000, 1201]);
        expect(tablesOf(after).prepare('SELECT listing_id, agent_id FROM listing_agents ORDER BY listing_id').all()).toEqual([
          { listing_id: 1000, agent_id: 42 },
          { listing_id: 1201, agent_id: 43 },
        ]);
        expect(tablesOf(after).prepare('SELECT owner_kind, owner_id, photo_id FROM photos ORDER BY owner_kind, photo_id').all()).toEqual([
          { owner_kind: 'agent', owner_id: 42, photo_id: 0 },
          { owner_kind: 'listing', owner_id: 1000, photo_id: 1 },
          { owner_kind: 'listing', owner_id: 1201, photo_id: 2 },
        ]);
        // The agent links still follow their listing.
        tablesOf(after).prepare('DELETE FROM listings WHERE id = 1000').run();
        expect(tablesOf(after).prepare('SELECT COUNT(*) FROM listing_agents WHERE listing_id = 1000').pluck().get()).toBe(0);
      } finally {
        after.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
