import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import '../../widget/similar-listings/define.ts';
import type { EstateSimilarListings, SimilarListingsLoadedDetail } from '../../widget/similar-listings/similar-listings.ts';
import type { ListingSummary, Page, PlacementSummary, SimilarListings } from '../../contract/relay-api.ts';

// <estate-similar-listings> against the real relay the runner started (demo mode, embedded CRM
// simulator), in real Chromium: what it asks, when it asks it, and what it draws.

const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };

const shadow = (el: Element) => el.shadowRoot!;
const cards = (el: Element) => [...shadow(el).querySelectorAll<HTMLElement>('[part~="card"]')];
const cardIds = (el: Element) => cards(el).map((card) => Number(card.querySelector<HTMLElement>('[part~="card-link"]')!.dataset.id));

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

/**
 * The current listing with the most similar homes (at least `count`), and the relay's own answer for
 * it. Similar homes are nearby ones only, so in the runner's small demo a listing has a few at most.
 */
async function subjectWithSimilar(count: number): Promise<{ subject: ListingSummary; similar: ListingSummary[] }> {
  let best: { subject: ListingSummary; similar: ListingSummary[] } | undefined;
  for (const type of ['sale', 'lease']) {
    const page = (await (await fetch(`${RELAY}/api/v1/listings?type=${type}&pageSize=100`)).json()) as Page<ListingSummary>;
    for (const subject of page.items) {
      const { items } = (await (await fetch(`${RELAY}/api/v1/listings/${subject.id}/similar?limit=12`)).json()) as SimilarListings;
      if (items.length > (best?.similar.length ?? count - 1)) best = { subject, similar: items };
    }
  }
  if (!best) throw new Error(`no listing of the demo has ${count} similar homes`);
  return best;
}

/** Counts the page's requests for similar homes. */
function watchRequests(): { count: () => number; urls: string[]; stop: () => void } {
  const real = window.fetch;
  const urls: string[] = [];
  window.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (url.includes('/similar')) urls.push(url);
    return real(input, init);
  };
  return { count: () => urls.length, urls, stop: () => (window.fetch = real) };
}

describe('<estate-similar-listings>', () => {
  /** The listing with the most similar homes (at least 2), and the relay's answer for it: the same for every test. */
  let withSimilar: { subject: ListingSummary; similar: ListingSummary[] };

  // Nearby is measured between homes on the map: first the geocoder places the demo's listings (about one a second).
  before(async function () {
    this.timeout(150_000);
    await waitUntil(
      async () => ((await (await fetch(`${RELAY}/api/v1/listings/placement`)).json()) as PlacementSummary).pending === 0,
      'the relay never placed its listings',
      { timeout: 140_000, interval: 500 },
    );
    withSimilar = await subjectWithSimilar(2);
  });

  beforeEach(async () => {
    await setViewport({ width: 1280, height: 900 });
  });

  it('is accessible, and shows under a heading the relay’s similar homes as cards: never the listing itself, 4 by default', async () => {
    const { subject, similar } = withSimilar;
    const requests = watchRequests();
    const el = await fixture<EstateSimilarListings>(html`<estate-similar-listings relay=${RELAY} listing-id=${subject.id}></estate-similar-listings>`);
    await el.loadComplete;
    await el.updateComplete;
    requests.stop();
    expect(requests.urls, 'one request, for 4').to.deep.equal([`${RELAY}/api/v1/listings/${subject.id}/similar?limit=4`]);
    await expect(el).to.be.accessible();
    expect(shadow(el).querySelector('h2[part~="heading"]')!.textContent!.trim()).to.equal('Similar homes');
    expect(shadow(el).querySelector('section')!.getAttribute('aria-labelledby')).to.equal('heading');
    expect(cardIds(el)).to.deep.equal(similar.slice(0, 4).map((item) => item.id));
    expect(cardIds(el)).not.to.include(subject.id);
    const first = cards(el)[0]!;
    expect(first.querySelector('h3[part~="card-title"]')!.textContent!.trim()).to.equal(similar[0]!.address.display);
    expect(first.querySelector('[part~="price"]')!.textContent!.trim()).to.equal(similar[0]!.displayPrice?.trim() || 'Contact agent');
    expect(first.querySelector('[part~="keep-button"]')!.getAttribute('aria-label')).to.equal(`Keep ${similar[0]!.address.display}`);
    // Without detail-href: this page with `listing` set to the home's id.
    expect(new URL(first.querySelector<HTMLAnchorElement>('[part~="card-link"]')!.href).searchParams.get('listing')).to.equal(String(similar[0]!.id));
  });

  it('takes limit and detail-href ({id} and {slug}) as <estate-listings> does, and the id from the page URL', async () => {
    const { subject, similar } = withSimilar;
    const el = await fixture<EstateSimilarListings>(
      html`<estate-similar-listings relay=${RELAY} listing-id=${subject.id} limit="2" detail-href="/homes/{id}/{slug}"></estate-similar-listings>`,
    );
    await el.loadComplete;
    await el.updateComplete;
    expect(cardIds(el)).to.deep.equal(similar.slice(0, 2).map((item) => item.id));
    expect(cards(el)[0]!.querySelector('a')!.getAttribute('href')).to.match(new RegExp(`^/homes/${similar[0]!.id}/[a-z0-9-]+$`));

    history.replaceState(null, '', `?home=${subject.id}`);
    try {
      const fromUrl = await fixture<EstateSimilarListings>(
        html`<estate-similar-listings relay=${RELAY} listing-id-param="home" limit="1"></estate-similar-listings>`,
      );
      await fromUrl.loadComplete;
      await fromUrl.updateComplete;
      expect(cardIds(fromUrl)).to.deep.equal([similar[0]!.id]);
      expect(new URL(cards(fromUrl)[0]!.querySelector('a')!.href).searchParams.get('home'), 'links this page with the param').to.equal(String(similar[0]!.id));
    } finally {
      history.replaceState(null, '', location.pathname);
    }
  });

  it('asks the relay only once it nears the viewport', async () => {
    const { subject } = withSimilar;
    const requests = watchRequests();
    try {
      const container = await fixture<HTMLElement>(
        html`<div>
          <div style="height: 4000px">The listing</div>
          <estate-similar-listings relay=${RELAY} listing-id=${subject.id}></estate-similar-listings>
        </div>`,
      );
      const el = container.querySelector<EstateSimilarListings>('estate-similar-listings')!;
      // Give the observer every chance to (wrongly) fire.
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      await el.updateComplete;
      expect(requests.count(), 'nothing asked while far below the viewport').to.equal(0);
      expect(cards(el)).to.have.length(0);
      const loaded = new Promise<SimilarListingsLoadedDetail>((resolve) =>
        el.addEventListener('estate-similar-listings-loaded', (event) => resolve(event.detail), { once: true }),
      );
      el.scrollIntoView();
      const detail = await loaded;
      expect(requests.count()).to.equal(1);
      expect(detail.listingId).to.equal(subject.id);
      expect(cards(el).length).to.be.greaterThan(0);
    } finally {
      requests.stop();
      window.scrollTo(0, 0);
    }
  });

  it('renders nothing, not even its heading, when there are no similar homes (or the listing is unknown)', async () => {
    const requests = watchRequests();
    let el: EstateSimilarListings;
    try {
      el = await fixture<EstateSimilarListings>(html`<estate-similar-listings relay=${RELAY} listing-id="1999999"></estate-similar-listings>`);
      // The relay's 404: nothing to show. Once the load has settled (a failed load rejects), anything it drew is drawn.
      await el.loadComplete.catch(() => {});
      await el.updateComplete;
    } finally {
      requests.stop();
    }
    expect(requests.urls, 'asked the relay').to.deep.equal([`${RELAY}/api/v1/listings/1999999/similar?limit=4`]);
    expect(shadow(el).children).to.have.length(0);
    expect(el.getBoundingClientRect().height).to.equal(0);
  });

  it('is a row that scrolls sideways on a phone and a grid on a wide screen, reached card by card with the keyboard', async () => {
    const { subject } = withSimilar;
    await setViewport({ width: 390, height: 844 });
    const el = await fixture<EstateSimilarListings>(html`<estate-similar-listings relay=${RELAY} listing-id=${subject.id}></estate-similar-listings>`);
    await el.loadComplete;
    await el.updateComplete;
    const list = shadow(el).querySelector<HTMLElement>('[part~="list"]')!;
    await waitUntil(() => list.scrollWidth > list.clientWidth, 'the row is wider than the phone');
    const [one, two] = cards(el).map((card) => card.getBoundingClientRect());
    expect(two!.top, 'side by side').to.equal(one!.top);
    // Tab: the first card's link, then its heart, then the next card's link.
    const links = cards(el).map((card) => card.querySelector('a')!);
    links[0]!.focus();
    expect(deepActive()).to.equal(links[0]);
    await sendKeys({ press: 'Tab' });
    expect(deepActive()!.getAttribute('part')).to.contain('keep-button');
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(links[1]);

    await setViewport({ width: 1280, height: 900 });
    await waitUntil(() => list.scrollWidth <= list.clientWidth, 'no sideways scroll on a wide screen');
    await expect(el).to.be.accessible();
  });
});
