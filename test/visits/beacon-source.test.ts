import { describe, expect, it } from 'vitest';
import { parseBeacon, sourceOf } from '../../server/visits/beacon.ts';

/** The source the relay keeps for a detail view whose page said `said`. */
function kept(said: string | undefined): string {
  const parsed = parseBeacon([{ kind: 'detail', listingId: 1, ...(said === undefined ? {} : { source: said }) }]);
  if (!('events' in parsed)) throw new Error(JSON.stringify(parsed.fields));
  return sourceOf(parsed.events[0]!);
}

describe('where a detail view came from, as the relay reads what the page said', () => {
  it('keeps a campaign by its utm_source, lower case and plain, at most 40 characters', () => {
    expect(kept('utm: Spring Mailout')).toBe('utm:springmailout');
    expect(kept('utm:Facebook_Ads-2026.v2')).toBe('utm:facebook_ads-2026.v2');
    expect(kept(`utm:${'a'.repeat(90)}`)).toBe(`utm:${'a'.repeat(40)}`);
    // Nothing left of it: the page's "other", never an empty campaign.
    expect(kept('utm:<script>')).toBe('utm:script');
    expect(kept('utm:!!!')).toBe('page:other');
  });

  it("reads the page's kind from its path's first part or its meta, else other", () => {
    expect(kept('page:buy')).toBe('page:buy');
    expect(kept('page:listing.html')).toBe('page:listing');
    expect(kept('page:Rent')).toBe('page:rent');
    expect(kept('page:')).toBe('page:home');
    expect(kept('page:index.html')).toBe('page:home');
    expect(kept('page:someone@example.org')).toBe('page:other');
    expect(kept('nonsense')).toBe('page:other');
    expect(kept(undefined)).toBe('page:other');
    expect(kept('shared')).toBe('shared');
  });

  it('gives only detail views a source', () => {
    const parsed = parseBeacon([{ kind: 'card', listingId: 1, source: 'page:buy' }]);
    expect('events' in parsed && sourceOf(parsed.events[0]!)).toBe('');
  });
});
