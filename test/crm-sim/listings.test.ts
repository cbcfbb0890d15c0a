import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulatorApp, startSimulator, type RunningSimulator } from '../../crm-sim/simulator.ts';
import { apiClient, CRM_DATE_TIME, manualClock } from './helpers.ts';

const clock = manualClock('2025-03-14T02:00:00.000Z'); // a Friday, 1 pm in Melbourne
let sim: RunningSimulator;
let call: ReturnType<typeof apiClient>;

beforeAll(async () => {
  sim = await startSimulator({ listings: 120, seed: 7, now: clock.now, requestsPerSecond: 10_000 });
  call = apiClient(sim);
});
afterAll(() => sim.close());

const CONFIDENTIAL_SALE_FIELDS = [
  'internalRemarks',
  'tenantName',
  'tenantEmail',
  'tenantPhone',
  'sellingFeePercent',
  'sellingFeeFixed',
  'agentPriceOpinion',
  'vpa',
  'legalDescription',
  'folioNumber',
  'volumeNumber',
  'lotNumber',
  'certificateOfTitle',
];

describe('CRM simulator: listing lists', () => {
  it('pages with the v1.3 envelope: items, totalItems, totalPages and absolute urls', async () => {
    const first = await call('/properties/residential/sale?pagesize=7');
    expect(first.status).toBe(200);
    const { totalItems, totalPages, urls, items } = first.body;
    expect(totalItems).toBeGreaterThan(14);
    expect(totalPages).toBe(Math.ceil(totalItems / 7));
    expect(items).toHaveLength(7);
    expect(urls.previous).toBeNull();
    expect(urls.self).toBe(`${sim.baseUrl}/properties/residential/sale?pagesize=7`);
    expect(urls.next).toBe(`${sim.baseUrl}/properties/residential/sale?pagesize=7&page=2`);

    // Following urls.next through the pages yields every listing exactly once.
    const seen: number[] = [];
    let next: string | null = first.body.urls.self;
    while (next) {
      const page = await call(next.slice(sim.baseUrl.length));
      seen.push(...page.body.items.map((item: { id: number }) => item.id));
      next = page.body.urls.next;
    }
    expect(seen).toHaveLength(totalItems);
    expect(new Set(seen).size).toBe(totalItems);

    const last = await call(`/properties/residential/sale?pagesize=7&page=${totalPages}`);
    expect(last.body.urls.next).toBeNull();
    expect(last.body.urls.previous).toContain(`page=${totalPages - 1}`);
    const beyond = await call(`/properties/residential/sale?pagesize=7&page=${totalPages + 3}`);
    expect(beyond.body.items).toEqual([]);
  });

  it('defaults to 50 per page and clamps page sizes above 100', async () => {
    const all = await call('/properties/residential/sale');
    expect(all.body.items.length).toBe(Math.min(50, all.body.totalItems));
    const big = await call('/properties/residential/sale?pagesize=500');
    expect(big.body.items.length).toBe(Math.min(100, big.body.totalItems));
    expect(big.body.totalPages).toBe(Math.ceil(big.body.totalItems / 100));
  });

  it('refuses bad query values with 400 naming the parameter', async () => {
    for (const [query, param] of [
      ['page=0', 'page'],
      ['pagesize=abc', 'pagesize'],
      ['modifiedSince=yesterday', 'modifiedSince'],
      ['published=maybe', 'published'],
      ['status=sold', 'status'],
      ['sort=colour', 'sort'],
      ['sortOrder=up', 'sortOrder'],
    ]) {
      const response = await call(`/properties/residential/sale?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body).toMatchObject({ success: false, code: 'INVALID_PARAMETER' });
      expect(response.body.msg).toContain(param);
    }
  });

  it('describes each home as its record has it: bedrooms and land area agree with the text', async () => {
    let checked = 0;
    for (const path of ['/properties/residential/sale', '/properties/residential/lease', '/properties/rural/sale', '/properties/land/sale']) {
      const { body } = await call(`${path}?pagesize=100`);
      for (const item of body.items as Array<{
        id: number;
        bed: number | null;
        description: string;
        highlights?: string[];
        landArea: { value: number | null; units: string };
      }>) {
        const text = [item.description, ...(item.highlights ?? [])].join('\n');
        const stated = /this (\d+)-bedroom/.exec(text);
        if (stated) expect(Number(stated[1]), `${path} ${item.id}`).toBe(item.bed);
        if (/Four-bedroom|fifth bedroom/.test(text)) expect(item.bed, `${path} ${item.id}: ${text}`).toBe(4);
        if (/both bedrooms/.test(text)) expect(item.bed, `${path} ${item.id}: ${text}`).toBe(2);
        if (/Main bedroom/.test(text)) expect(item.bed, `${path} ${item.id}: ${text}`).toBeGreaterThanOrEqual(2);
        const land = /approximately (\d+)(sqm| hectares)|A (\d+)sqm allotment/.exec(text);
        if (land) {
          expect(Number(land[1] ?? land[3]), `${path} ${item.id}`).toBe(item.landArea.value);
          expect(land[2] === ' hectares' ? 'hectare' : 'sqm').toBe(item.landArea.units);
        }
        checked += stated || land ? 1 : 0;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('returns records in the reference shapes, confidential fields included', async () => {
    const { body } = await call('/properties/residential/sale?pagesize=100');
    for (const item of body.items) {
      expect(item.modified).toMatch(CRM_DATE_TIME);
      expect(item.inserted).toMatch(CRM_DATE_TIME);
      expect(item.saleLifeId).toEqual(expect.any(Number));
      expect(item.leaseLifeId).toBeNull();
      expect(item.address.suburb.name).toBe(item.address.suburb.name.toUpperCase());
      expect(item.address.suburb.postcode).toMatch(/^\d{4}$/);
      expect(item.address.country.isocode).toBe('AU');
      expect(typeof item.displayPrice).toBe('string');
      expect(typeof item.searchPrice).toBe('number');
      for (const field of CONFIDENTIAL_SALE_FIELDS) expect(item, field).toHaveProperty(field);
      for (const staff of item.contactStaff) {
        expect(staff).toMatchObject({ username: expect.any(String), permissions: expect.any(Object), showOnWeb: expect.any(Boolean) });
        expect(staff).toHaveProperty('lastLogin');
        expect(staff).toHaveProperty('adminAccess');
      }
    }
    const prices = new Set(body.items.map((item: { displayPrice: string }) => item.displayPrice.replace(/[\d,]+/g, 'N')));
    expect(prices).toContain('Contact Agent');
    expect(prices).toContain('$N');
    expect(body.items.some((item: { description: string }) => item.description.includes('\r\n') && item.description.includes('&#x2022;'))).toBe(true);
    expect(body.items.some((item: { internalRemarks: string | null }) => typeof item.internalRemarks === 'string' && item.internalRemarks.length > 0)).toBe(
      true,
    );
    expect(body.items.some((item: { tenantName: string | null }) => item.tenantName !== null)).toBe(true);
    expect(body.items.some((item: { contactStaff: { showOnWeb: boolean }[] }) => item.contactStaff.some((staff) => !staff.showOnWeb))).toBe(true);
    const auction = body.items.find(
      (item: { methodOfSale: { name: string } | null; status: string }) => item.methodOfSale?.name === 'Auction' && item.status === 'listing',
    );
    expect(auction.auctionDetails.dateTime).toMatch(CRM_DATE_TIME);
    expect(Date.parse(auction.auctionDetails.dateTime)).toBeGreaterThan(clock.now().getTime());
  });

  it('leases show weekly rents and a property manager', async () => {
    const { body } = await call('/properties/residential/lease/available');
    expect(body.totalItems).toBeGreaterThan(0);
    for (const item of body.items) {
      expect(item.leaseLifeId).toEqual(expect.any(Number));
      expect(item.saleLifeId).toBeNull();
      expect(item.status).toBe('listing');
      expect(item.available).toBe(true);
      expect(item.propertyManager).toMatchObject({ id: expect.any(Number), role: 'propertyManagement' });
    }
    expect(body.items.some((item: { displayPrice: string }) => /^\$[\d,]+ (per week|pw)/.test(item.displayPrice))).toBe(true);
  });

  it('/available keeps current listings, off-market ones too, with publishedToWeb null as in real answers; published=true leaves out the unpublished', async () => {
    type Item = { id: number; status: string; publishedToWeb: string | null };
    const all = (await call('/properties/residential/sale?pagesize=100')).body.items as Item[];
    const available = (await call('/properties/residential/sale/available?pagesize=100')).body.items as Item[];
    const published = (await call('/properties/residential/sale/available?published=true&pagesize=100')).body.items as Item[];
    const current = all.filter((item) => ['listing', 'conditional'].includes(item.status)).map((item) => item.id);
    expect(available.map((item) => item.id)).toEqual(current);
    expect(available.every((item) => item.publishedToWeb === null)).toBe(true);
    const onTheWeb = sim.state.listings
      .filter((listing) => listing.propertyClass === 'residential' && listing.market === 'sale' && listing.publishedToWeb !== null)
      .map((listing) => listing.id);
    const offMarket = current.filter((id) => !onTheWeb.includes(id));
    expect(offMarket.length).toBeGreaterThan(0);
    expect(published.map((item) => item.id)).toEqual(current.filter((id) => onTheWeb.includes(id)));
    expect(all.some((item) => item.status === 'settled' && item.publishedToWeb !== null)).toBe(true);
  });

  it('sorts by searchPrice in either order', async () => {
    const asc = (await call('/properties/residential/sale?sort=searchPrice&sortOrder=asc&pagesize=100')).body.items.map(
      (item: { searchPrice: number }) => item.searchPrice,
    );
    const desc = (await call('/properties/residential/sale?sort=searchPrice&sortOrder=desc&pagesize=100')).body.items.map(
      (item: { searchPrice: number }) => item.searchPrice,
    );
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    expect(desc).toEqual([...asc].reverse());
  });

  it('lists sold homes with their confidential saleDetails', async () => {
    const { body } = await call('/properties/residential/sale/sold?pagesize=100');
    expect(body.totalItems).toBeGreaterThan(0);
    for (const item of body.items) {
      expect(['unconditional', 'settled']).toContain(item.status);
      expect(item.saleDetails).toMatchObject({ salePrice: expect.any(Number), grossCommissionExcGST: expect.any(Number), commissionSplits: expect.any(Array) });
    }
    const withConditional = await call('/properties/residential/sale/sold?includeConditional=true&pagesize=100');
    const conditionalHomes = sim.state.listings.filter(
      (listing) => listing.propertyClass === 'residential' && listing.market === 'sale' && listing.status === 'conditional',
    ).length;
    expect(conditionalHomes).toBeGreaterThan(0);
    expect(withConditional.body.totalItems).toBe(body.totalItems + conditionalHomes);
  });

  it('serves land, commercial and rural /available lists, with contactStaff as ids for land and commercial', async () => {
    for (const path of [
      '/properties/land/sale/available',
      '/properties/commercial/sale/available',
      '/properties/commercial/lease/available',
      '/properties/rural/sale/available',
    ]) {
      const { status, body } = await call(path);
      expect(status, path).toBe(200);
      expect(body.totalItems, path).toBeGreaterThan(0);
    }
    const land = (await call('/properties/land/sale/available')).body.items[0];
    expect(land.class.internalName).toBe('land');
    expect(land.contactStaff[0]).toEqual({ id: expect.any(Number) });
    const rural = (await call('/properties/rural/sale/available')).body.items[0];
    expect(rural.landArea.units).toBe('hectare');
  });

  it('answers single records with the extended fields, and 404 across classes or for unknown ids', async () => {
    // A property only for sale (one property is offered for sale and for lease: see the next test).
    const forSaleOnly = (candidate: { id: number }) => sim.state.listings.filter((other) => other.id === candidate.id).length === 1;
    const listing = sim.state.listings.find((candidate) => candidate.propertyClass === 'residential' && candidate.market === 'sale' && forSaleOnly(candidate))!;
    const single = await call(`/properties/residential/sale/${listing.id}`);
    expect(single.status).toBe(200);
    expect(single.body.id).toBe(listing.id);
    expect(single.body).toHaveProperty('highlights');
    expect(single.body).toHaveProperty('keys');
    expect((await call(`/properties/residential/lease/${listing.id}`)).status).toBe(404);
    const missing = await call('/properties/residential/sale/999');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ success: false, code: 'NOT_FOUND' });
  });
});

describe('CRM simulator: a property for sale and for lease at once', () => {
  it('lists it in both available lists, each with its own life id, and answers each single record by market', async () => {
    const sale = (await call('/properties/residential/sale/available?published=true&pagesize=100')).body.items as Array<{
      id: number;
      saleLifeId: number;
      leaseLifeId: number | null;
    }>;
    const lease = (await call('/properties/residential/lease/available?published=true&pagesize=100')).body.items as Array<{
      id: number;
      saleLifeId: number | null;
      leaseLifeId: number;
    }>;
    const both = sale.filter((item) => lease.some((other) => other.id === item.id));
    expect(both).toHaveLength(1);
    const id = both[0]!.id;
    const leased = lease.find((item) => item.id === id)!;
    expect(both[0]!.saleLifeId).toEqual(expect.any(Number));
    expect(both[0]!.leaseLifeId).toBeNull();
    expect(leased.leaseLifeId).toEqual(expect.any(Number));
    expect(leased.saleLifeId).toBeNull();
    expect((await call(`/properties/residential/sale/${id}`)).body.saleLifeId).toBe(both[0]!.saleLifeId);
    expect((await call(`/properties/residential/lease/${id}`)).body.leaseLifeId).toBe(leased.leaseLifeId);
  });
});

describe('CRM simulator: changes and modifiedSince', () => {
  it('a change bumps modified, so modifiedSince finds exactly the changed listings', async () => {
    const since = new Date(clock.now().getTime()).toISOString();
    const before = await call(`/properties/residential/sale?modifiedSince=${encodeURIComponent(since)}`);
    expect(before.body.totalItems).toBe(0);

    const [changed, withdrawn] = sim.state.listings.filter(
      (listing) => listing.propertyClass === 'residential' && listing.market === 'sale' && listing.status === 'listing' && listing.publishedToWeb !== null,
    );
    clock.advance(60_000);
    sim.state.changeListing(changed!.id, { fields: { displayPrice: 'Offers over $999,000', searchPrice: 999_000 } });
    sim.state.withdrawListing(withdrawn!.id);

    const after = await call(`/properties/residential/sale?modifiedSince=${encodeURIComponent(since)}`);
    expect(after.body.items.map((item: { id: number }) => item.id).sort()).toEqual([changed!.id, withdrawn!.id].sort());
    const updated = after.body.items.find((item: { id: number }) => item.id === changed!.id);
    expect(updated.displayPrice).toBe('Offers over $999,000');
    expect(Date.parse(updated.modified)).toBe(clock.now().getTime());

    const available = (await call('/properties/residential/sale/available?pagesize=100')).body.items.map((item: { id: number }) => item.id);
    expect(available).not.toContain(withdrawn!.id);
    expect(available).toContain(changed!.id);

    // modifiedBefore is exclusive: the changed ones sit exactly at the new time.
    const older = await call(`/properties/residential/sale?modifiedBefore=${encodeURIComponent(clock.now().toISOString())}&pagesize=100`);
    expect(older.body.items.map((item: { id: number }) => item.id)).not.toContain(changed!.id);
  });

  it('an added listing appears in /available with a fresh modified time', async () => {
    clock.advance(60_000);
    const added = sim.state.addListing({ category: 'residentialLease', fields: { heading: 'Brand new rental' } });
    const { body } = await call(`/properties/residential/lease/available?modifiedSince=${encodeURIComponent(clock.now().toISOString())}`);
    expect(body.items.map((item: { id: number; heading: string }) => [item.id, item.heading])).toEqual([[added.id, 'Brand new rental']]);
  });
});

describe('CRM simulator: open homes and account lists', () => {
  it('lists open homes of current listings within two weeks of the clock', async () => {
    const { body } = await call(`/openHomes?startingAfter=${clock.now().toISOString().slice(0, 10)}&pagesize=100`);
    expect(body.totalItems).toBeGreaterThan(0);
    const horizon = clock.now().getTime() + 14 * 86_400_000;
    for (const openHome of body.items) {
      expect(Date.parse(openHome.start)).toBeGreaterThanOrEqual(Date.parse(`${clock.now().toISOString().slice(0, 10)}T00:00:00Z`));
      expect(Date.parse(openHome.start)).toBeLessThan(horizon);
      expect(Date.parse(openHome.end)).toBeGreaterThan(Date.parse(openHome.start));
      const listing = sim.state.listing(openHome.property.id)!;
      expect(['listing', 'conditional']).toContain(listing.status);
      expect(openHome.user).toMatchObject({ id: expect.any(Number) });
    }
    expect(body.items.some((openHome: { isRental: boolean }) => openHome.isRental)).toBe(true);
  });

  it('lists users (some hidden from the web, with photos), holding area types and enquiry sources', async () => {
    const users = (await call('/account/users')).body.items;
    expect(users.some((user: { showOnWeb: boolean }) => !user.showOnWeb)).toBe(true);
    const withPhoto = users.find((user: { photo: unknown }) => user.photo !== null);
    expect(withPhoto.photo.thumb_360).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/users\//);
    expect((await call('/types/holdingArea')).body.items).toContainEqual({ id: expect.any(Number), source: 'Office Website', apiCode: 'OFFICEWEBSITE' });
    expect((await call('/account/enquirySources')).body.items.length).toBeGreaterThan(3);
  });
});

describe('CRM simulator: deterministic seed', () => {
  it('builds the same account from the same seed and clock, and another from another seed', () => {
    const now = () => new Date('2025-03-14T02:00:00Z');
    const a = createSimulatorApp({ listings: 60, seed: 3, now }).state;
    const b = createSimulatorApp({ listings: 60, seed: 3, now }).state;
    const c = createSimulatorApp({ listings: 60, seed: 4, now }).state;
    expect(JSON.stringify(a.listings)).toBe(JSON.stringify(b.listings));
    expect(JSON.stringify(a.users)).toBe(JSON.stringify(b.users));
    expect(JSON.stringify(a.enquiries)).toBe(JSON.stringify(b.enquiries));
    expect(JSON.stringify(a.listings)).not.toBe(JSON.stringify(c.listings));
  });

  it('sizes the seed by option and covers every category even when small', () => {
    const small = createSimulatorApp({ listings: 8 }).state;
    expect(small.listings).toHaveLength(8);
    const kinds = new Set(small.listings.map((listing) => `${listing.propertyClass}/${listing.market}`));
    expect(kinds).toEqual(new Set(['residential/sale', 'residential/lease', 'land/sale', 'commercial/sale', 'commercial/lease', 'rural/sale']));
    const big = createSimulatorApp({ listings: 2000 }).state;
    expect(big.listings).toHaveLength(2000);
    // Ids are unique per market; one property is offered for sale and for lease at once.
    expect(new Set(big.listings.map((listing) => `${listing.id}/${listing.market}`)).size).toBe(2000);
    const both = big.listings.filter((listing) => big.listings.some((other) => other.id === listing.id && other.market !== listing.market));
    expect(both.map((listing) => listing.market).sort()).toEqual(['lease', 'sale']);
    expect(both[0]!.fields.displayAddress).toBe(both[1]!.fields.displayAddress);
  });
});
