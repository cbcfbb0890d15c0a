// Many agencies on one PostgreSQL database (DATABASE_URL with AGENCIES_FILE), served by two relays
// with their own DATA_DIR: each agency's outbox is its own schema, so a relay's worker for agency
// A can only ever claim A's rows and deliver them with A's token, and every enquiry reaches the
// CRM once, whichever relay took it in and whichever delivered it.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningRelay } from '../../server/compose/relay.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { agencySchema } from '../../server/store/shared-database.ts';
import { createLogger } from '../../server/runtime/log.ts';
import { formatSharedStatus, readSharedStatus } from '../../server/ops/relays.ts';
import { sharedStoreKind, tablesOf } from '../../server/store/tables.ts';
import { freshDatabase } from '../support/postgres.ts';
import { anotherRelay, queryDatabase } from './pg-rig.ts';
import { startAgenciesRig, until, type AgenciesRig } from './rig.ts';
import { validEnquiry } from '../enquiries/support.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const enquiry = (listingId: number) => validEnquiry({ listingId });

/** Its listings for sale that are on the web: an enquiry may name one. */
const saleIdsOf = (account: SimulatorState) =>
  account.listings
    .filter((listing) => listing.propertyClass === 'residential' && listing.publishedToWeb !== null && listing.market === 'sale')
    .filter((listing) => ['listing', 'conditional'].includes(listing.status))
    .map((listing) => listing.lifeId * 2);

describe.skipIf(skipped)(`agencies on one PostgreSQL database, two relays${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let rig: AgenciesRig;
  let second: RunningRelay;
  let databaseUrl: string;
  const slugs = ['agency-a', 'agency-b'];
  const query = <Row extends Record<string, unknown>>(text: string) => queryDatabase<Row>(databaseUrl, text);

  beforeAll(async () => {
    databaseUrl = await freshDatabase((postgres as { url: string }).url, 'agencies');
    rig = await startAgenciesRig({ agencies: 2, listings: 8, env: { DATABASE_URL: databaseUrl, ENQUIRY_RATE_LIMIT_PER_MINUTE: '1000' } });
    second = await anotherRelay(rig, databaseUrl);
    await rig.syncAll();
    for (const running of second.agencies!.list()) await running.agency.listings.sync.run('full');
  }, 90_000);
  afterAll(async () => {
    await second?.close();
    await rig?.close();
  });

  it("each agency's shared tables are in its own schema of the one database", async () => {
    for (const relay of [rig.relay, second]) for (const slug of slugs) expect(sharedStoreKind(relay.agencies!.get(slug)!.agency.store)).toBe('postgres');
    const rows = await query<{ schema: string }>("SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'enquiry_outbox' ORDER BY 1");
    expect(rows.map((row) => row.schema)).toEqual(slugs.map((slug) => agencySchema(slug)));
  });

  it("enquiries to both agencies through both relays are delivered with their own agency's token, each exactly once, both relays delivering", async () => {
    const accounts = rig.accounts;
    const sent = new Map<string, Set<string>>(slugs.map((slug) => [slug, new Set()]));
    const posts: Array<Promise<void>> = [];
    for (let i = 0; i < 24; i++) {
      const slug = slugs[i % 2]!;
      const relay = i % 4 < 2 ? rig.relay : second;
      const ids = saleIdsOf(accounts[i % 2]!);
      const body = enquiry(ids[i % ids.length]!);
      sent.get(slug)!.add(body.originalId);
      posts.push(
        fetch(`${relay.url}/a/${slug}/api/v1/enquiries`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then(
          async (response) => {
            expect(response.status, await response.text()).toBe(202);
          },
        ),
      );
    }
    await Promise.all(posts);
    // Nothing went to the relays' SQLite outboxes.
    for (const relay of [rig.relay, second])
      for (const slug of slugs) expect(tablesOf(relay.agencies!.get(slug)!.agency.store).prepare('SELECT COUNT(*) FROM enquiry_outbox').pluck().get()).toBe(0);

    const workers = [rig.relay, second].flatMap((relay) => slugs.map((slug) => relay.agencies!.get(slug)!.agency.enquiries.worker));
    for (const worker of workers) worker.start();
    const delivered = () => accounts.reduce((total, account) => total + account.postedEnquiries().length, 0);
    await until(delivered, (count) => count >= 24, 30_000);
    // Give a wrong second delivery the time to show up.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await Promise.all(workers.map((worker) => worker.stop()));

    slugs.forEach((slug, index) => {
      const posted = accounts[index]!.postedEnquiries().map((posted) => posted.originalId);
      // Exactly its own, each once: a row delivered with the other agency's token would land in the other account.
      expect(posted.slice().sort()).toEqual([...sent.get(slug)!].sort());
    });
    // Both relays delivered some of them (the title's "both relays delivering"), 24 in all.
    const deliveredBy = [rig.relay, second].map((relay) =>
      slugs.reduce((total, slug) => total + relay.agencies!.get(slug)!.agency.enquiries.metrics.delivered, 0),
    );
    expect(
      deliveredBy.every((count) => count > 0),
      `delivered by each relay: ${deliveredBy.join(', ')}`,
    ).toBe(true);
    expect(deliveredBy[0]! + deliveredBy[1]!).toBe(24);
    // Each schema holds its agency's rows only, all delivered, whichever relay is asked.
    for (const slug of slugs) {
      const rows = await query<{ original_id: string; status: string }>(`SELECT original_id, status FROM ${agencySchema(slug)}.enquiry_outbox`);
      expect(rows.map((row) => row.original_id).sort()).toEqual([...sent.get(slug)!].sort());
      expect(rows.map((row) => row.status)).toEqual(Array(12).fill('delivered'));
    }
  }, 60_000);

  it('an agency removed on reload keeps delivering what is queued for it in PostgreSQL before its store closes', async () => {
    const body = enquiry(saleIdsOf(rig.accounts[1]!)[0]!);
    expect(
      (
        await fetch(`${rig.relay.url}/a/agency-b/api/v1/enquiries`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status,
    ).toBe(202);
    rig.writeAgencies(rig.entries.filter((entry) => entry.slug !== 'agency-b'));
    expect(await rig.relay.agencies!.reload()).toMatchObject({ ok: true, removed: ['agency-b'] });
    // Past a drain check or two: still draining, as its enquiry waits in its schema (the workers are off here).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const draining = rig.relay.agencies!.drainingAgencies();
    expect(draining.map((running) => running.entry.slug)).toEqual(['agency-b']);
    // The operator view counts it where it waits (its SQLite file holds no outbox rows with DATABASE_URL).
    const figures = await rig.relay.agencies!.statusSnapshot();
    expect(figures.agencies.find((row) => row.slug === 'agency-b')).toMatchObject({ state: 'draining', outboxQueued: 1 });
    draining[0]!.agency.enquiries.worker.start();
    await until(
      () => rig.relay.agencies!.drainingAgencies().length,
      (count) => count === 0,
      20_000,
    );
    expect(rig.accounts[1]!.postedEnquiries().filter((posted) => posted.originalId === body.originalId)).toHaveLength(1);
  }, 60_000);

  // Issue 24: shared times are the database's clock; a relay whose clock is off by more than 5 s
  // says so in its log, in /metrics and in `status`.
  it("a relay whose clock is 180 s ahead of the database's warns in its log, /metrics and `status`", async () => {
    const lines: Array<{ msg: string; clockOffsetMs?: number; level: number }> = [];
    const log = createLogger({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
    const ahead = await anotherRelay(rig, databaseUrl, { clock: () => Date.now() + 180_000, log });
    try {
      const warning = lines.find((line) => /clock is 180\.\d s ahead of the database's clock/.test(line.msg));
      expect(warning, JSON.stringify(lines.map((line) => line.msg))).toBeDefined();
      expect(warning!.level).toBe(40);
      expect(Math.abs(warning!.clockOffsetMs! - 180_000)).toBeLessThan(2_000);

      const gauge = (text: string) => Number(/^estate_clock_offset_seconds (\S+)$/m.exec(text)?.[1]);
      expect(Math.abs(gauge(await (await fetch(`${ahead.url}/metrics`)).text()) - 180)).toBeLessThan(2);
      expect(Math.abs(gauge(await (await fetch(`${rig.relay.url}/metrics`)).text()))).toBeLessThan(2);

      const status = await readSharedStatus(databaseUrl, undefined);
      const text = formatSharedStatus(status, 10_000);
      const aheadId = status.relays.find((relay) => Math.abs((relay.clockOffsetMs ?? 0) - 180_000) < 2_000)?.id;
      expect(aheadId, text).toBeDefined();
      expect(text).toMatch(new RegExp(`alive  ${aheadId!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}  .*, clock \\+180\\.\\d s off the database's: OVER 5 s`));
      expect(text).toMatch(/^Clocks {10}1 alive relay is more than 5 s off the database's clock .*180\.\d s ahead of the database's clock/m);
      // The relays on time show their offset, without the warning.
      expect(text).toMatch(/, clock [+-]0\.\d s$/m);
    } finally {
      await ahead.close();
    }
  }, 60_000);
});
