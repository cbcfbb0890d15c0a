import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { PUBLIC_URL, startAgenciesRig, until, type AgenciesRig } from './rig.ts';
import { validEnquiry } from '../enquiries/support.ts';

/*
 * Three agencies of one integrator on one relay and one API key (AGENCIES_FILE), against the
 * simulator's three accounts over real HTTP, each with its own SQLite file: nothing of one ever
 * shows in another's answers, in either direction.
 */

const enquiry = (listingId: number) => validEnquiry({ listingId });

describe('agencies on one relay: isolation', () => {
  let rig: AgenciesRig;
  let accounts: SimulatorState[];
  const slugs = ['agency-a', 'agency-b', 'agency-c'];
  const ids = async (slug: string): Promise<number[]> => {
    const { status, body } = await rig.request(`/a/${slug}/api/v1/listings?pageSize=100`);
    expect(status).toBe(200);
    return body.items.map((item: { id: number }) => item.id).sort((a: number, b: number) => a - b);
  };
  /** The public ids of an account's current web listings, for sale or lease (one per life). */
  const webIdsOf = (account: SimulatorState) =>
    account.listings
      .filter((listing) => listing.propertyClass === 'residential' && listing.publishedToWeb !== null)
      .filter((listing) => (listing.market === 'sale' ? ['listing', 'conditional'] : ['listing']).includes(listing.status))
      .map((listing) => listing.lifeId * 2 + (listing.market === 'lease' ? 1 : 0))
      .sort((a, b) => a - b);
  /** Its listings for sale: an enquiry may name one. */
  const saleIdsOf = (account: SimulatorState) => webIdsOf(account).filter((id) => id % 2 === 0);
  const post = (slug: string, body: unknown, origin?: string) =>
    rig.request(`/a/${slug}/api/v1/enquiries`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    rig = await startAgenciesRig({ agencies: 3, listings: 8, env: { ENQUIRY_RATE_LIMIT_PER_MINUTE: '2' } });
    accounts = rig.accounts;
    await rig.syncAll();
  }, 60_000);
  afterAll(async () => {
    await rig?.close();
  });

  it("each agency lists exactly its own account's listings under /a/<slug>/, and none of another's", async () => {
    const served = await Promise.all(slugs.map(ids));
    for (const [index, account] of accounts.entries()) {
      expect(served[index]).toEqual(webIdsOf(account));
      expect(served[index]!.length).toBeGreaterThan(0);
    }
    // Both directions: A's ids are nowhere in B's or C's answers, and so on.
    for (const [index, list] of served.entries()) {
      const others = served.filter((_, other) => other !== index).flat();
      expect(list.filter((id) => others.includes(id))).toEqual([]);
    }
  });

  it('a listing of another agency is a 404 at this one, in both directions', async () => {
    const [ofA] = saleIdsOf(accounts[0]!);
    const [ofB] = saleIdsOf(accounts[1]!);
    expect((await rig.request(`/a/agency-a/api/v1/listings/${ofA}`)).status).toBe(200);
    expect((await rig.request(`/a/agency-b/api/v1/listings/${ofA}`)).status).toBe(404);
    expect((await rig.request(`/a/agency-a/api/v1/listings/${ofB}`)).status).toBe(404);
  });

  it('agents: each agency shows its own staff only', async () => {
    const agentsOf = async (slug: string) => (await rig.request(`/a/${slug}/api/v1/agents`)).body.items as Array<{ id: number; name: string }>;
    const [a, b] = await Promise.all([agentsOf('agency-a'), agentsOf('agency-b')]);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const staffIds = (account: SimulatorState) => new Set(account.users.map((user) => user.id));
    expect(a.every((agent) => staffIds(accounts[0]!).has(agent.id))).toBe(true);
    expect(b.every((agent) => staffIds(accounts[1]!).has(agent.id))).toBe(true);
    expect(a.filter((agent) => b.some((other) => other.id === agent.id))).toEqual([]);
  });

  it("photos: every photo URL of an agency's answers is on the shared /photos/ and loads there", async () => {
    const { body } = await rig.request(`/a/agency-b/api/v1/listings?pageSize=100`);
    const urls = (body.items as Array<{ photo: { url: string; variants: Array<{ url: string }> } | null }>).flatMap((item) =>
      item.photo ? [item.photo.url, ...item.photo.variants.map((variant) => variant.url)] : [],
    );
    expect(urls.length).toBeGreaterThan(0);
    expect(urls.every((url) => url.startsWith(`${PUBLIC_URL}/photos/`))).toBe(true);
    const sample = urls[0]!.slice(PUBLIC_URL.length);
    expect((await rig.request(sample)).status).toBe(200);
    // Not under an agency's path: photos are shared and content-addressed.
    expect((await rig.request(`/a/agency-b${sample}`)).status).toBe(404);
  });

  it('an unknown slug is a 404 in JSON, and the root paths serve no agency', async () => {
    const unknown = await rig.request('/a/nobody/api/v1/listings');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: 'unknown_agency' });
    expect((await rig.request('/api/v1/listings')).status).toBe(404);
  });

  it("an enquiry is delivered with its own agency's token: the simulator records it in that account only", async () => {
    const [listingOfB] = saleIdsOf(accounts[1]!);
    const before = accounts.map((account) => account.postedEnquiries().length);
    const accepted = await post('agency-b', enquiry(listingOfB!));
    expect(accepted.status).toBe(202);
    const running = rig.relay.agencies!.get('agency-b')!;
    running.agency.enquiries.worker.start();
    await until(
      () => accounts[1]!.postedEnquiries().length,
      (count) => count > before[1]!,
    );
    await running.agency.enquiries.worker.stop();
    expect(accounts.map((account) => account.postedEnquiries().length)).toEqual([before[0], before[1]! + 1, before[2]]);
    // A's outbox never saw it.
    const rows = (slug: string) => tablesOf(rig.relay.agencies!.get(slug)!.agency.store).prepare('SELECT COUNT(*) FROM enquiry_outbox').pluck().get() as number;
    expect(rows('agency-a')).toBe(0);
    expect(rows('agency-b')).toBe(1);
  });

  it("an enquiry naming another agency's listing is refused at this one (nothing queued)", async () => {
    const [listingOfA] = saleIdsOf(accounts[0]!);
    const refused = await post('agency-c', enquiry(listingOfA!));
    expect(refused.status).toBe(400);
    expect(refused.body.fields).toHaveProperty('listingId');
  });

  it('CORS per agency: an origin allowed at A is refused at B', async () => {
    const preflight = (slug: string, origin: string) =>
      rig.request(`/a/${slug}/api/v1/enquiries`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
    const atA = await preflight('agency-a', 'https://agency-a.example');
    expect(atA.status).toBe(204);
    expect(atA.headers.get('access-control-allow-origin')).toBe('https://agency-a.example');
    expect((await preflight('agency-b', 'https://agency-a.example')).status).toBe(403);
    const listingAtB = await rig.request('/a/agency-b/api/v1/listings', { headers: { Origin: 'https://agency-a.example' } });
    expect(listingAtB.status).toBe(403);
    const listingAtA = await rig.request('/a/agency-a/api/v1/listings', { headers: { Origin: 'https://agency-a.example' } });
    expect(listingAtA.status).toBe(200);
  });

  it('enquiry rate limits are per agency: a client limited at A still reaches C', async () => {
    const [listingOfA] = saleIdsOf(accounts[0]!);
    const [listingOfC] = saleIdsOf(accounts[2]!);
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post('agency-a', enquiry(listingOfA!))).status);
    expect(statuses).toEqual([202, 202, 429]);
    expect((await post('agency-c', enquiry(listingOfC!))).status).toBe(202);
  });

  describe('one webhook endpoint, routed by accountid', () => {
    const send = (body: string) =>
      rig.request('/hooks/crm', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(rig.sim.apiKey, Date.now(), body) },
        body,
      });
    const event = (propertyId: number, accountid: number) =>
      JSON.stringify({ event: 'property.update', data: { id: propertyId }, accountid, timestamp: new Date().toISOString() });
    const queued = (slug: string) =>
      tablesOf(rig.relay.agencies!.get(slug)!.agency.store).prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get() as number;

    beforeAll(async () => {
      for (const running of rig.relay.agencies!.list()) running.agency.listings.account.start();
      await until(() => rig.relay.agencies!.list().every((running) => running.agency.listings.account.id !== undefined), Boolean);
    });

    it("learns each agency's account id from its own token", () => {
      expect(rig.relay.agencies!.list().map((running) => running.agency.listings.account.id)).toEqual(accounts.map((account) => String(account.accountId)));
    });

    it('an event for account B is stored at B only', async () => {
      const propertyOfB = accounts[1]!.listings[0]!.id;
      const response = await send(event(propertyOfB, accounts[1]!.accountId));
      expect(response.status).toBe(202);
      expect([queued('agency-a'), queued('agency-b'), queued('agency-c')]).toEqual([0, 1, 0]);
    });

    it('an event for an account no agency here has is acknowledged, counted, and costs no CRM request', async () => {
      const before = rig.sim.key.getCounters();
      const response = await send(event(123, 999_999));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'ignored', reason: 'other_account' });
      expect([queued('agency-a'), queued('agency-c')]).toEqual([0, 0]);
      const after = rig.sim.key.getCounters();
      expect(after.totalRequests).toBe(before.totalRequests);
      const metrics = await rig.request('/metrics');
      expect(metrics.text).toContain('estate_crm_webhooks_total{outcome="other_account"} 1');
      expect(metrics.text).toContain('estate_agencies{state="serving"} 3');
    });

    it('a bad signature is refused once, for every agency', async () => {
      const body = event(1, accounts[0]!.accountId);
      const response = await rig.request('/hooks/crm', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook('wrong-key', Date.now(), body) },
        body,
      });
      expect(response.status).toBe(401);
    });
  });
});
