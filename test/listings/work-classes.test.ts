import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { signCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import { startListingRig, type ListingRig } from './rig.ts';

// The whole relay against the simulator: each worker's requests reach the key's gate under its own
// class (work-class.ts), which is what lets the gate put leads first. Counted by the gate itself.

let rig: ListingRig;
beforeAll(async () => {
  rig = await startListingRig({ listings: 12, env: { WEBHOOK_DAILY_REFRESHES: '1000' } });
});
afterAll(async () => {
  await rig?.close();
});

const byClass = () => rig.relay.crm.requestsByClass();

it('the sync spends as sweeps, the event stream as catch-up, a webhook refresh as webhook, a delivery as enquiry', { timeout: 60_000 }, async () => {
  expect((await rig.relay.listings.sync.run('full')).error).toBeUndefined();
  const afterSweep = byClass();
  expect(afterSweep.sweep).toBeGreaterThan(0);
  expect(afterSweep).toMatchObject({ enquiry: 0, webhook: 0, 'catch-up': 0 });

  await rig.relay.listings.changes.readStream();
  const afterStream = byClass();
  expect(afterStream['catch-up']).toBeGreaterThan(0);
  expect(afterStream.sweep).toBe(afterSweep.sweep);

  // A notice without its record: the relay reads the lists, as webhook work.
  rig.relay.listings.changes.start();
  const listingId = rig.expectedIds('sale')[0]!;
  const property = rig.simListing(listingId);
  rig.sim.state.changeListing(property.id, { fields: { heading: 'Changed, notice only' } }, property.market);
  const body = JSON.stringify({ event: 'property.update', data: { id: property.id }, accountid: 1, timestamp: new Date().toISOString(), itemBodies: [] });
  const hook = await fetch(`${rig.relay.url}/hooks/crm`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(rig.sim.apiKey, Date.now(), body) },
    body,
  });
  expect(hook.status).toBe(202);
  for (let waited = 0; waited < 10_000 && byClass().webhook === 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(byClass().webhook).toBeGreaterThan(0);
  await rig.relay.listings.changes.stop();

  const accepted = await fetch(`${rig.relay.url}/api/v1/enquiries`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: new URL(rig.publicUrl).origin },
    body: JSON.stringify({
      originalId: randomUUID(),
      listingId,
      fullName: 'Test Visitor',
      email: 'visitor@example.com',
      message: 'Is it still for sale?',
      website: '',
      elapsedMs: 12_000,
    }),
  });
  expect(accepted.status).toBe(202);
  await rig.relay.enquiries.worker.drain();
  expect(rig.sim.state.getCounters().enquiriesStored).toBe(1);
  expect(byClass().enquiry).toBeGreaterThan(0);
  expect(byClass().sweep).toBe(afterSweep.sweep);
});
