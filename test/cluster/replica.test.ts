// The replica under the shared sync (server/cluster/replica.ts, sync-lease.ts): two relays' SQLite
// stores on one PostgreSQL schema. What the lease holder writes reaches the other store (updates,
// deletes, parents and children in any order); a table copied in part keeps each relay's own rows;
// a holder whose lease was taken publishes nothing; a rebuild drops what was never published.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { shareAgencySync, StoreReplica, TOMBSTONE_KEEP_MS, type ReplicatedTable } from '../../server/cluster/replica.ts';
import { attachPostgres } from '../../server/store/postgres.ts';
import { closeStore, openStore, type Store } from '../../server/store/store.ts';
import { queriesOf, tablesOf } from '../../server/store/tables.ts';
import { freshDatabase } from '../support/postgres.ts';
import { queryDatabase } from '../compose/pg-rig.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;

const TABLES: ReplicatedTable[] = ['photo_files', 'photos', 'listing_sync_state', { name: 'crm_access', rows: (row) => `${row}key NOT LIKE 'own:%'` }];

const opened: Array<{ store: Store; dir: string }> = [];
afterEach(async () => {
  for (const { store, dir } of opened.splice(0)) {
    await closeStore(store);
    rmSync(dir, { recursive: true, force: true });
  }
});

async function relayStore(url: string, holder: string, leaseMs = 60_000, now?: () => number) {
  const dir = mkdtempSync(join(tmpdir(), 'estate-replica-'));
  const store = openStore(dir);
  opened.push({ store, dir });
  await attachPostgres(store, url);
  const shared = shareAgencySync(store, { tables: TABLES, holder, leaseMs });
  // A relay clock of the test's: the replica reads it (how long since it caught up); rows' times are the database's.
  const replica = now ? new StoreReplica({ store, shared: queriesOf(store).db, tables: TABLES, now }) : shared.replica;
  return { store, db: tablesOf(store), lease: shared.lease, replica };
}

const rows = (store: { db: ReturnType<typeof tablesOf> }, sql: string) => store.db.prepare(sql).all();

describe.skipIf(skipped)(`the listing replica${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  const serverUrl = () => (postgres as { url: string }).url;

  it("copies the holder's inserts, updates and deletes (in whatever order the rows arrive), and only the rows a table shares", async () => {
    const url = await freshDatabase(serverUrl());
    const leader = await relayStore(url, 'relay-a');
    const follower = await relayStore(url, 'relay-b');
    expect(await leader.lease.acquireOrRenew()).toBe(true);
    expect(await follower.lease.acquireOrRenew()).toBe(false);
    leader.replica.startCapture();
    // A parent and its child; the parent changed again after (published later than the child).
    leader.db.prepare("INSERT INTO photo_files (hash, width, height, widths, created_at) VALUES ('abc', 800, 600, '[240]', 1)").run();
    leader.db
      .prepare(
        "INSERT INTO photos (owner_kind, owner_id, photo_id, kind, position, source_url, hash, updated_at) VALUES ('listing', 1, 7, 'photograph', 0, 'https://files.test/7.jpg', 'abc', 1)",
      )
      .run();
    leader.db.prepare("UPDATE photo_files SET width = 800 WHERE hash = 'abc'").run();
    leader.db.prepare("INSERT INTO listing_sync_state (key, value) VALUES ('lastSuccessAt', '1000'), ('sweep', '1')").run();
    leader.db.prepare("INSERT INTO crm_access (key, value) VALUES ('access', '{}'), ('own:2026-11-22', '41')").run();
    expect(await leader.replica.publish(leader.lease)).toBe(5);
    // Followers start from a rebuild (as a relay starting does).
    follower.db.prepare("INSERT INTO crm_access (key, value) VALUES ('own:2026-11-22', '3')").run();
    await follower.replica.rebuild();
    expect(rows(follower, 'SELECT hash, width FROM photo_files')).toEqual([{ hash: 'abc', width: 800 }]);
    expect(rows(follower, 'SELECT photo_id, hash FROM photos')).toEqual([{ photo_id: 7, hash: 'abc' }]);
    // Its own row of a table copied in part is left alone, and the holder's own is not copied.
    expect(rows(follower, 'SELECT key, value FROM crm_access ORDER BY key')).toEqual([
      { key: 'access', value: '{}' },
      { key: 'own:2026-11-22', value: '3' },
    ]);

    leader.db.prepare("UPDATE listing_sync_state SET value = '2000' WHERE key = 'lastSuccessAt'").run();
    leader.db.prepare('DELETE FROM photos').run();
    leader.db.prepare('DELETE FROM photo_files').run();
    leader.db.prepare("UPDATE crm_access SET value = '42' WHERE key = 'own:2026-11-22'").run();
    expect(await leader.replica.publish(leader.lease)).toBe(3);
    expect([...(await follower.replica.catchUp())].sort()).toEqual(['listing_sync_state', 'photo_files', 'photos']);
    expect(rows(follower, 'SELECT * FROM photos')).toEqual([]);
    expect(rows(follower, 'SELECT * FROM photo_files')).toEqual([]);
    expect(rows(follower, "SELECT value FROM listing_sync_state WHERE key = 'lastSuccessAt'")).toEqual([{ value: '2000' }]);
    expect(rows(follower, "SELECT value FROM crm_access WHERE key LIKE 'own:%'")).toEqual([{ value: '3' }]);
    // Nothing new: nothing applied.
    expect((await follower.replica.catchUp()).size).toBe(0);
  });

  it('a holder whose lease lapsed and was taken publishes nothing, and steps down to a copy of what the new holder published', async () => {
    const url = await freshDatabase(serverUrl());
    const old = await relayStore(url, 'relay-a');
    const next = await relayStore(url, 'relay-b');
    expect(await old.lease.acquireOrRenew()).toBe(true);
    old.replica.startCapture();
    old.db.prepare("INSERT INTO listing_sync_state (key, value) VALUES ('sweep', '1')").run();
    expect(await old.replica.publish(old.lease)).toBe(1);

    // The old holder stalls past its lease; the next relay takes it over.
    await queryDatabase(url, 'UPDATE sync_lease SET expires_at = 0');
    await next.replica.rebuild();
    expect(await next.lease.acquireOrRenew()).toBe(true);
    expect(next.lease.epoch).toBe(old.lease.epoch! + 1);
    next.replica.startCapture();
    next.db.prepare("UPDATE listing_sync_state SET value = '2' WHERE key = 'sweep'").run();
    expect(await next.replica.publish(next.lease)).toBe(1);

    // The stalled relay wakes up and writes: fenced out, nothing reaches PostgreSQL.
    old.db.prepare("UPDATE listing_sync_state SET value = '99' WHERE key = 'sweep'").run();
    old.db.prepare("INSERT INTO listing_sync_state (key, value) VALUES ('lastError', 'stale')").run();
    expect(await old.replica.publish(old.lease)).toBe(false);
    const shared = await queryDatabase<{ pk: string; row: string }>(url, "SELECT pk, row FROM replica_rows WHERE tbl = 'listing_sync_state' ORDER BY pk");
    expect(shared.map((row) => JSON.parse(row.row))).toEqual([{ key: 'sweep', value: '2' }]);
    expect(await old.lease.acquireOrRenew()).toBe(false);

    // Stepping down: its unpublished writes go, the new holder's rows come.
    old.replica.stopCapture();
    await old.replica.catchUp();
    expect(rows(old, 'SELECT key, value FROM listing_sync_state')).toEqual([{ key: 'sweep', value: '2' }]);
  });

  it('a released lease is taken at once; a lease held by a live relay is not', async () => {
    const url = await freshDatabase(serverUrl());
    const first = await relayStore(url, 'relay-a', 60_000);
    const second = await relayStore(url, 'relay-b', 60_000);
    expect(await first.lease.acquireOrRenew()).toBe(true);
    expect(await first.lease.acquireOrRenew()).toBe(true);
    expect(await second.lease.acquireOrRenew()).toBe(false);
    await first.lease.release();
    expect(first.lease.held).toBe(false);
    expect(await second.lease.acquireOrRenew()).toBe(true);
    expect(await first.lease.acquireOrRenew()).toBe(false);
  });

  // Issue 24: holders' clocks need not agree. A tombstone is kept TOMBSTONE_KEEP_MS on the
  // database's clock, whatever the clock of the holder that publishes next.
  it("tombstones are kept and purged on the database's clock: a next holder whose clock is 2 h ahead does not purge its predecessor's fresh one", async () => {
    const url = await freshDatabase(serverUrl());
    const first = await relayStore(url, 'relay-a', 60_000, Date.now);
    const ahead = await relayStore(url, 'relay-b', 60_000, () => Date.now() + 2 * TOMBSTONE_KEEP_MS);
    expect(await first.lease.acquireOrRenew()).toBe(true);
    first.replica.startCapture();
    first.db.prepare("INSERT INTO listing_sync_state (key, value) VALUES ('sweep', '1'), ('gone', 'x')").run();
    expect(await first.replica.publish(first.lease)).toBe(2);
    first.db.prepare("DELETE FROM listing_sync_state WHERE key = 'gone'").run();
    expect(await first.replica.publish(first.lease)).toBe(1);
    await first.lease.release();

    expect(await ahead.lease.acquireOrRenew()).toBe(true);
    await ahead.replica.rebuild();
    ahead.replica.startCapture();
    ahead.db.prepare("UPDATE listing_sync_state SET value = '2' WHERE key = 'sweep'").run();
    expect(await ahead.replica.publish(ahead.lease)).toBe(1);
    const tombstones = await queryDatabase<{ pk: string; changed_at: string }>(url, 'SELECT pk, changed_at FROM replica_rows WHERE row IS NULL');
    expect(tombstones.map((row) => row.pk)).toEqual(['["gone"]']);
    // Stamped on the database's clock, not the publishing relay's.
    const [{ changed_at: changedAt }] = await queryDatabase<{ changed_at: string }>(url, 'SELECT changed_at FROM replica_rows WHERE pk = \'["sweep"]\'');
    expect(Math.abs(Number(changedAt) - Date.now())).toBeLessThan(60_000);

    // Past the keep on the database's clock, it goes.
    await queryDatabase(url, 'UPDATE replica_rows SET changed_at = changed_at - $1 WHERE row IS NULL', [TOMBSTONE_KEEP_MS + 1]);
    ahead.db.prepare("UPDATE listing_sync_state SET value = '3' WHERE key = 'sweep'").run();
    expect(await ahead.replica.publish(ahead.lease)).toBe(1);
    expect(await queryDatabase(url, 'SELECT pk FROM replica_rows WHERE row IS NULL')).toEqual([]);
  });
});
