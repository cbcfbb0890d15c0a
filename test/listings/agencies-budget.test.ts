import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/runtime/config.ts';
import { crmListShape } from '../../server/crm/listing-source.ts';
import {
  AgenciesBudgetRefusedError,
  assertAgenciesBudget,
  describeAgenciesPlan,
  planAgencies,
  planBudget,
  type AgencyToPlan,
} from '../../server/listings/budget.ts';

const CRM = { CRM_BASE_URL: 'http://127.0.0.1:9/api/v1.3', CRM_API_KEY: 'key', CRM_ACCESS_TOKEN: 'token', PUBLIC_URL: 'https://relay.agency.test' };
const config = loadConfig({ ...CRM });
const shape = crmListShape(config);

function agencies(count: number, listings: number, prefix = 'agency'): AgencyToPlan[] {
  return Array.from({ length: count }, (_, index) => ({
    slug: `${prefix}-${index + 1}`,
    sizes: { listingsBySource: new Map([['residential/sale/available', listings]]), agents: 8, openHomes: 10 },
  }));
}

describe('the planner for many agencies on one key', () => {
  it('fits 200 agencies of 100 listings under 5,000 requests a day, with the catch-up interval and freshness each gets', () => {
    const plan = planAgencies(config, shape, agencies(200, 100));
    expect(plan.fits).toBe(true);
    expect(plan.allowed).toBe(5_000);
    expect(plan.perDay).toBeLessThanOrEqual(5_000);
    expect(plan.perDay / 200).toBeLessThanOrEqual(25);
    // Floor: one sweep each (4 lists + staff + open homes: one page apiece), each agency's daily access check (1: the sweep
    // proves listings and staff, the account is known; the enquiries proof is left) and the key's hourly usage read.
    expect(plan.floorPerDay).toBe(200 * (6 + 1) + 24);
    // What is left buys each agency a few stream reads a day, with a list refresh for each in the worst case.
    const agency = plan.agencies[0]!;
    // Three reads a day: the 8 h promise without webhooks that a five-request access check had pushed to 12 h.
    expect(agency).toMatchObject({ sweepRequests: 6, accessRequests: 1, catchUpReads: 3, refreshRequests: 12, perDay: 22, catchUpIntervalMinutes: 480 });
    expect(agency.freshness).toEqual({ withWebhooksSeconds: 5, withoutWebhooksSeconds: 480 * 60 + 60 });
    expect(new Set(plan.agencies.map((line) => line.catchUpIntervalMinutes))).toEqual(new Set([480]));
    // One more read each would not fit: the interval is the shortest the budget allows.
    expect(plan.perDay + 200 * (1 + 4)).toBeGreaterThan(plan.allowed);
    const text = describeAgenciesPlan(plan);
    expect(text[0]).toBe('CRM budget for 200 agencies: about 4424 requests a day of 5000 allowed (floor 1424); catch-up every 8 h');
    expect(text[1]).toBe('  agency-1: 22/day (sweep 6, access check 1, stream reads 3, refreshes ≤ 12); fresh within 5 s with webhooks, 8 h without');
  });

  it('gives a handful of agencies the stream at SYNC_INTERVAL_MINUTES, no faster', () => {
    const plan = planAgencies(config, shape, agencies(3, 100));
    expect(plan.catchUpIntervalMinutes).toBe(5);
    expect(plan.agencies[0]!.catchUpReads).toBe(288);
    expect(plan.perDay).toBeLessThanOrEqual(plan.allowed);
  });

  it('one agency with 5,000 listings and 49 small ones: every agency gets the same interval; the big one pays for its own sweep', () => {
    const big: AgencyToPlan = { slug: 'big', sizes: { listingsBySource: new Map([['residential/sale/available', 5_000]]), agents: 120, openHomes: 400 } };
    const plan = planAgencies(config, shape, [big, ...agencies(49, 50, 'small')]);
    expect(plan.fits).toBe(true);
    expect(new Set(plan.agencies.map((line) => line.catchUpIntervalMinutes)).size).toBe(1);
    const [bigLine, smallLine] = [plan.agencies[0]!, plan.agencies[1]!];
    expect(bigLine.sweepRequests).toBe(50 + 3 + 2 + 4);
    expect(smallLine.sweepRequests).toBe(6);
    expect(smallLine.freshness).toEqual(bigLine.freshness);
  });

  it('refuses agencies whose floor (one daily sweep each) does not fit, saying how many would', () => {
    const plan = planAgencies(config, shape, agencies(1_000, 100));
    expect(plan.fits).toBe(false);
    expect(plan.floorPerDay).toBe(1_000 * 7 + 24);
    // (5,000 − 24) / 7 = 710 agencies of this size.
    expect(plan.agenciesThatFit).toBe(710);
    expect(plan.advice).toContain('1000 agencies need at least 7024 CRM requests a day');
    expect(plan.advice).toContain('710 of them would fit');
    expect(() => assertAgenciesBudget(plan)).toThrow(AgenciesBudgetRefusedError);
    expect(() => assertAgenciesBudget(plan)).toThrow(/AGENCIES_FILE: .*710 of them would fit/);
    expect(describeAgenciesPlan(plan)[0]).toMatch(/^CRM budget REFUSED: 1000 agencies/);
    // The smallest first: with one huge agency among them, more of the small ones fit than the average suggests.
    const mixed = planAgencies(config, shape, [
      { slug: 'huge', sizes: { listingsBySource: new Map([['residential/sale/available', 600_000]]), agents: 1, openHomes: 1 } },
      ...agencies(10, 100),
    ]);
    expect(mixed.fits).toBe(false);
    expect(mixed.agenciesThatFit).toBe(10);
  });

  it('plans against what other tools on the key spend (GET /integrator/usage): less left, a longer interval, and then a refusal', () => {
    const alone = planAgencies(config, shape, agencies(100, 100));
    // Half the day gone, others spent 2,000: about 4,000 a day, leaving the relay 6,000 of 10,000 (its share is 5,000 anyway).
    expect(planAgencies(config, shape, agencies(100, 100), { othersToday: 2_000, dayElapsed: 0.5 }).allowed).toBe(5_000);
    const squeezed = planAgencies(config, shape, agencies(100, 100), { othersToday: 3_500, dayElapsed: 0.5 });
    expect(squeezed.allowed).toBe(3_000);
    expect(squeezed.sharedKey).toEqual({ othersToday: 3_500, othersPerDay: 7_000 });
    expect(squeezed.catchUpIntervalMinutes!).toBeGreaterThan(alone.catchUpIntervalMinutes!);
    const refused = planAgencies(config, shape, agencies(100, 100), { othersToday: 4_900, dayElapsed: 0.5 });
    expect(refused.fits).toBe(false);
    expect(refused.advice).toMatch(/less about 9800 a day other tools on the key spend.*ask the other tools on the key to spend less/);
  });

  it('leaves the single-agency plan as it was', () => {
    const single = planBudget(config, shape, { listingsBySource: new Map(), agents: 0, openHomes: 0 });
    expect(single.perDay).toBe(288 + 4 * 5 + 24 + 200 + 20 * 4 + 40 + 24);
    expect(single.allowed).toBe(5_000);
  });
});
