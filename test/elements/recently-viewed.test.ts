import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import '../../widget/listing/define.ts';
import '../../widget/recently-viewed/define.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { EstateRecentlyViewed, RecentlyViewedClearDetail } from '../../widget/recently-viewed/recently-viewed.ts';
import { recordView, type ViewedHome } from '../../widget/shared/recently-viewed.ts';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';

// <estate-recently-viewed> and the view <estate-listing> records, against the real relay the
// runner started (demo mode, embedded CRM simulator), in real Chromium: localStorage, the
// `storage` event between two windows, and the relay's word on each home now.

const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };
const storageKey = `estate-recently-viewed:${new URL(`${RELAY}/`).href}`;

const shadow = (el: Element) => el.shadowRoot!;
const cards = (el: Element) => [...shadow(el).querySelectorAll<HTMLElement>('[part~="card"]')];
const cardIds = (el: Element) => cards(el).map((card) => Number(card.dataset.id));
const card = (el: Element, id: number) => shadow(el).querySelector<HTMLElement>(`[part~="card"][data-id="${id}"]`)!;
const stored = (): ViewedHome[] => JSON.parse(localStorage.getItem(storageKey) ?? '[]');

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

async function available(): Promise<ListingSummary[]> {
  const page = (await (await fetch(`${RELAY}/api/v1/listings?pageSize=100`)).json()) as Page<ListingSummary>;
  expect(page.items.length, 'the simulator seeds listings').to.be.greaterThan(5);
  return page.items;
}

/** Viewed in this order (the last newest), at times a minute apart from a set clock. */
function viewed(...homes: ListingSummary[]): void {
  homes.forEach((home, index) => recordView(RELAY, home, new Date(Date.UTC(2026, 0, 15, 10, index))));
}

describe('<estate-recently-viewed>', () => {
  beforeEach(async () => {
    localStorage.removeItem(storageKey);
    await setViewport({ width: 1280, height: 900 });
  });
  afterEach(() => localStorage.removeItem(storageKey));

  it('renders nothing while nothing was viewed', async () => {
    const el = await fixture<EstateRecentlyViewed>(html`<estate-recently-viewed relay=${RELAY}></estate-recently-viewed>`);
    await expect(el).to.be.accessible();
    expect(shadow(el).children).to.have.length(0);
  });

  it("links each home to this page in the parameter the page's listing reads (listing-id-param), and takes time-zone", async () => {
    const items = await available();
    viewed(items[0]!);
    history.replaceState(null, '', `?home=${items[1]!.id}`);
    try {
      const container = await fixture<HTMLElement>(
        html`<div>
          <estate-listing relay=${RELAY} listing-id-param="home" no-json-ld></estate-listing>
          <estate-recently-viewed relay=${RELAY} time-zone="Australia/Perth"></estate-recently-viewed>
        </div>`,
      );
      const el = container.querySelector<EstateRecentlyViewed>('estate-recently-viewed')!;
      const link = () => shadow(el).querySelector<HTMLAnchorElement>('[part~="card-link"]');
      await waitUntil(() => link() !== null, 'linked');
      const url = new URL(link()!.href);
      expect(url.searchParams.get('home')).to.equal(String(items[0]!.id));
      expect(url.searchParams.has('listing')).to.equal(false);
      expect(el.timeZone).to.equal('Australia/Perth');
    } finally {
      history.replaceState(null, '', location.pathname);
    }
  });

  it('<estate-listing> records the listing it shows (id, title, price, thumbnail, when: nothing else), and the list leaves the page’s own listing out', async () => {
    const items = await available();
    viewed(items[0]!, items[1]!);
    const container = await fixture<HTMLElement>(
      html`<div>
        <estate-listing relay=${RELAY} listing-id=${items[2]!.id} no-json-ld></estate-listing>
        <estate-recently-viewed relay=${RELAY}></estate-recently-viewed>
      </div>`,
    );
    const listing = container.querySelector<EstateListing>('estate-listing')!;
    const el = container.querySelector<EstateRecentlyViewed>('estate-recently-viewed')!;
    const shown: ListingDetail = await listing.loadComplete;
    await waitUntil(() => stored()[0]?.id === items[2]!.id, 'the view is recorded');
    const [entry] = stored();
    expect(Object.keys(entry!).sort()).to.deep.equal(['id', 'price', 'thumbnail', 'title', 'viewedAt']);
    expect(entry).to.include({ id: shown.id, title: shown.address.display, price: shown.displayPrice });
    expect(entry!.thumbnail).to.match(/^https?:\/\/.+\.jpe?g/);
    expect(Date.parse(entry!.viewedAt)).to.be.greaterThan(0);
    await el.updateComplete;
    // Newest first; the listing the page shows is not among them.
    await waitUntil(() => cardIds(el).join() === [items[1]!.id, items[0]!.id].join(), 'the others, newest first');
    // Without detail-href: this page with `listing` set to the home's id (the page's listing has no listing-id-param).
    const firstLink = () => shadow(el).querySelector<HTMLAnchorElement>('[part~="card-link"]');
    await waitUntil(() => firstLink() !== null, 'linked');
    expect(new URL(firstLink()!.href).searchParams.get('listing')).to.equal(String(items[1]!.id));
    await expect(el).to.be.accessible();
    expect(shadow(el).querySelector('h2[part~="heading"]')!.textContent!.trim()).to.equal('Recently viewed');
  });

  it('keeps the newest 12, a home viewed again moving to the front', async () => {
    const items = await available();
    const many = Array.from({ length: 13 }, (_, index) => ({ ...items[index % items.length]!, id: 1_000_000 + index }));
    viewed(...many);
    expect(stored().map((home) => home.id)).to.deep.equal(
      many
        .slice(1)
        .reverse()
        .map((home) => home.id),
    );
    viewed(many[5]!);
    expect(stored()).to.have.length(12);
    expect(stored()[0]!.id).to.equal(many[5]!.id);
    const el = await fixture<EstateRecentlyViewed>(html`<estate-recently-viewed relay=${RELAY} limit="4"></estate-recently-viewed>`);
    expect(cardIds(el)).to.deep.equal([many[5]!.id, many[12]!.id, many[11]!.id, many[10]!.id]);
  });

  it('shows a home the relay no longer has as no longer listed (no link), and a sold one with its badge', async () => {
    const items = await available();
    const sold = items[1]!;
    expect((await fetch(`${RELAY}/api/v1/listings/1999999`)).status).to.equal(404);
    // No listing of the seeded relay is sold: its real answer for one listing is read as sold.
    const real = window.fetch;
    window.fetch = async (input, init) => {
      const response = await real(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith(`/api/v1/listings/${sold.id}`)) return response;
      const body = (await response.json()) as ListingDetail;
      return new Response(JSON.stringify({ ...body, status: 'sold', badge: 'sold' }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    };
    try {
      viewed(sold, { ...items[0]!, id: 1999999, address: { ...items[0]!.address, display: '9 Gone Lane, Kew VIC' } }, items[2]!);
      const el = await fixture<EstateRecentlyViewed>(html`<estate-recently-viewed relay=${RELAY} detail-href="/homes/{id}/{slug}"></estate-recently-viewed>`);
      await waitUntil(() => card(el, 1999999)?.getAttribute('part') === 'card card-gone', 'the gone home is marked', { timeout: 10_000 });
      const gone = card(el, 1999999);
      expect(gone.querySelector('[part~="badge"]')!.textContent!.trim()).to.equal('No longer listed');
      expect(gone.querySelector('[part~="card-title"]')!.textContent!.trim()).to.equal('9 Gone Lane, Kew VIC');
      expect(gone.querySelector('a'), 'no link to a page that is gone').to.equal(null);
      await waitUntil(() => card(el, sold.id).querySelector('[part~="badge-sold"]'), 'the sold badge', { timeout: 10_000 });
      expect(card(el, sold.id).querySelector('[part~="badge"]')!.textContent!.trim()).to.equal('Sold');
      expect(card(el, items[2]!.id).querySelector('a')!.getAttribute('href')).to.match(new RegExp(`^/homes/${items[2]!.id}/`));
      await expect(el).to.be.accessible();
    } finally {
      window.fetch = real;
    }
  });

  it('clears with its button (by keyboard too): storage emptied, the clearing said and focused', async () => {
    const items = await available();
    viewed(items[0]!, items[1]!);
    const el = await fixture<EstateRecentlyViewed>(html`<estate-recently-viewed relay=${RELAY}></estate-recently-viewed>`);
    const clear = shadow(el).querySelector<HTMLButtonElement>('[part~="clear-button"]')!;
    expect(clear.textContent!.trim()).to.equal('Clear');
    expect(clear.getAttribute('aria-label')).to.equal('Clear the homes you recently viewed');
    const events: RecentlyViewedClearDetail[] = [];
    el.addEventListener('estate-recently-viewed-clear', (event) => events.push(event.detail));
    clear.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(events).to.deep.equal([{ ids: [items[1]!.id, items[0]!.id] }]);
    expect(localStorage.getItem(storageKey)).to.equal(null);
    expect(cards(el)).to.have.length(0);
    const status = shadow(el).querySelector('[part~="status"]')!;
    expect(status.getAttribute('role')).to.equal('status');
    expect(status.textContent!.trim()).to.equal('Your recently viewed homes were cleared from this device.');
    await waitUntil(() => deepActive() === status, 'focus on the line that says so');
    await expect(el).to.be.accessible();
  });

  it('is the same in another window at once', async () => {
    const items = await available();
    const el = await fixture<EstateRecentlyViewed>(html`<estate-recently-viewed relay=${RELAY}></estate-recently-viewed>`);
    const other = window.open(
      `/test/elements/recently-viewed-tab.html?relay=${encodeURIComponent(RELAY)}`,
      'estate-recently-viewed-tab',
      'popup,width=900,height=900',
    )!;
    expect(other, 'the runner allows a second window').to.exist;
    try {
      const ready = () => (other as unknown as { __ready?: Promise<unknown> }).__ready;
      await waitUntil(ready, 'the other window loads the element', { timeout: 20_000 });
      await ready();
      const otherList = other.document.querySelector('estate-recently-viewed')!;
      const otherIds = () => [...otherList.shadowRoot!.querySelectorAll<HTMLElement>('[part~="card"]')].map((row) => Number(row.dataset.id));
      expect(otherIds()).to.deep.equal([]);
      // Viewed here: the other window follows (the browser's storage event).
      viewed(items[0]!, items[3]!);
      await waitUntil(() => otherIds().join() === [items[3]!.id, items[0]!.id].join(), 'the other window follows', { timeout: 5_000 });
      // Cleared there: this window follows.
      (otherList.shadowRoot!.querySelector('[part~="clear-button"]') as HTMLButtonElement).click();
      await waitUntil(() => cards(el).length === 0 && shadow(el).children.length === 0, 'this window follows', { timeout: 5_000 });
    } finally {
      other.close();
    }
  });
});
