import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CrmError, type AddEnquiry } from '../../server/crm/client.ts';
import { clientFor, memoryLogger, startSim, tempStore } from './support.ts';
import { asDate, runningClock } from '../support/test-clock.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(simOptions: Parameters<typeof startSim>[0] = {}) {
  const simulator = await startSim({ requestsPerSecond: 50, ...simOptions });
  const temp = tempStore();
  cleanups.push(() => simulator.sim.close(), temp.cleanup);
  const client = (options: Parameters<typeof clientFor>[2] = {}) => {
    const crm = clientFor(simulator.sim, temp.store, { requestsPerSecond: 50, ...options });
    cleanups.push(() => crm.close());
    return crm;
  };
  return { ...simulator, store: temp.store, client };
}

async function failure(promise: Promise<unknown>): Promise<CrmError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CrmError);
  return error as CrmError;
}

/** A valid contact-me enquiry for the simulator's first user. */
async function enquiryFor(crm: ReturnType<Awaited<ReturnType<typeof setup>>['client']>, originalId: string): Promise<AddEnquiry> {
  const users = await crm.listUsers();
  return {
    originalId,
    source: 'OFFICEWEBSITE',
    userId: users.items[0]!.id,
    subject: 'Contact me',
    body: 'Please call me about selling.',
    fullName: 'Test Person',
    email: 'test.person@example.com',
    enquiryDate: '2024-05-01T10:00:00+00:00',
  };
}

describe('CRM client: 429', () => {
  it('waits for Retry-After, then succeeds', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client();
    await addFault({ match: 'GET /scopes', rate429: 1, retryAfterSeconds: 1, times: 1 });
    const started = performance.now();
    await expect(crm.getScopes()).resolves.toBeInstanceOf(Array);
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect((await counters()).statusByEndpoint['GET /scopes']).toEqual({ 200: 1, 429: 1 });
  });

  it('holds back the other callers during Retry-After too', async () => {
    const { client, addFault } = await setup();
    const crm = client();
    await addFault({ match: 'GET /scopes', rate429: 1, retryAfterSeconds: 2, times: 1 });
    const started = performance.now();
    const scopes = crm.getScopes();
    // The 429 has come back by now, even on a loaded machine; the hold lasts until 2 s after it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await crm.listUsers();
    expect(performance.now() - started).toBeGreaterThanOrEqual(1990);
    await scopes;
  });

  it('backs off by itself when the 429 has no Retry-After', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client({ backoffBaseMs: 50 });
    await addFault({ match: 'GET /scopes', rate429: 1, retryAfterSeconds: null, times: 2 });
    await expect(crm.getScopes()).resolves.toBeInstanceOf(Array);
    expect((await counters()).statusByEndpoint['GET /scopes']).toEqual({ 200: 1, 429: 2 });
  });

  it('gives up after maxRetries with a retryable error saying when to retry', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client({ maxRetries: 2 });
    await addFault({ match: 'GET /scopes', rate429: 1, retryAfterSeconds: 0 });
    const error = await failure(crm.getScopes());
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryable: true, outcomeUnknown: false });
    expect(error.retryAt).toBeInstanceOf(Date);
    expect((await counters()).requestsByEndpoint['GET /scopes']).toBe(3);
  });

  it('does not sit out a Retry-After longer than maxRetryWaitMs', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client({ maxRetryWaitMs: 5_000 });
    await addFault({ match: 'GET /scopes', rate429: 1, retryAfterSeconds: 3600 });
    const started = performance.now();
    const error = await failure(crm.getScopes());
    expect(performance.now() - started).toBeLessThan(1000);
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt!.getTime() - Date.now()).toBeGreaterThan(3_500_000);
    expect((await counters()).requestsByEndpoint['GET /scopes']).toBe(1);
    // Every other caller hears it at once too, without spending a request.
    const other = await failure(crm.listUsers());
    expect(other).toMatchObject({ code: 'rate_limited', retryable: true, retryAt: error.retryAt });
    expect((await counters()).totalRequests).toBe(1);
  });

  it("fails fast for every caller once the CRM's daily quota is spent", async () => {
    // The CRM and the client on a clock the test sets: the quota resets at 00:00 UTC.
    const now = runningClock();
    const { client, control, counters } = await setup({ now: asDate(now) });
    await control('PUT', '/limits', { dailyLimit: 2 });
    const crm = client({ now });
    await crm.getScopes();
    await crm.getScopes();
    const error = await failure(crm.getScopes());
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryable: true });
    expect(error.crmCode).toBe('DAILY_QUOTA_EXCEEDED');
    const midnight = new Date(now());
    midnight.setUTCHours(24, 0, 0, 0);
    expect(Math.abs(error.retryAt!.getTime() - midnight.getTime())).toBeLessThan(2000);
    await expect(crm.listUsers()).rejects.toMatchObject({ code: 'rate_limited' });
    expect((await counters()).totalRequests).toBe(3);
  });

  it("recovers from the CRM's own per-second limit when configured above it", async () => {
    const { client, counters } = await setup({ requestsPerSecond: 3 });
    const crm = client({ requestsPerSecond: 10 });
    const results = await Promise.all(Array.from({ length: 8 }, () => crm.getScopes()));
    expect(results).toHaveLength(8);
    const seen = await counters();
    expect(seen.key.refusedPerSecond).toBeGreaterThan(0); // the CRM did refuse some…
    expect(seen.statusByEndpoint['GET /scopes']?.['200']).toBe(8); // …and every call got through
  });
});

describe('CRM client: refusals that need an operator', () => {
  it('401 names CRM_ACCESS_TOKEN, and neither the message nor the log holds the token', async () => {
    const { sim, client } = await setup();
    const { log, text } = memoryLogger();
    const crm = client({ accessToken: 'tok-SECRET-value-123', log });
    const error = await failure(crm.getScopes());
    expect(error).toMatchObject({ code: 'unauthorized', status: 401, setting: 'CRM_ACCESS_TOKEN', retryable: false });
    expect(error.message).toContain('CRM_ACCESS_TOKEN');
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('tok-SECRET-value-123');
    expect(text()).toContain('CRM refused the request');
    expect(text()).not.toContain('tok-SECRET-value-123');
    expect(text()).not.toContain(sim.apiKey);
  });

  it('403 names CRM_API_KEY, and neither the message nor the log holds the key', async () => {
    const { client, counters } = await setup();
    const { log, text } = memoryLogger();
    const crm = client({ apiKey: 'key-SECRET-value-456', log });
    const error = await failure(crm.getScopes());
    expect(error).toMatchObject({ code: 'forbidden', status: 403, setting: 'CRM_API_KEY', retryable: false });
    expect(error.message).toContain('CRM_API_KEY');
    expect(text()).not.toContain('key-SECRET-value-456');
    expect((await counters()).requestsByEndpoint['GET /scopes']).toBe(1); // no retry
  });

  it('a 403 for a missing scope points at the token, not the key', async () => {
    const { client, control } = await setup();
    const { token } = (await control('POST', '/tokens', { scopes: [] })) as { token: string };
    const crm = client({ accessToken: token });
    const error = await failure(crm.listEnquiries());
    expect(error).toMatchObject({ status: 403, setting: 'CRM_ACCESS_TOKEN' });
    expect(error.message).toMatch(/scope/);
  });

  it("400 carries the CRM's code and the field it names, never its words (they echo what was sent), and is not retried", async () => {
    const { client, counters } = await setup();
    const { log, text } = memoryLogger();
    const crm = client({ log });
    const enquiry = await enquiryFor(crm, 'bad-1');
    const error = await failure(crm.addEnquiry({ ...enquiry, email: 'not-an-email', mobile: undefined }));
    expect(error).toMatchObject({ code: 'bad_request', status: 400, retryable: false, outcomeUnknown: false, crmCode: 'INVALID_DATA', crmField: 'email' });
    expect(error.message).toContain('(code INVALID_DATA, field email)');
    // The simulator's message quotes the address ('email "not-an-email" is not valid'): none of it is kept.
    expect(`${error.message} ${JSON.stringify(error)} ${text()}`).not.toContain('not-an-email');
    expect((await counters()).requestsByEndpoint['POST /enquiries']).toBe(1);
  });

  it('refuses a malformed enquiry before sending it', async () => {
    const { client, counters } = await setup();
    const crm = client();
    const error = await failure(crm.addEnquiry({ originalId: 'x', userId: 'seven' as unknown as number }));
    expect(error).toMatchObject({ code: 'bad_request', status: undefined });
    expect(error.message).toContain('userId');
    expect((await counters()).requestsByEndpoint['POST /enquiries']).toBeUndefined();
  });
});

describe('CRM client: server errors, timeouts and lost connections', () => {
  it('retries a GET after a 5xx a bounded number of times, then reports it retryable', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client({ getRetries: 2 });
    await addFault({ match: 'GET /account/users', errorRate: 1, errorStatus: 503 });
    const error = await failure(crm.listUsers());
    expect(error).toMatchObject({ code: 'server_error', status: 503, retryable: true, outcomeUnknown: false });
    expect((await counters()).requestsByEndpoint['GET /account/users']).toBe(3);
  });

  it('a GET that failed once with a 5xx succeeds on its retry', async () => {
    const { client, addFault } = await setup();
    const crm = client();
    await addFault({ match: 'GET /account/users', errorRate: 1, errorStatus: 502, times: 1 });
    await expect(crm.listUsers()).resolves.toMatchObject({ invalidItems: 0 });
  });

  it('never re-sends a POST after a 5xx: one request, retryable, outcome unknown', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client();
    const enquiry = await enquiryFor(crm, 'five-hundred');
    await addFault({ match: 'POST /enquiries', errorRate: 1, errorStatus: 500 });
    const error = await failure(crm.addEnquiry(enquiry));
    expect(error).toMatchObject({ code: 'server_error', status: 500, retryable: true, outcomeUnknown: true });
    expect((await counters()).requestsByEndpoint['POST /enquiries']).toBe(1);
  });

  it('a POST that times out is reported outcomeUnknown, and not re-sent', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client({ timeoutMs: 300 });
    const enquiry = await enquiryFor(crm, 'slow-one');
    await addFault({ match: 'POST /enquiries', latencyMs: 3000 });
    const started = performance.now();
    const error = await failure(crm.addEnquiry(enquiry));
    expect(performance.now() - started).toBeLessThan(2500); // gave up at its timeout, not at the answer
    expect(error).toMatchObject({ code: 'timeout', retryable: true, outcomeUnknown: true });
    expect(error.message).toContain('300 ms');
    // The CRM received it (whether it stored it is exactly what the caller cannot know).
    expect((await counters()).requestsByEndpoint['POST /enquiries']).toBe(1);
  });

  it('a POST whose connection is cut after the CRM handled it is reported outcomeUnknown', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client();
    const enquiry = await enquiryFor(crm, 'dropped-one');
    await addFault({ match: 'POST /enquiries', dropResponseRate: 1 });
    const error = await failure(crm.addEnquiry(enquiry));
    expect(error).toMatchObject({ code: 'network', retryable: true, outcomeUnknown: true });
    const seen = await counters();
    expect(seen.requestsByEndpoint['POST /enquiries']).toBe(1);
    expect(seen.enquiriesStored).toBe(1);
  });

  it('a GET that times out is retried, then reported', async () => {
    const { client, addFault, counters } = await setup();
    const crm = client({ timeoutMs: 150, getRetries: 1 });
    await addFault({ match: 'GET /scopes', latencyMs: 400 });
    const error = await failure(crm.getScopes());
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    expect((await counters()).requestsByEndpoint['GET /scopes']).toBe(2);
  });

  it('a refused connection is retryable and known not to have been sent', async () => {
    const { store } = await setup();
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const crm = clientFor({ baseUrl: `http://127.0.0.1:${port}/api/v1.3`, apiKey: 'k', accessToken: 't' } as never, store, { getRetries: 0 });
    cleanups.push(() => crm.close());
    const post = await failure(crm.addEnquiry({ originalId: 'never-sent' }));
    expect(post).toMatchObject({ code: 'network', retryable: true, outcomeUnknown: false });
    expect(post.message).toContain('ECONNREFUSED');
  });

  it("the caller's signal cancels a call waiting for its slot", async () => {
    const { client, counters } = await setup();
    const crm = client({ requestsPerSecond: 1 });
    await crm.getScopes();
    const controller = new AbortController();
    const pending = crm.getScopes({ signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const error = await failure(pending);
    expect(error.code).toBe('aborted');
    expect((await counters()).requestsByEndpoint['GET /scopes']).toBe(1);
  });
});
