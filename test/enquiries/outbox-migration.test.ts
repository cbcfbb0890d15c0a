// Migration 070: the outbox's CRM columns become one destination in the lead sink's form. Rows
// stored before it keep where they go: no lead is lost or re-routed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCrmClient } from '../../server/crm/client.ts';
import { crmLeadSink } from '../../server/crm/lead-sink.ts';
import { RequestLimiter } from '../../server/crm/limiter.ts';
import { EnquiryOutbox } from '../../server/enquiries/outbox.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { migrations } from '../../server/store/migrations.ts';
import { openStore } from '../../server/store/store.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { destinationOf, validEnquiry } from './support.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('outbox destination migration', () => {
  it('keeps the resolved life, user and reference of every stored enquiry, and unresolved ones unresolved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'estate-outbox-migration-'));
    dirs.push(dir);
    const old = openStore(
      dir,
      migrations.filter((migration) => migration.id < '070'),
    );
    const insert = tablesOf(old).prepare(
      `INSERT INTO enquiry_outbox (original_id, fingerprint, status, accepted_at, listing_id, agent_id, sale_life_id, lease_life_id, user_id, property_reference, payload, window_start)
       VALUES (?, 'f', 'queued', 1, ?, ?, ?, ?, ?, ?, ?, 1)`,
    );
    const forListing = validEnquiry({ listingId: 101 });
    const forAgent = validEnquiry({ listingId: undefined, agentId: 7 });
    const unresolved = validEnquiry({ listingId: 102 });
    insert.run(forListing.originalId, 101, null, 5101, null, null, 'REF-101', JSON.stringify(forListing));
    insert.run(forAgent.originalId, null, 7, null, null, 7, null, JSON.stringify(forAgent));
    insert.run(unresolved.originalId, 102, null, null, null, null, null, JSON.stringify(unresolved));
    old.close();

    const store = openStore(dir);
    try {
      const sink = crmLeadSink(
        createCrmClient({
          baseUrl: 'http://127.0.0.1:9',
          apiKey: 'k',
          accessToken: 't',
          limiter: new RequestLimiter({ store, requestsPerSecond: 1, dailyLimit: 1 }),
          log: silentLogger,
        }),
        { source: 'OFFICEWEBSITE' },
      );
      const outbox = new EnquiryOutbox(store);
      // The JSON 070 wrote is the CRM adapter's destination token (server/crm/lead-destination.ts).
      const listingTarget = (await outbox.get(forListing.originalId))!.target!;
      const agentTarget = (await outbox.get(forAgent.originalId))!.target!;
      expect(destinationOf(listingTarget)).toEqual({ saleLifeId: 5101, leaseLifeId: null, userId: null, propertyReference: 'REF-101' });
      expect(destinationOf(agentTarget)).toEqual({ saleLifeId: null, leaseLifeId: null, userId: 7, propertyReference: null });
      expect((await outbox.get(unresolved.originalId))!.target).toBeNull();
      expect(sink.isComplete(listingTarget, 'listing')).toBe(true);
      expect(sink.isComplete(agentTarget, 'agent')).toBe(true);
      expect((await outbox.counts()).queued).toBe(3);
      const columns = (tablesOf(store).prepare('PRAGMA table_info(enquiry_outbox)').all() as Array<{ name: string }>).map((column) => column.name);
      expect(columns).toContain('destination');
      expect(columns).not.toContain('sale_life_id');
    } finally {
      store.close();
    }
  });
});
