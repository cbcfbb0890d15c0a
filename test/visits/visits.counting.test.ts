import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rawRows, storeVariants } from '../support/store-variants.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { createVisitService } from '../../server/visits/index.ts';
import { BROWSER_UA, sample, visitsHarness, type VisitsHarness } from './support.ts';

// Melbourne is UTC+10 in June (no daylight saving): its midnight is 14:00 UTC.
const MELBOURNE_NOON = '2031-06-18T02:00:00.000Z';
const DAY = '2031-06-18';
const whole = { since: '2031-01-01', until: '2031-12-31' };

for (const variant of storeVariants()) {
  describe.skipIf(variant.skipped !== undefined)(`visits: counting (${variant.name})`, () => {
    let rig: VisitsHarness | undefined;
    afterEach(async () => {
      await rig?.close();
      rig = undefined;
    });
    const start = (options: Omit<Parameters<typeof visitsHarness>[0], 'start'> & { start?: string } = {}) =>
      visitsHarness({ postgresServer: variant.postgresServer, start: MELBOURNE_NOON, ...options });

    it('counts a batch exactly: per listing, day, kind and source; visitors by address and user agent; unknown listings refused', async () => {
      rig = await start();
      expect(
        await rig.beacon(
          [
            { kind: 'detail', listingId: 101, source: 'page:buy' },
            { kind: 'card', listingId: 101 },
            { kind: 'card', listingId: 102 },
            { kind: 'photos', listingId: 101 },
            { kind: 'kept', listingId: 101 },
            { kind: 'detail', listingId: 999_999 },
          ],
          { from: '203.0.113.7' },
        ),
      ).toEqual({ status: 204, body: undefined });
      await rig.beacon([{ kind: 'detail', listingId: 101, source: 'page:buy' }], { from: '203.0.113.7' });
      await rig.beacon(
        [
          { kind: 'detail', listingId: 101, source: 'utm:spring-mailout' },
          { kind: 'map-card', listingId: 101 },
          { kind: 'calendar', listingId: 101 },
          { kind: 'shared', listingId: 101 },
          { kind: 'detail', listingId: 102, source: 'shared' },
        ],
        { from: '198.51.100.20' },
      );
      // Nothing is written before the flush: the answer never waits on the store.
      expect((await rig.service.counts.forListing(101, whole)).days).toEqual([]);
      await rig.service.tick();
      const visits = await rig.service.counts.forListing(101, whole);
      expect(visits.days).toEqual([{ day: DAY, detail: 3, visitors: 2, card: 1, mapCard: 1, photos: 1, kept: 1, calendar: 1, shared: 1 }]);
      expect(visits.sources).toEqual([
        { day: DAY, source: 'page:buy', views: 2 },
        { day: DAY, source: 'utm:spring-mailout', views: 1 },
      ]);
      expect(visits.dropped).toBe(0);
      expect((await rig.service.counts.forListing(102, whole)).days).toEqual([
        { day: DAY, detail: 1, visitors: 1, card: 1, mapCard: 0, photos: 0, kept: 0, calendar: 0, shared: 0 },
      ]);
      expect(await rig.service.counts.dailyDetailViews(whole)).toEqual([
        { listingId: 101, day: DAY, detail: 3 },
        { listingId: 102, day: DAY, detail: 1 },
      ]);
      // A second flush of the same relay adds, never replaces.
      await rig.beacon([{ kind: 'detail', listingId: 101, source: 'page:buy' }], { from: '203.0.113.7' });
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days[0]).toMatchObject({ detail: 4, visitors: 2 });
      const metrics = await rig.metrics();
      expect(sample(metrics, 'estate_visit_events_total{outcome="counted"}')).toBe(12);
      expect(sample(metrics, 'estate_visit_events_total{outcome="refused"}')).toBe(1);
    });

    it("does not count bots, clients without a user agent, or the relay's own probes (answered 204 all the same)", async () => {
      rig = await start();
      const event = [{ kind: 'detail', listingId: 101, source: 'page:listing' }];
      const answers = [
        await rig.beacon(event, { userAgent: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' }),
        await rig.beacon(event, { userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36' }),
        await rig.beacon(event, { userAgent: null }),
        await rig.beacon(event, { userAgent: 'estate-embed-relay' }),
        await rig.beacon(event, { headers: { 'X-Estate-Probe': '1' } }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204, 204, 204]);
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days).toEqual([]);
      expect(sample(await rig.metrics(), 'estate_visit_events_total{outcome="ignored"}')).toBe(5);
      // The same beacon from a browser is counted.
      await rig.beacon(event);
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days[0]).toMatchObject({ detail: 1, visitors: 1 });
    });

    it('answers 413 past 4 KB and 400 naming the field for a malformed beacon', async () => {
      rig = await start();
      const big = await rig.beacon(undefined, { raw: JSON.stringify([{ kind: 'detail', listingId: 101, source: `utm:${'a'.repeat(40)}` }]).padEnd(4097, ' ') });
      expect(big.status).toBe(413);
      expect(big.body.error).toBe('payload_too_large');
      const notJson = await rig.beacon(undefined, { raw: 'kind=detail' });
      expect(notJson).toMatchObject({ status: 400, body: { error: 'invalid_beacon', fields: { events: expect.any(String) } } });
      const notList = await rig.beacon({ kind: 'detail', listingId: 101 });
      expect(notList.status).toBe(400);
      expect(Object.keys(notList.body.fields)).toEqual(['events']);
      const fields = (
        await rig.beacon([
          { kind: 'detail', listingId: 101 },
          { kind: 'stared', listingId: 101 },
          { kind: 'card', listingId: -3 },
          { kind: 'detail', listingId: 101, source: 42 },
        ])
      ).body.fields;
      expect(Object.keys(fields).sort()).toEqual(['events[1].kind', 'events[2].listingId', 'events[3].source']);
      const tooMany = await rig.beacon(Array.from({ length: 51 }, () => ({ kind: 'card', listingId: 101 })));
      expect(tooMany).toMatchObject({ status: 400, body: { fields: { events: 'must hold at most 50 events' } } });
      // As JSON too, not only text/plain.
      expect((await rig.beacon(undefined, { raw: '[{"kind":"card","listingId":101}]', headers: { 'Content-Type': 'application/json' } })).status).toBe(204);
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days).toEqual([expect.objectContaining({ card: 1, detail: 0 })]);
    });

    it('refuses a client past VISIT_BEACONS_PER_MINUTE with 429 and Retry-After, counted as limited; other clients and the next minute are counted', async () => {
      // 02:00:30 UTC: 30 s left in the clock minute.
      rig = await start({ start: '2031-06-18T02:00:30.000Z', settings: { beaconsPerMinute: 3 } });
      const view = [{ kind: 'detail', listingId: 101, source: 'page:buy' }];
      const statuses = [];
      for (let beacon = 0; beacon < 3; beacon += 1) statuses.push((await rig.beacon(view, { from: '203.0.113.9' })).status);
      const refused = await rig.beacon(view, { from: '203.0.113.9' });
      expect(statuses).toEqual([204, 204, 204]);
      expect(refused.status).toBe(429);
      expect(refused.retryAfter).toBe('30');
      expect(refused.body.error).toBe('too_many_beacons');
      // Another address is its own client.
      expect((await rig.beacon(view, { from: '198.51.100.4' })).status).toBe(204);
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days[0]).toMatchObject({ detail: 4, visitors: 2 });
      expect(sample(await rig.metrics(), 'estate_visit_events_total{outcome="limited"}')).toBe(1);
      // The next minute, the first client is counted again.
      rig.clock.at += 30_000;
      expect((await rig.beacon(view, { from: '203.0.113.9' })).status).toBe(204);
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days[0]).toMatchObject({ detail: 5, visitors: 2 });
    });

    it('drops what a full buffer cannot hold, and counts it as dropped for the day', async () => {
      rig = await start({ settings: { bufferEvents: 100 } });
      const fifty = Array.from({ length: 50 }, () => ({ kind: 'card', listingId: 102 }));
      for (let beacon = 0; beacon < 3; beacon += 1) expect((await rig.beacon(fifty)).status).toBe(204);
      await rig.service.tick();
      const visits = await rig.service.counts.forListing(102, whole);
      expect(visits.days[0]!.card).toBe(100);
      expect(visits.dropped).toBe(50);
      expect(sample(await rig.metrics(), 'estate_visit_events_total{outcome="dropped"}')).toBe(50);
      // Emptied by the flush: the next events are held again.
      await rig.beacon(fifty);
      await rig.service.tick();
      expect((await rig.service.counts.forListing(102, whole)).days[0]!.card).toBe(150);
    });

    it("at the agency's midnight reduces the day's visitor hashes to a count and deletes them and the old salt", async () => {
      rig = await start({ start: '2031-06-18T13:59:50.000Z' });
      await rig.service.tick();
      await rig.beacon([{ kind: 'detail', listingId: 101, source: 'page:buy' }], { from: '203.0.113.7' });
      await rig.beacon([{ kind: 'detail', listingId: 101, source: 'page:buy' }], { from: '198.51.100.20' });
      await rig.service.tick();
      expect(await rawRows(rig.store, 'visit_visitors')).toHaveLength(2);
      // Today's salt and tomorrow's, made a day ahead so that every relay on the store hashes the first visitors after midnight alike.
      const before = await rawRows(rig.store, 'visit_salt');
      expect(before.map((row) => row.day).sort()).toEqual([DAY, '2031-06-19']);
      for (const row of before) expect(String(row.salt)).toMatch(/^[0-9a-f]{64}$/);
      // 00:00:05 in Melbourne, the 19th.
      rig.clock.at = Date.parse('2031-06-18T14:00:05.000Z');
      await rig.beacon([{ kind: 'detail', listingId: 101, source: 'page:buy' }], { from: '203.0.113.7' });
      await rig.service.tick();
      const salts = await rawRows(rig.store, 'visit_salt');
      expect(salts.map((row) => row.day).sort()).toEqual(['2031-06-19', '2031-06-20']);
      const today = salts.find((row) => row.day === '2031-06-19')!;
      expect(today.salt).toBe(before.find((row) => row.day === '2031-06-19')!.salt);
      expect(today.salt).not.toBe(before.find((row) => row.day === DAY)!.salt);
      // Yesterday's hashes are gone; today's one is there.
      expect((await rawRows(rig.store, 'visit_visitors')).map((row) => row.day)).toEqual(['2031-06-19']);
      const visits = await rig.service.counts.forListing(101, whole);
      expect(visits.days.map(({ day, detail, visitors }) => ({ day, detail, visitors }))).toEqual([
        { day: DAY, detail: 2, visitors: 2 },
        { day: '2031-06-19', detail: 1, visitors: 1 },
      ]);
    });

    it("two relays on one store hash the same visitor alike in the day's first seconds, before either has read the store that day", async () => {
      rig = await start({ start: '2031-06-18T13:59:50.000Z' });
      const other = createVisitService({
        store: rig.store,
        settings: { bufferEvents: 10_000, flushMs: 2000, retentionDays: 400, beaconsPerMinute: 120 },
        timeZone: 'Australia/Melbourne',
        agency: undefined,
        knownListing: (id) => rig!.known.has(id),
        log: silentLogger,
        now: () => rig!.clock.at,
      });
      await rig.service.tick();
      await other.tick();
      // 00:00:05 in Melbourne: one visitor's views reach both relays before either ticks.
      rig.clock.at = Date.parse('2031-06-18T14:00:05.000Z');
      const client = { address: '203.0.113.7', userAgent: BROWSER_UA };
      rig.service.record([{ kind: 'detail', listingId: 101 }], client);
      other.record([{ kind: 'detail', listingId: 101 }], client);
      await rig.service.tick();
      await other.tick();
      expect((await rawRows(rig.store, 'visit_visitors')).filter((row) => row.day === '2031-06-19')).toHaveLength(1);
    });

    it('sweeps days older than VISIT_RETENTION_DAYS', async () => {
      rig = await start({ settings: { retentionDays: 400 } });
      await rig.beacon([{ kind: 'detail', listingId: 101 }]);
      await rig.service.tick();
      // 400 days on, the day is still kept; 401 days on it is not.
      rig.clock.at = Date.parse(MELBOURNE_NOON) + 400 * 86_400_000;
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, { since: '2031-01-01', until: '2033-12-31' })).days).toHaveLength(1);
      rig.clock.at = Date.parse(MELBOURNE_NOON) + 401 * 86_400_000;
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, { since: '2031-01-01', until: '2033-12-31' })).days).toEqual([]);
      expect(await rawRows(rig.store, 'visit_counts')).toEqual([]);
    });

    it.skipIf(variant.postgresServer !== undefined)('leaves neither the address nor the user agent anywhere in the SQLite files', async () => {
      rig = await start();
      for (const from of ['203.0.113.77', '2001:db8::4a:77']) {
        await rig.beacon(
          [
            { kind: 'detail', listingId: 101, source: 'page:listing' },
            { kind: 'kept', listingId: 101 },
          ],
          { from },
        );
      }
      await rig.service.tick();
      expect((await rig.service.counts.forListing(101, whole)).days[0]).toMatchObject({ detail: 2, visitors: 2 });
      const { dataDir } = rig;
      // Every file of the store: the database, its write-ahead log and whatever else DATA_DIR holds.
      const bytes = readdirSync(dataDir, { withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => readFileSync(join(dataDir, entry.name)));
      expect(bytes.length).toBeGreaterThan(0);
      for (const needle of ['203.0.113.77', '2001:db8::4a:77', 'VisitProbe/7.3', BROWSER_UA]) {
        for (const form of [Buffer.from(needle, 'utf8'), Buffer.from(needle, 'utf16le')]) {
          for (const file of bytes) expect(file.includes(form), `${needle} in the store`).toBe(false);
        }
      }
    });
  });
}
