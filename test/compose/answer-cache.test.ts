// Issue 24, item 4: one relay, three agencies, one answer cache bounded in bytes for all of them;
// equivalent price filters share one entry; a client is limited in renders, never in cached answers.
import { describe, expect, it } from 'vitest';
import { parseListingsQuery } from '../../server/listings/query.ts';
import { syncedAgenciesRig } from './rig.ts';

const BROWSER = { 'Accept-Encoding': 'br, gzip' };
const MB = 1024 * 1024;

describe('the answer cache, shared by every agency and bounded in bytes', () => {
  const rig = syncedAgenciesRig({ agencies: 3, listings: 40, env: { ANSWER_CACHE_MB: '1', UNCACHED_RENDERS_PER_MINUTE: '0' } });

  it('never holds more than ANSWER_CACHE_MB under a flood of distinct queries across agencies, evicting the oldest', async () => {
    const { answers } = rig().relay;
    expect(answers.maxBytes).toBe(1 * MB);
    const slugs = rig().entries.map((entry) => entry.slug);
    let peak = 0;
    let sent = 0;
    for (const sort of ['newest', 'price', '-price', 'suburb', 'landArea']) {
      for (let pageSize = 70; pageSize <= 100; pageSize += 2) {
        for (const slug of slugs) {
          const response = await rig().request(`/a/${slug}/api/v1/listings?status=available&sort=${sort}&pageSize=${pageSize}`, { headers: BROWSER });
          expect(response.status).toBe(200);
          sent++;
          peak = Math.max(peak, answers.bytes);
          expect(answers.bytes).toBeLessThanOrEqual(answers.maxBytes);
        }
      }
    }
    expect(sent).toBe(5 * 16 * 3);
    expect(answers.evictions).toBeGreaterThan(0);
    expect(peak).toBeGreaterThan(0.5 * MB);
    // An evicted answer is rendered again, the same as before.
    const first = await rig().request(`/a/${slugs[0]}/api/v1/listings?status=available&sort=newest&pageSize=70`);
    const again = await rig().request(`/a/${slugs[0]}/api/v1/listings?status=available&sort=newest&pageSize=70&type=sale`);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
  });

  it('answers minPrice=0.01 and minPrice=0 from one entry (one render), and the same listings as without the snap', async () => {
    const { answers, agencies } = rig().relay;
    const slug = rig().entries[1]!.slug;
    const rendersBefore = answers.renders.taken;
    const zero = await rig().request(`/a/${slug}/api/v1/listings?minPrice=0&pageSize=100`);
    expect(answers.renders.taken).toBe(rendersBefore + 1);
    for (const minPrice of ['0.01', '0.5', '1', '100.25']) {
      const other = await rig().request(`/a/${slug}/api/v1/listings?minPrice=${minPrice}&pageSize=100`);
      expect(other.status).toBe(200);
      expect(other.headers.get('etag')).toBe(zero.headers.get('etag'));
    }
    expect(answers.renders.taken).toBe(rendersBefore + 1);
    // The snap changes no answer: the same ids as the unsnapped query read from the cache.
    const publicListings = agencies!.get(slug)!.agency.listings.publicListings;
    const prices = (zero.body.items as Array<{ id: number }>).length;
    expect(prices).toBeGreaterThan(0);
    for (const [minPrice, maxPrice] of [
      ['0.01', '2000000'],
      ['450000.5', '999999.99'],
      ['700', '3000000'],
      ['1000000', '1000000'],
    ]) {
      const answer = await rig().request(`/a/${slug}/api/v1/listings?minPrice=${minPrice}&maxPrice=${maxPrice}&pageSize=100&sort=price`);
      const direct = publicListings.page(parseListingsQuery({ minPrice, maxPrice, pageSize: '100', sort: 'price' }));
      expect((answer.body.items as Array<{ id: number }>).map((item) => item.id)).toEqual(direct.items.map((item) => item.id));
      expect(answer.body.total).toBe(direct.total);
    }
  });
});

describe('the per-client limit on renders', () => {
  const rig = syncedAgenciesRig({ agencies: 2, listings: 10, env: { UNCACHED_RENDERS_PER_MINUTE: '4', TRUST_PROXY: 'loopback' } });

  it('answers 429 with Retry-After past N renders a minute, still sends cached answers, and counts clients apart', async () => {
    const [a, b] = rig().entries.map((entry) => entry.slug);
    const from = (client: string) => ({ headers: { 'X-Forwarded-For': client } });
    const statuses: number[] = [];
    for (let minBeds = 0; minBeds < 4; minBeds++)
      statuses.push((await rig().request(`/a/${minBeds % 2 ? a : b}/api/v1/listings?minBeds=${minBeds}`, from('203.0.113.7'))).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
    const refused = await rig().request(`/a/${a}/api/v1/listings?minBeds=9`, from('203.0.113.7'));
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('too_many_renders');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Cached: still answered (from the replay, and from the router under another URL of the same query).
    expect((await rig().request(`/a/${a}/api/v1/listings?minBeds=1`, from('203.0.113.7'))).status).toBe(200);
    expect((await rig().request(`/a/${a}/api/v1/listings?pageSize=24&minBeds=1`, from('203.0.113.7'))).status).toBe(200);
    // Another client renders.
    expect((await rig().request(`/a/${a}/api/v1/listings?minBeds=9`, from('203.0.113.8'))).status).toBe(200);
    expect(rig().relay.answers.renders.refused).toBeGreaterThanOrEqual(1);
  });
});
