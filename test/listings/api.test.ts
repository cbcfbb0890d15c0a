import { get, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_FILTER_NAMES, LISTING_FILTERS, type FilterSpec } from '../../contract/listing-filters.ts';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';
import { priceRange, shownPriceCents } from '../../server/listings/price-range.ts';
import { startListingRig, type ListingRig } from './rig.ts';

const ALLOWED = 'https://agency.example';

describe('listing API (answers from the cache only)', () => {
  let rig: ListingRig;
  let all: ListingSummary[];

  beforeAll(async () => {
    rig = await startListingRig({ listings: 40, env: { ALLOWED_ORIGINS: ALLOWED, LISTING_CLASSES: 'residential,land,commercial,rural' } });
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
    all = (await rig.get<Page<ListingSummary>>('/api/v1/listings?pageSize=100')).body.items;
    expect(all.length).toBeGreaterThan(10);
  });
  afterAll(async () => {
    await rig?.close();
  });

  const ids = (page: Page<ListingSummary>) => page.items.map((item) => item.id);
  /** What price filters know of a listing: its price, or its band when the price is withheld. */
  const knownPrice = (id: number) => {
    const { fields, market } = rig.simListing(id);
    return priceRange(fields.searchPrice as number, fields.displayPrice as string, market, fields.priceOnApplication as boolean);
  };
  const list = async (query: string) => {
    const response = await rig.get<Page<ListingSummary>>(`/api/v1/listings?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.body;
  };

  it('answers { items, total, page, pageSize }, current listings by default, and pages through them', async () => {
    const first = await list('pageSize=5');
    expect(first).toMatchObject({ total: all.length, page: 1, pageSize: 5 });
    expect(first.items).toHaveLength(5);
    expect(first.items.every((item) => item.status === 'available')).toBe(true);
    const second = await list('pageSize=5&page=2');
    expect(ids(second)).toEqual(all.slice(5, 10).map((item) => item.id));
    const beyond = await list('pageSize=5&page=999');
    expect(beyond.items).toEqual([]);
    expect(beyond.total).toBe(all.length);
  });

  it('filters by type, suburb, property type, rooms, cars, agent and price', async () => {
    const sale = await list('type=sale&pageSize=100');
    expect(sale.items.length).toBeGreaterThan(0);
    expect(sale.items.every((item) => item.type === 'sale')).toBe(true);
    const lease = await list('type=lease&pageSize=100');
    expect(sale.total + lease.total).toBe(all.length);

    const suburb = all[0].address.suburb!;
    const bySuburb = await list(`suburb=${encodeURIComponent(suburb.toUpperCase())}&pageSize=100`);
    expect(bySuburb.items.length).toBeGreaterThan(0);
    expect(bySuburb.items.every((item) => item.address.suburb === suburb)).toBe(true);

    const houses = await list('propertyType=house&pageSize=100');
    expect(houses.items.length).toBeGreaterThan(0);
    expect(houses.items.every((item) => item.propertyType === 'House')).toBe(true);

    const big = await list('minBeds=4&minBaths=2&minCars=1&pageSize=100');
    expect(big.items.every((item) => item.bed! >= 4 && item.bath! >= 2 && item.cars! >= 1)).toBe(true);
    expect(big.total).toBe(all.filter((item) => item.bed! >= 4 && item.bath! >= 2 && item.cars! >= 1).length);

    const detail = (await rig.get<ListingDetail>(`/api/v1/listings/${all[0].id}`)).body;
    const agentId = detail.agents[0].id;
    const byAgent = await list(`agentId=${agentId}&pageSize=100`);
    expect(ids(byAgent)).toContain(all[0].id);
    for (const item of byAgent.items) {
      expect((await rig.get<ListingDetail>(`/api/v1/listings/${item.id}`)).body.agents.map((agent) => agent.id)).toContain(agentId);
    }

    // Prices are filtered on the CRM's searchPrice (a withheld one by its band), which the answers never show.
    const range = await list('type=sale&minPrice=900000&maxPrice=2000000&pageSize=100');
    expect(range.items.length).toBeGreaterThan(0);
    const overlaps = (id: number) => {
      const known = knownPrice(id)!;
      return known.lowCents <= 200_000_000 && (known.highCents === null || known.highCents >= 90_000_000);
    };
    for (const item of range.items) expect(overlaps(item.id)).toBe(true);
    const outside = sale.items.filter((item) => !ids(range).includes(item.id));
    for (const item of outside) expect(knownPrice(item.id) === null || !overlaps(item.id)).toBe(true);
  });

  it('sorts by price both ways, newest, suburb and land area', async () => {
    // By the price the card shows (a range by its lower bound), never by the CRM's searchPrice; no shown amount: last.
    const shown = (item: ListingSummary) => shownPriceCents(item.displayPrice);
    for (const [sort, direction] of [
      ['price', 1],
      ['-price', -1],
    ] as const) {
      const items = (await list(`type=sale&sort=${sort}&pageSize=100`)).items;
      const priced = items.filter((item) => shown(item) !== null);
      expect(priced.length).toBeGreaterThan(1);
      expect(items.slice(priced.length).every((item) => shown(item) === null)).toBe(true);
      const amounts = priced.map((item) => shown(item)!);
      expect(amounts).toEqual([...amounts].sort((a, b) => direction * (a - b)));
    }
    const inserted = ids(await list('sort=newest&pageSize=100')).map((id) => rig.simListing(id).inserted);
    expect(inserted).toEqual([...inserted].sort((a, b) => b - a));
    const suburbs = (await list('sort=suburb&pageSize=100')).items.map((item) => item.address.suburb ?? '');
    expect(suburbs).toEqual([...suburbs].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })));
    const land = (await list('sort=landArea&pageSize=100')).items;
    const withArea = land.filter((item) => item.landArea);
    // Largest first (hectares counted as 10,000 m²), listings without a land area last.
    expect(land.slice(withArea.length).every((item) => item.landArea === null)).toBe(true);
    const squareMetres = withArea.map((item) => item.landArea!.value * (item.landArea!.units.startsWith('hect') ? 10_000 : 1));
    expect(squareMetres).toEqual([...squareMetres].sort((a, b) => b - a));
  });

  it("takes every filter of the contract's table, each one acting on the answer", async () => {
    const sample = (spec: FilterSpec): string =>
      spec.kind === 'choice'
        ? spec.values[0]!
        : spec.kind === 'text' || spec.kind === 'list'
          ? 'Nowhere'
          : spec.kind === 'money'
            ? '1000000'
            : spec.kind === 'bbox'
              ? '144.9,-37.9,145.1,-37.7'
              : spec.kind === 'area'
                ? '-37.7,144.9;-37.7,145.1;-37.9,145.1;-37.9,144.9'
                : '1';
    for (const name of LISTING_FILTER_NAMES) {
      const query = `${name}=${encodeURIComponent(sample(LISTING_FILTERS[name]))}&pageSize=100`;
      const answer = await list(query);
      // A filter that reached the SQL narrows or reorders something; a sort reorders, the rest narrow.
      // `surrounding` only widens a suburb filter: alone it keeps every listing.
      if (name !== 'sort' && name !== 'status' && name !== 'surrounding') expect(answer.total, query).toBeLessThan(all.length);
    }
  });

  it('refuses bad parameters with a 400 naming each one', async () => {
    const cases: Array<[string, string[]]> = [
      ['pageSize=101', ['pageSize']],
      ['pageSize=0&page=0', ['pageSize', 'page']],
      ['type=rent', ['type']],
      ['status=gone', ['status']],
      ['sort=cheapest', ['sort']],
      ['minPrice=abc&minBeds=-1', ['minPrice', 'minBeds']],
      ['minPrice=500&maxPrice=100', ['maxPrice']],
      ['agentId=1.5', ['agentId']],
      ['minBed=3', ['minBed']],
      ['type=sale&type=lease', ['type']],
      [`suburb=${'x'.repeat(200)}`, ['suburb']],
    ];
    for (const [query, names] of cases) {
      const response = await rig.get(`/api/v1/listings?${query}`);
      expect(response.status, query).toBe(400);
      expect(Object.keys(response.body.fields).sort(), query).toEqual([...names].sort());
      expect(response.body.error).toBe('invalid_query');
    }
    expect((await rig.get('/api/v1/listings/abc')).status).toBe(400);
    expect((await rig.get('/api/v1/listings/999999999')).status).toBe(404);
  });

  it('answers the full detail: photos with srcsets, floorplans, links, open homes, auction, agents, features, areas', async () => {
    const withEverything = rig.sim.state.listings.find(
      (listing) =>
        listing.propertyClass === 'residential' &&
        listing.status === 'listing' &&
        listing.publishedToWeb !== null &&
        listing.openHomeSlots.length > 0 &&
        listing.photos.some((photo) => photo.type === 'Floorplan' && photo.published),
    )!;
    const { body: detail, status } = await rig.get<ListingDetail>(`/api/v1/listings/${withEverything.id}`);
    expect(status).toBe(200);
    expect(detail.photos.length).toBe(withEverything.photos.filter((photo) => photo.published && photo.type === 'Photograph').length);
    expect(detail.floorplans.length).toBe(withEverything.photos.filter((photo) => photo.published && photo.type === 'Floorplan').length);
    const photo = detail.photos[0];
    expect(photo.width).toBeGreaterThan(0);
    expect(photo.height).toBeGreaterThan(0);
    expect(photo.srcset.webp).toMatch(/\/photos\/[0-9a-f]{32}-240\.webp 240w, .*-480\.webp 480w$/);
    expect(photo.srcset.jpeg).toMatch(/-240\.jpg 240w, .*-480\.jpg 480w$/);
    expect(photo.variants).toHaveLength(4);
    expect(detail.photo).toEqual(photo);
    expect(detail.photoCount).toBe(detail.photos.length);
    expect(detail.openHomes.length).toBeGreaterThan(0);
    expect(Date.parse(detail.openHomes[0].end)).toBeGreaterThan(Date.now());
    expect(detail.agents.length).toBeGreaterThan(0);
    expect(detail.agents[0]).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      position: expect.any(String),
      // AGENT_DIRECT_CONTACT unset: the agent's office line, never their own mobile or e-mail.
      phone: expect.stringMatching(/^\(0[23]\) 5550 \d{4}$/),
      email: null,
      photo: expect.objectContaining({ srcset: expect.any(Object) }),
    });
    expect(detail.description).toContain('\n');
    expect(detail.description).not.toMatch(/&#x2022;|&amp;|\r/);
    expect(detail.landArea ?? detail.floorArea).toMatchObject({ value: expect.any(Number), units: expect.any(String) });
    expect(detail.features).toEqual(expect.any(Array));

    const auctioned = rig.sim.state.listings.find(
      (listing) =>
        listing.publishedToWeb !== null &&
        listing.status === 'listing' &&
        listing.propertyClass === 'residential' &&
        (listing.fields.auctionDetails as { dateTime: string | null } | undefined)?.dateTime,
    );
    if (auctioned) {
      const auction = (await rig.get<ListingDetail>(`/api/v1/listings/${auctioned.id}`)).body;
      expect(auction.auction).toMatchObject({ dateTime: expect.any(String), venue: expect.any(String) });
      expect(auction.auctionDateTime).toBe(auction.auction!.dateTime);
    }
    const linked = rig.sim.state.listings.find(
      (listing) => listing.publishedToWeb !== null && listing.status === 'listing' && (listing.fields.externalLinks as unknown[]).length > 0,
    );
    if (linked) {
      const links = (await rig.get<ListingDetail>(`/api/v1/listings/${linked.id}`)).body.links;
      expect(links[0]).toEqual({ url: expect.stringMatching(/^https:\/\//), kind: expect.any(String) });
    }
  });

  it('lists the agents shown on the web with their portraits', async () => {
    const { body } = await rig.get('/api/v1/agents');
    expect(body.items.length).toBe(rig.sim.state.users.filter((user) => user.showOnWeb).length);
    const withPortrait = body.items.find((agent: { photo: unknown }) => agent.photo);
    expect(withPortrait.photo.url).toMatch(/\/photos\/[0-9a-f]{32}-\d+\.jpg$/);
  });

  it('sends strong ETags, answers 304 to a matching If-None-Match, and lets caches serve stale while revalidating', async () => {
    for (const path of ['/api/v1/listings?type=sale', `/api/v1/listings/${all[0].id}`, '/api/v1/agents']) {
      const first = await rig.get(path);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(first.headers.get('cache-control')).toMatch(/public, max-age=\d+, stale-while-revalidate=\d+/);
      const again = await rig.get(path);
      expect(again.headers.get('etag')).toBe(etag);
      const revalidated = await rig.get(path, { 'If-None-Match': etag });
      expect(revalidated.status).toBe(304);
      expect(revalidated.text).toBe('');
      expect((await rig.get(path, { 'If-None-Match': '"other"' })).status).toBe(200);
    }
  });

  it('sends each answer as brotli, gzip or plain as the request accepts, with Vary, the same bytes until the cache changes', async () => {
    /** The bytes on the wire, undecoded. */
    const raw = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        get(`${rig.relay.url}${path}`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (part: Buffer) => chunks.push(part));
          response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) }));
        }).on('error', reject);
      });
    for (const path of ['/api/v1/listings?type=sale&pageSize=24', `/api/v1/listings/${all[1].id}`, '/api/v1/agents']) {
      const plain = await raw(path);
      expect(plain.headers['content-encoding'], path).toBeUndefined();
      expect(plain.headers.vary, path).toMatch(/Accept-Encoding/i);
      const browser = await raw(path, { 'Accept-Encoding': 'br, gzip' });
      expect(browser.headers['content-encoding'], path).toBe('br');
      expect(browser.headers['content-type'], path).toMatch(/^application\/json/);
      expect(browser.headers.vary, path).toMatch(/Accept-Encoding/i);
      expect(brotliDecompressSync(browser.body).equals(plain.body), path).toBe(true);
      expect((await raw(path, { 'Accept-Encoding': 'br, gzip' })).body.equals(browser.body), path).toBe(true);
      const gzip = await raw(path, { 'Accept-Encoding': 'gzip' });
      expect(gzip.headers['content-encoding'], path).toBe('gzip');
      expect(gunzipSync(gzip.body).equals(plain.body), path).toBe(true);
      expect(new Set([plain.headers.etag, browser.headers.etag, gzip.headers.etag]).size, path).toBe(3);
      for (const etag of [plain.headers.etag, browser.headers.etag, gzip.headers.etag]) {
        expect((await raw(path, { 'Accept-Encoding': 'br, gzip', 'If-None-Match': etag! })).status, path).toBe(304);
      }
      // Sent again from memory (server/http/response-cache.ts), an answer keeps every header Express gave it,
      // helmet's and CORS's included; another origin is decided again.
      const fromPage = await raw(path, { 'Accept-Encoding': 'br, gzip', Origin: ALLOWED });
      const fromPageAgain = await raw(path, { 'Accept-Encoding': 'br, gzip', Origin: ALLOWED });
      const { date: _date, 'x-listings-age': _age, ...pageHeaders } = fromPage.headers;
      const { date: _dateAgain, 'x-listings-age': _ageAgain, ...pageHeadersAgain } = fromPageAgain.headers;
      expect(pageHeadersAgain, path).toEqual(pageHeaders);
      expect(pageHeadersAgain['access-control-allow-origin'], path).toBe(ALLOWED);
      expect(pageHeadersAgain['content-security-policy'], path).toBeDefined();
      expect(fromPageAgain.headers['x-listings-age'], path).toMatch(/^\d+$/);
      expect(fromPageAgain.body.equals(browser.body), path).toBe(true);
      expect((await raw(path, { 'Accept-Encoding': 'br, gzip', Origin: 'https://evil.example' })).status, path).toBe(403);
    }
  });

  it('a change in the CRM changes the ETag after the next sync', async () => {
    const id = all[0].id;
    const before = (await rig.get(`/api/v1/listings/${id}`)).headers.get('etag');
    // The list's rendered answer has no time in its key: only the sync's invalidation can refresh it.
    const listBefore = await rig.get<Page<ListingSummary>>('/api/v1/listings?pageSize=100');
    rig.sim.state.changeListing(rig.simListing(id).id, { fields: { heading: 'Price reduced' } });
    await rig.relay.listings.sync.run('incremental');
    const after = await rig.get(`/api/v1/listings/${id}`, { 'If-None-Match': before! });
    expect(after.status).toBe(200);
    expect(after.body.heading).toBe('Price reduced');
    const listAfter = await rig.get<Page<ListingSummary>>('/api/v1/listings?pageSize=100', { 'If-None-Match': listBefore.headers.get('etag')! });
    expect(listAfter.status).toBe(200);
    expect(listAfter.body.items.find((item) => item.id === id)?.heading).toBe('Price reduced');
  });

  it('makes no CRM request to answer any of these', async () => {
    const before = rig.crmRequests();
    for (let round = 0; round < 3; round++) {
      await rig.get('/api/v1/listings?sort=price&minBeds=2');
      await rig.get(`/api/v1/listings/${all[round].id}`);
      await rig.get('/api/v1/agents');
      await rig.get('/api/v1/listings/123');
    }
    expect(rig.crmRequests()).toBe(before);
  });

  it('answers the origins in ALLOWED_ORIGINS and refuses others', async () => {
    const allowed = await rig.get('/api/v1/listings', { Origin: ALLOWED });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('access-control-expose-headers')).toContain('ETag');
    expect((await rig.get('/api/v1/agents', { Origin: 'https://elsewhere.example' })).status).toBe(403);
  });

  it('serves photos to any origin, immutable for a year', async () => {
    const detail = (await rig.get<ListingDetail>(`/api/v1/listings/${all[0].id}`)).body;
    for (const variant of detail.photos[0].variants) {
      expect(variant.url.startsWith(`${rig.publicUrl}/photos/`)).toBe(true);
      const response = await fetch(rig.toRelay(variant.url), { headers: { Origin: 'https://any-site.example' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(variant.format === 'webp' ? 'image/webp' : 'image/jpeg');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect(metadata.format).toBe(variant.format);
      expect(metadata.width).toBe(variant.width);
    }
    expect((await fetch(`${rig.relay.url}/photos/..%2F..%2Frelay.db`)).status).toBe(404);
    expect((await fetch(`${rig.relay.url}/photos/${'a'.repeat(32)}-480.webp`)).status).toBe(404);
  });
});

describe('listing API before the first sync has filled the cache', () => {
  let rig: ListingRig;
  beforeAll(async () => {
    rig = await startListingRig({ listings: 6, env: { ALLOWED_ORIGINS: ALLOWED } });
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('answers 503 with Retry-After and state "filling" (never an empty page), then the listings once filled', async () => {
    for (const path of ['/api/v1/listings', '/api/v1/listings/1', '/api/v1/agents']) {
      const waiting = await rig.get(path, { Origin: ALLOWED });
      expect(waiting.status, path).toBe(503);
      expect(waiting.body).toMatchObject({ error: 'listings_filling', state: 'filling', retryAfterSeconds: 5 });
      expect(waiting.headers.get('retry-after')).toBe('5');
      expect(waiting.headers.get('cache-control')).toBe('no-store');
      // A page on another origin must be able to read when to ask again.
      expect(waiting.headers.get('access-control-allow-origin')).toBe(ALLOWED);
      expect(waiting.headers.get('access-control-expose-headers')).toContain('Retry-After');
    }
    const report = await rig.relay.listings.sync.run('full');
    expect(report.error).toBeUndefined();
    const filled = await rig.get<Page<ListingSummary>>('/api/v1/listings');
    expect(filled.status).toBe(200);
    expect(filled.body.items.length).toBeGreaterThan(0);
  });
});
