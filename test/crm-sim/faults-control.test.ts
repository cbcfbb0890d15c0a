import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient } from './helpers.ts';

let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  sim = await startSimulator({ listings: 20, seed: 2, requestsPerSecond: 10_000 });
  call = apiClient(sim);
});
afterAll(() => sim.close());
beforeEach(() => sim.state.reset());

const enquiry = (originalId: string) => ({ fullName: 'Jo Example', email: 'jo@example.com', source: 'OFFICEWEBSITE', originalId });

async function control(method: string, path: string, body?: unknown) {
  const response = await fetch(`${sim.origin}/__sim${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('CRM simulator: fault injection', () => {
  it('errorRate 1 answers the chosen 5xx on the matching endpoint only, storing nothing', async () => {
    sim.state.setFaults([{ match: 'POST /enquiries', errorRate: 1, errorStatus: 503 }]);
    const refused = await call('/enquiries', { method: 'POST', body: enquiry('e1') });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ success: false });
    expect(sim.state.postedEnquiries()).toHaveLength(0);
    expect((await call('/enquiries')).status).toBe(200);
    expect(sim.state.counters.injectedErrors).toBe(1);
  });

  it('rate429 answers 429 with the configured Retry-After', async () => {
    sim.state.setFaults([{ match: '/properties/**', rate429: 1, retryAfterSeconds: 7 }]);
    const response = await call('/properties/residential/sale/available');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect((await call('/openHomes')).status).toBe(200);
  });

  it('latencyMs delays the answer', async () => {
    sim.state.setFaults([{ match: 'GET /scopes', latencyMs: 300 }]);
    const started = performance.now();
    expect((await call('/scopes')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('dropResponseRate stores the enquiry but cuts the connection before the answer', async () => {
    sim.state.setFaults([{ match: 'POST /enquiries', dropResponseRate: 1, times: 1 }]);
    await expect(call('/enquiries', { method: 'POST', body: enquiry('dropped-1') })).rejects.toThrow();
    expect(sim.state.postedEnquiries().map((stored) => stored.originalId)).toEqual(['dropped-1']);
    expect(sim.state.counters.droppedResponses).toBe(1);
    expect(sim.state.getCounters().statusByEndpoint['POST /enquiries']).toEqual({ dropped: 1 });

    // `times: 1` spent: the next post is answered normally.
    expect((await call('/enquiries', { method: 'POST', body: enquiry('after') })).status).toBe(201);
    expect(sim.state.faults.list()).toEqual([]);
  });

  it('counts a request the client gave up on as client-closed, not as dropped', async () => {
    sim.state.setFaults([{ match: 'GET /scopes', latencyMs: 400 }]);
    const headers = { 'X-Api-Key': sim.apiKey, Authorization: `Bearer ${sim.accessToken}` };
    await expect(fetch(`${sim.baseUrl}/scopes`, { headers, signal: AbortSignal.timeout(100) })).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(sim.state.getCounters().statusByEndpoint['GET /scopes']).toEqual({ 'client-closed': 1 });
    expect(sim.state.counters.droppedResponses).toBe(0);
  });

  it('applies faults to the file host too', async () => {
    const listing = sim.state.listings[0]!;
    const photo = (await call(`/properties/${listing.id}/photos`)).body.items[0];
    sim.state.setFaults([{ match: '/files/photos/**', errorRate: 1 }]);
    expect((await fetch(photo.url)).status).toBe(500);
    sim.state.clearFaults();
    expect((await fetch(photo.url)).status).toBe(200);
  });

  it('a fractional rate faults roughly that share of requests', async () => {
    sim.state.setFaults([{ match: 'GET /scopes', errorRate: 0.5 }]);
    const statuses = await Promise.all(Array.from({ length: 200 }, () => call('/scopes').then((response) => response.status)));
    const errors = statuses.filter((status) => status === 500).length;
    expect(errors).toBeGreaterThan(60);
    expect(errors).toBeLessThan(140);
  });
});

describe('CRM simulator: /__sim control surface', () => {
  it('changes, withdraws and adds listings over HTTP, bumping modified', async () => {
    const listing = sim.state.listings.find((candidate) => candidate.market === 'sale' && candidate.status === 'listing')!;
    const oldModified = listing.modified;
    const changed = await control('PATCH', `/listings/${listing.id}`, { fields: { heading: 'Price reduced' } });
    expect(changed.status).toBe(200);
    expect(changed.body.heading).toBe('Price reduced');
    expect(Date.parse(changed.body.modified)).toBeGreaterThan(oldModified);

    const withdrawn = await control('POST', `/listings/${listing.id}/withdraw`);
    expect(withdrawn.body.status).toBe('withdrawn');

    const added = await control('POST', '/listings', { category: 'land' });
    expect(added.status).toBe(201);
    expect(added.body.class.internalName).toBe('land');
    const land = (await call('/properties/land/sale/available?pagesize=100')).body.items.map((item: { id: number }) => item.id);
    expect(land).toContain(added.body.id);

    expect((await control('PATCH', '/listings/1', {})).status).toBe(404);
    expect((await control('POST', '/listings', { category: 'castle' })).status).toBe(400);
  });

  it('replaces a photo over HTTP', async () => {
    const photo = sim.state.listings[0]!.photos[0]!;
    const before = photo.modified;
    const response = await control('POST', `/photos/${photo.id}/replace`);
    expect(response.status).toBe(200);
    expect(Date.parse(response.body.modified)).toBeGreaterThan(before);
  });

  it('sets faults over HTTP, refusing bad rules with 400', async () => {
    expect((await control('PUT', '/faults', { rules: [{ match: 'POST /enquiries', errorRate: 2 }] })).status).toBe(400);
    expect((await control('POST', '/faults', { errorRate: 0.5 })).status).toBe(400);
    const set = await control('PUT', '/faults', { rules: [{ match: 'POST /enquiries', errorRate: 1 }] });
    expect(set.body.rules).toEqual([{ match: 'POST /enquiries', errorRate: 1 }]);
    expect((await call('/enquiries', { method: 'POST', body: enquiry('x') })).status).toBe(500);
    await control('DELETE', '/faults');
    expect((await call('/enquiries', { method: 'POST', body: enquiry('x') })).status).toBe(201);
  });

  it('reports counters: requests by endpoint, statuses, peak per second per key (masked), enquiries', async () => {
    await call('/properties/residential/sale');
    await call(`/properties/residential/sale/${sim.state.listings[0]!.id}`);
    await call('/enquiries', { method: 'POST', body: enquiry('counted') });
    await call('/scopes', { apiKey: null });
    const { body } = await control('GET', '/counters');
    expect(body.requestsByEndpoint).toMatchObject({
      'GET /properties/residential/sale': 1,
      'GET /properties/residential/sale/{id}': 1,
      'POST /enquiries': 1,
      'GET /scopes': 1,
    });
    expect(body.statusByEndpoint['GET /scopes']).toEqual({ 403: 1 });
    expect(body.enquiriesStored).toBe(1);
    const keys = Object.keys(body.perKey);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(sim.apiKey);
    expect(body.perKey[keys[0]!].peakRequestsPerSecond).toBeGreaterThanOrEqual(1);

    await control('POST', '/counters/reset');
    expect((await control('GET', '/counters')).body.totalRequests).toBe(0);
  });

  it('reset restores the seeded account', async () => {
    const originalCount = sim.state.listings.length;
    sim.state.addListing();
    await call('/enquiries', { method: 'POST', body: enquiry('gone') });
    const extraToken = sim.state.addToken(['enquiries:read']).token;
    sim.state.setFaults([{ match: 'GET /scopes', errorRate: 1 }]);
    sim.state.setLimits({ requestsPerSecond: 3, dailyLimit: 50 });
    const response = await control('POST', '/reset');
    expect(response.body).toEqual({ ok: true, listings: originalCount });
    expect(sim.state.postedEnquiries()).toHaveLength(0);
    // Faults, extra tokens, limits and counters go too, as the route promises.
    expect(sim.state.faults.list()).toEqual([]);
    expect(sim.state.tokens.has(extraToken)).toBe(false);
    expect(sim.state.limiter.settings).toEqual({ requestsPerSecond: 10_000, dailyLimit: 10_000 });
    expect(sim.state.getCounters().totalRequests).toBe(0);
  });

  it('issues tokens with chosen scopes and changes limits', async () => {
    const token = await control('POST', '/tokens', { scopes: ['enquiries:read'] });
    expect(token.status).toBe(201);
    expect((await call('/properties/residential/sale', { token: token.body.token })).status).toBe(403);
    expect((await call('/enquiries', { token: token.body.token })).status).toBe(200);
    expect((await control('PUT', '/limits', { dailyLimit: 0 })).status).toBe(400);
    expect((await control('PUT', '/limits', { dailyLimit: 50 })).body).toEqual({ requestsPerSecond: 10_000, dailyLimit: 50 });
  });
});
