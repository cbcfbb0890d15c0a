import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { priceBand, SALE_PRICE_STEPS } from '../../contract/price-bands.ts';
import type { ListingSummary, Page } from '../../contract/relay-api.ts';
import { amountsIn, priceRange } from '../../server/listings/price-range.ts';
import { migrations } from '../../server/store/migrations.ts';
import { openStore } from '../../server/store/store.ts';
import { startListingRig, type ListingRig } from './rig.ts';
import { tablesOf } from '../../server/store/tables.ts';

/**
 * The attack of the security review: binary searches over minPrice and maxPrice and the listing's
 * place among shown prices in both sort orders, against "Contact Agent" listings. Two withheld
 * prices in one band must be indistinguishable, and what the attack learns must be the band.
 */
describe('withheld prices are filtered and sorted by band only', () => {
  let rig: ListingRig;
  let withheldId = 0;
  let shownId = 0;
  let offersOverId = 0;
  // Two hidden prices in the band [1,000,000, 1,250,000).
  const FIRST_PRICE = 1_013_457;
  const SECOND_PRICE = 1_238_911;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 30 });
    const sale = rig.expectedIds('sale');
    expect(sale.length).toBeGreaterThan(10);
    // Listing ids are public (per sale or lease life); the simulator keys its records by property.
    const change = (id: number, patch: Parameters<typeof rig.sim.state.changeListing>[1]) => {
      const record = rig.simListing(id);
      return rig.sim.state.changeListing(record.id, patch, record.market);
    };
    const shown = (id: number, price: number) =>
      change(id, { fields: { displayPrice: `$${price.toLocaleString('en-AU')}`, searchPrice: price, priceOnApplication: false } });
    for (const id of sale) shown(id, 300_000 + (id % 7) * 1000);
    [withheldId, shownId, offersOverId] = sale;
    change(withheldId, { fields: { displayPrice: 'Contact Agent', searchPrice: FIRST_PRICE } });
    shown(shownId, 1_150_000);
    change(offersOverId, { fields: { displayPrice: 'Offers over $850,000', searchPrice: 912_345 } });
    // Shown prices around and inside the band: the rulers of the sort attack.
    for (const [index, price] of [990_000, 1_000_000, 1_100_000, 1_200_000, 1_249_999, 1_250_000, 1_300_000].entries()) shown(sale[3 + index]!, price);
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
  });
  afterAll(async () => {
    await rig?.close();
  });

  async function listed(query: string): Promise<number[]> {
    const response = await rig.get<Page<ListingSummary>>(`/api/v1/listings?type=sale&pageSize=100&${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body.items.map((item) => item.id);
  }

  /** Smallest whole-dollar value in [low, high] for which `holds` is true (it is monotone). */
  async function firstTrue(low: number, high: number, holds: (value: number) => Promise<boolean>): Promise<number> {
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (await holds(middle)) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /**
   * What an attacker observes about one listing: the price range the minPrice and maxPrice binary
   * searches pin it to, and its neighbours in both price orders.
   */
  async function attack(id: number) {
    const ceiling = 50_000_000;
    const goneAtMin = await firstTrue(0, ceiling, async (min) => !(await listed(`minPrice=${min}`)).includes(id));
    const listedFromMax = await firstTrue(0, ceiling, async (max) => (await listed(`maxPrice=${max}`)).includes(id));
    const neighbours = async (sort: string) => {
      const order = await listed(`sort=${sort}`);
      const at = order.indexOf(id);
      return [order[at - 1], order[at + 1]];
    };
    return { from: listedFromMax, to: goneAtMin - 1, ascending: await neighbours('price'), descending: await neighbours('-price') };
  }

  it('binary searches over minPrice/maxPrice and both sort orders learn the band, nothing finer', async () => {
    const first = await attack(withheldId);
    expect({ from: first.from, to: first.to }).toEqual({ from: 1_000_000, to: 1_249_999 });

    const withheld = rig.simListing(withheldId);
    rig.sim.state.changeListing(withheld.id, { fields: { searchPrice: SECOND_PRICE } }, withheld.market);
    expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
    // Another price in the same band answers every query alike.
    expect(await attack(withheldId)).toEqual(first);
  });

  it('a shown price keeps exact filtering', async () => {
    expect(await attack(shownId)).toMatchObject({ from: 1_150_000, to: 1_150_000 });
    expect(await listed('minPrice=1150000&maxPrice=1150000')).toContain(shownId);
    expect(await listed('minPrice=1150000.01')).not.toContain(shownId);
  });

  it('a display price that does not state the search price ("Offers over $850,000") counts as withheld', async () => {
    const band = priceBand(SALE_PRICE_STEPS, 912_345);
    expect(await attack(offersOverId)).toMatchObject({ from: band.from, to: band.below! - 1 });
  });

  it('the cache holds the band of a withheld price, never the price itself', () => {
    const row = tablesOf(rig.relay.store).prepare('SELECT price_low_cents AS low, price_high_cents AS high FROM listings WHERE id = ?').get(withheldId);
    expect(row).toEqual({ low: 100_000_000, high: 124_999_999 });
    const columns = (tablesOf(rig.relay.store).prepare('PRAGMA table_info(listings)').all() as Array<{ name: string }>).map((column) => column.name);
    expect(columns).not.toContain('search_price');
  });
});

describe('price ranges', () => {
  it('reads dollar amounts as agencies write them', () => {
    expect(amountsIn('$1,350,000')).toEqual([1_350_000]);
    expect(amountsIn('$950,000 - $1,050,000')).toEqual([950_000, 1_050_000]);
    expect(amountsIn('$650 per week - Furnished')).toEqual([650]);
    expect(amountsIn('Guide $1.35m')).toEqual([1_350_000]);
    expect(amountsIn('Contact Agent')).toEqual([]);
  });

  it('is exact only when the display price states the search price', () => {
    expect(priceRange(1_350_000, '$1,350,000', 'sale')).toEqual({ lowCents: 135_000_000, highCents: 135_000_000 });
    expect(priceRange(1_350_000, '$1,350,000', 'sale', true)).toEqual({ lowCents: 125_000_000, highCents: 149_999_999 });
    expect(priceRange(650, 'Contact Agent', 'lease')).toEqual({ lowCents: 60_000, highCents: 69_999 });
    expect(priceRange(12_000_000, '', 'sale')).toEqual({ lowCents: 1_000_000_000, highCents: null });
    expect(priceRange(null, '$1', 'sale')).toBeNull();
  });

  it('an existing store loses its exact search prices on upgrade, and the next sync is a full one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-bands-'));
    try {
      const old = openStore(
        dir,
        migrations.filter((migration) => migration.id < '021'),
      );
      tablesOf(old)
        .prepare(
          `INSERT INTO listings (id, source, type, status, crm_modified, search_price, public_json, synced_at)
           VALUES (1, 'residential/sale/available', 'sale', 'available', '2024-01-01', 1013457, '{}', 0)`,
        )
        .run();
      tablesOf(old).prepare("INSERT INTO listing_sync_state (key, value) VALUES ('lastFullSweepAt', '1')").run();
      old.close();
      const upgraded = openStore(dir);
      const row = tablesOf(upgraded).prepare('SELECT * FROM listings').get() as Record<string, unknown>;
      expect(row).not.toHaveProperty('search_price');
      expect(row.crm_modified).toBeNull();
      expect(tablesOf(upgraded).prepare("SELECT COUNT(*) FROM listing_sync_state WHERE key = 'lastFullSweepAt'").pluck().get()).toBe(0);
      upgraded.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
