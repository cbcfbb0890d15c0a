// The shared webhook inbox on its own (real PostgreSQL, real SQLite stores): what it stores, what
// it gives back, whom it wakes, and what it forgets. The two-relay behaviour is in
// test/cluster/webhook-inbox.two-relays.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ChangeNotice } from '../../server/listings/source.ts';
import { SharedWebhookInbox } from '../../server/cluster/webhook-inbox.ts';
import { silentLogger } from '../../server/runtime/log.ts';
import { agencySchema, SharedDatabase } from '../../server/store/shared-database.ts';
import { openStore, type Store } from '../../server/store/store.ts';
import { cuttableProxy, freshDatabase } from '../support/postgres.ts';
import { queryDatabase } from '../compose/pg-rig.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const notice = (id: number, extra: Partial<ChangeNotice> = {}): ChangeNotice => ({
  kind: 'listing',
  name: 'property.update',
  id,
  at: 1_700_000_000_000,
  records: [],
  invalidRecords: 0,
  account: '42',
  ...extra,
});

describe.skipIf(skipped)(`the shared webhook inbox${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let url: string;
  let database: SharedDatabase;
  let listener: SharedDatabase;
  const dirs: string[] = [];
  const stores: Store[] = [];
  let now = 1_700_000_000_000;
  let one: SharedWebhookInbox;
  let two: SharedWebhookInbox;

  function agencyStore(slug: string): Store {
    const dir = mkdtempSync(join(tmpdir(), 'estate-inbox-'));
    dirs.push(dir);
    const store = openStore(dir);
    stores.push(store);
    database.attach(store, slug);
    return store;
  }
  const inboxOf = (slug: string, via: SharedDatabase) =>
    new SharedWebhookInbox({ store: agencyStore(slug), database: via, schema: agencySchema(slug), log: silentLogger, now: () => now });
  const rows = (slug: string) =>
    queryDatabase<{ digest: string; notice: string | null; taken: boolean }>(
      url,
      `SELECT digest, notice, taken_at IS NOT NULL AS taken FROM ${agencySchema(slug)}.crm_webhook_inbox ORDER BY id`,
    );

  beforeAll(async () => {
    url = await freshDatabase((postgres as { url: string }).url, 'inbox_unit');
    database = await SharedDatabase.open(url, { poolSize: 3 });
    listener = await SharedDatabase.open(url, { poolSize: 2 });
    await database.prepareAgencies(['one', 'two']);
    one = inboxOf('one', database);
    two = inboxOf('two', database);
  });
  afterAll(async () => {
    for (const store of stores) store.close();
    await database?.close();
    await listener?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('stores a notice once per digest, gives it back oldest first as it was, and keeps it until marked taken', async () => {
    expect(await one.accept('d-1', now + 300_000, notice(7, { records: [{ model: 'listing', record: { heading: 'Pushed' } }] as never }), now)).toBe('stored');
    expect(await one.accept('d-2', now + 300_000, notice(8), now + 1)).toBe('stored');
    expect(await one.accept('d-1', now + 300_000, notice(99), now + 2)).toBe('duplicate');
    const waiting = await one.take(10);
    expect(waiting.map((entry) => [entry.digest, entry.notice?.id, entry.receivedAt])).toEqual([
      ['d-1', 7, now],
      ['d-2', 8, now + 1],
    ]);
    expect(waiting[0]!.notice).toEqual(notice(7, { records: [{ model: 'listing', record: { heading: 'Pushed' } }] as never }));
    expect((await one.take(1)).map((entry) => entry.digest)).toEqual(['d-1']);
    await one.markTaken([waiting[0]!.id]);
    expect((await one.take(10)).map((entry) => entry.digest)).toEqual(['d-2']);
    expect(await one.waiting()).toBe(1);
    // Another agency's inbox is another schema: the same digest is new there.
    expect(await two.accept('d-1', now + 300_000, notice(7), now)).toBe('stored');
  });

  it('keeps only the digest of an event the relay does not use, born taken', async () => {
    expect(await one.accept('d-unused', now + 300_000, notice(5, { kind: undefined }), now)).toBe('stored');
    expect(await one.accept('d-unused', now + 300_000, notice(5, { kind: undefined }), now)).toBe('duplicate');
    expect((await rows('one')).find((row) => row.digest === 'd-unused')).toEqual({ digest: 'd-unused', notice: null, taken: true });
    expect((await one.take(10)).map((entry) => entry.digest)).not.toContain('d-unused');
  });

  it('wakes the listeners of its own agency only, on any relay, and only for a notice to apply', async () => {
    const heard: string[] = [];
    const atOne = new SharedWebhookInbox({ store: stores[0]!, database: listener, schema: agencySchema('one'), log: silentLogger });
    const atTwo = new SharedWebhookInbox({ store: stores[1]!, database: listener, schema: agencySchema('two'), log: silentLogger });
    const unlisten = [await atOne.onArrival(() => heard.push('one')), await atTwo.onArrival(() => heard.push('two'))];
    try {
      await two.accept('wake-two', now + 300_000, notice(1), now);
      await one.accept('wake-none', now + 300_000, notice(1, { kind: undefined }), now);
      await one.accept('wake-two', now + 300_000, notice(1), now);
      const deadline = Date.now() + 5_000;
      while (heard.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard.sort()).toEqual(['one', 'two']);
    } finally {
      for (const stop of unlisten) stop();
    }
  });

  it('a subscription refused while the database is away can be made again once it is back, and then hears', async () => {
    const proxy = await cuttableProxy(new URL(url));
    const away = await SharedDatabase.open(proxy.url, { poolSize: 2 });
    try {
      const inbox = new SharedWebhookInbox({ store: stores[0]!, database: away, schema: agencySchema('one'), log: silentLogger });
      const heard: string[] = [];
      await proxy.cut();
      await expect(inbox.onArrival(() => heard.push('first'))).rejects.toThrow();
      await proxy.restore();
      const unlisten = await inbox.onArrival(() => heard.push('second'));
      await one.accept('after-outage', now + 300_000, notice(2), now);
      const deadline = Date.now() + 5_000;
      while (heard.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(heard).toEqual(['second']);
      unlisten();
    } finally {
      await away.close();
      await proxy.close();
    }
  });

  it('a stored row that is not a notice comes back as none, without throwing', async () => {
    await queryDatabase(
      url,
      `INSERT INTO ${agencySchema('two')}.crm_webhook_inbox (digest, expires_at, notice, received_at) VALUES ('junk-1', $1, 'not json', $2), ('junk-2', $1, '{"kind":"listing","id":"7"}', $2), ('junk-3', $1, 'null', $2)`,
      [now + 300_000, now],
    );
    const junk = (await two.take(100)).filter((entry) => entry.digest.startsWith('junk-'));
    expect(junk.map((entry) => [entry.digest, entry.notice])).toEqual([
      ['junk-1', undefined],
      ['junk-2', undefined],
      ['junk-3', undefined],
    ]);
  });

  it('forgets taken digests once they expire (at most once a minute), never a notice still waiting', async () => {
    await two.take(100).then((waiting) => two.markTaken(waiting.map((entry) => entry.id)));
    expect(await two.accept('expiring-taken', now + 1_000, notice(3), now)).toBe('stored');
    expect(await two.accept('expiring-waiting', now + 1_000, notice(4), now)).toBe('stored');
    const [taken] = (await two.take(100)).filter((entry) => entry.digest === 'expiring-taken');
    await two.markTaken([taken!.id]);
    now += 2_000;
    // A relay's inbox prunes at its first take, then at most once a minute.
    const inbox = inboxOf('two', database);
    await inbox.take(1);
    expect((await rows('two')).map((row) => row.digest)).not.toContain('expiring-taken');
    expect((await rows('two')).map((row) => row.digest)).toContain('expiring-waiting');
    // A replay now is refused by the signature's tolerance, not by the inbox.
    expect(await inbox.accept('expiring-taken', now + 1_000, notice(3), now)).toBe('stored');
    await inbox.markTaken((await inbox.take(100)).map((entry) => entry.id));
    now += 2_000;
    // Pruned less than a minute ago: kept until the next prune.
    await inbox.take(1);
    expect((await rows('two')).map((row) => row.digest)).toContain('expiring-taken');
    now += 60_000;
    await inbox.take(1);
    expect((await rows('two')).map((row) => row.digest)).not.toContain('expiring-taken');
  });

  // Issue 24: a digest is forgotten once expired on the database's clock, not the pruning relay's.
  it("prunes on the database's clock: a holder whose clock is 180 s ahead keeps a digest a relay on time would still take a replay of", async () => {
    const ahead = new SharedWebhookInbox({
      store: agencyStore('one'),
      database,
      schema: agencySchema('one'),
      log: silentLogger,
      now: () => Date.now() + 180_000,
    });
    const live = Date.now() + 60_000;
    const expired = Date.now() - 60_000;
    expect(await ahead.accept('skew-live', live, notice(11), Date.now())).toBe('stored');
    expect(await ahead.accept('skew-expired', expired, notice(12), Date.now())).toBe('stored');
    await ahead.markTaken((await ahead.take(100)).filter((entry) => entry.digest.startsWith('skew-')).map((entry) => entry.id));
    // A fresh inbox prunes at its first take.
    const pruning = new SharedWebhookInbox({
      store: agencyStore('one'),
      database,
      schema: agencySchema('one'),
      log: silentLogger,
      now: () => Date.now() + 180_000,
    });
    await pruning.take(1);
    const digests = (await rows('one')).map((row) => row.digest);
    expect(digests).toContain('skew-live');
    expect(digests).not.toContain('skew-expired');
    expect(await pruning.accept('skew-live', live, notice(11), Date.now())).toBe('duplicate');
  });
});
