// Webhooks received by any relay (DATABASE_URL): the CRM posts to whichever relay the load
// balancer picks, the notice is stored in the agency's shared inbox in PostgreSQL before the 2xx,
// and the relay running the agency's change worker (its sync holder; here relay A) takes it into
// its queue at once (LISTEN/NOTIFY) and applies it. Real PostgreSQL, real HTTP, two relays; relay
// B reaches the database through a TCP hop the test can cut.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { signCrmWebhook, WEBHOOK_SIGNATURE_HEADER } from '../../server/crm/events.ts';
import type { RunningRelay } from '../../server/compose/relay.ts';
import type { SimulatorState } from '../../crm-sim/state.ts';
import { crmListingSource } from '../../server/crm/listing-source.ts';
import { ChangeStore } from '../../server/listings/event-store.ts';
import { CrmChangeWorker } from '../../server/listings/events.ts';
import { SharedWebhookInbox } from '../../server/cluster/webhook-inbox.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { agencySchema, SharedDatabase } from '../../server/store/shared-database.ts';
import { tablesOf } from '../../server/store/tables.ts';
import { cuttableProxy, freshDatabase } from '../support/postgres.ts';
import { anotherRelay, queryDatabase } from '../compose/pg-rig.ts';
import { startAgenciesRig, until, type AgenciesRig } from '../compose/rig.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

/** A public listing id for sale, on the web, of this account, and the CRM property behind it. */
function saleListingOf(account: SimulatorState, index: number): { listingId: number; propertyId: number } {
  const listing = account.listings
    .filter((candidate) => candidate.propertyClass === 'residential' && candidate.publishedToWeb !== null && candidate.market === 'sale')
    .filter((candidate) => ['listing', 'conditional'].includes(candidate.status))[index]!;
  return { listingId: listing.lifeId * 2, propertyId: listing.id };
}

/** The CRM's webhook for a property update of this account (no records: the relay reads the change from the lists). */
const propertyUpdate = (account: SimulatorState, propertyId: number) =>
  JSON.stringify({ event: 'property.update', data: { id: propertyId }, accountid: account.accountId, timestamp: new Date().toISOString() });

describe.skipIf(skipped)(`webhooks received by any relay, applied by the agency's sync holder${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let rig: AgenciesRig;
  let second: RunningRelay;
  let databaseUrl: string;
  let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
  const relayA = () => rig.relay;
  const agencyOf = (relay: RunningRelay, slug: string) => relay.agencies!.get(slug)!.agency;

  /** A signed delivery as the CRM sends it; `headers` kept so the very same delivery can be sent again. */
  function delivery(body: string) {
    return { body, headers: { 'Content-Type': 'application/json', [WEBHOOK_SIGNATURE_HEADER]: signCrmWebhook(rig.sim.apiKey, Date.now(), body) } };
  }
  async function post(relay: RunningRelay, sent: { body: string; headers: Record<string, string> }) {
    const response = await fetch(`${relay.url}/hooks/crm`, { method: 'POST', headers: sent.headers, body: sent.body });
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as Record<string, unknown> };
  }
  /** Changes the heading of a listing for sale of this account in the CRM, and signs the property.update the CRM sends for it. */
  function headingChanged(accountIndex: number, listingIndex: number, newHeading: string) {
    const account = rig.accounts[accountIndex]!;
    const { listingId, propertyId } = saleListingOf(account, listingIndex);
    account.changeListing(propertyId, { fields: { heading: newHeading } }, 'sale');
    return { listingId, propertyId, sent: delivery(propertyUpdate(account, propertyId)) };
  }
  const heading = async (relay: RunningRelay, slug: string, listingId: number) =>
    ((await (await fetch(`${relay.url}/a/${slug}/api/v1/listings/${listingId}`)).json()) as { heading?: string }).heading;
  const localQueue = (relay: RunningRelay, slug: string) =>
    tablesOf(agencyOf(relay, slug).store).prepare('SELECT COUNT(*) FROM crm_change_queue').pluck().get() as number;
  const localDigests = (relay: RunningRelay, slug: string) =>
    tablesOf(agencyOf(relay, slug).store).prepare('SELECT COUNT(*) FROM crm_webhook_digests').pluck().get() as number;
  const inboxRows = (slug: string) =>
    queryDatabase<{ waiting: number; taken: number }>(
      databaseUrl,
      `SELECT count(*) FILTER (WHERE taken_at IS NULL)::int AS waiting, count(*) FILTER (WHERE taken_at IS NOT NULL)::int AS taken FROM ${agencySchema(slug)}.crm_webhook_inbox`,
    ).then((rows) => rows[0]!);

  beforeAll(async () => {
    databaseUrl = await freshDatabase((postgres as { url: string }).url, 'inbox');
    rig = await startAgenciesRig({ agencies: 2, listings: 8, env: { DATABASE_URL: databaseUrl, WEBHOOK_DAILY_REFRESHES: '1000' } });
    proxy = await cuttableProxy(new URL(databaseUrl));
    second = await anotherRelay(rig, proxy.url);
    await rig.syncAll();
    for (const running of second.agencies!.list()) await running.agency.listings.sync.run('full');
    // Both relays route the one webhook URL by account id: they learn each agency's first.
    const relays = [rig.relay, second];
    for (const relay of relays) for (const running of relay.agencies!.list()) running.agency.listings.account.start();
    await until(() => relays.every((relay) => relay.agencies!.list().every((running) => running.agency.listings.account.id !== undefined)), Boolean);
    // Relay A holds agency-a's sync: its change worker runs; B's does not (B only receives).
    agencyOf(rig.relay, 'agency-a').listings.changes.start();
  }, 90_000);
  afterAll(async () => {
    await second?.close();
    await rig?.close();
    await proxy?.close();
  });

  it("a webhook posted to relay B is in relay A's cache within a second or two, and B's own queue never saw it", async () => {
    const { listingId, propertyId, sent } = headingChanged(0, 0, 'Received by B, applied by A');
    const started = Date.now();
    const answer = await post(second, sent);
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ status: 'accepted', id: propertyId });
    const seen = await until(
      () => heading(relayA(), 'agency-a', listingId),
      (value) => value === 'Received by B, applied by A',
      10_000,
    );
    const elapsed = Date.now() - started;
    expect(seen).toBe('Received by B, applied by A');
    // NOTIFY, not the 30 s safety poll (nor the 2 s local one).
    expect(elapsed).toBeLessThan(2_500);
    expect(await inboxRows('agency-a')).toEqual({ waiting: 0, taken: 1 });
    expect([localQueue(second, 'agency-a'), localDigests(second, 'agency-a')]).toEqual([0, 0]);
    expect(agencyOf(second, 'agency-a').listings.webhookCounts.accepted).toBe(1);

    // The CRM (or anyone) sending that delivery again, to either relay: refused as a replay.
    for (const relay of [relayA(), second]) expect(await post(relay, sent)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
    expect(await inboxRows('agency-a')).toEqual({ waiting: 0, taken: 1 });
  });

  it('an event the relay does not use is acknowledged and kept as a digest only, waking nobody', async () => {
    const account = rig.accounts[0]!;
    const sent = delivery(JSON.stringify({ event: 'contact.create', data: { id: 77 }, accountid: account.accountId, timestamp: new Date().toISOString() }));
    expect(await post(second, sent)).toMatchObject({ status: 200, body: { status: 'ignored' } });
    expect(await inboxRows('agency-a')).toEqual({ waiting: 0, taken: 2 });
    expect(await post(relayA(), sent)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
  });

  it('with the database unreachable: 503 with Retry-After, nothing stored, B keeps serving; the same delivery sent again once it is back is applied', async () => {
    const { listingId, sent } = headingChanged(0, 1, 'Sent while the database was away');
    const counts = agencyOf(second, 'agency-a').listings.webhookCounts;
    const before = { ...counts };

    await proxy.cut();
    try {
      const refused = await post(second, sent);
      expect(refused.status).toBe(503);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect(refused.body).toMatchObject({ error: 'unavailable' });
      expect(JSON.stringify(refused.body)).not.toContain(new URL(databaseUrl).password);
      expect(counts.unavailable).toBe(before.unavailable + 1);
      expect(counts.accepted).toBe(before.accepted);
      // The relay did not fall over: it still serves its listings from its own cache.
      expect((await fetch(`${second.url}/a/agency-a/api/v1/listings/${listingId}`)).status).toBe(200);
    } finally {
      await proxy.restore();
    }
    expect(await heading(relayA(), 'agency-a', listingId)).not.toBe('Sent while the database was away');
    expect(await inboxRows('agency-a')).toEqual({ waiting: 0, taken: 2 });

    // Nothing was stored, so the retried delivery is new, not a replay.
    const retried = await until(
      () => post(second, sent),
      (answer) => answer.status !== 503,
      10_000,
    );
    expect(retried).toMatchObject({ status: 202, body: { status: 'accepted' } });
    expect(
      await until(
        () => heading(relayA(), 'agency-a', listingId),
        (value) => value === 'Sent while the database was away',
        10_000,
      ),
    ).toBe('Sent while the database was away');
    expect(await post(relayA(), sent)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
  });

  it('a database that holds the insert past 10 s: 503; the insert that lands afterwards makes the resend a duplicate, and the notice is applied once', async () => {
    const { listingId, sent } = headingChanged(0, 0, 'Stored after the 503');
    // A transaction holding the table: the database is up but answers nothing about it (a stall).
    const stall = new pg.Client({ connectionString: databaseUrl });
    await stall.connect();
    try {
      await stall.query('BEGIN');
      await stall.query(`LOCK TABLE ${agencySchema('agency-a')}.crm_webhook_inbox IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      const answer = await post(second, sent);
      expect(answer.status).toBe(503);
      expect(Date.now() - started).toBeGreaterThanOrEqual(9_500);
      await stall.query('ROLLBACK');
    } finally {
      await stall.end();
    }
    expect(
      await until(
        () => heading(relayA(), 'agency-a', listingId),
        (value) => value === 'Stored after the 503',
        10_000,
      ),
    ).toBe('Stored after the 503');
    expect(await post(second, sent)).toMatchObject({ status: 200, body: { status: 'duplicate' } });
  }, 30_000);

  it("a notice that arrives while no relay runs the agency's change worker waits in the inbox, and is applied when one starts", async () => {
    const { listingId, sent } = headingChanged(1, 0, 'Waited for a holder');
    expect((await post(relayA(), sent)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await inboxRows('agency-b')).toEqual({ waiting: 1, taken: 0 });
    expect([localQueue(relayA(), 'agency-b'), localQueue(second, 'agency-b')]).toEqual([0, 0]);

    // Relay B takes agency-b's sync (its change worker starts): the waiting notice is taken at once.
    const worker = agencyOf(second, 'agency-b').listings.changes;
    worker.start();
    try {
      expect(
        await until(
          () => heading(second, 'agency-b', listingId),
          (value) => value === 'Waited for a holder',
          5_000,
        ),
      ).toBe('Waited for a holder');
      expect(await inboxRows('agency-b')).toEqual({ waiting: 0, taken: 1 });
    } finally {
      await worker.stop();
    }
  });

  it('a change worker started while its database is away takes the waiting notices once it is back, and then hears new ones at once', async () => {
    const { listingId } = saleListingOf(rig.accounts[1]!, 0);
    const worker = agencyOf(second, 'agency-b').listings.changes;
    await proxy.cut();
    let startedAt: number;
    try {
      expect((await post(relayA(), headingChanged(1, 0, 'Waited out the outage').sent)).status).toBe(202);
      // B's worker cannot listen nor take now: it must keep trying, not give up.
      worker.start();
      startedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      await proxy.restore();
    }
    try {
      expect(
        await until(
          () => heading(second, 'agency-b', listingId),
          (value) => value === 'Waited out the outage',
          10_000,
        ),
      ).toBe('Waited out the outage');
      // Its listening is back within the retry (5 s): a new notice is heard, not found by the 30 s poll.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, startedAt! + 6_500 - Date.now())));
      const { sent } = headingChanged(1, 0, 'Heard after the outage');
      const posted = Date.now();
      expect((await post(relayA(), sent)).status).toBe(202);
      expect(
        await until(
          () => heading(second, 'agency-b', listingId),
          (value) => value === 'Heard after the outage',
          10_000,
        ),
      ).toBe('Heard after the outage');
      expect(Date.now() - posted).toBeLessThan(2_500);
    } finally {
      await worker.stop();
    }
  });

  it("taken notices reach the holder's queue before the inbox forgets them; a failure in between leaves them waiting, and taking them again applies them once", async () => {
    const { listingId, sent } = headingChanged(1, 0, 'Taken twice, applied once');
    const { taken } = await inboxRows('agency-b');
    expect((await post(second, sent)).status).toBe(202);
    expect(await inboxRows('agency-b')).toEqual({ waiting: 1, taken });

    // Relay A takes agency-b's sync, with a publish step (beforeInboxTaken) that fails once.
    const agency = agencyOf(relayA(), 'agency-b');
    const database = await SharedDatabase.open(databaseUrl, { poolSize: 2 });
    const seenAtPublish: Array<{ digests: number; waiting: number }> = [];
    const worker = new CrmChangeWorker({
      store: new ChangeStore(agency.store),
      sync: agency.listings.sync,
      cache: agency.listings.cache,
      source: crmListingSource({ client: agency.crm, config: agency.config }),
      log: silentLogger,
      config: agency.config,
      inbox: new SharedWebhookInbox({ store: agency.store, database, schema: agencySchema('agency-b'), log: silentLogger }),
      beforeInboxTaken: async () => {
        seenAtPublish.push({ digests: localDigests(relayA(), 'agency-b'), waiting: (await inboxRows('agency-b')).waiting });
        if (seenAtPublish.length === 1) throw new Error('publish failed');
      },
    });
    try {
      const digestsBefore = localDigests(relayA(), 'agency-b');
      worker.start();
      expect(
        await until(
          () => heading(relayA(), 'agency-b', listingId),
          (value) => value === 'Taken twice, applied once',
          10_000,
        ),
      ).toBe('Taken twice, applied once');
      await until(
        () => inboxRows('agency-b'),
        (rows) => rows.waiting === 0,
        10_000,
      );
      // Each time, the notice was in the holder's own store while the inbox still held it.
      expect(seenAtPublish).toEqual([
        { digests: digestsBefore + 1, waiting: 1 },
        { digests: digestsBefore + 1, waiting: 1 },
      ]);
      expect(await inboxRows('agency-b')).toEqual({ waiting: 0, taken: taken + 1 });
      await worker.drain();
      expect(worker.counts.applied).toBe(1);
    } finally {
      await worker.stop();
      await database.close();
    }
  });
});
