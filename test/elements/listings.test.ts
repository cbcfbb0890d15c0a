import { aTimeout, expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/listings/define.ts';
import type { EstateListings, ListingsLoadedDetail } from '../../widget/listings/listings.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { ListingSummary, Page } from '../../contract/relay-api.ts';
import { summary } from './listings-data.ts';

const shadow = (el: Element) => el.shadowRoot!;
/** The runner's own URL (it carries the session id); tests change the query and put it back. */
const testPageUrl = window.location.href;
const withQuery = (query: string) => {
  const url = new URL(testPageUrl);
  for (const [key, value] of new URLSearchParams(query)) url.searchParams.set(key, value);
  return url.href;
};
const cards = (el: EstateListings) => [...shadow(el).querySelectorAll<HTMLElement>('[part~="card"]:not([part~="skeleton"])')];
const cardIds = (el: EstateListings) => cards(el).map((card) => Number(card.querySelector('[part~="card-link"]')!.getAttribute('data-id')));

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

async function relayPage(query: string): Promise<Page<ListingSummary>> {
  const response = await fetch(`${RELAY}/api/v1/listings?${query}`);
  expect(response.status, `GET /api/v1/listings?${query}`).to.equal(200);
  return response.json();
}

/** Waits for the next estate-listings-loaded event: start waiting before the action that loads. */
async function loaded(el: EstateListings): Promise<ListingsLoadedDetail> {
  const { detail } = (await oneEvent(el, 'estate-listings-loaded')) as CustomEvent<ListingsLoadedDetail>;
  await el.updateComplete;
  return detail;
}

/** Waits until the load already under way (e.g. started by the fixture) has rendered. */
async function settled(el: EstateListings): Promise<ListingsLoadedDetail> {
  const page = await el.loadComplete;
  await el.updateComplete;
  return { ...page, query: el.query };
}

/** Replaces window.fetch for one test: the relay still answers, the wrapper only delays or fails. */
function wrapFetch(wrapper: (real: typeof fetch, input: RequestInfo | URL, init?: RequestInit) => Promise<Response>): () => void {
  const real = window.fetch;
  window.fetch = (input, init) => wrapper(real, input, init);
  return () => {
    window.fetch = real;
  };
}

describe('<estate-listings>', () => {
  beforeEach(async () => {
    await setViewport({ width: 1200, height: 1000 });
  });

  afterEach(async () => {
    await emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    history.replaceState(null, '', testPageUrl);
  });

  describe('states', () => {
    it('hidden (a phone showing the map), renders its cards at the first idle moment, or at once when shown', async () => {
      // The browser's idle callbacks, held by the test: it says when the moment comes.
      const idle: IdleRequestCallback[] = [];
      const realIdle = window.requestIdleCallback;
      window.requestIdleCallback = (callback) => idle.push(callback);
      try {
        const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="4" hidden></estate-listings>`);
        const page = await settled(el);
        expect(page.items.length).to.equal(4);
        expect(cards(el), 'no card while hidden and not idle').to.have.length(0);
        expect(idle).to.have.length(1);
        idle[0]!({ didTimeout: false, timeRemaining: () => 50 });
        await el.updateComplete;
        expect(cardIds(el)).to.deep.equal(page.items.map((item) => item.id));
        // Its photos wait to be shown (lazy in a hidden subtree is not fetched), leaving the bandwidth to the map.
        const images = () => [...shadow(el).querySelectorAll<HTMLImageElement>('[part~="card-image"]')];
        expect(images().length, 'card photos').to.be.greaterThan(0);
        expect(images().map((img) => [img.loading, img.getAttribute('fetchpriority')])).to.deep.equal(images().map(() => ['lazy', 'auto']));
        el.removeAttribute('hidden');
        el.requestUpdate();
        await el.updateComplete;
        expect([images()[0]!.loading, images()[0]!.getAttribute('fetchpriority')], 'shown: the first photo first').to.deep.equal(['eager', 'high']);

        // Shown before the idle moment: the cards at once (the map's phone layout asks for an update as it shows the list).
        const other = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="4" hidden></estate-listings>`);
        await settled(other);
        expect(cards(other)).to.have.length(0);
        other.removeAttribute('hidden');
        other.requestUpdate();
        await other.updateComplete;
        expect(cards(other)).to.have.length(4);
      } finally {
        window.requestIdleCallback = realIdle;
      }
    });

    it('is accessible while loading, with skeletons for the page size', async () => {
      const restore = wrapFetch(async (real, input, init) => {
        await aTimeout(300);
        return real(input, init);
      });
      try {
        const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="5"></estate-listings>`);
        const skeletons = shadow(el).querySelectorAll('[part~="skeleton"]');
        expect(skeletons.length).to.equal(5);
        expect(shadow(el).querySelector('[part~="list"]')!.getAttribute('aria-busy')).to.equal('true');
        expect(shadow(el).querySelector('[role="status"]')!.textContent).to.contain('Loading');
        await expect(el).to.be.accessible();
        await settled(el);
      } finally {
        restore();
      }
    });

    it('is accessible once loaded, and says how many properties there are', async () => {
      const expected = await relayPage('pageSize=6');
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="6"></estate-listings>`);
      const detail = await settled(el);
      expect(detail.total).to.equal(expected.total);
      expect(cardIds(el)).to.deep.equal(expected.items.map((item) => item.id));
      expect(shadow(el).querySelector('[role="status"]')!.textContent!.trim()).to.equal(`${expected.total} properties`);
      await expect(el).to.be.accessible();
    });

    it('shows an accessible empty state', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} suburb="Atlantis"></estate-listings>`);
      const detail = await settled(el);
      expect(detail.total).to.equal(0);
      expect(shadow(el).querySelector('[part~="empty"]')!.textContent).to.contain('No properties match');
      await expect(el).to.be.accessible();
    });

    it('shows an accessible error state whose retry button loads again', async () => {
      let calls = 0;
      const restore = wrapFetch((real, input, init) => (++calls === 1 ? Promise.reject(new TypeError('Failed to fetch')) : real(input, init)));
      try {
        const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="3"></estate-listings>`);
        await el.loadComplete.catch(() => undefined);
        await el.updateComplete;
        const retry = shadow(el).querySelector<HTMLButtonElement>('[part~="retry-button"]')!;
        expect(shadow(el).querySelector('[part~="error"]')!.getAttribute('role')).to.equal('alert');
        await expect(el).to.be.accessible();
        retry.focus();
        const done = loaded(el);
        await sendKeys({ press: 'Enter' });
        await done;
        expect(cards(el).length).to.equal(3);
      } finally {
        restore();
      }
    });

    it('is accessible in dark mode', async () => {
      await emulateMedia({ colorScheme: 'dark' });
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="4" filters></estate-listings>`);
      await settled(el);
      expect(getComputedStyle(el).color).to.equal('rgb(230, 237, 243)');
      await expect(el).to.be.accessible();
    });
  });

  describe('layout stability', () => {
    /**
     * Layout shifts are only recorded on rendered frames, and the runner keeps all but one test
     * page in a background tab (no frames). So the measurement runs in a popup window of its
     * own, which is always in front: the element is defined first, inserted, shows its skeleton
     * for 400 ms (the relay's answer is delayed), then the listings and their photos arrive.
     */
    function harness(relay: string): string {
      return `<!doctype html><html lang="en"><head><title>layout shift</title></head><body style="margin:8px">
<script type="module">
const realFetch = window.fetch;
window.fetch = async (input, init) => { await new Promise((resolve) => setTimeout(resolve, 400)); return realFetch(input, init); };
const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
window.__result = (async () => {
  const shifts = [];
  const observer = new PerformanceObserver((list) => { for (const entry of list.getEntries()) if (!entry.hadRecentInput) shifts.push(entry.value); });
  observer.observe({ type: 'layout-shift', buffered: true });
  await import('/widget/listings/define.ts');
  const container = document.createElement('div');
  container.style.width = '1100px';
  container.innerHTML = '<estate-listings relay="${relay}" page-size="4"></estate-listings><p id="below">Content under the listings</p>';
  document.body.append(container);
  const el = container.querySelector('estate-listings');
  const below = container.querySelector('#below');
  await frame(); await frame(); await wait(150);
  const skeletons = el.shadowRoot.querySelectorAll('[part~="skeleton"]').length;
  const belowWithSkeleton = below.getBoundingClientRect().top;
  await el.loadComplete;
  await el.updateComplete;
  const images = [...el.shadowRoot.querySelectorAll('[part~="card"] img')];
  const started = performance.now();
  while (!images.every((img) => img.complete) && performance.now() - started < 10000) await wait(50);
  await frame(); await frame(); await frame();
  for (const entry of observer.takeRecords()) if (!entry.hadRecentInput) shifts.push(entry.value);
  const loading = { skeletons, cards: el.shadowRoot.querySelectorAll('[part~="card"]').length, images: images.length,
    belowWithSkeleton, belowLoaded: below.getBoundingClientRect().top, shifts: [...shifts], visibility: document.visibilityState };
  // The measurement works: moving content does register.
  container.prepend(Object.assign(document.createElement('div'), { style: 'height: 120px' }));
  await frame(); await frame(); await wait(50);
  for (const entry of observer.takeRecords()) shifts.push(entry.value);
  observer.disconnect();
  return { ...loading, controlShift: shifts.slice(loading.shifts.length).reduce((sum, value) => sum + value, 0) };
})();
</script></body></html>`;
    }

    it('does not shift the page when the listings replace the skeletons (PerformanceObserver)', async () => {
      const popup = window.open('about:blank', 'estate-layout-shift', 'popup,width=1200,height=1000')!;
      expect(popup, 'the runner allows a popup window').to.exist;
      try {
        popup.document.write(harness(RELAY));
        popup.document.close();
        await waitUntil(() => (popup as unknown as { __result?: unknown }).__result, 'the harness starts', { timeout: 10000 });
        const result = (await (popup as unknown as { __result: Promise<Record<string, unknown>> }).__result) as {
          skeletons: number;
          cards: number;
          images: number;
          belowWithSkeleton: number;
          belowLoaded: number;
          shifts: number[];
          controlShift: number;
          visibility: string;
        };
        expect(result.visibility).to.equal('visible');
        expect(result.skeletons, 'skeletons are on screen first').to.equal(4);
        expect(result.cards).to.equal(4);
        expect(result.images).to.be.greaterThan(0);
        expect(result.belowLoaded).to.equal(result.belowWithSkeleton);
        expect(
          result.shifts.reduce((sum, value) => sum + value, 0),
          `layout shifts: ${JSON.stringify(result.shifts)}`,
        ).to.equal(0);
        expect(result.controlShift, 'the observer does see a real shift').to.be.greaterThan(0);
      } finally {
        popup.close();
      }
    });
  });

  describe('cards', () => {
    it('shows the price text exactly as the agency wrote it', async () => {
      const expected = await relayPage('pageSize=24');
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="24"></estate-listings>`);
      await settled(el);
      const prices = cards(el).map((card) => card.querySelector('[part~="price"]')!.textContent!.trim());
      expect(prices).to.deep.equal(expected.items.map((item) => item.displayPrice?.trim() || 'Contact agent'));
      // Host data: odd agency wording passes through untouched.
      const host = await fixture<EstateListings>(
        html`<estate-listings
          .listings=${[summary(1, { displayPrice: 'Offers over $1.2m — Auction 4 May' }), summary(2, { displayPrice: '' })]}
        ></estate-listings>`,
      );
      await settled(host);
      expect(cards(host).map((card) => card.querySelector('[part~="price"]')!.textContent!.trim())).to.deep.equal([
        'Offers over $1.2m — Auction 4 May',
        'Contact agent',
      ]);
    });

    it('uses responsive images: webp and jpeg srcsets, sizes, intrinsic size, lazy below the fold, high priority first', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="8"></estate-listings>`);
      const detail = await settled(el);
      const withPhotos = detail.items.map((item, index) => ({ item, index })).filter(({ item }) => item.photo);
      expect(withPhotos.length).to.be.greaterThan(3);
      for (const { item, index } of withPhotos) {
        const card = cards(el)[index]!;
        const img = card.querySelector('img')!;
        const source = card.querySelector('source')!;
        expect(source.type).to.equal('image/webp');
        expect(source.getAttribute('srcset')).to.match(/\.webp \d+w, /);
        expect(source.getAttribute('sizes')).to.be.a('string').and.not.be.empty;
        expect(img.getAttribute('srcset')).to.match(/\.jpe?g \d+w, /);
        expect(img.getAttribute('width')).to.equal(String(item.photo!.width));
        expect(img.getAttribute('height')).to.equal(String(item.photo!.height));
        expect(img.getAttribute('loading')).to.equal(index < 3 ? 'eager' : 'lazy');
        expect(img.getAttribute('fetchpriority')).to.equal(index === 0 ? 'high' : 'auto');
        expect(img.src.startsWith(RELAY)).to.equal(true);
      }
      const first = cards(el)[withPhotos[0]!.index]!.querySelector('img')!;
      await waitUntil(() => first.complete && first.naturalWidth > 0, 'the photo loads from the relay');
      expect(first.currentSrc).to.match(/\.webp$/);
    });

    it('names beds, baths and cars for assistive technology', async () => {
      const el = await fixture<EstateListings>(
        html`<estate-listings .listings=${[summary(1, { bed: 3, bath: 1, cars: 2 }), summary(2, { bed: 1, bath: null, cars: 0 })]}></estate-listings>`,
      );
      await settled(el);
      const names = (card: HTMLElement) => [...card.querySelectorAll('[part~="feature"] .visually-hidden')].map((node) => node.textContent!.trim());
      expect(names(cards(el)[0]!)).to.deep.equal(['3 bedrooms', '1 bathroom', '2 car spaces']);
      expect(names(cards(el)[1]!)).to.deep.equal(['1 bedroom']);
      for (const icon of shadow(el).querySelectorAll('[part~="feature-icon"]')) expect(icon.getAttribute('aria-hidden')).to.equal('true');
    });

    it('shows status badges for under offer, sold and leased', async () => {
      const el = await fixture<EstateListings>(
        html`<estate-listings
          .listings=${[summary(1, { badge: 'under-offer' }), summary(2, { badge: 'sold', status: 'sold' }), summary(3, { badge: 'leased', type: 'lease', status: 'leased' }), summary(4)]}
        ></estate-listings>`,
      );
      await settled(el);
      const badges = cards(el).map((card) => card.querySelector('[part~="badge"]')?.textContent?.trim() ?? null);
      expect(badges).to.deep.equal(['Under offer', 'Sold', 'Leased', null]);
      expect(shadow(el).querySelector('[part~="badge-sold"]')).to.exist;
      await expect(el).to.be.accessible();
    });

    it('shows the sold showcase from the relay with sold badges', async () => {
      const expected = await relayPage('status=sold&pageSize=6');
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} status="sold" page-size="6"></estate-listings>`);
      await settled(el);
      expect(cardIds(el)).to.deep.equal(expected.items.map((item) => item.id));
      for (const [index, item] of expected.items.entries()) {
        const badge = cards(el)[index]!.querySelector('[part~="badge"]');
        expect(badge?.textContent?.trim() ?? null).to.equal(
          item.badge === 'sold' ? 'Sold' : item.badge === 'leased' ? 'Leased' : item.badge ? 'Under offer' : null,
        );
      }
    });

    it('links each card to the detail-href template', async () => {
      const el = await fixture<EstateListings>(
        html`<estate-listings relay=${RELAY} page-size="3" detail-href="/listing.html?id={id}&from=grid"></estate-listings>`,
      );
      const detail = await settled(el);
      const links = cards(el).map((card) => card.querySelector<HTMLAnchorElement>('[part~="card-link"]')!);
      expect(links.map((link) => link.getAttribute('href'))).to.deep.equal(detail.items.map((item) => `/listing.html?id=${item.id}&from=grid`));
      expect(links[0]!.textContent!.trim()).to.equal(detail.items[0]!.address.display);
    });

    it('lets the host veto a card choice (cancelable estate-listing-select)', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="3" detail-href="/listing.html?id={id}"></estate-listings>`);
      const detail = await settled(el);
      const chosen: number[] = [];
      el.addEventListener('estate-listing-select', (event) => {
        chosen.push(event.detail.id);
        expect(event.detail.href).to.equal(`/listing.html?id=${event.detail.id}`);
        event.preventDefault();
      });
      const before = window.location.href;
      cards(el)[1]!.querySelector<HTMLAnchorElement>('[part~="card-link"]')!.click();
      await aTimeout(50);
      expect(chosen).to.deep.equal([detail.items[1]!.id]);
      expect(window.location.href).to.equal(before);
    });

    it('uses the heading level the page asks for', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings heading-level="2" .listings=${[summary(1)]}></estate-listings>`);
      await settled(el);
      expect(shadow(el).querySelector('[part~="card-title"]')!.tagName).to.equal('H2');
    });
  });

  describe('in-place detail', () => {
    it('opens a listing in place, focuses the back control, and returns focus to the card', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="4"></estate-listings>`);
      const detail = await settled(el);
      const target = detail.items[2]!;
      const link = cards(el)[2]!.querySelector<HTMLAnchorElement>('[part~="card-link"]')!;
      expect(new URL(link.href).searchParams.get('listing')).to.equal(String(target.id));
      link.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => shadow(el).querySelector('estate-listing'), 'the detail opens in place');
      const inner = shadow(el).querySelector<EstateListing>('estate-listing')!;
      expect(inner.getAttribute('listing-id')).to.equal(String(target.id));
      expect(new URL(window.location.href).searchParams.get('listing')).to.equal(String(target.id));
      await waitUntil(() => deepActive()?.getAttribute('part')?.includes('back-button'), 'focus moves to the back control');
      await inner.loadComplete;
      await inner.updateComplete;
      // Structured data goes beside the outermost host, in the document's light DOM.
      await waitUntil(() => el.nextElementSibling?.matches('script[type="application/ld+json"]'), 'JSON-LD next to <estate-listings>', { timeout: 5_000 });
      expect(JSON.parse(el.nextElementSibling!.textContent!).offers.itemOffered['@type']).to.equal('Place');
      await expect(el).to.be.accessible();

      await sendKeys({ press: 'Enter' });
      await waitUntil(() => !shadow(el).querySelector('estate-listing') && cards(el).length === 4, 'back shows the results');
      await waitUntil(() => deepActive()?.getAttribute('data-id') === String(target.id), 'focus returns to the card that opened it');
      expect(new URL(window.location.href).searchParams.get('listing')).to.equal(null);
      expect(document.querySelector('script[type="application/ld+json"]'), 'the detail took its JSON-LD with it').to.equal(null);
    });

    it('opens the detail named in the URL on load', async () => {
      const page = await relayPage('pageSize=1');
      history.replaceState(null, '', withQuery(`listing=${page.items[0]!.id}`));
      const resultRequests: string[] = [];
      const restore = wrapFetch((real, input, init) => {
        const url = String(input instanceof Request ? input.url : input);
        if (new URL(url).pathname.endsWith('/api/v1/listings')) resultRequests.push(url);
        return real(input, init);
      });
      try {
        const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY}></estate-listings>`);
        const inner = shadow(el).querySelector<EstateListing>('estate-listing')!;
        expect(inner.getAttribute('listing-id')).to.equal(String(page.items[0]!.id));
        await el.loadComplete;
        expect(resultRequests.length, 'the results load behind the open detail').to.equal(1);
        shadow(el).querySelector<HTMLButtonElement>('[part~="back-button"]')!.click();
        // The results loaded behind the detail; closing it shows them without another request.
        await waitUntil(() => cards(el).length > 0, 'the results show');
        expect(resultRequests, 'closing the detail asks the relay for nothing').to.have.length(1);
        expect(window.location.href).to.equal(testPageUrl);
      } finally {
        restore();
      }
    });
  });

  describe('filters and the query string', () => {
    it("shows every select's longest words whole, on a phone and on a desktop, in a site's larger type", async () => {
      for (const width of [390, 1280]) {
        await setViewport({ width, height: 900 });
        const container = await fixture<HTMLDivElement>(
          html`<div style="font-size: 18px; letter-spacing: 0.02em; padding: 0 16px">
            <estate-listings relay=${RELAY} type="sale" filters></estate-listings>
          </div>`,
        );
        const el = container.querySelector<EstateListings>('estate-listings')!;
        await settled(el);
        const context = document.createElement('canvas').getContext('2d')!;
        for (const select of shadow(el).querySelectorAll<HTMLSelectElement>('[part~="filters"] select')) {
          const style = getComputedStyle(select);
          context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const spacing = parseFloat(style.letterSpacing) || 0;
          const longest = Math.max(...[...select.options].map((option) => context.measureText(option.text).width + spacing * option.text.length));
          // The text, its padding and the arrow (about 1.5rem) inside the box.
          const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
          expect(longest, `${select.name} at ${width} px: ${longest.toFixed(0)} px of words in ${room.toFixed(0)} px`).to.be.at.most(room);
        }
      }
    });

    it('writes the chosen filters to the URL, asks the relay for them, and the back button restores them', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} type="sale" page-size="24" filters></estate-listings>`);
      await settled(el);
      const form = shadow(el).querySelector<HTMLFormElement>('[part~="filters"]')!;
      expect(form.getAttribute('role')).to.equal('search');
      form.querySelector<HTMLSelectElement>('select[name="minBeds"]')!.value = '3';
      form.querySelector<HTMLSelectElement>('select[name="sort"]')!.value = '-price';
      const next = loaded(el);
      form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
      const filtered = await next;
      const params = new URL(window.location.href).searchParams;
      expect(params.get('minBeds')).to.equal('3');
      expect(params.get('sort')).to.equal('-price');
      expect(params.has('type'), 'the page fixes the type: it stays out of the URL').to.equal(false);
      expect(filtered.query).to.include({ minBeds: 3, sort: '-price', type: 'sale', page: 1 });
      const expected = await relayPage('type=sale&minBeds=3&sort=-price&pageSize=24');
      expect(cardIds(el)).to.deep.equal(expected.items.map((item) => item.id));
      expect(filtered.items.every((item) => (item.bed ?? 0) >= 3)).to.equal(true);

      const restored = loaded(el);
      history.back();
      const back = await restored;
      expect(back.query.minBeds).to.equal(undefined);
      expect(shadow(el).querySelector<HTMLSelectElement>('select[name="minBeds"]')!.value).to.equal('');
    });

    it('shows the filters the results are for after a render, also one changed without searching', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} type="sale" page-size="2" filters="min-beds"></estate-listings>`);
      await settled(el);
      const minBeds = shadow(el).querySelector<HTMLSelectElement>('select[name="minBeds"]')!;
      minBeds.value = '3';
      const nextPage = loaded(el);
      shadow(el).querySelector<HTMLButtonElement>('[part~="page-next"]')!.click();
      expect((await nextPage).query).to.include({ page: 2 });
      expect((await nextPage).query.minBeds).to.equal(undefined);
      await el.updateComplete;
      expect(minBeds.value, 'page 2 of every listing, not of 3+ bedrooms').to.equal('');
    });

    it('reads the filters and page back from the URL on load (a shared link works)', async () => {
      history.replaceState(null, '', withQuery(`minBeds=2&sort=price&page=2&type=lease`));
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} type="sale" page-size="3" filters></estate-listings>`);
      const detail = await settled(el);
      expect(detail.query).to.include({ minBeds: 2, sort: 'price', page: 2, type: 'sale' });
      expect(shadow(el).querySelector<HTMLSelectElement>('select[name="minBeds"]')!.value).to.equal('2');
      expect(shadow(el).querySelector<HTMLSelectElement>('select[name="sort"]')!.value).to.equal('price');
      const expected = await relayPage('type=sale&minBeds=2&sort=price&page=2&pageSize=3');
      expect(cardIds(el)).to.deep.equal(expected.items.map((item) => item.id));
    });

    it('ignores nonsense in the URL instead of sending it to the relay', async () => {
      history.replaceState(null, '', withQuery(`minBeds=-4&sort=evil&page=abc&maxPrice=1e99x`));
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="3" filters></estate-listings>`);
      const detail = await settled(el);
      expect(detail.query).to.deep.equal({ page: 1, pageSize: 3 });
    });

    it('can be driven from the keyboard, and an empty result offers to clear the filters', async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="3" filters="suburb min-beds"></estate-listings>`);
      await settled(el);
      expect([...shadow(el).querySelectorAll('[part~="filters"] [name]')].map((field) => field.getAttribute('name'))).to.deep.equal(['suburb', 'minBeds']);
      shadow(el).querySelector<HTMLInputElement>('input[name="suburb"]')!.focus();
      await sendKeys({ type: 'Atlantis' });
      const empty = loaded(el);
      await sendKeys({ press: 'Enter' });
      expect((await empty).total).to.equal(0);
      expect(new URL(window.location.href).searchParams.get('suburb')).to.equal('Atlantis');
      await expect(el).to.be.accessible();
      const clear = shadow(el).querySelector<HTMLButtonElement>('[part~="empty"] button')!;
      expect(clear.textContent!.trim()).to.equal('Clear filters');
      const again = loaded(el);
      clear.click();
      expect((await again).total).to.be.greaterThan(0);
      expect(new URL(window.location.href).searchParams.has('suburb')).to.equal(false);
    });

    it('formats price choices with the locale and currency', async () => {
      const gb = await fixture<EstateListings>(html`<estate-listings .listings=${[summary(1)]} filters locale="en-GB" currency="GBP"></estate-listings>`);
      await settled(gb);
      const optionTexts = (el: EstateListings) =>
        [...shadow(el).querySelectorAll('select[name="minPrice"] option')].map((option) => option.textContent!.trim().replace(/\s/g, ' '));
      expect(optionTexts(gb)).to.include('£200,000');
      const nz = await fixture<EstateListings>(html`<estate-listings .listings=${[summary(1)]} filters locale="en-NZ" type="lease"></estate-listings>`);
      await settled(nz);
      expect(optionTexts(nz)).to.include('$500 pw');
      const au = await fixture<EstateListings>(html`<estate-listings .listings=${[summary(1)]} filters currency="NZD"></estate-listings>`);
      await settled(au);
      expect(optionTexts(au)).to.include('NZD 200,000');
    });

    it('takes any word from the strings attribute', async () => {
      const el = await fixture<EstateListings>(
        html`<estate-listings
          .listings=${[summary(1, { badge: 'sold' })]}
          filters="min-beds"
          strings='{"badgeSold":"Verkauft","minBeds":"Schlafzimmer","resultCount":{"one":"{count} Objekt","other":"{count} Objekte"}}'
        ></estate-listings>`,
      );
      await settled(el);
      expect(shadow(el).querySelector('[part~="badge"]')!.textContent!.trim()).to.equal('Verkauft');
      expect(shadow(el).querySelector('[part~="filter-label"]')!.textContent!.trim()).to.equal('Schlafzimmer');
      expect(shadow(el).querySelector('[role="status"]')!.textContent!.trim()).to.equal('1 Objekt');
    });
  });

  describe('paging', () => {
    it('pages through results with an accessible pagination nav and moves focus to the results', async () => {
      const all = await relayPage('pageSize=100');
      expect(all.total).to.be.greaterThan(6);
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="3" filters></estate-listings>`);
      const first = await settled(el);
      expect(first.items.map((item) => item.id)).to.deep.equal(all.items.slice(0, 3).map((item) => item.id));
      const nav = shadow(el).querySelector('nav[part~="pagination"]')!;
      expect(nav.getAttribute('aria-label')).to.equal('Pages of results');
      expect(nav.querySelector('[aria-current="page"]')!.getAttribute('aria-label')).to.equal('Page 1');
      expect(nav.querySelector<HTMLButtonElement>('[part~="page-previous"]')!.disabled).to.equal(true);
      await expect(el).to.be.accessible();

      nav.querySelector<HTMLButtonElement>('[part~="page-next"]')!.focus();
      const second = loaded(el);
      await sendKeys({ press: 'Enter' });
      const page2 = await second;
      expect(page2.page).to.equal(2);
      expect(cardIds(el)).to.deep.equal(all.items.slice(3, 6).map((item) => item.id));
      expect(new URL(window.location.href).searchParams.get('page')).to.equal('2');
      expect(shadow(el).querySelector('[aria-current="page"]')!.getAttribute('aria-label')).to.equal('Page 2');
      await waitUntil(() => deepActive()?.getAttribute('part') === 'status', 'focus moves to the result count');

      const pages = Math.ceil(all.total / 3);
      const lastButton = shadow(el).querySelector<HTMLButtonElement>(`[aria-label="Page ${pages}"]`)!;
      const last = loaded(el);
      lastButton.click();
      expect((await last).items.map((item) => item.id)).to.deep.equal(all.items.slice((pages - 1) * 3).map((item) => item.id));
      expect(shadow(el).querySelector<HTMLButtonElement>('[part~="page-next"]')!.disabled).to.equal(true);

      const backToTwo = loaded(el);
      history.back();
      expect((await backToTwo).page).to.equal(2);
    });
  });
});
