// The CRM's limits held in PostgreSQL (server/cluster/shared-gate.ts) against the test run's real
// server: slots and the day's count across gates (as across relays), what one acquire costs, and
// the failure mode: with the database out of reach a relay keeps to its share (10 / relays alive)
// and adds what it sent to the day's count once the database is back.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { RequestLimiter, utcDay, type ReleaseSlot } from '../../server/crm/limiter.ts';
import { SharedGate } from '../../server/cluster/shared-gate.ts';
import { openPool } from '../../server/store/postgres.ts';
import { listRelays, SharedDatabase } from '../../server/store/shared-database.ts';
import { cuttableProxy, freshDatabase } from '../support/postgres.ts';
import { tempStore } from '../crm/support.ts';
import { runningClock, utcDayOf } from '../support/test-clock.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
const HOLD_MS = 1_025;

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A database with the key-wide tables, and a pool on it (on `url`, a proxy's, when given). */
async function keyDatabase(url?: string): Promise<{ url: string; pool: (through?: string) => pg.Pool }> {
  const databaseUrl = url ?? (await freshDatabase((postgres as { url: string }).url, 'gate'));
  const database = await SharedDatabase.open(databaseUrl);
  cleanups.push(() => database.close());
  return {
    url: databaseUrl,
    pool: (through) => {
      const pool = openPool(through ?? databaseUrl, { warn: () => {} });
      cleanups.push(() => pool.end());
      return pool;
    },
  };
}

const gateOn = (pool: pg.Pool, requestsPerSecond: number, holder = 'test') =>
  new SharedGate({ pool, apiKey: 'key-1', requestsPerSecond, holdMs: HOLD_MS, leaseMs: 5_000 + HOLD_MS, holder });

describe.skipIf(skipped)(`shared CRM gate on PostgreSQL${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  it('two gates on one key share its slots and its day: a slot frees one hold after its answer, the day stops at the limit', async () => {
    const database = await keyDatabase();
    const [a, b] = [gateOn(database.pool(), 3, 'relay-a'), gateOn(database.pool(), 3, 'relay-b')];
    const day = utcDay(new Date());
    const first = await a.take(day, 5);
    const second = await b.take(day, 5);
    const third = await a.take(day, 5);
    expect([first.kind, second.kind, third.kind]).toEqual(['granted', 'granted', 'granted']);
    const full = await b.take(day, 5);
    expect(full.kind).toBe('wait');
    if (first.kind !== 'granted') throw new Error('unreachable');
    await a.release(first.slot, first.take, true);
    // Answered, but held one second more: still none free.
    expect((await b.take(day, 5)).kind).toBe('wait');
    await sleep(HOLD_MS + 50);
    const fourth = await b.take(day, 5);
    expect(fourth.kind).toBe('granted');
    if (fourth.kind !== 'granted') throw new Error('unreachable');
    await b.release(fourth.slot, fourth.take, false);
    const fifth = await a.take(day, 5);
    expect(fifth).toMatchObject({ kind: 'granted', used: 5 });
    if (fifth.kind !== 'granted') throw new Error('unreachable');
    await a.release(fifth.slot, fifth.take, false);
    // A sixth: a slot is free (the one given back unsent) but the day is spent.
    expect(await b.take(day, 5)).toMatchObject({ kind: 'spent', used: 5 });
    expect(await a.used(day)).toBe(5);
  });

  it('costs a few milliseconds per acquire (measured: take + release, one relay, sequential)', async () => {
    const database = await keyDatabase();
    const gate = gateOn(database.pool(), 1_000);
    const day = utcDay(new Date());
    await gate.take(day, 100_000); // seeds the slots, warms the connection
    const rounds = 200;
    const takes: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const taken = await gate.take(day, 100_000);
      takes.push(performance.now() - started);
      if (taken.kind !== 'granted') throw new Error(`expected a slot, got ${taken.kind}`);
      await gate.release(taken.slot, taken.take, true);
    }
    takes.sort((x, y) => x - y);
    const p50 = takes[Math.floor(rounds / 2)]!;
    const p99 = takes[Math.floor(rounds * 0.99)]!;
    console.info(`shared CRM gate on PostgreSQL: acquire p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${rounds} takes)`);
    expect(p50).toBeLessThan(20);
  });

  it('a caller whose slot was being taken when the gate closed hears "closed", and the slot is given back', async () => {
    const database = await keyDatabase();
    const { store, cleanup } = tempStore();
    cleanups.push(cleanup);
    const limiter = new RequestLimiter({ store, requestsPerSecond: 2, dailyLimit: 100, shared: { gate: gateOn(database.pool(), 2), relaysAlive: () => 1 } });
    const asked = limiter.acquire();
    limiter.close(); // the database has not answered yet
    const outcome = await Promise.race([
      asked.then(
        () => 'granted',
        (error: { code?: string }) => error.code,
      ),
      sleep(3_000).then(() => 'no answer'),
    ]);
    expect(outcome).toBe('closed');
    await sleep(200);
    const [row] = (
      await database
        .pool()
        .query<{ busy: number }>(`SELECT count(*)::int AS busy FROM relay_key.crm_slots WHERE free_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`)
    ).rows;
    expect(row!.busy).toBe(0);
  });

  it('the relay registry: a starting relay is listed (host and DATA_DIR), one unheard of for a week is forgotten', async () => {
    const database = await keyDatabase();
    await database
      .pool()
      .query(`INSERT INTO relay_key.relays (id, host, data_dir, version, started_at, last_seen) VALUES ('old:/data', 'old', '/data', '0.0.1', 0, $1)`, [
        Date.now() - 8 * 24 * 3600_000,
      ]);
    await database
      .pool()
      .query(`INSERT INTO relay_key.relays (id, host, data_dir, version, started_at, last_seen) VALUES ('recent:/data', 'recent', '/data', '0.0.1', 0, $1)`, [
        Date.now() - 3600_000,
      ]);
    const relay = await SharedDatabase.open(database.url);
    cleanups.push(() => relay.close());
    await relay.startHeartbeat({ id: 'this:/srv/relay', host: 'this', dataDir: '/srv/relay', version: '0.1.0', nonce: 'nonce-1', pid: 1 });
    const listed = await listRelays(database.pool());
    expect(listed.map((seen) => seen.id)).toEqual(['this:/srv/relay', 'recent:/data']);
    // Alive: this one only (the other was last heard from an hour ago).
    expect(relay.relaysAlive()).toBe(1);
  });

  it("without the database a relay keeps to 10 / relays alive, then adds what it sent to the day's count once it is back", async () => {
    const database = await keyDatabase();
    const proxy = await cuttableProxy(new URL(database.url));
    cleanups.push(() => proxy.close());
    const { store, cleanup } = tempStore();
    cleanups.push(cleanup);
    const changes: boolean[] = [];
    // The limiter counts by its clock's UTC day: one the test sets, so the count read below is that day's.
    const now = runningClock();
    const limiter = new RequestLimiter({
      store,
      now,
      requestsPerSecond: 10,
      dailyLimit: 1_000,
      shared: { gate: gateOn(database.pool(proxy.url), 10), relaysAlive: () => 2, retryMs: 200, onChange: (reachable) => changes.push(reachable) },
    });
    cleanups.push(() => limiter.close());
    // Reachable: 3 through the database.
    const early = await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    for (const release of early) release();
    expect(await gateOn(database.pool(), 10).used(utcDayOf(now))).toBe(3);

    await proxy.cut();
    await sleep(HOLD_MS + 100); // the three slots' holds are over
    const granted: ReleaseSlot[] = [];
    const pending = Array.from({ length: 10 }, () => limiter.acquire().then((release) => void granted.push(release)));
    await sleep(1_500);
    // Held, not released: 5 (10 / 2 relays) at once, never more.
    expect(granted).toHaveLength(5);
    expect(changes).toEqual([false]);

    await proxy.restore();
    await sleep(600);
    expect(changes).toEqual([false, true]);
    // The 5 sent meanwhile are in the key's count, and the rest are now served through the database.
    for (const release of granted.splice(0)) release();
    await Promise.all(pending);
    expect(await gateOn(database.pool(), 10).used(utcDayOf(now))).toBe(3 + 10);
  }, 20_000);
});
