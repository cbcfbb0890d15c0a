import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { CrmError } from '../../server/crm/errors.ts';
import { limiterForKey, RequestLimiter } from '../../server/crm/limiter.ts';
import { maxInAnyWindow, tempStore } from './support.ts';
import { tablesOf } from '../../server/store/tables.ts';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function setup() {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  return temp;
}

describe('RequestLimiter', () => {
  it('lets at most requestsPerSecond through per second, first come first served', async () => {
    const { store } = setup();
    const limiter = new RequestLimiter({ store, requestsPerSecond: 20, dailyLimit: 1000 });
    cleanups.push(() => limiter.close());
    const started = performance.now();
    const order: number[] = [];
    const granted: number[] = [];
    await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        limiter.acquire().then((release) => {
          granted.push(performance.now());
          order.push(index);
          release(); // an instant answer
        }),
      ),
    );
    expect(maxInAnyWindow(granted, 1000)).toBeLessThanOrEqual(20);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // 25 = 20 + 5: the second batch goes after about 1.025 s; not much later.
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1025);
    expect(elapsed).toBeLessThan(6000); // loose: the machine is shared
    expect(limiter.budget().used).toBe(25);
  });

  it('holds a slot until one second after the answer, however long the request took', async () => {
    const { store } = setup();
    const limiter = new RequestLimiter({ store, requestsPerSecond: 2, dailyLimit: 100 });
    cleanups.push(() => limiter.close());
    const releases = await Promise.all([limiter.acquire(), limiter.acquire()]);
    let thirdAt = 0;
    const third = limiter.acquire().then((release) => {
      thirdAt = performance.now();
      release();
    });
    // Two slow requests: their answers come after 400 ms.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(limiter.inFlight).toBe(2);
    expect(thirdAt).toBe(0);
    const answeredAt = performance.now();
    releases[0]!();
    releases[0]!(); // releasing twice changes nothing
    releases[1]!();
    await third;
    expect(thirdAt - answeredAt).toBeGreaterThanOrEqual(1000);
    expect(thirdAt - answeredAt).toBeLessThan(5000); // loose: the machine is shared
  });

  it('drops a waiter whose signal fires, without counting it', async () => {
    const { store } = setup();
    const limiter = new RequestLimiter({ store, requestsPerSecond: 1, dailyLimit: 100 });
    cleanups.push(() => limiter.close());
    (await limiter.acquire())();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    expect(limiter.queued).toBe(1);
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ name: 'CrmError', code: 'aborted' });
    expect(limiter.queued).toBe(0);
    expect(limiter.budget().used).toBe(1);
  });

  it('holds every caller back during pauseFor', async () => {
    const { store } = setup();
    const limiter = new RequestLimiter({ store, requestsPerSecond: 50, dailyLimit: 100 });
    cleanups.push(() => limiter.close());
    limiter.pauseFor(300);
    const started = performance.now();
    await Promise.all([limiter.acquire(), limiter.acquire()]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });

  it('persists the day budget, refuses when spent until 00:00 UTC, and starts afresh the next day', async () => {
    const { store, reopen } = setup();
    let now = new Date('2024-05-01T23:59:58Z');
    const options = { requestsPerSecond: 50, dailyLimit: 3, now: () => now.getTime() };
    const first = new RequestLimiter({ store, ...options });
    await Promise.all([first.acquire(), first.acquire()]);
    first.close();
    store.close();

    // A restart: a new limiter on the same file knows the day's spending.
    const reopened = reopen();
    const second = new RequestLimiter({ store: reopened, ...options });
    cleanups.push(() => second.close());
    expect(second.budget()).toMatchObject({ day: '2024-05-01', used: 2, remaining: 1, limit: 3 });
    await second.acquire();
    const refused = await second.acquire().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CrmError);
    expect(refused).toMatchObject({ code: 'budget_exhausted', retryable: true });
    expect((refused as CrmError).retryAt?.toISOString()).toBe('2024-05-02T00:00:00.000Z');
    expect((refused as CrmError).message).toContain('2024-05-02T00:00:00.000Z');
    expect(second.budget().used).toBe(3);

    now = new Date('2024-05-02T00:00:01Z');
    await second.acquire();
    expect(second.budget()).toMatchObject({ day: '2024-05-02', used: 1 });
    const rows = tablesOf(reopened).prepare('SELECT day, used FROM crm_budget ORDER BY day').all();
    expect(rows).toEqual([
      { day: '2024-05-01', used: 3 },
      { day: '2024-05-02', used: 1 },
    ]);
  });

  it('shares one budget between limiters on the same store file (two processes)', async () => {
    const { store, reopen } = setup();
    const other = reopen();
    const a = new RequestLimiter({ store, requestsPerSecond: 50, dailyLimit: 5 });
    const b = new RequestLimiter({ store: other, requestsPerSecond: 50, dailyLimit: 5 });
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, index) => (index % 2 ? a : b).acquire()));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    const reasons = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(reasons.every((reason) => reason instanceof CrmError && reason.code === 'budget_exhausted')).toBe(true);
  });
});

describe('limiterForKey', () => {
  it('gives every client of one API key (on one store) the same gate, another key its own, and replaces a closed one', async () => {
    const { store } = setup();
    const settings = { store, requestsPerSecond: 2, dailyLimit: 1000 };
    const first = limiterForKey('key-a', settings);
    cleanups.push(() => first.close());
    expect(limiterForKey('key-a', settings)).toBe(first);
    const other = limiterForKey('key-b', settings);
    cleanups.push(() => other.close());
    expect(other).not.toBe(first);
    // Two clients of key-a draw from one per-second allowance: the third slot waits a second.
    const started = performance.now();
    const releases = await Promise.all([first.acquire(), limiterForKey('key-a', settings).acquire()]);
    releases.forEach((release) => release());
    await limiterForKey('key-a', settings)
      .acquire()
      .then((release) => release());
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    // Four holders of key-a now (four limiterForKey calls): releasing three leaves the gate open for the last, whose release closes it.
    for (let holder = 0; holder < 3; holder++) first.release();
    expect(first.isClosed).toBe(false);
    first.release();
    expect(first.isClosed).toBe(true);
    const next = limiterForKey('key-a', settings);
    cleanups.push(() => next.close());
    expect(next).not.toBe(first);
    expect(next.isClosed).toBe(false);
  });
});
