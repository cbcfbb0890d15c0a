// Relays on one database share many agencies' syncs: a relay alone holds them all; a second relay
// joining gets its share, handed over one by one once each agency's cache is filled; when it
// stops, the first takes them all back. Every agency keeps one holder throughout.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningRelay } from '../../server/compose/relay.ts';
import { freshDatabase } from '../support/postgres.ts';
import { anotherRelay, queryDatabase } from '../compose/pg-rig.ts';
import { startAgenciesRig, until, type AgenciesRig } from '../compose/rig.ts';

const postgres = inject('postgres');
const skipped = 'skipped' in postgres ? postgres.skipped : undefined;
// Short enough for a quick test, long enough that a busy machine's late renewal does not lapse it.
const LEASE = { SYNC_LEASE_MS: '3000' };

describe.skipIf(skipped)(`four agencies, two relays on one PostgreSQL database${skipped ? ` (SKIPPED: ${skipped})` : ''}`, () => {
  let rig: AgenciesRig;
  let second: RunningRelay | undefined;
  let databaseUrl: string;
  const held = (relay: RunningRelay) => relay.agencies!.list().filter((running) => running.agency.sharedSync?.leads).length;
  const liveHolders = async () => {
    const rows = await queryDatabase<{ n: number }>(
      databaseUrl,
      `SELECT count(*)::int AS n FROM (${rig.entries.map((entry) => `SELECT holder FROM agency_${entry.slug.replace(/-/g, '_')}.sync_lease WHERE expires_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint`).join(' UNION ALL ')}) AS leases`,
    );
    return rows[0]!.n;
  };

  beforeAll(async () => {
    databaseUrl = await freshDatabase((postgres as { url: string }).url, 'balance');
    rig = await startAgenciesRig({ agencies: 4, listings: 6, workers: true, env: { DATABASE_URL: databaseUrl, ...LEASE } });
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await rig?.close();
  });

  it('a relay alone holds every agency; a second one joining gets half, handed over; stopping it hands them back', async () => {
    expect(
      await until(
        () => held(rig.relay),
        (count) => count === 4,
        20_000,
      ),
    ).toBe(4);
    await until(
      () => rig.relay.agencies!.list().every((running) => running.agency.listings.cache.readState().lastSuccessAt !== null),
      (filled) => filled,
      30_000,
    );

    second = await anotherRelay(rig, databaseUrl, { workers: true, env: LEASE });
    const joined = Date.now();
    await until(
      () => [held(rig.relay), held(second!)].join('/'),
      (split) => split === '2/2',
      30_000,
    );
    const balancedMs = Date.now() - joined;
    // Handed over, not lapsed: well within the leases' lapse plus the heartbeat that tells of the new relay.
    expect(balancedMs).toBeLessThan(20_000);
    expect(rig.relay.agencies!.list().reduce((total, running) => total + (running.agency.sharedSync?.handedOver ?? 0), 0)).toBeGreaterThanOrEqual(2);
    expect(await until(liveHolders, (count) => count === 4, 10_000)).toBe(4);
    // Each relay serves every agency, whichever holds its sync.
    for (const relay of [rig.relay, second]) {
      for (const entry of rig.entries) expect((await fetch(`${relay.url}/a/${entry.slug}/api/v1/listings`)).status).toBe(200);
    }

    await second.close();
    second = undefined;
    await until(
      () => held(rig.relay),
      (count) => count === 4,
      20_000,
    );
    expect(await until(liveHolders, (count) => count === 4, 10_000)).toBe(4);
  }, 120_000);
});
