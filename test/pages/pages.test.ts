// Issue #13: server-rendered listing pages, as a crawler or a chat app reads them (plain HTTP, no
// browser). A whole relay in demo mode (embedded CRM simulator, real SQLite, real HTTP), with the
// agency's site named by SITE_URL and its pages mapped under SITE_LISTING_PATH=/property.
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import sharp from 'sharp';
import { validateXML } from 'xmllint-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListingDetail, ListingSummary, Page, Team } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { buildWidgetBundle, waitForListingsAndPhotos } from '../support/browser.ts';
import { startTestRelay, type TestRelay } from '../support/relay-fixture.ts';
import { lastsBeyond } from '../support/test-clock.ts';

const SITE = 'https://harbour-yarra.example';
const WRAPPER = `<!doctype html><html lang="en-AU"><head><meta charset="utf-8"><title>Agency home</title>
<meta name="description" content="The agency's own description"><link rel="canonical" href="https://harbour-yarra.example/">
<meta property="og:title" content="Agency"><link rel="stylesheet" href="/agency.css"></head>
<body><header id="agency-header">Harbour &amp; Yarra<nav aria-label="Main"><a href="/" aria-current="page">Home</a> <a href="/buy">Buy</a> <a href='https://harbour-yarra.example/rent'>Rent</a> <a href="/property/sold">Sold</a> <a href="https://elsewhere.example/property/sold">Partner</a></nav></header><main><!-- estate-embed --></main><footer id="agency-footer">ABN 1</footer></body></html>`;

let relay: TestRelay;
let wrapperSite: Server;
let wrapperRequests = 0;
let widgetDir: string | undefined;

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${relay.url}${path}`, { headers, redirect: 'manual' });
}

async function text(path: string): Promise<string> {
  const response = await get(path);
  expect(response.status, path).toBe(200);
  return response.text();
}

function attribute(html: string, pattern: RegExp): string {
  const match = html.match(pattern);
  if (!match) throw new Error(`no ${pattern} in the page`);
  return match[1]!
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

const metaContent = (html: string, key: string) => attribute(html, new RegExp(`<meta (?:name|property)="${key.replace(/[:]/g, '\\:')}" content="([^"]*)"`));

async function listing(query: string): Promise<ListingDetail> {
  const page = (await (await get(`/api/v1/listings?${query}&pageSize=1`)).json()) as Page<ListingSummary>;
  expect(page.items.length, query).toBe(1);
  return (await (await get(`/api/v1/listings/${page.items[0]!.id}`)).json()) as ListingDetail;
}

const pagePath = (detail: Pick<ListingSummary, 'id' | 'address'>) => `/listings/${detail.id}/${addressSlug(detail.address.display)}`;

beforeAll(async () => {
  wrapperSite = createServer((_req, res) => {
    wrapperRequests += 1;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(WRAPPER);
  });
  await new Promise<void>((resolve) => wrapperSite.listen(0, '127.0.0.1', resolve));
  const wrapperUrl = `http://127.0.0.1:${(wrapperSite.address() as AddressInfo).port}/listing-shell`;
  relay = await startTestRelay(
    { SITE_URL: SITE, SITE_LISTING_PATH: '/property', SITE_WRAPPER_URL: wrapperUrl, SITE_NAME: 'Harbour & Yarra Property', SIM_LISTINGS: '80' },
    // The widget as npm start builds it: the pages render from its server copy of the elements.
    { maxUrlsPerSitemap: 20, app: { widgetDir: (widgetDir = await buildWidgetBundle()) } },
  );
  await waitForListingsAndPhotos(relay);
}, 120_000);

afterAll(async () => {
  await relay?.close();
  if (widgetDir) rmSync(widgetDir, { recursive: true, force: true });
  await new Promise((resolve) => wrapperSite?.close(resolve));
});

describe('a listing page read without a browser', () => {
  it('has the title with address and price as written, the description, the canonical on the agency domain, and the agency wrapper', async () => {
    const detail = await listing('type=sale');
    const html = await text(pagePath(detail));
    expect(attribute(html, /<title>([^<]*)<\/title>/)).toBe(`${detail.address.display} · ${detail.displayPrice} · Harbour & Yarra Property`);
    expect(html.match(/<title>/g)).toHaveLength(1); // the wrapper's own title is gone
    const description = metaContent(html, 'description');
    expect(description.length).toBeGreaterThan(40);
    expect(description.length).toBeLessThanOrEqual(160);
    expect(detail.description!.replace(/\s+/g, ' ')).toContain(description.replace(/…$/, '').slice(0, 40));
    expect(attribute(html, /<link rel="canonical" href="([^"]*)"/)).toBe(`${SITE}/property/${detail.id}/${addressSlug(detail.address.display)}`);
    expect(html).toContain('<header id="agency-header">');
    expect(html).toContain('<footer id="agency-footer">');
    expect(html).not.toContain("The agency's own description");
    // An English page (SITE_LANGUAGE's default): its <html lang>, and no words carried (the elements have English's).
    expect(html).toMatch(/<html lang="en-AU">/);
    expect(html).not.toContain('data-estate-translation');
    // One language: no versions to name, no switcher.
    expect(html).not.toContain('hreflang');
    expect(html).not.toContain('estate-languages');
    // The element, server-rendered into declarative shadow DOM, with the address as its heading.
    expect(html).toMatch(/<estate-listing[^>]*><template shadowroot="open" shadowrootmode="open">/);
    expect(html).toMatch(new RegExp(`<h1[^>]*part="title"[^>]*>(<!--[^>]*-->)*${detail.address.display.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    // Similar homes and recently viewed after it, rendered in the browser (no shadow root from the server), linking listing pages.
    const detailHref = `/property/{id}/{slug}`;
    expect(html).toMatch(
      new RegExp(`</estate-listing>[\\s\\S]*<estate-similar-listings [^>]*listing-id="${detail.id}" detail-href="${detailHref}"></estate-similar-listings>`),
    );
    expect(html).toMatch(new RegExp(`<estate-recently-viewed [^>]*exclude-id="${detail.id}" detail-href="${detailHref}"></estate-recently-viewed>`));
  });

  it('renders from the templates the browser has: minified as the widget build minifies them', async () => {
    const html = await text(pagePath(await listing('type=sale')));
    const shadow = attribute(html, /<estate-listing[^>]*><template shadowroot="open" shadowrootmode="open">([\s\S]*?)<\/template><\/estate-listing>/);
    expect(shadow).toContain('part="title"');
    // The source's templates are indented (a newline and spaces between tags); Lit's minifier
    // removes that, in the browser's chunks and in the server copy alike, or the browser's render over
    // the server's markup would differ from it.
    expect(shadow).not.toMatch(/>\n\s+</);
    expect(shadow).not.toMatch(/<style>[^<]*\n\s+--/);
  });

  it("loads no script but widget.js: the elements take over their server markup without Lit's hydration", async () => {
    const html = await text(pagePath(await listing('type=sale')));
    const scripts = [...html.matchAll(/<(?:link rel="modulepreload" href|script type="module" src)="([^"]+)"/g)].map((match) => match[1]!);
    // Every chunk the page needs comes through the loader, checked against the hashes it carries.
    expect(scripts).toEqual([expect.stringMatching(/\/widget\.js$/)]);
    // The element's properties follow it as JSON: it reads them itself (widget/shared/estate-element.ts).
    expect(html).toMatch(/<\/estate-listing>(<!--[^>]*-->|\s)*<script type="application\/json" data-estate-ssr>/);
    expect(await (await get('/widget.js')).text()).not.toContain('hydrate');
  });

  it('has Open Graph and Twitter tags with the first photo, absolute, whose size is the one it says', async () => {
    const detail = await listing('type=sale');
    const html = await text(pagePath(detail));
    expect(metaContent(html, 'og:url')).toBe(`${SITE}/property/${detail.id}/${addressSlug(detail.address.display)}`);
    expect(metaContent(html, 'og:title')).toContain(detail.address.display);
    expect(metaContent(html, 'twitter:card')).toBe('summary_large_image');
    const image = metaContent(html, 'og:image');
    expect(image).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/photos\/[0-9a-f]+-\d+\.jpg$/);
    expect(metaContent(html, 'twitter:image')).toBe(image);
    const photo = await fetch(image);
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/jpeg');
    const size = await sharp(Buffer.from(await photo.arrayBuffer())).metadata();
    expect(Number(metaContent(html, 'og:image:width'))).toBe(size.width);
    expect(Number(metaContent(html, 'og:image:height'))).toBe(size.height);
    // The first published photo of the listing.
    expect(image).toContain(detail.photos[0]!.url.match(/photos\/([0-9a-f]+)-/)![1]);
  });

  it('has JSON-LD that parses: the listing, its offer with the price text, open homes as events, the agency', async () => {
    const page = (await (await get('/api/v1/listings?type=sale&pageSize=100')).json()) as Page<ListingSummary>;
    let detail: ListingDetail | undefined;
    for (const item of page.items) {
      const candidate = (await (await get(`/api/v1/listings/${item.id}`)).json()) as ListingDetail;
      // None that could end between reading the listing and its page (it would be left out of the page).
      if (candidate.openHomes.length && candidate.openHomes.every(lastsBeyond(5 * 60_000))) {
        detail = candidate;
        break;
      }
    }
    expect(detail, 'a listing with open homes').toBeDefined();
    const html = await text(pagePath(detail!));
    const scripts = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(1);
    const data = JSON.parse(scripts[0]![1]!) as { '@context': string; '@graph': Array<Record<string, unknown>> };
    expect(data['@context']).toBe('https://schema.org');
    const byType = (type: string) => data['@graph'].filter((node) => node['@type'] === type);
    const [item] = byType('RealEstateListing');
    expect(item!.url).toBe(`${SITE}/property/${detail!.id}/${addressSlug(detail!.address.display)}`);
    expect((item!.offers as Record<string, unknown>).description).toBe(detail!.displayPrice);
    expect(byType('Event').map((event) => event.startDate)).toEqual(detail!.openHomes.map((openHome) => openHome.start));
    expect(byType('Event')[0]).toMatchObject({ name: `Open home: ${detail!.address.display}`, description: `Inspection of ${detail!.address.display}` });
    expect(byType('RealEstateAgent')[0]).toMatchObject({ name: 'Harbour & Yarra Property', url: `${SITE}/` });
  });

  it('carries exactly the public listing the API serves (no withheld price, no confidential field), for the browser to take over', async () => {
    const detail = await listing('type=sale');
    const html = await text(pagePath(detail));
    const data = JSON.parse(attribute(html, /<script type="application\/json" data-estate-ssr>([\s\S]*?)<\/script>/).replace(/\\u003c/g, '<')) as {
      listing: ListingDetail;
    };
    expect(data.listing).toEqual(detail);
  });

  it('answers with a strong ETag, 304 when it matches, and precompressed brotli and gzip bodies of the same page', async () => {
    const detail = await listing('type=lease');
    const path = pagePath(detail);
    const plain = await get(path, { 'Accept-Encoding': 'identity' });
    const body = Buffer.from(await plain.arrayBuffer());
    const etag = plain.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await get(path, { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    // fetch() decodes by itself: read the raw bytes through node:http instead.
    for (const encoding of ['br', 'gzip'] as const) {
      const raw = await rawGet(`${relay.url}${path}`, encoding);
      expect(raw.headers['content-encoding']).toBe(encoding);
      // Each coding's bytes have their own strong validator (server/http/precompressed.ts); any of them answers 304.
      expect(raw.headers.etag).toBe(`${etag.slice(0, -1)}-${encoding}"`);
      expect((await get(path, { 'If-None-Match': String(raw.headers.etag) })).status).toBe(304);
      expect(raw.headers.vary).toMatch(/Accept-Encoding/i);
      expect((encoding === 'br' ? brotliDecompressSync(raw.body) : gunzipSync(raw.body)).equals(body)).toBe(true);
      expect(raw.body.length).toBeLessThan(body.length / 3);
    }
  });

  it('sends an old or wrong address, and a bare id, to the one canonical path', async () => {
    const detail = await listing('type=sale');
    for (const path of [`/listings/${detail.id}/old-address`, `/listings/${detail.id}`]) {
      const response = await get(path);
      expect(response.status, path).toBe(301);
      expect(response.headers.get('location')).toBe(`/property/${detail.id}/${addressSlug(detail.address.display)}`);
    }
  });
});

describe('lifecycle', () => {
  it('an unknown id is 404, not indexed, with links to current listings', async () => {
    const response = await get('/listings/999999999/nowhere');
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).toMatch(/<a href="\/property\/\d+\/[a-z0-9-]+">/);
  });

  it('a sold listing stays a page that says sold', async () => {
    const detail = await listing('status=sold');
    const html = await text(pagePath(detail));
    expect(html).toMatch(/part="badge badge-sold"/);
    expect(attribute(html, /<link rel="canonical" href="([^"]*)"/)).toContain(`/property/${detail.id}/`);
  });

  it('a withdrawn listing answers 410 Gone with links to current listings', async () => {
    const detail = await listing('type=sale&sort=price');
    const id = detail.id;
    expect((await get(pagePath(detail))).status).toBe(200);
    // The published pages are recorded a moment after each change of the cache.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // A listing is one sale life of a CRM property: the simulator's control surface names the property.
    const sim = relay.simulator!.origin;
    const { items: records } = (await (await fetch(`${sim}/__sim/listings`)).json()) as { items: Array<{ id: number; market: string; lifeId: number }> };
    const record = records.find((candidate) => candidate.market === 'sale' && candidate.lifeId * 2 === id)!;
    expect((await fetch(`${sim}/__sim/listings/${record.id}/withdraw?market=sale`, { method: 'POST' })).status).toBe(200);
    // The simulator's webhook takes the listing out of the cache within seconds.
    let response = await get(pagePath(detail));
    for (const deadline = Date.now() + 10_000; response.status === 200 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      response = await get(pagePath(detail));
    }
    expect(response.status).toBe(410);
    const html = await response.text();
    expect(html).toContain('no longer listed');
    expect(html).toContain('<meta name="robots" content="noindex">');
    expect(html).toMatch(/<a href="\/property\/\d+\/[a-z0-9-]+">/);
    expect(html).not.toContain(`/property/${id}/`);
  });
});

describe('list pages', () => {
  it('render their first page of cards on the server, with real links to the listings and to every page', async () => {
    const api = (await (await get('/api/v1/listings?type=sale&status=available&pageSize=12')).json()) as Page<ListingSummary>;
    expect(api.total).toBeGreaterThan(12);
    const html = await text('/listings/buy');
    expect(attribute(html, /<title>([^<]*)<\/title>/)).toBe('Homes for sale · Harbour & Yarra Property');
    const links = [...html.matchAll(/part="card-link" class="card-link" href="([^"]*)"/g)].map((match) => match[1]);
    expect(links).toEqual(api.items.map((item) => `/property/${item.id}/${addressSlug(item.address.display)}`));
    expect(html).toMatch(/<a href="\/property\/buy\?page=2" rel="next">Next<\/a>/);
    const second = await text('/listings/buy?page=2');
    expect(attribute(second, /<link rel="canonical" href="([^"]*)"/)).toBe(`${SITE}/property/buy?page=2`);
    expect(second).toMatch(/<a href="\/property\/buy" rel="prev">Previous<\/a>/);
    const pages = Math.ceil(api.total / 12);
    expect((await get(`/listings/buy?page=${pages + 1}`)).status).toBe(404);
    expect((await get('/listings/buy?page=two')).status).toBe(400);
  });

  it("take a campaign's link (utm_*, click ids) as the page without them, and still refuse other parameters", async () => {
    const plain = await text('/listings/buy?page=2');
    const campaign = await get('/listings/buy?page=2&utm_source=newsletter&utm_medium=email&utm_campaign=spring&gclid=abc123&fbclid=xyz');
    expect(campaign.status).toBe(200);
    const html = await campaign.text();
    expect(html).toBe(plain);
    expect(attribute(html, /<link rel="canonical" href="([^"]*)"/)).toBe(`${SITE}/property/buy?page=2`);
    expect((await get('/listings/buy?minBeds=3')).status).toBe(400);
  });

  it('have per-suburb pages linked from the list', async () => {
    const html = await text('/listings/rent');
    const suburbLink = attribute(html, /<nav class="estate-suburbs"[\s\S]*?<a href="\/property\/rent\/([a-z0-9-]+)">/);
    const suburbPage = await text(`/listings/rent/${suburbLink}`);
    expect(attribute(suburbPage, /<h1 class="estate-page-title">([^<]*)<\/h1>/)).toMatch(/^Homes for rent in /);
    expect((await get('/listings/rent/atlantis')).status).toBe(404);
  });
});

describe('sitemaps', () => {
  it('past the per-file limit, /sitemap.xml is an index of parts holding every list page and every listing, valid against the sitemap schemas', async () => {
    const index = await text('/sitemap.xml');
    const indexCheck = await validateXML({
      xml: { fileName: 'index.xml', contents: index },
      schema: readFileSync(join(import.meta.dirname, 'siteindex.xsd'), 'utf8'),
    });
    expect(indexCheck.errors).toEqual([]);
    const parts = [...index.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]!);
    expect(parts[0]).toBe(`${SITE}/property/sitemap-1.xml`);
    const urls: string[] = [];
    for (const part of parts) {
      const xml = await text(new URL(part).pathname.replace(/^\/property/, '/listings'));
      const check = await validateXML({ xml: { fileName: 'part.xml', contents: xml }, schema: readFileSync(join(import.meta.dirname, 'sitemap.xsd'), 'utf8') });
      expect(check.errors).toEqual([]);
      const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]!);
      expect(locs.length).toBeLessThanOrEqual(20);
      urls.push(...locs);
    }
    expect(urls).toContain(`${SITE}/property/buy`);
    expect(urls).toContain(`${SITE}/property/sold`);
    const all = (await (await get('/api/v1/listings?status=available&pageSize=100')).json()) as Page<ListingSummary>;
    for (const item of all.items) expect(urls).toContain(`${SITE}/property/${item.id}/${addressSlug(item.address.display)}`);
    expect(new Set(urls).size).toBe(urls.length);
    expect(await text('/listings/sitemap.xml')).toBe(index);
  });
});

describe('fragments', () => {
  it('give the head tags and the rendered element apart, for sites that assemble their own pages', async () => {
    const detail = await listing('type=sale');
    const response = await get(`/fragments/listings/${detail.id}`);
    expect(response.status).toBe(200);
    const fragment = (await response.json()) as { status: number; canonical: string; head: string; body: string };
    expect(fragment.status).toBe(200);
    expect(fragment.canonical).toBe(`${SITE}/property/${detail.id}/${addressSlug(detail.address.display)}`);
    expect(fragment.head).toContain('<title>');
    expect(fragment.head).toContain('application/ld+json');
    expect(fragment.head).toMatch(/<script type="module" src="http:\/\/127\.0\.0\.1:\d+\/widget\.js"><\/script>/);
    expect(fragment.body).toMatch(/^<nav[\s\S]*<estate-listing[\s\S]*<template shadowroot/);
    expect(fragment.body).not.toContain('agency-header');
    expect((await get('/fragments/listings/999999999')).status).toBe(404);
  });
});

describe("the agency's people, on a relay of one agency", () => {
  it('has a team page and a page per public agent under the site prefix, each linking exactly their own listings, all in the sitemap', async () => {
    const team = (await (await get('/api/v1/team')).json()) as Team;
    expect(team.items.length).toBeGreaterThan(3);
    const teamPage = await text('/listings/agents');
    expect(attribute(teamPage, /<link rel="canonical" href="([^"]*)"/)).toBe(`${SITE}/property/agents`);
    const everyDetail: ListingDetail[] = [];
    for (const status of ['available', 'sold', 'leased']) {
      const page = (await (await get(`/api/v1/listings?status=${status}&pageSize=100`)).json()) as Page<ListingSummary>;
      for (const item of page.items) everyDetail.push((await (await get(`/api/v1/listings/${item.id}`)).json()) as ListingDetail);
    }
    // This relay's sitemap is an index of parts (maxUrlsPerSitemap 20): every part's entries together.
    const index = await text('/sitemap.xml');
    const parts = [...index.matchAll(/<loc>[^<]*\/property\/(sitemap-\d+\.xml)<\/loc>/g)].map((match) => match[1]!);
    expect(parts.length).toBeGreaterThan(0);
    const sitemap = (await Promise.all(parts.map((part) => text(`/listings/${part}`)))).join('\n');
    expect(sitemap).toContain(`<loc>${SITE}/property/agents</loc>`);
    for (const member of team.items) {
      const path = `/property/agents/${member.id}/${member.slug}`;
      expect(teamPage, `the team page links ${member.name}`).toContain(`href="${path}"`);
      const html = await text(`/listings/agents/${member.id}/${member.slug}`);
      expect(attribute(html, /<link rel="canonical" href="([^"]*)"/)).toBe(`${SITE}${path}`);
      const linked = [...(html.match(/<nav class="estate-agent-listings"[\s\S]*?<\/nav>/g) ?? []).join('').matchAll(/href="\/property\/(\d+)\//g)].map(
        (match) => Number(match[1]),
      );
      const own = everyDetail.filter((detail) => detail.agents.some((agent) => agent.id === member.id)).map((detail) => detail.id);
      expect(linked.sort(), member.name).toEqual(own.sort());
      expect(sitemap).toContain(`<loc>${SITE}${path}</loc>`);
    }
  });
});

describe("the agency's menu", () => {
  const marks = (html: string) => [...html.matchAll(/<a aria-current="(page|true)"[^>]*>([^<]*)<\/a>/g)].map((match) => `${match[2]}:${match[1]}`);

  it('marks the item of the page served, whatever the shell marked, and the list a listing belongs to', async () => {
    // The shell is the agency's home page: its own mark on "Home" must not follow it onto listing pages.
    expect(marks(await text('/listings/sold'))).toEqual(['Sold:page']);
    // The menu links the site's own page of the list ("/buy"), absolute or relative: the list's first page is it.
    expect(marks(await text('/listings/buy'))).toEqual(['Buy:page']);
    expect(marks(await text('/listings/rent'))).toEqual(['Rent:page']);
    const forSale = await listing('type=sale&status=available');
    const suburb = addressSlug(forSale.address.suburb);
    expect(marks(await text(`/listings/buy/${suburb}`))).toEqual(['Buy:true']);
    expect(marks(await text(pagePath(forSale)))).toEqual(['Buy:true']);
    const sold = await listing('type=sale&status=sold');
    expect(marks(await text(pagePath(sold)))).toEqual(['Sold:true']);
    // Another site's link to a path like ours is never marked; an unknown page marks nothing.
    const unknown = await (await get('/listings/999999999/nowhere')).text();
    expect(marks(unknown)).toEqual([]);
    expect(unknown).not.toContain('aria-current="page"');
  });
});

describe('the wrapper page', () => {
  it('is fetched once and kept, not fetched per page', async () => {
    const before = wrapperRequests;
    await text('/listings/sold');
    await text('/listings/rent');
    expect(wrapperRequests - before).toBe(0);
  });
});

async function rawGet(url: string, encoding: string): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    request(url, { headers: { 'Accept-Encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
}
