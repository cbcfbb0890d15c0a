import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agency } from '../../server/compose/agency.ts';
import { variantPath } from '../../server/photos/variants.ts';
import { photoHashesOf, syncedAgenciesRig } from './rig.ts';

/*
 * The photo mirror is one content-addressed folder for every agency (DATA_DIR/photos, served at
 * /photos/): the simulator's accounts draw on one pool of images, so agencies hold the same files.
 * When one agency stops showing an image, its clean-up must leave the files another still shows.
 */

describe('one photo folder for every agency', () => {
  const rig = syncedAgenciesRig({ agencies: 2, listings: 10 });

  it("keeps the files of images another agency still holds when one agency's listings all leave, and deletes the rest", async () => {
    const [a, b] = rig()
      .relay.agencies!.list()
      .map((running) => running.agency) as [Agency, Agency];
    const photoDir = join(rig().dataDir, 'photos');
    expect(a.listings.mirror.photoDir).toBe(photoDir);
    expect(b.listings.mirror.photoDir).toBe(photoDir);
    const ofA = photoHashesOf(a.store);
    const ofB = photoHashesOf(b.store);
    const onDisk = (hash: string) => existsSync(variantPath(photoDir, hash, 240, 'webp'));
    expect([...ofA, ...ofB].every(onDisk)).toBe(true);

    // Every listing of A leaves the web; A's next sweep forgets their photos and cleans up (its staff portraits stay).
    const accountA = rig().accounts[0]!;
    for (const listing of [...accountA.listings]) accountA.withdrawListing(listing.id, listing.market);
    const report = await a.listings.sync.run('full');
    expect(report.error).toBeUndefined();
    const left = photoHashesOf(a.store);
    const gone = [...ofA].filter((hash) => !left.has(hash));
    const shared = gone.filter((hash) => ofB.has(hash));
    const onlyA = gone.filter((hash) => !ofB.has(hash));
    expect(shared.length, 'A no longer shows images B shows too').toBeGreaterThan(0);
    expect(onlyA.length, 'and images only A showed').toBeGreaterThan(0);

    expect(
      shared.filter((hash) => !onDisk(hash)),
      'images B still shows keep their files',
    ).toEqual([]);
    expect(onlyA.filter(onDisk), 'images no agency shows are deleted').toEqual([]);
    // B's photos still load from /photos/.
    const { body } = await rig().request('/a/agency-b/api/v1/listings?pageSize=100');
    const url = (body.items as Array<{ photo: { url: string } | null }>).find((item) => item.photo)!.photo!.url;
    expect((await rig().request(new URL(url).pathname)).status).toBe(200);
  });
});
