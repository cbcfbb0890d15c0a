// <estate-listings> and a drawn area (the `area` filter an <estate-map>'s "Draw an area" writes) on
// a page without a filter bar or a map: the outline's rule (widget/listings/area-rule.ts) is not
// part of the list's code, so a list without an area never downloads it (issue 33), and a list
// with one fetches it before it asks the relay. Its own file: a page that has not run the bar's code.
import { expect, fixture, html } from '@open-wc/testing';
import { RELAY } from '/__relay.js';
import '../../widget/listings/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';

const testPageUrl = window.location.href;
const shadow = (el: Element) => el.shadowRoot!;
const cardIds = (el: EstateListings) =>
  [...shadow(el).querySelectorAll('[part~="card"]:not([part~="skeleton"]) [part~="card-link"]')].map((link) => Number(link.getAttribute('data-id')));
/** Around every home of the demo agency (Australia's east): placed listings are inside it. */
const AREA = '-10,110;-10,155;-44,155;-44,110';

/** The `area` of every listings request the page makes while `run` runs (null: none sent). */
async function areasAsked(run: () => Promise<void>): Promise<Array<string | null>> {
  const real = window.fetch;
  const asked: Array<string | null> = [];
  window.fetch = (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    if (url.pathname.endsWith('/api/v1/listings')) asked.push(url.searchParams.get('area'));
    return real(input, init);
  };
  try {
    await run();
  } finally {
    window.fetch = real;
  }
  return asked;
}

const ruleFetched = () => performance.getEntriesByType('resource').some((entry) => /\/(area-rule|filter-bar)\.ts/.test(entry.name));

describe('<estate-listings> with a drawn area, without a filter bar', () => {
  afterEach(() => history.replaceState(null, '', testPageUrl));

  it('does not fetch the outline’s rule for a list without an area', async () => {
    const asked = await areasAsked(async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} detail-href="/listing?id={id}"></estate-listings>`);
      await el.loadComplete;
    });
    expect(asked).to.deep.equal([null]);
    expect(ruleFetched()).to.equal(false);
  });

  it('sends an area from the page URL as the relay spells it, once, and shows what the relay has inside it', async () => {
    const url = new URL(testPageUrl);
    url.searchParams.set('area', '-10.0,110.00;-10,155;-44.000,155;-44,110');
    history.replaceState(null, '', url.href);
    let el: EstateListings | undefined;
    const asked = await areasAsked(async () => {
      el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="100" detail-href="/listing?id={id}"></estate-listings>`);
      await el.loadComplete;
      await el.updateComplete;
    });
    expect(asked).to.deep.equal([AREA]);
    expect(ruleFetched()).to.equal(true);
    const inside = (await (await fetch(`${RELAY}/api/v1/listings?area=${encodeURIComponent(AREA)}&pageSize=100`)).json()) as { items: Array<{ id: number }> };
    expect(inside.items.length).to.be.greaterThan(0);
    expect(cardIds(el!)).to.deep.equal(inside.items.map((item) => item.id));
    expect(el!.query.area).to.equal(AREA);
  });

  it('leaves out an area attribute that is no outline', async () => {
    const asked = await areasAsked(async () => {
      const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} area="7" detail-href="/listing?id={id}"></estate-listings>`);
      await el.loadComplete;
      expect(el.query.area).to.equal(undefined);
    });
    expect(asked).to.deep.equal([null]);
  });
});
