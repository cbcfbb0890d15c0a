import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, manualClock } from './helpers.ts';

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

describe('CRM simulator: scopes and usage, and refusing a capability on request', () => {
  it('serves GET /scopes as an array of strings and GET /integrator/usage as { used, remaining }; the control surface withdraws a scope and spends quota for "another tool"', async () => {
    sim = await startSimulator({ listings: 5, dailyLimit: 1000 });
    const call = apiClient(sim);
    const control = (path: string, method: string, body: unknown) =>
      fetch(`${sim!.origin}/__sim${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

    const scopes = await call('/scopes');
    expect(scopes.body).toEqual(expect.any(Array));
    expect(scopes.body.every((scope: unknown) => typeof scope === 'string')).toBe(true);
    const usage = await call('/integrator/usage');
    expect(usage.body).toEqual({ used: 2, remaining: 998 });

    expect((await control('/scopes', 'PUT', { scopes: ['properties:read', 'users:read'] })).status).toBe(200);
    expect((await call('/scopes')).body).toEqual(['properties:read', 'users:read']);
    expect((await call('/enquiries')).status).toBe(403);
    expect((await call('/account/users')).status).toBe(200);
    expect((await control('/scopes', 'PUT', { scopes: 'all' })).status).toBe(400);

    expect((await control('/usage', 'POST', { requests: 300 })).status).toBe(200);
    expect((await call('/integrator/usage')).body).toEqual({ used: 306, remaining: 694 });
    expect((await control('/usage', 'POST', { requests: -1 })).status).toBe(400);

    await control('/reset', 'POST', {});
    expect((await call('/enquiries')).status).toBe(200);
  });
});

describe('CRM simulator: authentication', () => {
  it('answers 403 with the error body when the API key is missing or unknown', async () => {
    sim = await startSimulator({ listings: 5 });
    const call = apiClient(sim);
    for (const apiKey of [null, 'not-a-key']) {
      const response = await call('/properties/residential/sale', { apiKey });
      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ success: false, code: 'INVALID_API_KEY' });
      expect(response.body.msg).toMatch(/X-Api-Key/);
    }
  });

  it('answers 401 when the bearer token is missing, unknown or not a bearer', async () => {
    sim = await startSimulator({ listings: 5 });
    const call = apiClient(sim);
    for (const token of [null, 'wrong-token']) {
      const response = await call('/properties/residential/sale', { token });
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ success: false, code: 'INVALID_ACCESS_TOKEN' });
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    }
    const basic = await call('/scopes', { token: null, headers: { Authorization: `Basic ${sim.accessToken}` } });
    expect(basic.status).toBe(401);
  });

  it('lists the token scopes and refuses an endpoint outside them with 403', async () => {
    sim = await startSimulator({ listings: 5 });
    const call = apiClient(sim);
    const scopes = await call('/scopes');
    expect(scopes.status).toBe(200);
    expect(scopes.body).toEqual(expect.arrayContaining(['properties:read', 'enquiries:write']));

    const limited = sim.state.addToken(['properties:read']);
    expect((await call('/scopes', { token: limited.token })).body).toEqual(['properties:read']);
    expect((await call('/properties/residential/sale', { token: limited.token })).status).toBe(200);
    const refused = await call('/enquiries', { method: 'POST', token: limited.token, body: { fullName: 'A B', email: 'a@example.com' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, code: 'INSUFFICIENT_SCOPE' });
    expect(sim.state.postedEnquiries()).toHaveLength(0);
  });
});

describe('CRM simulator: per-key limits', () => {
  it('refuses the 11th request within one second with 429 and Retry-After, then admits again', async () => {
    const clock = manualClock('2025-03-14T10:00:00.000Z');
    sim = await startSimulator({ listings: 5, now: clock.now });
    const call = apiClient(sim);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      statuses.push((await call('/scopes')).status);
      clock.advance(90); // ten requests spread over 900 ms
    }
    expect(statuses).toEqual(Array(10).fill(200));

    const eleventh = await call('/scopes');
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
    expect(Number(eleventh.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Sliding window: 1 s after the first request, one slot is free again, but only one.
    clock.set('2025-03-14T10:00:01.000Z');
    expect((await call('/scopes')).status).toBe(200);
    expect((await call('/scopes')).status).toBe(429);

    expect(sim.state.peakRequestsPerSecond()).toBe(12);
    const perKey = sim.state.getCounters().perKey[sim.apiKey]!;
    expect(perKey.refusedPerSecond).toBe(2);
    // Refused requests did not spend quota: 11 admitted.
    expect((await callLater(call, clock)).body).toEqual({ used: 12, remaining: 10_000 - 12 });
  });

  it('enforces the limit per API key, not per token', async () => {
    const clock = manualClock('2025-03-14T10:00:00.000Z');
    sim = await startSimulator({ listings: 5, now: clock.now });
    const call = apiClient(sim);
    const second = sim.state.addToken(['properties:read']);
    for (let i = 0; i < 10; i++) await call('/scopes', { token: i % 2 ? second.token : sim.accessToken });
    expect((await call('/scopes', { token: second.token })).status).toBe(429);
  });

  it('caps the day at dailyLimit, reports usage, and resets at 00:00 UTC', async () => {
    const clock = manualClock('2025-03-14T23:58:00.000Z');
    sim = await startSimulator({ listings: 5, dailyLimit: 5, now: clock.now });
    const call = apiClient(sim);
    for (let i = 0; i < 4; i++) {
      expect((await call('/scopes')).status).toBe(200);
      clock.advance(2_000);
    }
    expect((await call('/integrator/usage')).body).toEqual({ used: 5, remaining: 0 });
    clock.advance(2_000);
    const capped = await call('/scopes');
    expect(capped.status).toBe(429);
    expect(capped.body.code).toBe('DAILY_QUOTA_EXCEEDED');
    // Retry-After points at midnight UTC: 23:58:10 → 00:00:00 is 110 s.
    expect(Number(capped.headers.get('retry-after'))).toBe(110);

    clock.set('2025-03-15T00:00:00.000Z');
    expect((await call('/scopes')).status).toBe(200);
    expect((await call('/integrator/usage')).body).toEqual({ used: 2, remaining: 3 });
  });

  it('counts requests with a bad token against the key, but not those with a bad key', async () => {
    const clock = manualClock('2025-03-14T10:00:00.000Z');
    sim = await startSimulator({ listings: 5, now: clock.now });
    const call = apiClient(sim);
    await call('/scopes', { apiKey: 'other' });
    await call('/scopes', { token: 'bad' });
    expect((await call('/integrator/usage')).body).toEqual({ used: 2, remaining: 9_998 });
  });

  it('takes new limits at run time', async () => {
    const clock = manualClock('2025-03-14T10:00:00.000Z');
    sim = await startSimulator({ listings: 5, now: clock.now });
    const call = apiClient(sim);
    sim.state.setLimits({ requestsPerSecond: 2 });
    expect((await call('/scopes')).status).toBe(200);
    expect((await call('/scopes')).status).toBe(200);
    expect((await call('/scopes')).status).toBe(429);
  });
});

async function callLater(call: ReturnType<typeof apiClient>, clock: ReturnType<typeof manualClock>) {
  clock.advance(5_000);
  return call('/integrator/usage');
}
