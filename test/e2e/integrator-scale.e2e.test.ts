import { describe, expect, it } from 'vitest';
import { measureIntegrator } from '../../bench/integrator.ts';

/*
 * The integrator bench's small variant (bench/integrator.ts, `npm run bench -- integrator` runs
 * 200 × 100): 20 agencies of 10 listings on one simulator key with the CRM's limits (10 a second),
 * one relay serving them all from an AGENCIES_FILE, workers running, everything over real HTTP.
 * The first sync of all 20 at once must fill every agency without more than 10 requests in any
 * second at the simulator, and a lead posted while they sync must reach the CRM before the
 * sweeps are done; a change pushed by webhook must reach its agency's listing API within 10 s.
 */

describe('integrator scale, small: 20 agencies × 10 listings on one key', () => {
  it('fills every agency under the per-second cap, delivers leads ahead of the sweeps, applies webhooks within seconds', async () => {
    const notes: string[] = [];
    const figures = await measureIntegrator({
      agencies: 20,
      listings: 10,
      changes: 10,
      compression: 1,
      enquiryEveryMs: 1_000,
      skipLost: true,
      note: (message) => notes.push(message),
    });
    const byName = Object.fromEntries(figures.map((figure) => [figure.name, figure]));
    const firstSync = byName['integrator-first-sync']!;
    const rate = byName['integrator-rate']!;
    const freshness = byName['integrator-freshness']!;
    const calls = byName['integrator-calls']!;

    // Every agency filled (the bench waits for each one's listing API to list all it has for sale).
    expect(firstSync.agenciesNotFilled, notes.join('\n')).toBe(0);
    expect(firstSync.allFilledSeconds).toBeGreaterThan(0);
    expect(firstSync.firstSyncRequests).toBeGreaterThanOrEqual(20 * 5);
    // The simulator's own count, every arrival included.
    expect(rate.peakRequestsInAnySecond).toBeGreaterThan(0);
    expect(rate.peakRequestsInAnySecond).toBeLessThanOrEqual(10);
    expect(rate.refusedPerSecond).toBe(0);
    // Leads go first: at least one was in the CRM before the last agency was filled.
    expect(firstSync.enquiries).toBeGreaterThan(0);
    expect(firstSync.enquiriesDeliveredBeforeAllFilled).toBeGreaterThanOrEqual(1);
    expect(firstSync.enquiryDeliveryP95Seconds).toBeLessThan(firstSync.allFilledSeconds as number);
    // Changes pushed by webhook, each to its own agency's listing API.
    expect(freshness.samples).toBe(10);
    expect(freshness.deliveredP95Seconds).toBeLessThanOrEqual(10);
    // A day at the measured costs stays within the key's share (CRM_BUDGET_SHARE 0.5 of 10,000).
    expect(calls.perDayWebhooksDelivered).toBeLessThanOrEqual(5_000);
  }, 300_000);
});
