import { aTimeout, expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/listing/define.ts';
import type { EstateListing, ListingErrorDetail } from '../../widget/listing/listing.ts';
import type { EstateLightbox } from '../../widget/lightbox/lightbox.ts';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';
import { detail } from './listings-data.ts';

const shadow = (el: Element) => el.shadowRoot!;
/** The runner's own URL (it carries the session id); tests change the query and put it back. */
const testPageUrl = window.location.href;
const withQuery = (query: string) => {
  const url = new URL(testPageUrl);
  for (const [key, value] of new URLSearchParams(query)) url.searchParams.set(key, value);
  return url.href;
};
const lightboxOf = (el: EstateListing) => shadow(el).querySelector<EstateLightbox>('estate-lightbox')!;
// The lightbox's code is fetched on the first open: until then it has no shadow root.
const dialogOf = (el: EstateListing) => lightboxOf(el).shadowRoot?.querySelector('dialog') ?? ({ open: false } as HTMLDialogElement);
const counterText = (el: EstateListing) => shadow(lightboxOf(el)).querySelector('[part~="lightbox-counter"]')!.textContent!.replace(/\s+/g, ' ').trim();

/** The focused element, through shadow roots. */
function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

async function withHostData(listing: ListingDetail, attributes = ''): Promise<EstateListing> {
  const container = await fixture<HTMLDivElement>(html`<div></div>`);
  // Attribute strings in tests only: each case sets a different mix.
  container.innerHTML = `<estate-listing ${attributes}></estate-listing>`;
  const el = container.querySelector('estate-listing')!;
  const loaded = oneEvent(el, 'estate-listing-loaded');
  el.listing = listing;
  await loaded;
  return el;
}

/** Waits until the load the fixture started has rendered. */
async function settled(el: EstateListing): Promise<ListingDetail> {
  const listing = await el.loadComplete;
  await el.updateComplete;
  return listing;
}

async function relayListings(query = ''): Promise<Page<ListingSummary>> {
  const response = await fetch(`${RELAY}/api/v1/listings?${query}`);
  expect(response.status).to.equal(200);
  return response.json();
}

async function openHomeListingId(): Promise<number> {
  const page = await relayListings('pageSize=100');
  expect(page.items.length).to.be.greaterThan(0);
  return page.items[0]!.id;
}

describe('<estate-listing>', () => {
  before(async () => {
    await setViewport({ width: 1200, height: 900 });
  });

  afterEach(async () => {
    await emulateMedia({ reducedMotion: 'no-preference', colorScheme: 'light' });
    history.replaceState(null, '', testPageUrl);
  });

  describe('from the relay', () => {
    it('is accessible while loading and once loaded', async () => {
      const id = await openHomeListingId();
      const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id=${id}></estate-listing>`);
      expect(shadow(el).querySelector('[part~="skeleton"]')).to.exist;
      await expect(el).to.be.accessible();
      await settled(el);
      expect(shadow(el).querySelector('[part~="title"]')).to.exist;
      await expect(el).to.be.accessible();
    });

    it('shows the price text, photos and agents exactly as the relay sent them', async () => {
      const id = await openHomeListingId();
      const expected: ListingDetail = await (await fetch(`${RELAY}/api/v1/listings/${id}`)).json();
      const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id=${id}></estate-listing>`);
      await settled(el);
      const price = shadow(el).querySelector('[part~="price"]')!.textContent!.trim();
      expect(price).to.equal(expected.displayPrice?.trim() || 'Contact agent');
      // Unconditional: a listing without photos would let the photo checks pass by skipping them.
      expect(expected.photos.length, 'the relay listing has photos').to.be.greaterThan(0);
      const first = shadow(el).querySelector<HTMLImageElement>('[part~="gallery-item"] img')!;
      expect(first.getAttribute('fetchpriority')).to.equal('high');
      expect(first.src.startsWith(RELAY)).to.equal(true, 'photo URLs resolve against the relay, not the page');
      await waitUntil(() => first.complete && first.naturalWidth > 0, 'the mirrored photo loads from the relay');
      expect(shadow(el).querySelectorAll('[part~="agent"]').length).to.equal(expected.agents.length);
    });

    it('reads its id from the page URL with listing-id-param', async () => {
      const id = await openHomeListingId();
      history.replaceState(null, '', withQuery(`id=${id}`));
      const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id-param="id"></estate-listing>`);
      expect((await settled(el)).id).to.equal(id);
    });

    it('says when a listing is gone, without a retry button, and stays accessible', async () => {
      const failures: ListingErrorDetail[] = [];
      const el = await fixture<EstateListing>(
        html`<estate-listing
          relay=${RELAY}
          listing-id="987654321"
          @estate-listing-error=${(event: CustomEvent<ListingErrorDetail>) => failures.push(event.detail)}
        ></estate-listing>`,
      );
      await el.loadComplete.catch(() => undefined);
      await el.updateComplete;
      expect(failures.map((failure) => failure.status)).to.deep.equal([404]);
      await el.updateComplete;
      expect(shadow(el).querySelector('[part~="error"]')!.textContent).to.contain('no longer listed');
      expect(shadow(el).querySelector('[part~="retry-button"]')).to.equal(null);
      expect(el.nextElementSibling?.matches('script[type="application/ld+json"]') ?? false).to.equal(false);
      await expect(el).to.be.accessible();
    });

    it('offers a retry after a network failure, and the retry loads the listing', async () => {
      const id = await openHomeListingId();
      const realFetch = window.fetch;
      let calls = 0;
      window.fetch = (input, init) => (++calls === 1 ? Promise.reject(new TypeError('Failed to fetch')) : realFetch(input, init));
      try {
        const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id=${id}></estate-listing>`);
        await el.loadComplete.catch(() => undefined);
        await el.updateComplete;
        expect(shadow(el).querySelector('[part~="error"]')).to.exist;
        await expect(el).to.be.accessible();
        const loaded = oneEvent(el, 'estate-listing-loaded');
        shadow(el).querySelector<HTMLButtonElement>('[part~="retry-button"]')!.click();
        await loaded;
        expect(shadow(el).querySelector('[part~="title"]')).to.exist;
      } finally {
        window.fetch = realFetch;
      }
    });

    it('embeds the enquiry form for this listing', async () => {
      const id = await openHomeListingId();
      const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id=${id}></estate-listing>`);
      await settled(el);
      const enquiry = shadow(el).querySelector('estate-enquiry')!;
      expect(enquiry.getAttribute('listing-id')).to.equal(String(id));
      expect(enquiry.getAttribute('relay')).to.equal(RELAY);
    });
  });

  describe('description', () => {
    it('renders markup in the text as characters, never as elements', async () => {
      (window as unknown as { __pwned?: number }).__pwned = undefined;
      // As the relay publishes it: the CRM's &lt;b&gt; already decoded (server/crm/plain-text.ts).
      const planted = 'Sunny home <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script><b>bold</b>';
      const el = await withHostData(detail(1, { description: planted }));
      const prose = shadow(el).querySelector('[part~="description"] .prose')!;
      expect(prose.querySelector('img, script, b')).to.equal(null);
      expect(prose.textContent).to.contain('<img src=x onerror="window.__pwned=1">');
      expect(prose.textContent).to.contain('<b>bold</b>');
      await aTimeout(50);
      expect((window as unknown as { __pwned?: number }).__pwned).to.equal(undefined);
    });

    it('keeps line breaks and paragraphs, and shows the text as the relay decoded it (never decoding again)', async () => {
      // The relay publishes plain text (server/crm/plain-text.ts decoded the CRM's entities once): an
      // agency that wrote "&lt;3" (the CRM's "&amp;lt;3") sees those characters, not "<3".
      const el = await withHostData(detail(1, { description: 'Line one\r\nLine two & three\r\n\r\nNext \u2022 para \u2013 end &lt;3' }));
      const paragraphs = [...shadow(el).querySelectorAll('[part~="description"] .prose p')];
      expect(paragraphs.length).to.equal(2);
      expect(paragraphs[0]!.querySelectorAll('br').length).to.equal(1);
      expect((paragraphs[0] as HTMLElement).innerText).to.equal('Line one\nLine two & three');
      expect(paragraphs[1]!.textContent!.trim()).to.equal('Next \u2022 para \u2013 end &lt;3');
    });
  });

  describe('structured data', () => {
    it('places schema.org JSON-LD in the light DOM next to the element and removes it on disconnect', async () => {
      const el = await withHostData(detail(42, { description: 'Quiet </script><script>alert(1)</script> street' }));
      const script = el.nextElementSibling as HTMLScriptElement;
      expect(script.tagName).to.equal('SCRIPT');
      expect(script.type).to.equal('application/ld+json');
      expect(script.getRootNode()).to.equal(document);
      expect(script.textContent).not.to.contain('</script>');
      const data = JSON.parse(script.textContent!);
      expect(data['@context']).to.equal('https://schema.org');
      expect(data['@type']).to.equal('RealEstateListing');
      expect(data.offers['@type']).to.equal('Offer');
      expect(data.offers.priceCurrency).to.equal('AUD');
      expect(data.offers.description).to.equal('$1,350,000');
      expect(data.offers.itemOffered['@type']).to.equal('Place');
      expect(data.offers.itemOffered.address.addressLocality).to.equal('Kew');
      expect(data.description).to.contain('</script><script>alert(1)</script>');
      expect(data.image.length).to.equal(6);
      expect(document.querySelectorAll('script[type="application/ld+json"]').length).to.equal(1);
      el.remove();
      expect(script.isConnected).to.equal(false);
      expect(document.querySelectorAll('script[type="application/ld+json"]').length).to.equal(0);
    });

    it('follows the locale for the currency and can be turned off', async () => {
      const nz = await withHostData(detail(2), 'locale="en-NZ"');
      expect(JSON.parse((nz.nextElementSibling as HTMLScriptElement).textContent!).offers.priceCurrency).to.equal('NZD');
      const off = await withHostData(detail(3), 'no-json-ld');
      expect(off.nextElementSibling).to.equal(null);
    });
  });

  describe('gallery and lightbox', () => {
    it('leaves the address and price in the first screen of a 1280 × 800 window under a site header', async () => {
      await setViewport({ width: 1280, height: 800 });
      try {
        const container = await fixture<HTMLDivElement>(
          html`<div>
            <div style="height: 152px">Site header</div>
            <estate-listing></estate-listing>
          </div>`,
        );
        const el = container.querySelector('estate-listing')!;
        const loaded = oneEvent(el, 'estate-listing-loaded');
        el.listing = detail(5);
        await loaded;
        await el.updateComplete;
        const gallery = shadow(el).querySelector<HTMLElement>('.gallery.mosaic');
        expect(gallery, 'six photos make the mosaic').to.exist;
        // Lower, never narrower: the photos still span the element's width.
        expect(gallery!.getBoundingClientRect().width).to.be.closeTo(el.getBoundingClientRect().width, 1);
        for (const part of ['title', 'price']) {
          const box = shadow(el).querySelector(`[part~="${part}"]`)!.getBoundingClientRect();
          expect(box.bottom, part).to.be.at.most(800);
        }
      } finally {
        await setViewport({ width: 1200, height: 900 });
      }
    });

    it("gives each photo the agency's caption as its text, else which photo of which home it is", async () => {
      const listing = detail(5);
      const el = await withHostData(listing);
      const images = [...shadow(el).querySelectorAll<HTMLImageElement>('[part~="gallery-item"] img')];
      expect(images.length).to.be.greaterThan(1);
      expect(images[1]!.alt).to.equal('Kitchen');
      expect(images[0]!.alt).to.equal(`Photo 1 of ${listing.address.display}`);
      await expect(el).to.be.accessible();
    });

    it('opens from the keyboard, moves with arrows, Home and End, keeps Tab inside, closes on Escape back to the opener', async () => {
      const el = await withHostData(detail(5));
      const items = shadow(el).querySelectorAll<HTMLButtonElement>('[part~="gallery-item"]');
      expect(items[1]!.getAttribute('aria-label')).to.equal('Open photo 2 of 6: Kitchen');
      items[1]!.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => dialogOf(el).open, 'Enter on a photo opens the lightbox');
      expect(counterText(el)).to.equal('2 of 6 · Kitchen');
      await expect(el).to.be.accessible();

      await sendKeys({ press: 'ArrowRight' });
      await lightboxOf(el).updateComplete;
      expect(counterText(el)).to.equal('3 of 6');
      await sendKeys({ press: 'ArrowLeft' });
      await sendKeys({ press: 'ArrowLeft' });
      await sendKeys({ press: 'ArrowLeft' });
      await lightboxOf(el).updateComplete;
      expect(counterText(el)).to.equal('6 of 6', 'ArrowLeft wraps from the first photo to the last');
      await sendKeys({ press: 'Home' });
      await lightboxOf(el).updateComplete;
      expect(counterText(el)).to.match(/^1 of 6/);
      await sendKeys({ press: 'End' });
      await lightboxOf(el).updateComplete;
      expect(counterText(el)).to.match(/^6 of 6/);

      for (let step = 0; step < 5; step += 1) {
        if (step % 2) {
          await sendKeys({ down: 'Shift' });
          await sendKeys({ press: 'Tab' });
          await sendKeys({ up: 'Shift' });
        } else {
          await sendKeys({ press: 'Tab' });
        }
        const active = deepActive();
        expect(dialogOf(el).contains(active), `focus stays in the dialog after Tab #${step + 1}`).to.equal(true);
      }
      for (let step = 0; step < 4; step += 1) await sendKeys({ press: 'Tab' });
      expect(dialogOf(el).contains(deepActive())).to.equal(true);

      await sendKeys({ press: 'Escape' });
      await waitUntil(() => !dialogOf(el).open, 'Escape closes the lightbox');
      expect(deepActive()).to.equal(items[1], 'focus returns to the photo that opened it');
    });

    it('moves on a swipe (pointer events) and ignores a vertical drag', async () => {
      const el = await withHostData(detail(6));
      shadow(el).querySelector<HTMLButtonElement>('[part~="gallery-all"]')!.click();
      await waitUntil(() => dialogOf(el).open);
      const stage = shadow(lightboxOf(el)).querySelector<HTMLElement>('[part~="lightbox-stage"]')!;
      const swipe = async (fromX: number, toX: number, fromY = 300, toY = 300) => {
        const common = { pointerId: 7, pointerType: 'touch', bubbles: true, composed: true, isPrimary: true };
        stage.dispatchEvent(new PointerEvent('pointerdown', { ...common, clientX: fromX, clientY: fromY }));
        stage.dispatchEvent(new PointerEvent('pointermove', { ...common, clientX: (fromX + toX) / 2, clientY: (fromY + toY) / 2 }));
        stage.dispatchEvent(new PointerEvent('pointerup', { ...common, clientX: toX, clientY: toY }));
        await lightboxOf(el).updateComplete;
      };
      expect(counterText(el)).to.match(/^1 of 6/);
      await swipe(600, 400);
      expect(counterText(el)).to.match(/^2 of 6/, 'swipe left shows the next photo');
      await swipe(400, 600);
      expect(counterText(el)).to.match(/^1 of 6/, 'swipe right shows the previous photo');
      await swipe(500, 520, 200, 600);
      expect(counterText(el)).to.match(/^1 of 6/, 'a vertical drag is a scroll, not a swipe');
      lightboxOf(el).close();
    });

    it('animates slides only without a reduced-motion preference', async () => {
      const el = await withHostData(detail(7));
      shadow(el).querySelector<HTMLButtonElement>('[part~="gallery-all"]')!.click();
      await waitUntil(() => dialogOf(el).open);
      const image = () => shadow(lightboxOf(el)).querySelector<HTMLImageElement>('[part~="lightbox-image"]')!;
      await sendKeys({ press: 'ArrowRight' });
      await lightboxOf(el).updateComplete;
      expect(getComputedStyle(image()).animationName).to.equal('estate-slide-from-right');
      await emulateMedia({ reducedMotion: 'reduce' });
      await sendKeys({ press: 'ArrowRight' });
      await lightboxOf(el).updateComplete;
      expect(getComputedStyle(image()).animationName).to.equal('none');
      lightboxOf(el).close();
    });

    it('opens floorplans in the lightbox too', async () => {
      const el = await withHostData(detail(8));
      const plan = shadow(el).querySelector<HTMLButtonElement>('[part~="floorplans"] [part~="gallery-item"]')!;
      expect(plan.getAttribute('aria-label')).to.equal('Open floorplan 1 of 1');
      plan.click();
      await waitUntil(() => dialogOf(el).open);
      expect(counterText(el)).to.equal('1 of 1 · Ground floor');
      expect(shadow(lightboxOf(el)).querySelector<HTMLButtonElement>('[part~="lightbox-next"]')!.hidden).to.equal(true);
      lightboxOf(el).close();
    });
  });

  describe('open homes, auction, agents and links', () => {
    it("links each upcoming open home to the relay's calendar file, with the page and no words of its own", async () => {
      // One that is over already: not worth a calendar entry.
      const past = { id: 99, start: '2000-05-02T00:00:00.000Z', end: '2000-05-02T00:30:00.000Z' };
      const el = await withHostData(
        detail(9, { openHomes: [past, ...detail(9).openHomes] }),
        // A page that still sets the old calendarSummary string: no longer sent (the relay writes the title).
        `relay="${RELAY}" strings='{"calendarSummary":"Inspection: {address}"}'`,
      );
      const links = shadow(el).querySelectorAll<HTMLAnchorElement>('[part~="calendar-link"]');
      expect(links.length, 'the past open home is left out').to.equal(2);
      expect(links[0]!.download).to.equal('open-home-9-1.ics');
      const href = new URL(links[0]!.href);
      expect(`${href.origin}${href.pathname}`).to.equal(`${RELAY}/api/v1/listings/9/open-homes/1.ics`);
      expect(href.searchParams.has('summary')).to.equal(false);
      expect(href.searchParams.get('page')).to.equal(location.href);
      // The accessible name tells the two links apart.
      expect(links[0]!.textContent!.replace(/\s+/g, ' ')).to.match(/Add to calendar: .+/);
    });

    it("offers a calendar file the relay serves for one of its listings' open homes", async () => {
      let id: number | undefined;
      for (const item of (await relayListings('pageSize=100')).items) {
        const candidate: ListingDetail = await (await fetch(`${RELAY}/api/v1/listings/${item.id}`)).json();
        if (candidate.openHomes.length) id = candidate.id;
        if (id) break;
      }
      expect(id, 'a listing of the relay has open homes').to.be.a('number');
      const el = await fixture<EstateListing>(html`<estate-listing relay=${RELAY} listing-id=${id}></estate-listing>`);
      const listing = await settled(el);
      const response = await fetch(shadow(el).querySelector<HTMLAnchorElement>('[part~="calendar-link"]')!.href);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('text/calendar; charset=utf-8');
      const ics = (await response.text()).replace(/\r\n /g, '');
      expect(ics).to.contain(`\r\nDTSTART:${listing.openHomes[0]!.start.replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')}\r\n`);
      expect(ics).to.contain(`\r\nURL:${location.href}\r\n`);
    });

    it('formats auction times for the locale and time zone', async () => {
      const au = await withHostData(detail(10), 'time-zone="Australia/Melbourne"');
      const auText = shadow(au).querySelector('[part~="auction"] time')!.textContent!;
      expect(auText).to.contain('16 May 2099');
      expect(auText).to.match(/11:00\s?am/i);
      const us = await withHostData(detail(11), 'locale="en-US" time-zone="UTC"');
      expect(shadow(us).querySelector('[part~="auction"] time')!.textContent).to.contain('May 16, 2099');
    });

    it('gives call and email links for each agent', async () => {
      const el = await withHostData(detail(12));
      const phone = shadow(el).querySelector<HTMLAnchorElement>('[part~="agent-phone"]')!;
      expect(phone.getAttribute('href')).to.equal('tel:0412345678');
      expect(phone.textContent!.replace(/\s+/g, ' ').trim()).to.equal('Call Jane Citizen, 0412 345 678');
      const email = shadow(el).querySelector<HTMLAnchorElement>('[part~="agent-email"]')!;
      expect(email.getAttribute('href')).to.equal(`mailto:jane@agency.example?subject=${encodeURIComponent('12 Example Street, Kew VIC')}`);
    });

    it('links videos in a new tab and drops links that are not http(s)', async () => {
      const el = await withHostData(
        detail(13, {
          links: [
            { url: 'https://video.example/watch/1', kind: 'Video' },
            { url: 'javascript:alert(1)', kind: 'Video' },
            { url: 'https://tour.example/3d', kind: 'Virtual Tour' },
          ],
        }),
      );
      const links = [...shadow(el).querySelectorAll<HTMLAnchorElement>('[part~="external-link"]')];
      expect(links.map((link) => link.href)).to.deep.equal(['https://video.example/watch/1', 'https://tour.example/3d']);
      expect(links[0]!.target).to.equal('_blank');
      expect(links[0]!.rel).to.contain('noopener');
      expect(links[1]!.textContent).to.contain('Take the virtual tour');
    });
  });

  describe('words, locale and themes', () => {
    it('takes any string from the strings attribute', async () => {
      const el = await withHostData(detail(14), `strings='{"openHomes":"Viewings","bedrooms":{"one":"{count} bed","other":"{count} beds"}}'`);
      const titles = [...shadow(el).querySelectorAll('[part~="section-title"]')].map((node) => node.textContent!.trim());
      expect(titles).to.include('Viewings');
      expect(shadow(el).querySelector('[part~="features"]')!.textContent).to.contain('3 beds');
    });

    it('formats areas with the locale', async () => {
      const el = await withHostData(detail(15, { landArea: { value: 1234.5, units: 'sqm' } }), 'locale="de-DE"');
      const facts = shadow(el).querySelector('[part~="facts"]')!.textContent!;
      expect(facts).to.contain('1.234,5 m²');
    });

    it('is accessible in dark mode', async () => {
      await emulateMedia({ colorScheme: 'dark' });
      const el = await withHostData(detail(16, { badge: 'under-offer' }));
      expect(getComputedStyle(el).color).to.equal('rgb(230, 237, 243)');
      await expect(el).to.be.accessible();
    });
  });

  // Pages the relay renders (server/pages): the element comes with a declarative shadow root and
  // its properties as JSON after it; its code renders over that root, without Lit's hydration.
  describe('server-rendered markup', () => {
    /** Parsed as a page is (declarative shadow roots attached), then upgraded on insertion; nothing has rendered yet. */
    function serverRendered(container: HTMLDivElement, markup: string): HTMLDivElement {
      container.setHTMLUnsafe(markup);
      return container;
    }

    it('reads its properties from the JSON after it and renders over the server root: the content once, the stale markup gone', async () => {
      const listing = detail(4242, { address: { ...detail(4242).address, display: '1 Browser Street, Sydney NSW' } });
      // The form inside, as Lit's server marks it: rendered by the detail, never on its own.
      const nested = `<estate-enquiry listing-id="4242" defer-hydration><template shadowrootmode="open"><form part="stale"></form></template></estate-enquiry>`;
      const container = serverRendered(
        await fixture<HTMLDivElement>(html`<div></div>`),
        `<estate-listing data-estate-ssr heading-level="1" no-json-ld><template shadowrootmode="open"><h1 part="title">From the server</h1><p part="stale">server only</p>${nested}</template></estate-listing>` +
          `<script type="application/json" data-estate-ssr>${JSON.stringify({ listing }).replace(/</g, '\\u003c')}</script>`,
      );
      const el = container.querySelector<EstateListing>('estate-listing')!;
      await el.updateComplete;
      expect(el.listing?.id).to.equal(4242);
      expect(shadow(el).querySelector('[part~="stale"]')).to.equal(null);
      const titles = shadow(el).querySelectorAll('[part~="title"]');
      expect(titles.length).to.equal(1);
      expect(titles[0]!.textContent!.trim()).to.equal('1 Browser Street, Sydney NSW');
      expect(titles[0]!.localName).to.equal('h1');
      // The enquiry form inside is the browser's, rendered once.
      const form = shadow(el).querySelector('estate-enquiry')!;
      await (form as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
      expect(form.shadowRoot!.querySelectorAll('form').length).to.equal(1);
      await expect(el).to.be.accessible();
    });

    it('leaves a form the server marked as nested (defer-hydration) alone: its parent renders its own', async () => {
      // Upgraded before its parent (as when the form's code runs first): it must not render, or a
      // second form would, for one, resume a pending enquiry from storage beside the detail's own.
      const container = serverRendered(
        await fixture<HTMLDivElement>(html`<div></div>`),
        `<estate-enquiry listing-id="4242" defer-hydration><template shadowrootmode="open"><form part="server"></form></template></estate-enquiry>`,
      );
      const form = container.querySelector<HTMLElement & { hasUpdated: boolean }>('estate-enquiry')!;
      await aTimeout(50);
      expect(form.hasUpdated).to.equal(false);
      expect(form.shadowRoot!.querySelectorAll('[part~="server"]').length).to.equal(1);
    });

    it('renders over a server root without data (a nested element) once, from its attributes', async () => {
      const container = serverRendered(
        await fixture<HTMLDivElement>(html`<div></div>`),
        `<estate-enquiry agent-id="7"><template shadowrootmode="open"><form part="stale"><input name="fullName"></form></template></estate-enquiry>`,
      );
      const form = container.querySelector<HTMLElement & { updateComplete: Promise<unknown> }>('estate-enquiry')!;
      await form.updateComplete;
      expect(form.shadowRoot!.querySelector('[part~="stale"]')).to.equal(null);
      expect(form.shadowRoot!.querySelectorAll('input[name="fullName"]').length).to.equal(1);
      expect(form.shadowRoot!.querySelectorAll('form').length).to.equal(1);
    });
  });
});
