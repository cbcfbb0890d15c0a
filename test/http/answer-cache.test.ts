// Issue 24, item 4: the answer cache is bounded in bytes (not entries), counts a shared body once
// and its compressed forms as they are made, evicts the least recently used, and limits renders per client.
import { describe, expect, it } from 'vitest';
import { AnswerCache, ENTRY_OVERHEAD_BYTES } from '../../server/http/answer-cache.ts';
import { PerClientLimit } from '../../server/http/client-limit.ts';
import { DYNAMIC_EFFORT, EncodedBody } from '../../server/http/precompressed.ts';

const body = (size: number, seed = 0) => new EncodedBody(Buffer.from(JSON.stringify({ seed, text: 'listing '.repeat(size / 8) })), DYNAMIC_EFFORT);

describe('AnswerCache', () => {
  it('never holds more than its bound, evicting the least recently used, across scopes', () => {
    const cache = new AnswerCache({ maxBytes: 200_000, rendersPerMinute: 0 });
    const scopes = [cache.scope('a'), cache.scope('b'), cache.scope('c')];
    for (let i = 0; i < 300; i++) {
      const entry = body(10_000, i);
      scopes[i % 3]!.set(`q${i}`, entry, entry);
      expect(cache.bytes).toBeLessThanOrEqual(200_000);
    }
    expect(cache.evictions).toBeGreaterThan(250);
    // The newest are kept, the oldest gone; a use keeps an entry.
    expect(scopes[2]!.get('q299')).toBeDefined();
    expect(scopes[0]!.get('q0')).toBeUndefined();
    scopes[0]!.get('q291');
    for (let i = 300; i < 310; i++) scopes[1]!.set(`q${i}`, body(10_000, i), undefined);
    expect(scopes[0]!.get('q291')).toBeDefined();
  });

  it('counts a body shared by entries once, its compressed forms as they are made, and releases it with its last entry', () => {
    const cache = new AnswerCache({ maxBytes: 10_000_000, rendersPerMinute: 0 });
    const scope = cache.scope('x');
    const shared = body(50_000);
    scope.set('one', shared, shared);
    const once = cache.bytes;
    expect(once).toBeGreaterThanOrEqual(shared.identity.length);
    scope.set('two', shared, shared);
    expect(cache.bytes - once).toBeLessThan(ENTRY_OVERHEAD_BYTES + 100);
    const before = cache.bytes;
    const brotli = shared.bytes('br');
    expect(cache.bytes).toBe(before + brotli.length);
    scope.delete('one');
    expect(cache.bytes).toBeGreaterThan(shared.byteLength);
    scope.clear();
    expect(cache.bytes).toBe(0);
    expect(cache.size).toBe(0);
    shared.bytes('gzip');
    expect(cache.bytes).toBe(0);
  });

  it('evicts when a kept body grows past the bound (its gzip form made later)', () => {
    const cache = new AnswerCache({ maxBytes: 150_000, rendersPerMinute: 0 });
    const scope = cache.scope('x');
    const random = () =>
      new EncodedBody(Buffer.from(Array.from({ length: 60_000 }, () => String.fromCharCode(33 + Math.floor(Math.random() * 90))).join('')), DYNAMIC_EFFORT);
    const first = random();
    const second = random();
    scope.set('first', first, first);
    scope.set('second', second, second);
    second.bytes('gzip');
    expect(cache.bytes).toBeLessThanOrEqual(150_000);
    expect(scope.get('first')).toBeUndefined();
  });
});

describe('PerClientLimit', () => {
  it('allows N renders a client a minute, says when to ask again, counts clients apart and IPv6 by its /64', () => {
    let now = 10_000;
    const limit = new PerClientLimit(3, () => now);
    for (let i = 0; i < 3; i++) expect(limit.take('203.0.113.5')).toBeUndefined();
    expect(limit.take('203.0.113.5')).toBe(50);
    expect(limit.take('::ffff:203.0.113.5')).toBe(50);
    expect(limit.take('203.0.113.6')).toBeUndefined();
    for (let i = 0; i < 3; i++) expect(limit.take(`2001:db8:1:2::${i + 1}`)).toBeUndefined();
    expect(limit.take('2001:db8:1:2:ffff::9')).toBeDefined();
    expect(limit.take('2001:db8:1:3::1')).toBeUndefined();
    now = 60_000;
    expect(limit.take('203.0.113.5')).toBeUndefined();
    expect(new PerClientLimit(0, () => now).take('x')).toBeUndefined();
  });
});
