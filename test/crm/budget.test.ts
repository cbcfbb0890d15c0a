import { afterEach, describe, expect, it } from 'vitest';
import { CrmError } from '../../server/crm/client.ts';
import { clientFor, startSim, tempStore } from './support.ts';
import { asDate, runningClock } from '../support/test-clock.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('CRM client daily budget', () => {
  it('stops at the budget, fails fast saying when it resets, and remembers the spending across a restart', async () => {
    // A clock the test sets: the budget is per UTC day, and on the wall clock the refusal and the
    // reopened store could fall either side of 00:00 UTC.
    const now = runningClock();
    const { sim, counters } = await startSim({ requestsPerSecond: 50, now: asDate(now) });
    const temp = tempStore();
    cleanups.push(() => sim.close(), temp.cleanup);

    const first = clientFor(sim, temp.store, { requestsPerSecond: 50, dailyLimit: 5, now });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => first.getScopes()));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    const refusal = results.find((result) => result.status === 'rejected')?.reason as CrmError;
    expect(refusal).toBeInstanceOf(CrmError);
    expect(refusal.code).toBe('budget_exhausted');
    expect(refusal.retryable).toBe(true);
    const midnight = new Date(now());
    midnight.setUTCHours(24, 0, 0, 0);
    expect(refusal.retryAt?.getTime()).toBe(midnight.getTime());
    expect(refusal.message).toContain(midnight.toISOString());
    expect((await counters()).totalRequests).toBe(5);

    // Restart: the store closes, a new client opens the same file.
    first.close();
    temp.store.close();
    const reopened = temp.reopen();
    const second = clientFor(sim, reopened, { requestsPerSecond: 50, dailyLimit: 5, now });
    cleanups.push(() => second.close());
    expect(second.budget()).toMatchObject({ used: 5, limit: 5, remaining: 0 });
    const started = performance.now();
    await expect(second.listUsers()).rejects.toMatchObject({ code: 'budget_exhausted' });
    expect(performance.now() - started).toBeLessThan(1000); // fails fast, not after a wait (the next slot is hours away)
    expect((await counters()).totalRequests).toBe(5); // nothing more reached the CRM
  });

  it('counts requests the CRM refused', async () => {
    const { sim, addFault } = await startSim();
    const temp = tempStore();
    cleanups.push(() => sim.close(), temp.cleanup);
    const crm = clientFor(sim, temp.store, { accessToken: 'wrong-token' });
    cleanups.push(() => crm.close());
    await expect(crm.getScopes()).rejects.toMatchObject({ status: 401 });
    await addFault({ match: 'GET /account/users', errorRate: 1, errorStatus: 500 });
    const good = clientFor(sim, temp.store, { getRetries: 1 });
    cleanups.push(() => good.close());
    await expect(good.listUsers()).rejects.toMatchObject({ status: 500 });
    expect(good.budget().used).toBe(3); // one 401, a 500 and its retry
  });

  it('counts a granted slot whose beforeSend stopped the request as spent and unsent, not as sent', async () => {
    // A clock the test sets: the counts are per UTC day, and the two calls could fall either side of 00:00 UTC.
    const now = runningClock();
    const { sim, counters } = await startSim({ now: asDate(now) });
    const temp = tempStore();
    cleanups.push(() => sim.close(), temp.cleanup);
    const crm = clientFor(sim, temp.store, { now });
    cleanups.push(() => crm.close());
    const users = await crm.listUsers();
    const enquiry = {
      originalId: 'unsent-1',
      source: 'OFFICEWEBSITE',
      userId: users.items[0]!.id,
      subject: 'Contact me',
      body: 'Please call me.',
      fullName: 'Test Person',
      email: 'test.person@example.com',
      enquiryDate: '2024-05-01T10:00:00+00:00',
    };
    const lapsed = new Error('the claim lapsed');
    await expect(crm.addEnquiry(enquiry, { beforeSend: () => Promise.reject(lapsed) })).rejects.toBe(lapsed);
    expect((await counters()).requestsByEndpoint['POST /enquiries'] ?? 0).toBe(0);
    expect(crm.budget().used).toBe(2);
    expect(crm.requestsToday()).toMatchObject({ requests: 1, unsent: 1 });
  });

  it('starts a new count at 00:00 UTC', async () => {
    let now = new Date('2030-01-01T23:59:59.500Z');
    const { sim } = await startSim({ now: () => now });
    const temp = tempStore();
    cleanups.push(() => sim.close(), temp.cleanup);
    const crm = clientFor(sim, temp.store, { dailyLimit: 1, now: () => now.getTime() });
    cleanups.push(() => crm.close());
    await crm.getScopes();
    await expect(crm.getScopes()).rejects.toMatchObject({ code: 'budget_exhausted', retryAt: new Date('2030-01-02T00:00:00Z') });
    now = new Date('2030-01-02T00:00:00.100Z');
    await expect(crm.getScopes()).resolves.toBeInstanceOf(Array);
    expect(crm.budget()).toMatchObject({ day: '2030-01-02', used: 1 });
  });

  it('raises its count to what the CRM reports for the key (reconcileBudget)', async () => {
    // The CRM and both clients on one clock the test sets: each counts by its UTC day.
    const now = runningClock();
    const { sim } = await startSim({ requestsPerSecond: 50, now: asDate(now) });
    const elsewhere = tempStore();
    const here = tempStore();
    cleanups.push(() => sim.close(), elsewhere.cleanup, here.cleanup);
    // Another process on the same API key spends 6 requests.
    const other = clientFor(sim, elsewhere.store, { requestsPerSecond: 50, now });
    cleanups.push(() => other.close());
    await Promise.all(Array.from({ length: 6 }, () => other.getScopes()));

    const crm = clientFor(sim, here.store, { requestsPerSecond: 50, now });
    cleanups.push(() => crm.close());
    expect(crm.budget().used).toBe(0);
    const status = await crm.reconcileBudget();
    expect(status.used).toBe(7); // the 6 and the usage request itself
    expect(crm.budget().used).toBe(7);
  });
});
