import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tablesOf } from '../../server/store/tables.ts';
import { freshDatabase } from '../support/postgres.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';
import { rawRows, storeVariants } from '../support/store-variants.ts';

// The whole relay as `npm start` runs it in demo mode (embedded simulator, listing sync, delivery
// worker): an enquiry posted from the relay's own demo origin reaches the simulator's holding area.
// Once with the SQLite store alone, once with DATABASE_URL (the outbox in PostgreSQL).
for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped)(variant.name, () => {
    let relay: TestRelay;
    beforeAll(async () => {
      const shared: Record<string, string> = variant.postgresServer ? { DATABASE_URL: await freshDatabase(variant.postgresServer, 'estate_relay') } : {};
      relay = await startTestRelay({ ENQUIRY_POLL_MS: '100', ENQUIRY_RATE_LIMIT_PER_MINUTE: '100', ...shared });
    });
    afterAll(async () => {
      await relay?.close();
    });

    it('accepts an enquiry from the demo page origin and delivers it to the CRM in the background', { timeout: 60_000 }, async () => {
      const crm = relay.simulator!;
      const listings = (await (
        await fetch(`${crm.baseUrl}/properties/residential/sale/available?pagesize=5`, {
          headers: { 'X-Api-Key': relay.config.crm.apiKey!, Authorization: `Bearer ${relay.config.crm.accessToken}` },
        })
      ).json()) as { items: Array<{ id: number; saleLifeId: number }> };
      const listing = listings.items[0]!;
      const originalId = randomUUID();
      const response = await fetch(`${relay.url}/api/v1/enquiries`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Origin: relay.url },
        body: JSON.stringify({
          originalId,
          listingId: listing.id,
          fullName: 'Demo Visitor',
          email: 'demo@example.com',
          message: 'Hello from the demo page',
          website: '',
          elapsedMs: 12_000,
        }),
      });
      expect(response.status).toBe(202);
      expect(response.headers.get('access-control-allow-origin')).toBe(relay.url);

      // The status route says only that the relay holds it (docs/api.md); the relay's metrics say when it is delivered.
      expect(((await (await fetch(`${relay.url}/api/v1/enquiries/${originalId}`)).json()) as { status: string }).status).toBe('accepted');
      let delivered = false;
      for (let waited = 0; waited < 45_000 && !delivered; waited += 200) {
        delivered = (await (await fetch(`${relay.url}/metrics`)).text()).includes('estate_enquiries_delivered_total 1');
        if (!delivered) await sleep(200);
      }
      expect(delivered).toBe(true);
      const held = (await (await fetch(`${crm.origin}/__sim/enquiries`)).json()) as { items: Array<{ originalId: string; saleLifeId: number }> };
      expect(held.items.filter((item) => item.originalId === originalId)).toEqual([expect.objectContaining({ saleLifeId: listing.saleLifeId })]);
      const metrics = await (await fetch(`${relay.url}/metrics`)).text();
      expect(metrics).toContain('estate_enquiries_delivered_total 1');
      // Where the row is: PostgreSQL with DATABASE_URL (the SQLite outbox stays empty), else SQLite.
      const sqliteRows = tablesOf(relay.store).prepare('SELECT COUNT(*) FROM enquiry_outbox').pluck().get();
      expect(sqliteRows).toBe(variant.postgresServer ? 0 : 1);
      expect((await rawRows(relay.store, 'enquiry_outbox')).map((row) => row.original_id)).toEqual([originalId]);
    });
  });
}
