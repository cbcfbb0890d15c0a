import { describe, expect, it } from 'vitest';
import { CircuitBreaker, DEFAULT_BREAKER_SETTINGS, type BreakerChange, type BreakerSettings } from '../../server/lead-queue/breaker.ts';

function rig(settings: Partial<BreakerSettings> = {}) {
  let clock = 1_000_000;
  const changes: BreakerChange[] = [];
  const breaker = new CircuitBreaker(
    { ...DEFAULT_BREAKER_SETTINGS, cooldownMs: 10_000, ...settings },
    () => clock,
    (change) => changes.push(change),
  );
  return {
    breaker,
    changes,
    advance: (ms: number) => (clock += ms),
    now: () => clock,
    /** One delivery through the breaker; false when it was not let through. */
    send(ok: boolean, retryAt?: number): boolean {
      const ticket = breaker.tryAcquire();
      if (!ticket) return false;
      breaker.record(ticket, ok ? { ok: true } : { ok: false, retryAt });
      return true;
    },
  };
}

describe('circuit breaker', () => {
  it('opens after consecutiveFailures failures in a row, and lets nothing through while open', () => {
    const { breaker, send, changes } = rig({ consecutiveFailures: 5 });
    for (let index = 0; index < 4; index++) expect(send(false)).toBe(true);
    expect(breaker.state).toBe('closed');
    send(true); // a success breaks the streak
    for (let index = 0; index < 4; index++) send(false);
    expect(breaker.state).toBe('closed');
    send(false);
    expect(breaker.state).toBe('open');
    expect(changes.at(-1)).toMatchObject({ state: 'open', reason: '5 failures in a row' });
    expect(breaker.tryAcquire()).toBeUndefined();
  });

  it('opens on a failure rate over the window once enough deliveries ended in it', () => {
    const { breaker, send, advance } = rig({ consecutiveFailures: 100, failureRate: 0.75, minRequests: 8, windowMs: 30_000 });
    // 3 of 4 failing, never 100 in a row.
    for (let index = 0; index < 7; index++) {
      send(index % 4 === 3);
      advance(1_000);
    }
    expect(breaker.state).toBe('closed'); // 7 < minRequests
    send(false);
    expect(breaker.state).toBe('open');
  });

  it('forgets failures older than the window', () => {
    const { breaker, send, advance } = rig({ consecutiveFailures: 100, failureRate: 0.75, minRequests: 4, windowMs: 10_000 });
    for (let index = 0; index < 3; index++) send(false);
    advance(11_000);
    send(true);
    send(true);
    send(false);
    send(true);
    expect(breaker.state).toBe('closed');
  });

  it('stays closed under a CRM failing a third of requests (the issue 9 profile), seeded over 2,000 deliveries', () => {
    const { breaker, send, advance } = rig();
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    let refused = 0;
    for (let index = 0; index < 2_000; index++) {
      if (!send(random() >= 0.35)) refused++;
      advance(100);
      if (breaker.state === 'open') advance(10_000);
    }
    expect(refused).toBe(0);
  });

  it('half-opens after the cooldown with exactly one probe; its success closes the circuit', () => {
    const { breaker, send, advance, changes } = rig({ consecutiveFailures: 2 });
    send(false);
    send(false);
    expect(breaker.state).toBe('open');
    advance(9_999);
    expect(breaker.tryAcquire()).toBeUndefined();
    advance(1);
    const probe = breaker.tryAcquire();
    expect(probe).toEqual({ probe: true });
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryAcquire(), 'one probe at a time').toBeUndefined();
    breaker.record(probe!, { ok: true });
    expect(breaker.state).toBe('closed');
    expect(changes.map((change) => change.state)).toEqual(['open', 'half-open', 'closed']);
    expect(breaker.tryAcquire()).toEqual({ probe: false });
  });

  it('a failed probe opens it again for twice as long; an unused probe ticket frees the slot', () => {
    const { breaker, send, advance } = rig({ consecutiveFailures: 1, maxCooldownMs: 25_000 });
    send(false);
    advance(10_000);
    const unused = breaker.tryAcquire()!;
    breaker.release(unused);
    expect(send(false)).toBe(true); // the probe, failing
    expect(breaker.state).toBe('open');
    advance(19_999);
    expect(breaker.tryAcquire()).toBeUndefined();
    advance(1);
    expect(send(false)).toBe(true);
    advance(24_999); // capped at maxCooldownMs
    expect(breaker.tryAcquire()).toBeUndefined();
    advance(1);
    expect(send(true)).toBe(true);
    expect(breaker.state).toBe('closed');
  });

  it('honours a time named by the CRM (Retry-After, daily quota), even on the first failure', () => {
    const { breaker, send, advance, now } = rig();
    send(false, now() + 120_000);
    expect(breaker.state).toBe('open');
    expect(breaker.reopensAt).toBe(now() + 120_000);
    advance(119_000);
    expect(send(true)).toBe(false);
    advance(1_000);
    expect(send(true)).toBe(true);
    expect(breaker.state).toBe('closed');
  });
});
