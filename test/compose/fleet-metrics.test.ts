import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgenciesRig, type AgenciesRig } from './rig.ts';
import { validEnquiry } from '../enquiries/support.ts';
import { validSavedSearch } from '../saved-searches/support.ts';
import { ALL_SCOPES, SCOPES } from '../../crm-sim/state.ts';

/*
 * The fleet view on the relay's /metrics (compose/fleet-metrics.ts): three agencies of one key on
 * the CRM simulator, real HTTP and SQLite. Each agency's series carry its slug and say what its
 * store, its access check and the plan say; the key's budget is the sum of the agencies' calls.
 */

/** The value of one sample of the /metrics text (undefined when absent). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((each) => each.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the fleet view on /metrics: a series per agency', () => {
  let rig: AgenciesRig;
  const metrics = async () => (await rig.request('/metrics')).text;

  beforeAll(async () => {
    // Agent confirmation: a saved search is queued at once, as this view's queue figures need (by e-mail it waits for its owner).
    rig = await startAgenciesRig({ agencies: 3, listings: 8, env: { SAVED_SEARCH_CONFIRMATION: 'agent' } });
    await rig.syncAll();
    for (const running of rig.relay.agencies!.list()) await running.agency.access.checkAccess();
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it("gives each agency's listings, freshness and promise, calls today, and the key's budget", async () => {
    const text = await metrics();
    const agencies = rig.relay.agencies!.list();
    let calls = 0;
    for (const running of agencies) {
      const slug = running.entry.slug;
      const listings = [...running.agency.listings.cache.countsBySource().values()].reduce((sum, count) => sum + count, 0);
      expect(listings).toBeGreaterThan(0);
      expect(sample(text, `estate_agency_listings{agency="${slug}"}`)).toBe(listings);
      expect(sample(text, `estate_agency_cache_filled{agency="${slug}"}`)).toBe(1);
      expect(sample(text, `estate_agency_sync_failing{agency="${slug}"}`)).toBe(0);
      const synced = sample(text, `estate_agency_synced_timestamp_seconds{agency="${slug}"}`)!;
      expect(Date.now() / 1000 - synced).toBeGreaterThanOrEqual(0);
      expect(Date.now() / 1000 - synced).toBeLessThan(60);
      const promise = rig.relay.agencies!.plan!.agencies.find((line) => line.slug === slug)!.freshness;
      expect(sample(text, `estate_agency_freshness_promise_seconds{agency="${slug}",webhooks="lost"}`)).toBe(promise.withoutWebhooksSeconds);
      expect(sample(text, `estate_agency_freshness_promise_seconds{agency="${slug}",webhooks="delivered"}`)).toBe(promise.withWebhooksSeconds);
      const today = running.agency.crm.requestsToday().requests;
      expect(sample(text, `estate_agency_crm_requests_today{agency="${slug}"}`)).toBe(today);
      calls += today;
      for (const capability of ['listings', 'staff', 'enquiries'])
        expect(sample(text, `estate_agency_crm_access{agency="${slug}",capability="${capability}",state="allowed"}`)).toBe(1);
    }
    // One key: its budget counts every agency's calls (and nothing else was spent on it).
    expect(sample(text, 'estate_crm_budget_used_requests')).toBe(calls);
    expect(sample(text, 'estate_crm_budget_limit_requests')).toBe(10_000);
    expect(sample(text, 'estate_crm_budget_remaining_requests')).toBe(10_000 - calls);
    expect(sample(text, 'estate_crm_budget_planned_requests_per_day')).toBe(rig.relay.agencies!.plan!.perDay);
    expect(sample(text, 'estate_crm_gate_requests_total{class="sweep"}')).toBeGreaterThan(0);
  });

  it("shows an enquiry and a saved search waiting in their own agency's queues, and how long they have waited", async () => {
    const listingId = (await rig.request('/a/agency-c/api/v1/listings?type=sale&pageSize=1')).body.items[0].id as number;
    const posted = await rig.request('/a/agency-c/api/v1/enquiries', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(validEnquiry({ listingId })),
    });
    expect(posted.status).toBe(202);
    const savedSearch = await rig.request('/a/agency-c/api/v1/saved-searches', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(validSavedSearch()),
    });
    expect(savedSearch.status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // Workers are off in this rig: the enquiry stays queued.
    const text = await metrics();
    expect(sample(text, 'estate_agency_enquiry_outbox{agency="agency-c",status="queued"}')).toBe(1);
    expect(sample(text, 'estate_agency_enquiry_outbox{agency="agency-a",status="queued"}')).toBe(0);
    expect(sample(text, 'estate_agency_enquiry_outbox_oldest_queued_seconds{agency="agency-c"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'estate_agency_enquiry_outbox_oldest_queued_seconds{agency="agency-a"}')).toBe(0);
    expect(sample(text, 'estate_agency_enquiry_delivery_circuit_open{agency="agency-c"}')).toBe(0);
    // The saved-search queue beside it, the same way.
    expect(sample(text, 'estate_agency_saved_searches{agency="agency-c",status="queued"}')).toBe(1);
    expect(sample(text, 'estate_agency_saved_searches{agency="agency-a",status="queued"}')).toBe(0);
    expect(sample(text, 'estate_agency_saved_searches_oldest_queued_seconds{agency="agency-c"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'estate_agency_saved_searches_oldest_queued_seconds{agency="agency-a"}')).toBe(0);
    expect(text).not.toContain(validSavedSearch().email);
    // Nothing of the visitor's on /metrics.
    expect(text).not.toContain(validEnquiry().email);
  });

  it('names a grant the agency has not given as a grant (403 while its token and the key are accepted), not as the key', async () => {
    const ungranted = rig.accounts[2]!;
    ungranted.setScopes(ALL_SCOPES.filter((scope) => scope !== SCOPES.enquiriesRead && scope !== SCOPES.enquiriesWrite));
    try {
      await rig.relay.agencies!.get('agency-c')!.agency.access.checkAccess({ full: true });
      const text = await metrics();
      expect(sample(text, 'estate_agency_crm_access{agency="agency-c",capability="enquiries",state="refused_grant"}')).toBe(1);
      expect(sample(text, 'estate_agency_crm_access{agency="agency-c",capability="enquiries",state="refused_key"}')).toBe(0);
      expect(sample(text, 'estate_agency_crm_access{agency="agency-c",capability="listings",state="allowed"}')).toBe(1);
      // The CRM's status codes are not the metric's words.
      expect(text).not.toMatch(/state="refused_40[13]"/);
    } finally {
      ungranted.setScopes(ALL_SCOPES);
      await rig.relay.agencies!.get('agency-c')!.agency.access.checkAccess({ full: true });
    }
    expect(sample(await metrics(), 'estate_agency_crm_access{agency="agency-c",capability="enquiries",state="allowed"}')).toBe(1);
  });

  it("names a refused token (401) as that agency's, and the others as allowed", async () => {
    const revoked = rig.accounts[1]!;
    // The agency revoked the integration: its token answers 401 from now on.
    rig.sim.key.removeAccount(revoked.accountId);
    const running = rig.relay.agencies!.get('agency-b')!;
    await running.agency.access.checkAccess({ full: true });
    const text = await metrics();
    expect(sample(text, 'estate_agency_crm_access{agency="agency-b",capability="listings",state="refused_token"}')).toBe(1);
    expect(sample(text, 'estate_agency_crm_access{agency="agency-b",capability="listings",state="allowed"}')).toBe(0);
    expect(sample(text, 'estate_agency_crm_access{agency="agency-a",capability="listings",state="refused_token"}')).toBe(0);
    // A sync now fails, and says so.
    await running.agency.listings.sync.run('incremental');
    expect(sample(await metrics(), 'estate_agency_sync_failing{agency="agency-b"}')).toBe(1);
  });
});

describe('the fleet view on /metrics: a refused API key', () => {
  let rig: AgenciesRig;
  afterAll(async () => {
    await rig?.close();
  });

  // One agency on a wrong key: a 403 to every call, GET /scopes too. Told by the access check as the key's, where a status alone would say "403".
  it("names the key's refusal as the key's, even with one agency", async () => {
    rig = await startAgenciesRig({ agencies: 1, listings: 2, env: { CRM_API_KEY: 'not-the-integrator-key' } });
    await rig.relay.agencies!.get('agency-a')!.agency.access.checkAccess();
    const text = (await rig.request('/metrics')).text;
    for (const capability of ['listings', 'staff', 'enquiries']) {
      expect(sample(text, `estate_agency_crm_access{agency="agency-a",capability="${capability}",state="refused_key"}`)).toBe(1);
      expect(sample(text, `estate_agency_crm_access{agency="agency-a",capability="${capability}",state="refused_grant"}`)).toBe(0);
    }
  }, 60_000);
});
