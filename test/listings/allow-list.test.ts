import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingMap, ListingSummary, Page } from '../../contract/relay-api.ts';
import { decodeDestination } from '../../server/crm/lead-destination.ts';
import { allListingIds, startListingRig, type ListingRig } from './rig.ts';

/**
 * Every confidential field real CRM records carry (../shared/reference/README.md) gets a value
 * found nowhere else; after a sync, no response and no served file may contain any of them.
 */
const CONFIDENTIAL_LISTING_TEXT = [
  'internalRemarks',
  'tenantName',
  'tenantEmail',
  'tenantPhone',
  'tenancyDetails',
  'legalDescription',
  'folioNumber',
  'volumeNumber',
  'lotNumber',
  'certificateOfTitle',
  'contractNumber',
  'zoning',
  'corelogicId',
] as const;
const CONFIDENTIAL_LISTING_NUMBERS = [
  'sellingFeePercent',
  'sellingFeeFixed',
  'agentPriceOpinion',
  'agentPriceOpinionUpper',
  'vpa',
  'bondPrice',
  'landValue',
  'outgoingsPerAnnum',
  'expenditureLimit',
] as const;
const CONFIDENTIAL_SALE_DETAILS = ['grossCommissionExcGST', 'netIncomeIntoOfficeExcGST', 'netIncomeLessOfficeDeductionsExcGST', 'salePrice'] as const;
const CONFIDENTIAL_USER_TEXT = ['username', 'lastLogin', 'role', 'signature'] as const;

describe('public fields only', () => {
  let rig: ListingRig;
  const planted: string[] = [];
  const hiddenStaff: Array<{ id: number; name: string }> = [];
  let contactAgentId = 0;
  let partialAddressId = 0;
  let hiddenStreet = '';
  const unpublishedPhotoIds: number[] = [];
  const SECRET_PRICE = 98_765_432;

  beforeAll(async () => {
    rig = await startListingRig({ listings: 30, env: { SOLD_DAYS: '3650' } });
    const { state } = rig.sim;
    let serial = 0;
    const unique = () => 7_300_000 + ++serial * 7;
    for (const listing of state.listings) {
      const fields: Record<string, unknown> = {};
      for (const name of CONFIDENTIAL_LISTING_TEXT) {
        fields[name] = `zqx-${name}-${listing.id}`;
        planted.push(fields[name] as string);
      }
      for (const name of CONFIDENTIAL_LISTING_NUMBERS) {
        fields[name] = unique() + 0.25;
        planted.push(String(fields[name]));
      }
      fields.currentTenancy = { rent: unique(), tenantNote: `zqx-tenancy-${listing.id}` };
      fields.rates = { council: { value: unique(), period: `zqx-rates-${listing.id}` } };
      fields.keys = [{ id: 1, name: `zqx-key-${listing.id}`, details: `zqx-keydetails-${listing.id}` }];
      planted.push(`zqx-tenancy-${listing.id}`, `zqx-rates-${listing.id}`, `zqx-key-${listing.id}`, `zqx-keydetails-${listing.id}`);
      if (listing.saleDetails) {
        for (const name of CONFIDENTIAL_SALE_DETAILS) {
          listing.saleDetails[name] = unique();
          planted.push(String(listing.saleDetails[name]));
        }
        listing.saleDetails.commissionSplits = [{ details: `zqx-split-${listing.id}` }];
        planted.push(`zqx-split-${listing.id}`);
      }
      state.changeListing(listing.id, { fields });
      for (const photo of listing.photos) if (!photo.published) unpublishedPhotoIds.push(photo.id);
    }
    for (const user of state.users) {
      for (const name of CONFIDENTIAL_USER_TEXT) {
        user.fields[name] = `zqx-${name}-${user.id}`;
        planted.push(user.fields[name] as string);
      }
      user.fields.permissions = { zqxPermission: `zqx-permission-${user.id}` };
      planted.push(`zqx-permission-${user.id}`);
      if (!user.showOnWeb) hiddenStaff.push({ id: user.id, name: `${user.fields.firstName} ${user.fields.lastName}` });
    }

    const [withheld, partial] = rig.expectedIds('sale');
    contactAgentId = withheld;
    state.changeListing(rig.simListing(withheld).id, { fields: { displayPrice: 'Contact Agent', searchPrice: SECRET_PRICE } });
    partialAddressId = partial;
    const address = rig.simListing(partial).fields.address as { streetNumber: string; street: string; unitNumber: string | null };
    hiddenStreet = `${address.streetNumber} ${address.street}`;
    // The CRM keeps the full displayAddress; the visibility setting must still be honoured.
    state.changeListing(rig.simListing(partial).id, { fields: { addressVisibility: 'suburb' } });

    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
  });
  afterAll(async () => {
    await rig?.close();
  });

  async function everyResponse(): Promise<Array<{ path: string; text: string }>> {
    const responses: Array<{ path: string; text: string }> = [];
    const ids = new Set<number>();
    for (const status of ['available', 'sold', 'leased']) {
      for (let page = 1; ; page++) {
        const path = `/api/v1/listings?status=${status}&pageSize=100&page=${page}`;
        const response = await rig.get(path);
        expect(response.status).toBe(200);
        responses.push({ path, text: response.text });
        for (const item of response.body.items) ids.add(item.id);
        if (page * 100 >= response.body.total) break;
      }
    }
    for (const id of ids) {
      const path = `/api/v1/listings/${id}`;
      responses.push({ path, text: (await rig.get(path)).text });
    }
    responses.push({ path: '/api/v1/agents', text: (await rig.get('/api/v1/agents')).text });
    return responses;
  }

  it('no planted confidential value appears in any listing, detail or agent response', async () => {
    const responses = await everyResponse();
    expect(responses.length).toBeGreaterThan(10);
    expect(planted.length).toBeGreaterThan(500);
    for (const { path, text } of responses) {
      for (const value of planted) {
        if (text.includes(value)) throw new Error(`${path} contains the planted confidential value ${value}`);
      }
      // Nor the field names themselves (nothing was copied wholesale).
      for (const name of [
        'internalRemarks',
        'tenant',
        'sellingFee',
        'vpa',
        'agentPriceOpinion',
        'saleDetails',
        'commission',
        'username',
        'permissions',
        'lastLogin',
        'adminAccess',
        'searchPrice',
        'folioNumber',
      ]) {
        expect(text, `${path} names ${name}`).not.toContain(name);
      }
    }
  });

  it('where enquiries go (the lead destination, the CRM life and user ids in it) never leaves the relay', async () => {
    const responses = await everyResponse();
    const ids = await allListingIds(rig);
    const tokens = ids
      .map((id) => rig.relay.listings.listingTarget(id)?.destination)
      .filter((token): token is NonNullable<typeof token> => typeof token === 'string');
    expect(tokens.length).toBe(ids.length);
    for (const { path, text } of responses) {
      for (const name of ['leadDestination', 'lead_destination', 'destination', 'LifeId', 'life_id', 'userId', 'propertyReference']) {
        expect(text, `${path} names ${name}`).not.toContain(name);
      }
      for (const token of tokens) expect(text, `${path} carries a lead destination`).not.toContain(token);
    }
  });

  it('no served photo file contains a planted value', () => {
    const dir = rig.relay.listings.mirror.photoDir;
    const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(10);
    // Every planted text starts "zqx-"; planted numbers are found by their digit runs.
    const plantedNumbers = new Set(planted.filter((value) => /^\d/.test(value)));
    for (const file of files) {
      const bytes = readFileSync(join(file.parentPath, file.name)).toString('latin1');
      expect(bytes.includes('zqx-')).toBe(false);
      for (const digits of bytes.match(/\d{7,}(\.\d+)?/g) ?? []) expect(plantedNumbers.has(digits)).toBe(false);
    }
  });

  it('searchPrice never leaves the relay, but still filters and sorts', async () => {
    const detail = await rig.get(`/api/v1/listings/${contactAgentId}`);
    expect(detail.body.displayPrice).toBe('Contact Agent');
    for (const { text } of await everyResponse()) expect(text).not.toContain(String(SECRET_PRICE));
    const filtered = await rig.get(`/api/v1/listings?minPrice=${SECRET_PRICE - 1}`);
    expect(filtered.body.items.map((item: { id: number }) => item.id)).toEqual([contactAgentId]);
    // Sorting reads the shown prices only (issue 30): a withheld price comes after every shown one
    // both ways, so its place in the list says nothing of the hidden one.
    for (const sort of ['price', '-price']) {
      const ids: number[] = [];
      for (let page = 1; ; page++) {
        const body = (await rig.get(`/api/v1/listings?type=sale&sort=${sort}&pageSize=100&page=${page}`)).body as Page<ListingSummary>;
        ids.push(...body.items.map((item) => item.id));
        if (page * 100 >= body.total) break;
      }
      const withheld = ids.indexOf(contactAgentId);
      expect(withheld, sort).toBeGreaterThan(0);
      for (const id of ids.slice(withheld)) expect((await rig.get(`/api/v1/listings/${id}`)).body.displayPrice ?? '', sort).not.toMatch(/\d/);
    }
  });

  it('only staff shown on the web appear, and their portraits alone are mirrored', async () => {
    expect(hiddenStaff.length).toBeGreaterThan(0);
    const agents = (await rig.get('/api/v1/agents')).body.items as Array<{ id: number; name: string }>;
    expect(agents.length).toBe(rig.sim.state.users.filter((user) => user.showOnWeb).length);
    for (const { text } of await everyResponse()) {
      for (const staff of hiddenStaff) {
        expect(text).not.toContain(staff.name);
        expect(text).not.toContain(`"id":${staff.id}`);
      }
    }
    const mirroredPortraits = rig.relay.listings.mirror.photosOf(
      'agent',
      hiddenStaff.map((staff) => staff.id),
    );
    expect(mirroredPortraits.size).toBe(0);
    expect(rig.relay.listings.agentTarget(hiddenStaff[0].id)).toBeUndefined();
    expect(decodeDestination(rig.relay.listings.agentTarget(agents[0].id)!.destination)).toMatchObject({ userId: agents[0].id });
  });

  it('unpublished photos are neither listed nor downloaded', async () => {
    expect(unpublishedPhotoIds.length).toBeGreaterThan(0);
    const texts = (await everyResponse()).map((response) => response.text).join('\n');
    for (const id of unpublishedPhotoIds) expect(texts).not.toContain(`"id":${id},`);
    expect(texts).not.toContain('Vendor use only');
  });

  it('a hidden street address is not given away by the address or a map pin', async () => {
    const detail = (await rig.get(`/api/v1/listings/${partialAddressId}`)).body;
    expect(detail.address.display).not.toContain(hiddenStreet);
    expect(detail.address.suburb).toBeTruthy();
    expect(detail.geolocation).toBeNull();
    expect(JSON.stringify(detail)).not.toContain(hiddenStreet);
    expect(await allListingIds(rig)).toContain(partialAddressId);
  });

  it('the map answer carries nothing the public listing does not', async () => {
    const texts: string[] = [];
    for (const status of ['available', 'sold', 'leased']) {
      const cards = new Map<number, ListingSummary>();
      for (let page = 1; ; page++) {
        const body = (await rig.get(`/api/v1/listings?status=${status}&pageSize=100&page=${page}`)).body as Page<ListingSummary>;
        for (const card of body.items) cards.set(card.id, card);
        if (page * 100 >= body.total) break;
      }
      for (const zoom of [0, 12, 20]) {
        const response = await rig.get(`/api/v1/listings/map?status=${status}&bbox=-180,-90,180,90&zoom=${zoom}`);
        expect(response.status).toBe(200);
        texts.push(response.text);
        const answer = response.body as ListingMap;
        expect(Object.keys(answer).sort()).toEqual(['bounds', 'features', 'type', 'unplaced']);
        // The box around the listings the filters select: the cards' own positions, nothing else.
        const placed = [...cards.values()].flatMap((card) => (card.position ? [card.position] : []));
        expect(answer.bounds).toEqual(
          placed.length
            ? {
                west: Math.min(...placed.map((position) => position.lng)),
                south: Math.min(...placed.map((position) => position.lat)),
                east: Math.max(...placed.map((position) => position.lng)),
                north: Math.max(...placed.map((position) => position.lat)),
              }
            : null,
        );
        for (const feature of answer.features) {
          expect(Object.keys(feature).sort()).toEqual(['geometry', 'properties', 'type']);
          if ('cluster' in feature.properties) {
            expect(Object.keys(feature.properties).sort()).toEqual(['cluster', 'count', 'expansionZoom', 'id']);
            continue;
          }
          const properties = feature.properties;
          const card = cards.get(properties.id)!;
          expect(card, `listing ${properties.id} is on the map but not listed`).toBeDefined();
          // Each value is the card's own, field for field.
          expect(properties).toEqual({
            id: card.id,
            title: card.address.display || card.heading,
            price: card.displayPrice,
            bed: card.bed,
            bath: card.bath,
            cars: card.cars,
            thumbnail: properties.thumbnail === null ? null : card.photo!.variants.find((variant) => variant.url === properties.thumbnail)!.url,
            type: card.type,
            status: card.status,
            precision: card.position!.precision,
          });
          expect(feature.geometry.coordinates).toEqual([card.position!.lng, card.position!.lat]);
        }
      }
    }
    for (const text of texts) {
      for (const value of planted) if (text.includes(value)) throw new Error(`the map answer contains the planted confidential value ${value}`);
      expect(text).not.toContain(String(SECRET_PRICE));
      expect(text).not.toContain(hiddenStreet);
      for (const name of ['searchPrice', 'internalRemarks', 'tenant', 'geolocation', 'destination', 'LifeId']) expect(text).not.toContain(name);
    }
    // The listing whose address is withheld is at most at its suburb, never at the CRM's coordinates.
    const withheldAt = rig.simListing(partialAddressId).fields.geolocation as { latitude: number | null; longitude: number | null };
    if (withheldAt.latitude !== null) for (const text of texts) expect(text).not.toContain(`[${withheldAt.longitude},${withheldAt.latitude}]`);
  });

  it('an area drawn around a withheld address selects by the position shown (its suburb), never the CRM coordinates', async () => {
    const at = rig.simListing(partialAddressId).fields.geolocation as { latitude: number | null; longitude: number | null } | null;
    expect(at?.latitude, 'the withheld listing has CRM coordinates to hide').toBeTypeOf('number');
    const around = (lat: number, lng: number) =>
      [
        [lat + 0.0005, lng - 0.0005],
        [lat + 0.0005, lng + 0.0005],
        [lat - 0.0005, lng + 0.0005],
        [lat - 0.0005, lng - 0.0005],
      ]
        .map(([a, b]) => `${a!.toFixed(5)},${b!.toFixed(5)}`)
        .join(';');
    const shown = ((await rig.get(`/api/v1/listings/${partialAddressId}`)).body as ListingSummary).position;
    // Its hidden spot, 50 m each way: it must not be there, in the list or on the map.
    const hidden = around(at!.latitude!, at!.longitude!);
    if (shown) expect(Math.hypot(shown.lat - at!.latitude!, shown.lng - at!.longitude!)).toBeGreaterThan(0.001);
    const listed = (await rig.get(`/api/v1/listings?status=available&pageSize=100&area=${hidden}`)).body as Page<ListingSummary>;
    expect(listed.items.map((card) => card.id)).not.toContain(partialAddressId);
    const mapped = (await rig.get(`/api/v1/listings/map?area=${hidden}&bbox=-180,-90,180,90&zoom=20`)).body as ListingMap;
    expect(mapped.features.map((feature) => feature.properties.id)).not.toContain(partialAddressId);
    // Where its card says it is, it is found.
    if (shown) {
      const there = (await rig.get(`/api/v1/listings?status=available&pageSize=100&area=${around(shown.lat, shown.lng)}`)).body as Page<ListingSummary>;
      expect(there.items.map((card) => card.id)).toContain(partialAddressId);
    }
  });

  it("gives the enquiry relay a listing's lead destination: the CRM adapter's token for its life, reference and published address", async () => {
    const listing = rig.simListing(contactAgentId);
    const target = rig.relay.listings.listingTarget(contactAgentId)!;
    expect(Object.keys(target)).toEqual(['destination']);
    const shown = (await rig.get(`/api/v1/listings/${contactAgentId}`)).body as { address: { display: string } };
    expect(decodeDestination(target.destination)).toEqual({
      saleLifeId: listing.lifeId,
      leaseLifeId: null,
      userId: null,
      propertyReference: listing.fields.referenceID,
      // What a lead's subject names: the address as the public listing shows it.
      address: shown.address.display,
    });
    expect(rig.relay.listings.listingTarget(1)).toBeUndefined();
  });
});
