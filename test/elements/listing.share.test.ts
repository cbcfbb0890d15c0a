import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../widget/listing/define.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { ListingShareDetail } from '../../widget/shared/analytics.ts';
import type { VisitDetail } from '../../widget/shared/visits.ts';
import { sharedLink } from '../../widget/listing/share.ts';
import type { ListingSummary, Page } from '../../contract/relay-api.ts';

// "Share" on a listing's detail (issue 32), against the real relay the runner started: the share
// sheet and the clipboard are the browser's, so each case sets what this browser offers (a sheet,
// a clipboard, neither) on navigator for its run and puts it back.

const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };

const shadow = (el: Element) => el.shadowRoot!;
const shareButton = (el: Element) => shadow(el).querySelector<HTMLButtonElement>('[part~="share-button"]')!;
const status = (el: Element) => shadow(el).querySelector('.actions [role="status"]')!.textContent!.trim();

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/** What navigator offers for one case; `undefined` takes the API away. */
function offer(name: 'share' | 'canShare' | 'clipboard', value: unknown): void {
  Object.defineProperty(navigator, name, { value, configurable: true, writable: true });
}

const own = { share: Object.getOwnPropertyDescriptor(navigator, 'share'), clipboard: Object.getOwnPropertyDescriptor(navigator, 'clipboard') };

async function shown(): Promise<{ el: EstateListing; listing: ListingSummary; shares: ListingShareDetail[]; counted: VisitDetail[] }> {
  const page = (await (await fetch(`${RELAY}/api/v1/listings?pageSize=5`)).json()) as Page<ListingSummary>;
  const listing = page.items[1]!;
  const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id=${listing.id} no-json-ld></estate-listing>`);
  await el.loadComplete;
  await el.updateComplete;
  const shares: ListingShareDetail[] = [];
  const counted: VisitDetail[] = [];
  el.addEventListener('estate-listing-share', (event) => shares.push(event.detail));
  el.addEventListener('estate-visit', (event) => counted.push(event.detail));
  return { el, listing, shares, counted };
}

describe('<estate-listing> share', () => {
  afterEach(() => {
    for (const name of ['share', 'canShare', 'clipboard'] as const) delete (navigator as unknown as Record<string, unknown>)[name];
    if (own.share) Object.defineProperty(navigator, 'share', own.share);
    if (own.clipboard) Object.defineProperty(navigator, 'clipboard', own.clipboard);
    history.replaceState(null, '', location.pathname);
  });

  it('shares this page marked as a shared link, without the campaign it came from or its fragment', () => {
    expect(sharedLink('https://agency.example/listings/12/1-smith-st?utm_source=news&utm_medium=email&lang=vi#photos')).to.equal(
      'https://agency.example/listings/12/1-smith-st?lang=vi&shared=1',
    );
    expect(sharedLink('https://agency.example/listing.html?id=12&shared=1')).to.equal('https://agency.example/listing.html?id=12&shared=1');
  });

  it('is a named button beside the heart that opens the share sheet with the listing’s address and link, counted and told once it went', async () => {
    history.replaceState(null, '', `${location.pathname}?utm_source=newsletter`);
    const asked: ShareData[] = [];
    offer('share', async (data: ShareData) => void asked.push(data));
    const { el, listing, shares, counted } = await shown();
    await expect(el).to.be.accessible();
    const button = shareButton(el);
    expect(button.textContent!.trim()).to.equal('Share');
    expect(button.getAttribute('aria-label')).to.equal(`Share ${listing.address.display}`);
    expect(button.previousElementSibling?.matches('[part~="keep-button"]'), 'beside the heart').to.equal(true);
    button.click();
    await waitUntil(() => shares.length === 1, 'the share is told');
    expect(asked).to.have.length(1);
    expect(asked[0]!.title).to.equal(listing.address.display);
    const url = new URL(asked[0]!.url!);
    expect(url.searchParams.get('shared')).to.equal('1');
    expect(url.searchParams.has('utm_source'), 'the campaign the sharer came from stays behind').to.equal(false);
    expect(url.pathname).to.equal(location.pathname);
    expect(shares[0]).to.deep.equal({ listingId: listing.id, title: listing.address.display, method: 'share' });
    expect(counted).to.deep.equal([{ kind: 'shared', listingId: listing.id }]);
    expect(status(el), 'the sheet said it itself').to.equal('');
  });

  it('counts nothing when the visitor closes the share sheet', async () => {
    offer('share', async () => {
      throw new DOMException('Share canceled', 'AbortError');
    });
    const { el, shares, counted } = await shown();
    shareButton(el).click();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await el.updateComplete;
    expect(shares).to.deep.equal([]);
    expect(counted).to.deep.equal([]);
    expect(shadow(el).querySelector('[part~="share-link"]')).to.equal(null);
  });

  it('copies the link where there is no share sheet (or it refuses), and says so', async () => {
    offer('share', async () => {
      throw new DOMException('Not allowed', 'NotAllowedError');
    });
    const copied: string[] = [];
    offer('clipboard', { writeText: async (text: string) => void copied.push(text) });
    const { el, listing, shares, counted } = await shown();
    shareButton(el).click();
    await waitUntil(() => status(el) === 'Link copied', 'the copy is said in a status region');
    expect(copied).to.have.length(1);
    expect(new URL(copied[0]!).searchParams.get('shared')).to.equal('1');
    expect(shares).to.deep.equal([{ listingId: listing.id, title: listing.address.display, method: 'copy' }]);
    expect(counted).to.deep.equal([{ kind: 'shared', listingId: listing.id }]);
    await expect(el).to.be.accessible();
  });

  it('shows the link to copy by hand, focused and selected, where neither works, and counts nothing', async () => {
    offer('share', undefined);
    offer('clipboard', {
      writeText: async () => {
        throw new DOMException('Denied', 'NotAllowedError');
      },
    });
    const { el, shares, counted } = await shown();
    shareButton(el).click();
    await waitUntil(() => shadow(el).querySelector('[part~="share-link"]') !== null, 'the link is shown');
    const field = shadow(el).querySelector<HTMLInputElement>('[part~="share-link"]')!;
    expect(field.readOnly).to.equal(true);
    expect(field.getAttribute('aria-label')).to.equal('Link to share');
    expect(new URL(field.value).searchParams.get('shared')).to.equal('1');
    await waitUntil(() => deepActive() === field, 'focus goes to the link');
    expect(field.selectionStart).to.equal(0);
    expect(field.selectionEnd).to.equal(field.value.length);
    expect(shares).to.deep.equal([]);
    expect(counted).to.deep.equal([]);
    await expect(el).to.be.accessible();
  });
});
