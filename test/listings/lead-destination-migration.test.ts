// Migration 100: the cache's two life id columns become one lead destination, the CRM adapter's
// token, and agents get theirs. A cache filled before the upgrade keeps answering enquiries (the
// same life, never the property's other one) before the next sync rewrites its rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listingDestination, userDestination } from '../../server/crm/lead-destination.ts';
import { ListingCache } from '../../server/listings/cache.ts';
import { migrations } from '../../server/store/migrations.ts';
import { openStore } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('migration 100: the listing cache stores a lead destination', () => {
  it("turns each listing's own life id (and each agent) into the token the adapter makes, and drops the life id columns", () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-lead-destination-'));
    dirs.push(dir);
    const before = openStore(
      dir,
      migrations.filter((migration) => migration.id < '100'),
    );
    const db = tablesOf(before);
    const row = db.prepare(
      `INSERT INTO listings (id, property_id, source, type, status, sale_life_id, lease_life_id, reference, public_json, synced_at)
       VALUES (?, ?, ?, ?, 'available', ?, ?, ?, '{}', 0)`,
    );
    row.run(1000, 7001, 'residential/sale/available', 'sale', 500, 900, 'R-1');
    row.run(1801, 7001, 'residential/lease/available', 'lease', 500, 900, 'R-1');
    row.run(1202, 7002, 'residential/sale/available', 'sale', 601, null, null);
    // A row without the life of its type (never seen in real lists): nowhere to deliver to.
    row.run(14005, 7002, 'residential/lease/available', 'lease', 601, null, null);
    db.prepare("INSERT INTO agents (id, show_on_web, public_json, synced_at) VALUES (42, 1, '{}', 0), (43, 0, '{}', 0)").run();
    before.close();

    const after = openStore(dir);
    try {
      const columns = (tablesOf(after).prepare('PRAGMA table_info(listings)').all() as Array<{ name: string }>).map((column) => column.name);
      expect(columns).toContain('lead_destination');
      expect(columns.filter((name) => /life/.test(name))).toEqual([]);
      const cache = new ListingCache(after);
      // The very token the adapter writes for the same record: a sync rewriting the row changes nothing.
      expect(cache.listingTarget(1000)).toEqual({ destination: listingDestination('sale', { saleLifeId: 500, leaseLifeId: 900, referenceID: 'R-1' }) });
      expect(cache.listingTarget(1801)).toEqual({ destination: listingDestination('lease', { saleLifeId: 500, leaseLifeId: 900, referenceID: 'R-1' }) });
      expect(cache.listingTarget(1202)).toEqual({ destination: listingDestination('sale', { saleLifeId: 601, referenceID: null }) });
      expect(cache.listingTarget(14005)).toEqual({ destination: null });
      expect(cache.listingTarget(1000)!.destination).toBe('{"saleLifeId":500,"propertyReference":"R-1"}');
      expect(cache.listingTarget(1801)!.destination).toBe('{"leaseLifeId":900,"propertyReference":"R-1"}');
      expect(cache.agentTarget(42)).toEqual({ destination: userDestination(42) });
      expect(cache.agentTarget(43)).toBeUndefined();
    } finally {
      after.close();
    }
  });
});
