import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../server/runtime/log.ts';
import { crmListingSource } from '../../server/crm/listing-source.ts';
import { ListingSync } from '../../server/listings/sync.ts';
import { variantPath } from '../../server/photos/variants.ts';
import { allListingIds, publicListingId, startListingRig, type ListingRig } from './rig.ts';

const endpoint = (rig: ListingRig, label: string) => rig.sim.state.getCounters().requestsByEndpoint[label] ?? 0;

describe('listing sync against the CRM simulator', () => {
  let rig: ListingRig;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 30 });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('a first full sweep caches every current published listing, pages of 100, photos taken from the list items (no photo call)', async () => {
    const pageSizes: unknown[] = [];
    const requestList = rig.relay.crm.requestList.bind(rig.relay.crm);
    // Records what the sync asks for, then does the real request.
    rig.relay.crm.requestList = ((schema, request) => {
      if (request.path.startsWith('/properties/residential')) pageSizes.push(request.query?.pagesize);
      return requestList(schema, request);
    }) as typeof requestList;
    try {
      const report = await rig.relay.listings.sync.run('full');
      expect(report.error).toBeUndefined();
      expect(report.complete).toBe(true);
    } finally {
      rig.relay.crm.requestList = requestList;
    }
    expect(pageSizes.length).toBeGreaterThan(0);
    expect(new Set(pageSizes)).toEqual(new Set([100]));

    expect(await allListingIds(rig, 'type=sale')).toEqual(rig.expectedIds('sale'));
    expect(await allListingIds(rig, 'type=lease')).toEqual(rig.expectedIds('lease'));
    expect(await allListingIds(rig, 'status=sold')).toEqual(rig.expectedIds('sold'));
    const cached = rig.expectedIds('sale').length + rig.expectedIds('lease').length + rig.expectedIds('sold').length;
    // List items carry their photos, as real answers do: no per-listing photo request.
    expect(endpoint(rig, 'GET /properties/{id}/photos')).toBe(0);
    expect(rig.sim.state.getCounters().photoDownloads).toBeGreaterThan(cached);
  });

  it('reads every page when a list is longer than a page', async () => {
    const before = endpoint(rig, 'GET /properties/residential/sale/available');
    const { relay } = rig;
    const smallPages = new ListingSync({
      source: crmListingSource({ client: relay.crm, config: relay.config }),
      cache: relay.listings.cache,
      mirror: relay.listings.mirror,
      log: silentLogger,
      config: relay.config,
      pageSize: 3,
    });
    const report = await smallPages.run('full');
    expect(report.error).toBeUndefined();
    const sale = rig.expectedIds('sale');
    expect(endpoint(rig, 'GET /properties/residential/sale/available') - before).toBe(Math.ceil(sale.length / 3));
    // Nothing was lost or removed by reading in small pages.
    expect(await allListingIds(rig, 'type=sale')).toEqual(sale);
    expect(report.removed).toBe(0);
  });

  it('an unchanged incremental sync reads one page per list, and downloads nothing', async () => {
    rig.sim.state.resetCounters();
    const report = await rig.relay.listings.sync.run('incremental');
    expect(report.error).toBeUndefined();
    expect(report.changed).toBe(0);
    const counters = rig.sim.state.getCounters();
    expect(counters.photoDownloads).toBe(0);
    expect(counters.requestsByEndpoint['GET /properties/{id}/photos'] ?? 0).toBe(0);
    // Open homes were read by the sweep less than an hour ago: not again.
    expect(counters.totalRequests).toBe(rig.relay.listings.sync.specs.length);
  });

  it('an incremental sync picks up changed and new listings; a photo is downloaded again only when it changed', async () => {
    const [changedId] = rig.expectedIds('sale');
    rig.sim.state.changeListing(rig.simListing(changedId).id, { fields: { heading: 'Renovated and ready' } });
    const added = rig.sim.state.addListing({ category: 'residentialSale' });
    rig.sim.state.resetCounters();

    let report = await rig.relay.listings.sync.run('incremental');
    expect(report.error).toBeUndefined();
    expect(report.changed).toBe(2);
    expect((await rig.get(`/api/v1/listings/${changedId}`)).body.heading).toBe('Renovated and ready');
    expect((await rig.get(`/api/v1/listings/${added.id}`)).status).toBe(200);
    const publishedOfAdded = added.photos.filter((photo) => photo.published).length;
    // The changed listing's photos did not change: only the new listing's were fetched.
    expect(rig.sim.state.getCounters().photoDownloads).toBe(publishedOfAdded);

    const photo = rig.simListing(changedId).photos.find((candidate) => candidate.published)!;
    await rig.sim.state.replacePhoto(photo.id);
    rig.sim.state.resetCounters();
    report = await rig.relay.listings.sync.run('incremental');
    expect(report.changed).toBe(1);
    expect(rig.sim.state.getCounters().photoDownloads).toBe(1);
    expect(report.photos.downloaded).toBe(1);
  });

  it('a sold listing moves to the sold list at the next incremental sync', async () => {
    const [, soldId] = rig.expectedIds('sale');
    rig.sim.state.changeListing(rig.simListing(soldId).id, { status: 'settled' });
    await rig.relay.listings.sync.run('incremental');
    expect(await allListingIds(rig, 'type=sale')).not.toContain(soldId);
    const detail = await rig.get(`/api/v1/listings/${soldId}`);
    expect(detail.body.status).toBe('sold');
    expect(detail.body.badge).toBe('sold');
    expect(await allListingIds(rig, 'status=sold')).toContain(soldId);
  });

  it('a withdrawn listing leaves the public list at the next full sweep, and its own photo files are deleted', async () => {
    const withdrawnId = rig.expectedIds('sale').at(-1)!;
    // Give it a photo no other listing shares (the simulator's replacements of one scene are alike
    // at the same revision: go past any revision used elsewhere), so its file must go with it.
    const own = rig.simListing(withdrawnId).photos.find((photo) => photo.published)!;
    for (let times = 0; times < 5; times++) await rig.sim.state.replacePhoto(own.id);
    await rig.relay.listings.sync.run('incremental');
    const detail = await rig.get(`/api/v1/listings/${withdrawnId}`);
    const ownPhoto = detail.body.photos.find((photo: { id: number }) => photo.id === own.id);
    const ownFile = rig.toRelay(ownPhoto.url as string);
    expect((await fetch(ownFile)).status).toBe(200);

    rig.sim.state.withdrawListing(rig.simListing(withdrawnId).id);
    await rig.relay.listings.sync.run('incremental');
    // Not in the available list any more, but an incremental read cannot prove it left: still shown.
    expect(await allListingIds(rig, 'type=sale')).toContain(withdrawnId);

    const report = await rig.relay.listings.sync.run('full');
    expect(report.removed).toBe(1);
    expect(await allListingIds(rig, 'type=sale')).not.toContain(withdrawnId);
    expect((await rig.get(`/api/v1/listings/${withdrawnId}`)).status).toBe(404);
    expect((await fetch(ownFile)).status).toBe(404);
    const [hash, width] = /photos\/([0-9a-f]{32})-(\d+)\.jpg$/.exec(ownFile)!.slice(1);
    expect(existsSync(variantPath(rig.relay.listings.mirror.photoDir, hash, Number(width), 'jpeg'))).toBe(false);
    expect(rig.relay.listings.listingTarget(withdrawnId)).toBeUndefined();
  });

  it('the web filter decides: an off-market listing never shows, one taken off the web leaves at the next full sweep', async () => {
    const offMarket = rig.sim.state.addListing({ published: false });
    const hiddenLater = rig.expectedIds('sale')[0]!;
    await rig.relay.listings.sync.run('incremental');
    // The CRM's answers carry publishedToWeb null on every current listing: that hides nothing.
    expect(await allListingIds(rig, 'type=sale')).toEqual(rig.expectedIds('sale'));
    expect(await allListingIds(rig, 'type=sale')).not.toContain(publicListingId(offMarket));
    expect((await rig.get(`/api/v1/listings/${offMarket.id}`)).status).toBe(404);

    rig.sim.state.changeListing(rig.simListing(hiddenLater).id, { published: false });
    await rig.relay.listings.sync.run('incremental');
    // Gone from the published list, which an incremental read cannot prove: still shown until the sweep.
    expect(await allListingIds(rig, 'type=sale')).toContain(hiddenLater);
    await rig.relay.listings.sync.run('full');
    expect(await allListingIds(rig, 'type=sale')).not.toContain(hiddenLater);
    expect(await allListingIds(rig, 'type=sale')).toEqual(rig.expectedIds('sale'));
  });

  it('keeps serving the whole cache, with its age, while the CRM answers 500', async () => {
    const before = await allListingIds(rig);
    const beforeSold = await allListingIds(rig, 'status=sold');
    rig.sim.state.setFaults([{ match: '/**', errorRate: 1, errorStatus: 500 }]);
    try {
      for (const kind of ['incremental', 'full'] as const) {
        const report = await rig.relay.listings.sync.run(kind);
        expect(report.error).toMatch(/server_error 500/);
        expect(report.removed).toBe(0);
      }
      expect(await allListingIds(rig)).toEqual(before);
      expect(await allListingIds(rig, 'status=sold')).toEqual(beforeSold);
      const response = await rig.get('/api/v1/listings');
      expect(response.status).toBe(200);
      expect(Number(response.headers.get('x-listings-age'))).toBeGreaterThanOrEqual(0);
      expect(rig.relay.listings.cache.readState().lastError).toMatch(/500/);
    } finally {
      rig.sim.state.clearFaults();
    }
    const recovered = await rig.relay.listings.sync.run('incremental');
    expect(recovered.error).toBeUndefined();
    expect(rig.relay.listings.cache.readState().lastError).toBeNull();
  });
});
