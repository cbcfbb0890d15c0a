import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { CrmError } from '../../server/crm/errors.ts';
import { RequestLimiter } from '../../server/crm/limiter.ts';
import { maxInAnyWindow, tempStore } from './support.ts';

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
  it('lets at most requestsPerSecond through in any (1 s + margin) window, first come first served', async () => {
    const { store } = setup();
    const limiter = new RequestLimiter({ store, requestsPerSecond: 20, dailyLimit: 1000, safetyMarginMs: 100 });
    cleanups.push(() => limiter.close());
    const started = performance.now();
    const order: number[] = [];
    const granted: number[] = [];
    await Promise.all(
      Array.from({ length: 45 }, (_, index) =>
        limiter.acquire().then(() => {
          granted.push(performance.now());
          order.push(index);
        }),
      ),
    );
    // Grants are stamped after their budget write; the callbacks run a few ms later, so check the
    // property that matters (any 1 s window) rather than the 1.1 s span the limiter keeps.
    expect(maxInAnyWindow(granted, 1000)).toBeLessThanOrEqual(20);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // 45 = 20 + 20 + 5: the third batch goes at about 2.2 s; the limiter must not be much slower.
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(2150);
    expect(elapsed).toBeLessThan(3200);
    expect(limiter.budget().used).toBe(45);
  });

  it('drops a waiter whose signal fires, without counting it', async () => {
    const { store } = setup();
    const limiter = new RequestLimiter({ store, requestsPerSecond: 1, dailyLimit: 100 });
    cleanups.push(() => limiter.close());
    await limiter.acquire();
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
    const options = { requestsPerSecond: 50, dailyLimit: 3, now: () => now };
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
    const rows = reopened.db.prepare('SELECT day, used FROM crm_budget ORDER BY day').all();
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
    cleanups.push(() => a.close(), () => b.close());
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, index) => (index % 2 ? a : b).acquire()));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    const reasons = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(reasons.every((reason) => reason instanceof CrmError && reason.code === 'budget_exhausted')).toBe(true);
  });
});
