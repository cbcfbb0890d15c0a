import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createCrmClient, type CrmClient } from '../../server/crm/client.ts';
import { limiterForKey, RequestLimiter, type ReleaseSlot } from '../../server/crm/limiter.ts';
import { CrmAccess } from '../../server/crm/access.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { ALL_SCOPES } from '../../crm-sim/simulator.ts';
import { asWork, type WorkClass } from '../../server/runtime/work-class.ts';
import { startSim, tempStore } from './support.ts';
import { asDate, runningClock } from '../support/test-clock.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function gate(requestsPerSecond = 1) {
  const temp = tempStore();
  const limiter = new RequestLimiter({ store: temp.store, requestsPerSecond, dailyLimit: 10_000 });
  cleanups.push(temp.cleanup, () => limiter.close());
  return limiter;
}

/**
 * Queues every waiter while the gate is paused, then lets it go: the first `take` grants (the
 * slots free at once) show whom it serves first. Grants are released at once.
 */
async function serveOrder(
  limiter: RequestLimiter,
  waiters: Array<{ label: string; workClass?: WorkClass; agency?: string; fillOrder?: () => number | undefined }>,
  take: number,
): Promise<string[]> {
  limiter.pauseFor(150);
  const order: string[] = [];
  const grants: Array<Promise<unknown>> = waiters.map(({ label, workClass, agency, fillOrder }) =>
    limiter.acquire({ workClass, agency, fillOrder }).then((release: ReleaseSlot) => {
      order.push(label);
      release();
    }),
  );
  expect(limiter.queued).toBe(waiters.length);
  while (order.length < take) await new Promise((resolve) => setTimeout(resolve, 10));
  limiter.close();
  await Promise.allSettled(grants);
  return order.slice(0, take);
}

describe('the quota governor: priorities', () => {
  it('serves an enquiry before every sweep call already waiting, then webhook refreshes, then catch-up, then sweeps', async () => {
    const limiter = gate(3);
    const sweeps = Array.from({ length: 30 }, (_, index) => ({ label: `sweep-${index}`, workClass: 'sweep' as const }));
    const order = await serveOrder(
      limiter,
      [...sweeps, { label: 'catch-up', workClass: 'catch-up' }, { label: 'webhook', workClass: 'webhook' }, { label: 'enquiry', workClass: 'enquiry' }],
      3,
    );
    // Three slots free up at once: they go to the three latecomers, in class order, not to the 30 sweeps queued first.
    expect(order.slice(0, 3)).toEqual(['enquiry', 'webhook', 'catch-up']);
  });

  it('carries the class of the worker through the CRM client to the gate (a lead overtakes a sweep over real HTTP)', async () => {
    const { sim } = await startSim({ listings: 5 });
    cleanups.push(() => sim.close());
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const limiter = new RequestLimiter({ store: temp.store, requestsPerSecond: 2, dailyLimit: 10_000 });
    const client = createCrmClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken: sim.accessToken, limiter, log: silentLogger });
    cleanups.push(() => client.close());
    const finished: string[] = [];
    const sweep = asWork('sweep', () =>
      Promise.all(Array.from({ length: 12 }, (_, index) => client.listUsers({ page: 1, pageSize: 1 }).then(() => finished.push(`sweep-${index}`)))),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(limiter.queuedByClass().sweep).toBeGreaterThanOrEqual(9);
    const lead = asWork('enquiry', () => client.listEnquiries({ page: 1, pageSize: 1 }).then(() => finished.push('enquiry')));
    await Promise.all([sweep, lead]);
    // Two sweep calls were in flight when it came: the lead is the next one through, ahead of ten queued before it.
    expect(finished.indexOf('enquiry')).toBeLessThanOrEqual(3);
  }, 20_000);
});

describe('the quota governor: the lead reserve', () => {
  it('keeps the last share of the day for enquiry delivery: syncs are refused there, a lead still goes', async () => {
    const temp = tempStore();
    const limiter = new RequestLimiter({ store: temp.store, requestsPerSecond: 100, dailyLimit: 50, leadReserve: 0.1 });
    cleanups.push(temp.cleanup, () => limiter.close());
    const sweeps = await Promise.allSettled(Array.from({ length: 48 }, () => limiter.acquire({ workClass: 'sweep' }).then((release) => release())));
    expect(sweeps.filter((result) => result.status === 'fulfilled')).toHaveLength(45);
    const refused = sweeps.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'budget_exhausted' });
    expect(String(refused.reason.message)).toContain('the last 5 are kept for enquiry delivery');
    await expect(limiter.acquire({ workClass: 'catch-up' })).rejects.toMatchObject({ code: 'budget_exhausted' });
    for (let lead = 0; lead < 5; lead++) (await limiter.acquire({ workClass: 'enquiry' }))();
    expect(limiter.budget()).toMatchObject({ used: 50, remaining: 0 });
    await expect(limiter.acquire({ workClass: 'enquiry' })).rejects.toMatchObject({ code: 'budget_exhausted' });
  });

  it('names the setting when the reserve is out of range', () => {
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    expect(() => new RequestLimiter({ store: temp.store, requestsPerSecond: 10, dailyLimit: 50, leadReserve: 1.5 })).toThrow(/leadReserve/);
  });
});

describe('the quota governor: fair shares between agencies', () => {
  it('takes agencies in turns within a class: a big backlog delays a small agency by one request per agency, not by itself', async () => {
    const limiter = gate(6);
    const big = Array.from({ length: 40 }, (_, index) => ({ label: `big-${index}`, workClass: 'sweep' as const, agency: 'big' }));
    const small = Array.from({ length: 5 }, (_, index) => ({ label: `small-${index}`, workClass: 'sweep' as const, agency: `small-${index}` }));
    const order = await serveOrder(limiter, [...big, ...small], 6);
    // Six slots, six agencies waiting: one each, though the big agency queued 40 first.
    expect(order.slice(0, 6).sort()).toEqual(['big-0', 'small-0', 'small-1', 'small-2', 'small-3', 'small-4']);
  });

  it('one big and many small agencies on one key against the simulator: the small ones finish early, and never more than 10 a second arrive', async () => {
    // The simulator counts the key's day by this clock (the test's), so all 66 fall on one day.
    const now = runningClock();
    const harness = await startSim({ listings: 5, now: asDate(now) });
    const { sim, control } = harness;
    cleanups.push(() => sim.close());
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const smallCount = 8;
    const tokens = [sim.accessToken];
    for (let index = 0; index < smallCount; index++) tokens.push(((await control('POST', '/tokens', { scopes: ALL_SCOPES })) as { token: string }).token);
    // Every agency's client takes the key's one gate, as the relay makes them.
    const clients: CrmClient[] = tokens.map((accessToken) =>
      createCrmClient({
        baseUrl: sim.baseUrl,
        apiKey: sim.apiKey,
        accessToken,
        limiter: limiterForKey(sim.apiKey, { store: temp.store, requestsPerSecond: 10, dailyLimit: 10_000, now }),
        log: silentLogger,
        now,
      }),
    );
    cleanups.push(() => clients.forEach((client) => client.close()));
    const started = performance.now();
    const doneAt = (calls: number, client: CrmClient) =>
      asWork('sweep', () => Promise.all(Array.from({ length: calls }, () => client.listUsers({ page: 1, pageSize: 1 })))).then(
        () => performance.now() - started,
      );
    // The big agency's sweep is queued first: 50 pages; each small agency then wants 2.
    const bigDone = doneAt(50, clients[0]!);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const smallDone = await Promise.all(clients.slice(1).map((client) => doneAt(2, client)));
    const bigMs = await bigDone;
    // 66 requests at 10 per (1 s + latency): about 7 s. First come, first served would finish the
    // small agencies after the big one's 50; in turns they are done within ~2-3 s.
    expect(Math.max(...smallDone)).toBeLessThan(bigMs * 0.6);
    const counters = await harness.counters();
    expect(counters.key.usedToday).toBe(66);
    expect(counters.key.peakRequestsPerSecond).toBeLessThanOrEqual(10);
    expect(counters.key.refusedPerSecond).toBe(0);
  }, 40_000);
});

describe('the quota governor: first fills, the smallest first', () => {
  const requests = (agency: string, count: number, workClass: WorkClass, fillOrder?: () => number | undefined) =>
    Array.from({ length: count }, (_, index) => ({ label: `${agency}-${workClass}-${index}`, workClass, agency, fillOrder }));

  it('fills never-filled agencies one after another, smallest first, after enquiries and catch-up and before sweeps', async () => {
    const limiter = gate(40);
    const order = await serveOrder(
      limiter,
      [
        // Queued first: a filled agency's daily sweep, then three agencies filling (big, small, medium).
        ...requests('filled', 3, 'sweep'),
        ...requests('big', 3, 'sweep', () => 50),
        // A filling agency's start-up check (the client gives it the last place) does not take its sync's place.
        ...requests('small', 1, 'catch-up', () => Number.MAX_SAFE_INTEGER),
        ...requests('small', 3, 'sweep', () => 5),
        ...requests('medium', 3, 'sweep', () => 20),
        // The filled agency's catch-up read and an enquiry of the big one come last.
        ...requests('filled', 1, 'catch-up'),
        { label: 'big-enquiry', workClass: 'enquiry', agency: 'big', fillOrder: () => 50 },
      ],
      15,
    );
    expect(order).toEqual([
      'big-enquiry',
      'filled-catch-up-0',
      ...['small', 'medium', 'big'].flatMap((agency) => [0, 1, 2].map((index) => `${agency}-sweep-${index}`)),
      'small-catch-up-0',
      'filled-sweep-0',
      'filled-sweep-1',
      'filled-sweep-2',
    ]);
  });

  it('serves an agency of unknown size first (its first request tells its size), and equal sizes one agency at a time, not in turns', async () => {
    const limiter = gate(40);
    const sizes = new Map([
      ['a', 30],
      ['b', 30],
      ['c', 0],
    ]);
    const order = await serveOrder(
      limiter,
      ['a', 'b', 'c'].flatMap((agency) => requests(agency, 2, 'sweep', () => sizes.get(agency))),
      6,
    );
    expect(order).toEqual(['c-sweep-0', 'c-sweep-1', 'a-sweep-0', 'a-sweep-1', 'b-sweep-0', 'b-sweep-1']);
  });

  it('an agency that filled while its requests waited is served before the fills still going (its start-up checks, say)', async () => {
    const limiter = gate(40);
    let aFilled = false;
    const order = await serveOrder(
      limiter,
      [...requests('b', 2, 'sweep', () => 10), ...requests('a', 2, 'catch-up', () => (aFilled ? undefined : Number.MAX_SAFE_INTEGER))],
      4,
    );
    // Not filled when the gate chose: a's start-up checks wait for b's fill.
    expect(order).toEqual(['b-sweep-0', 'b-sweep-1', 'a-catch-up-0', 'a-catch-up-1']);
    aFilled = true;
    const limiter2 = gate(40);
    const after = await serveOrder(limiter2, [...requests('b', 2, 'sweep', () => 10), ...requests('a', 1, 'catch-up', () => (aFilled ? undefined : 1))], 3);
    expect(after[0]).toBe('a-catch-up-0');
  });
});

describe('the quota governor: start-up checks after every first fill', () => {
  it('a start-up check asked while its agency filled waits for the fills still going, even once its own agency has filled', async () => {
    const { sim, control } = await startSim({ listings: 5 });
    cleanups.push(() => sim.close());
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const limiter = new RequestLimiter({ store: temp.store, requestsPerSecond: 2, dailyLimit: 10_000 });
    const otherToken = ((await control('POST', '/tokens', { scopes: ALL_SCOPES })) as { token: string }).token;
    let checkedFilled = false;
    const client = (accessToken: string, agency: string, fillOrder: () => number | undefined) =>
      createCrmClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey, accessToken, agency, limiter, log: silentLogger, fillOrder });
    // "checked" has a small fill (order 1), "filling" a larger one (order 10) still under way.
    const checked = client(sim.accessToken, 'checked', () => (checkedFilled ? undefined : 1));
    const filling = client(otherToken, 'filling', () => 10);
    cleanups.push(
      () => checked.close(),
      () => filling.close(),
    );
    const finished: string[] = [];
    // Everything queues while the gate is held: the larger fill's six pages, then the small one's start-up check.
    limiter.pauseFor(200);
    const pages = asWork('sweep', () =>
      Promise.all(Array.from({ length: 6 }, (_, index) => filling.listUsers({ page: 1, pageSize: 1 }).then(() => finished.push(`fill-${index}`)))),
    );
    const check = checked.listUsers({ page: 1, pageSize: 1 }).then(() => finished.push('check'));
    expect(limiter.queued).toBe(7);
    // Its own fill is done before the gate serves the check.
    checkedFilled = true;
    await Promise.all([pages, check]);
    expect(finished).toEqual([...[0, 1, 2, 3, 4, 5].map((index) => `fill-${index}`), 'check']);
    // Asked once its agency has filled, a request is no longer a start-up check: it goes before the fills.
    const finishedLater: string[] = [];
    limiter.pauseFor(200);
    const morePages = asWork('sweep', () =>
      Promise.all(Array.from({ length: 3 }, (_, index) => filling.listUsers({ page: 1, pageSize: 1 }).then(() => finishedLater.push(`fill-${index}`)))),
    );
    const later = checked.listUsers({ page: 1, pageSize: 1 }).then(() => finishedLater.push('later'));
    await Promise.all([morePages, later]);
    expect(finishedLater[0]).toBe('later');
  }, 30_000);
});

describe('the quota governor: one usage read per key', () => {
  it("agencies sharing a key read GET /integrator/usage once per interval between them, and all count against the key's one budget", async () => {
    // The key's budget and the simulator's count on one clock the test sets: one UTC day.
    const now = runningClock();
    const harness = await startSim({ listings: 5, now: asDate(now) });
    const { sim, control } = harness;
    cleanups.push(() => sim.close());
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const tokens = [sim.accessToken, ((await control('POST', '/tokens', { scopes: ALL_SCOPES })) as { token: string }).token];
    const accesses = tokens.map((accessToken) => {
      const client = createCrmClient({
        baseUrl: sim.baseUrl,
        apiKey: sim.apiKey,
        accessToken,
        limiter: limiterForKey(sim.apiKey, { store: temp.store, requestsPerSecond: 10, dailyLimit: 10_000, now }),
        log: silentLogger,
        now,
      });
      const access = new CrmAccess({ client, store: temp.store, log: silentLogger, listingClass: 'residential', usageCheckMinutes: 60, now });
      cleanups.push(() => client.close());
      cleanups.push(() => access.stop());
      return { client, access };
    });
    for (const { access } of accesses) access.start();
    // Both agencies prove their capabilities (4 requests each), then the key's usage is read once.
    const deadline = performance.now() + 15_000;
    while ((await harness.counters()).totalRequests < 9 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const counters = await harness.counters();
    expect(counters.requestsByEndpoint['GET /scopes']).toBe(2);
    expect(counters.requestsByEndpoint['GET /integrator/usage']).toBe(1);
    // One budget for the key: both agencies' requests are in it.
    expect(accesses[0]!.client.budget().used).toBe(counters.key.usedToday);
    expect(accesses[1]!.client.budget().used).toBe(counters.key.usedToday);
  }, 30_000);
});
