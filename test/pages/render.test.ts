// Without the widget build's server copy of the elements (npm run build:widget not run), listing
// pages still carry the elements and their data, for the browser to render, and say why once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { elementRenderer } from '../../server/pages/render.ts';

const empty = mkdtempSync(join(tmpdir(), 'estate-no-widget-'));
afterAll(() => rmSync(empty, { recursive: true, force: true }));

describe('the element renderer without a server build of the elements', () => {
  it('gives the element with its attributes and hydration data but no shadow root, and warns once naming the fix', async () => {
    const warnings: unknown[][] = [];
    const renderer = elementRenderer(empty, { warn: (...args: unknown[]) => warnings.push(args) } as never);
    const settings = { relay: '/', timeZone: 'Australia/Sydney', locale: 'en-AU', lang: 'en-AU' };
    const listing = { id: 7, heading: 'A <b>house</b>' } as unknown as ListingDetail;
    const detail = await renderer.renderListing(listing, settings);
    expect(detail.html).toBe(
      '<estate-listing data-estate-ssr relay="/" locale="en-AU" time-zone="Australia/Sydney" heading-level="1" no-json-ld></estate-listing>',
    );
    expect(detail.data).toContain('"id":7');
    expect(detail.data).not.toContain('<b>');
    const list = await renderer.renderListings([], { ...settings, detailHref: '/listings/{id}/{slug}' });
    expect(list.html).toContain('detail-href="/listings/{id}/{slug}"');
    expect(list.html).not.toContain('<template');
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]![1])).toMatch(/npm run build:widget/);
  });
});
