import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agency } from '../../server/compose/agency.ts';
import { holdsPhoto } from '../../server/photos/mirror.ts';
import { variantPath } from '../../server/photos/variants.ts';
import { photoHashesOf, syncedAgenciesRig, until } from './rig.ts';

/*
 * An agency removed from AGENCIES_FILE keeps its store; while it is away, no clean-up asks it, so
 * another agency's clean-up may delete images it still records. Back in the file, its rows would
 * name files that are gone: it forgets them at start and fetches them again at its next sync,
 * instead of serving broken images. The same happens when a served photo's file is missing.
 */

type Item = { photo: { url: string } | null };

describe('photo rows whose files are gone', () => {
  const rig = syncedAgenciesRig({ agencies: 2, listings: 10 });

  const agency = (slug: string): Agency => rig().relay.agencies!.get(slug)!.agency;
  const photoUrls = async (slug: string) => {
    const { body } = await rig().request(`/a/${slug}/api/v1/listings?pageSize=100`);
    return (body.items as Item[]).flatMap((item) => (item.photo ? [new URL(item.photo.url).pathname] : []));
  };
  const broken = async (slug: string) => {
    const urls = await photoUrls(slug);
    const statuses = await Promise.all(urls.map(async (path) => [path, (await rig().request(path)).status] as const));
    return statuses.filter(([, status]) => status !== 200).map(([path]) => path);
  };

  it('an agency removed and re-added forgets images deleted meanwhile, serves no broken one, and fetches them again at its next sync', async () => {
    const [a, b] = rig().entries;
    const photoDir = join(rig().dataDir, 'photos');
    const ofB = photoHashesOf(agency('agency-b').store);
    expect(await broken('agency-b')).toEqual([]);

    // B leaves; A's listings all leave the web and A's sweep cleans up: B is not asked, so images both showed go too.
    rig().writeAgencies([a!]);
    expect((await rig().relay.agencies!.reload()).removed).toEqual(['agency-b']);
    await until(
      () => rig().relay.agencies!.drainingAgencies().length,
      (draining) => draining === 0,
    );
    const accountA = rig().accounts[0]!;
    for (const listing of [...accountA.listings]) accountA.withdrawListing(listing.id, listing.market);
    expect((await agency('agency-a').listings.sync.run('full')).error).toBeUndefined();
    const deleted = [...ofB].filter((hash) => !existsSync(variantPath(photoDir, hash, 240, 'webp')));
    expect(deleted.length, 'images of B deleted while it was away').toBeGreaterThan(0);

    // B is back: its rows for deleted files are forgotten at start, so no listing shows a broken image.
    rig().writeAgencies([a!, b!]);
    expect((await rig().relay.agencies!.reload()).added).toEqual(['agency-b']);
    const storeB = agency('agency-b').store;
    expect(deleted.filter((hash) => holdsPhoto(storeB, hash))).toEqual([]);
    expect(await broken('agency-b')).toEqual([]);

    // Its next sync (a full sweep) fetches them again.
    const { sync } = agency('agency-b').listings;
    expect(sync.dueKind()).toBe('full');
    const report = await sync.run(sync.dueKind());
    expect(report.error).toBeUndefined();
    expect(
      deleted.filter((hash) => !holdsPhoto(storeB, hash)),
      'fetched again',
    ).toEqual([]);
    expect(deleted.filter((hash) => !existsSync(variantPath(photoDir, hash, 240, 'webp')))).toEqual([]);
    expect(await broken('agency-b')).toEqual([]);
  }, 60_000);

  it('a served photo whose file is missing is forgotten at once and fetched again at the next sync', async () => {
    const b = agency('agency-b');
    const [path] = await photoUrls('agency-b');
    const hash = /\/([0-9a-f]{32})-/.exec(path!)![1]!;
    for (const format of ['webp', 'jpeg'] as const) unlinkSync(variantPath(join(rig().dataDir, 'photos'), hash, 240, format));

    expect((await rig().request(path!)).status).toBe(404);
    expect(holdsPhoto(b.store, hash)).toBe(false);
    expect(await photoUrls('agency-b')).not.toContain(path);
    expect(b.listings.sync.dueKind(), 'the next sync is a full sweep').toBe('full');
    expect((await b.listings.sync.run(b.listings.sync.dueKind())).error).toBeUndefined();
    expect(await photoUrls('agency-b')).toContain(path);
    expect((await rig().request(path!)).status).toBe(200);
  }, 60_000);
});
