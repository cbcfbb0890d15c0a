// Relays on one PostgreSQL database share each agency's sync: one holds the lease and syncs, the
// others copy what it publishes and serve it; the same answers (ETags included) from any relay,
// and another relay takes the sync over when the holder stops or its lease lapses.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { freshDatabase } from '../support/postgres.ts';
import { queryDatabase } from '../compose/pg-rig.ts';
import { publicListingId } from '../listings/rig.ts';
import { addressSlug } from '../../contract/slug.ts';
import { startRelayOnDatabase } from './relay-on-database.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
const LEASE_MS = 1_500;

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(skipped)(`one agency, two relays on one PostgreSQL database${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let sim: RunningSimulator;
  let databaseUrl: string;
  const relays: RunningRelay[] = [];
  const dirs: string[] = [];

  async function relay(): Promise<RunningRelay> {
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-shared-sync-'));
    dirs.push(dataDir);
    const started = await startRelayOnDatabase(sim, databaseUrl, dataDir, { SYNC_LEASE_MS: String(LEASE_MS) });
    relays.push(started);
    return started;
  }

  const holders = () => relays.filter((running) => running.sharedSync?.leads);
  const get = async (running: RunningRelay, path: string) => {
    const response = await fetch(`${running.url}${path}`);
    return { status: response.status, etag: response.headers.get('etag'), text: await response.text() };
  };

  beforeAll(async () => {
    sim = await startSimulator({ listings: 12, seed: 5, requestsPerSecond: 50 });
    databaseUrl = await freshDatabase((postgres as { url: string }).url);
  });
  afterAll(async () => {
    for (const running of relays.splice(0)) await running.close().catch(() => undefined);
    await sim?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('one relay syncs, the other serves the same answers byte for byte (same ETags) without calling the CRM for listings', async () => {
    const first = await relay();
    const second = await relay();
    const holder = (await until('one relay holding the sync', () => (holders().length === 1 ? holders()[0] : undefined)))!;
    const follower = holder === first ? second : first;
    await until(
      'the listings filled on both relays',
      async () => (await get(first, '/api/v1/listings')).status === 200 && (await get(second, '/api/v1/listings')).status === 200,
    );
    // A first fill serves its listings before their photos: the answers compared are the ones with them.
    await until('the first fill’s photos mirrored', async () => (await get(holder, '/api/v1/listings')).text.includes('/photos/'));
    for (const path of ['/api/v1/listings', '/api/v1/listings?type=lease', '/api/v1/agents']) {
      // Read as a pair until equal: a chunk of photos may land between two reads (they follow the listings in chunks).
      const [a, b] = (await until(`${path} the same on both`, async () => {
        const pair = await Promise.all([get(first, path), get(second, path)]);
        return pair[0].text === pair[1].text && pair[0].etag === pair[1].etag ? pair : undefined;
      }))!;
      expect(a.status).toBe(200);
      expect(b.etag).toBe(a.etag);
      expect(b.text).toBe(a.text);
    }
    // Only the holder read the CRM's lists: the follower's client sent no sweep or poll request.
    expect(follower.crm.requestsByClass().sweep ?? 0).toBe(0);
    expect(holder.crm.requestsByClass().sweep ?? 0).toBeGreaterThan(0);
    const rows = await queryDatabase<{ tbl: string; n: number }>(databaseUrl, 'SELECT tbl, count(*)::int AS n FROM replica_rows GROUP BY tbl ORDER BY tbl');
    expect(rows.map((row) => row.tbl)).toEqual(expect.arrayContaining(['listings', 'agents', 'photos', 'photo_files', 'listing_sync_state']));
  });

  it("a change the holder syncs reaches the other relay's answers within a second or so", async () => {
    const holder = holders()[0]!;
    const follower = relays.find((running) => running !== holder)!;
    const simListing = sim.state.listings.find((listing) => listing.publishedToWeb !== null && listing.market === 'sale' && listing.status === 'listing')!;
    const path = `/api/v1/listings/${publicListingId(simListing)}`;
    expect((await get(follower, path)).status).toBe(200);
    sim.state.changeListing(simListing.id, { fields: { heading: 'Shared across relays' } }, simListing.market);
    const report = await holder.listings.sync.run('incremental');
    expect(report.error).toBeUndefined();
    const started = Date.now();
    expect((await get(holder, path)).text).toContain('Shared across relays');
    await until('the change on the follower', async () => (await get(follower, path)).text.includes('Shared across relays'), 5_000);
    expect(Date.now() - started).toBeLessThan(3_000);
    // The follower refuses to sync itself: its writes would be the holder's to make.
    const refused = await follower.listings.sync.run('full');
    expect(refused.error).toMatch(/another relay holds this agency's sync/);
    // Asked of the follower (the operator's `npm run relay -- sync` there), the holder runs it.
    sim.state.changeListing(simListing.id, { fields: { heading: 'Asked of the other relay' } }, simListing.market);
    await follower.sharedSync!.requestSync('incremental');
    await until('the requested sync on the follower', async () => (await get(follower, path)).text.includes('Asked of the other relay'), 10_000);
  });

  it('when the holding relay stops, the other takes the sync over at once; when a lease lapses, within the lease', async () => {
    const holder = holders()[0]!;
    const follower = relays.find((running) => running !== holder)!;
    await holder.close();
    relays.splice(relays.indexOf(holder), 1);
    const released = Date.now();
    await until('the other relay holding the sync', () => follower.sharedSync?.leads, 10_000);
    expect(Date.now() - released).toBeLessThan(LEASE_MS + 1_000);

    // A relay that stalls (here: the lease handed to a relay that never renews) loses the sync; it comes back within the lease.
    const third = await relay();
    await queryDatabase(
      databaseUrl,
      `UPDATE sync_lease SET holder = 'dead-relay', epoch = epoch + 1, expires_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + $1`,
      [LEASE_MS],
    );
    const lapsed = Date.now();
    await until('the old holder stepping down', () => !follower.sharedSync?.leads, 10_000);
    await until('a live relay holding the sync again', () => holders().length === 1, 10_000);
    expect(Date.now() - lapsed).toBeLessThan(2 * LEASE_MS + 2_000);
    const [lease] = await queryDatabase<{ holder: string }>(databaseUrl, 'SELECT holder FROM sync_lease');
    expect(lease!.holder).not.toBe('dead-relay');
    // Both serve the same answers again.
    await until('the same answers on both', async () => (await get(follower, '/api/v1/listings')).etag === (await get(third, '/api/v1/listings')).etag);
  });

  it('a listing page that has gone answers 410 from every relay, a relay started after it went included', async () => {
    const holder = holders()[0]!;
    const simListing = sim.state.listings.find((listing) => listing.publishedToWeb !== null && listing.market === 'sale' && listing.status === 'listing')!;
    const id = publicListingId(simListing);
    const detail = JSON.parse((await get(holder, `/api/v1/listings/${id}`)).text) as { address: { display: string } };
    const page = `/listings/${id}/${addressSlug(detail.address.display)}`;
    await until('the page on every relay', async () =>
      (await Promise.all(relays.map((running) => get(running, page)))).every((answer) => answer.status === 200),
    );
    // The published pages are recorded a second after a change of the cache: the page is on record before it goes.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    sim.state.withdrawListing(simListing.id, simListing.market);
    expect((await holder.listings.sync.run('full')).error).toBeUndefined();
    await until(
      '410 on every relay',
      async () => (await Promise.all(relays.map((running) => get(running, page)))).every((answer) => answer.status === 410),
      10_000,
    );
    const late = await relay();
    await until('the late relay filled', async () => (await get(late, '/api/v1/listings')).status === 200);
    expect((await get(late, page)).status).toBe(410);
  });
});
