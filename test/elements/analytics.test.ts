import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { RELAY } from '/__relay.js';
import '../../widget/listings/define.ts';
import '../../widget/listing/define.ts';
import '../../widget/enquiry/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { EstateEnquiry } from '../../widget/enquiry/enquiry.ts';
import type { LeadSentDetail, ListingViewDetail, SearchDetail, ShortlistAddDetail } from '../../widget/shared/analytics.ts';
import { detail } from './listings-data.ts';

// The analytics events and the dataLayer bridge (issue 22, "Where leads come from"), against the
// real relay the runner started (demo mode, embedded CRM simulator).

type Entry = Record<string, unknown>;
const layer = () => (window as unknown as { dataLayer?: Entry[] }).dataLayer;
const events = () => (layer() ?? []).filter((entry) => 'event' in entry).map((entry) => entry.event);
const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;

/** What a visitor types into the enquiry form: none of it may reach analytics. */
const visitor = {
  fullName: 'Wilhelmina Oyelaran-Brackett',
  email: 'w.oyelaran.brackett@example.net',
  mobile: '0413 867 295',
  message: 'Could we see the garden on Thursday evening after work, around six?',
};

/** Every string in a value, however deep (keys too). */
function stringsIn(value: unknown, found: string[] = []): string[] {
  if (typeof value === 'string') found.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      found.push(key);
      stringsIn(item, found);
    }
  } else if (typeof value === 'number') found.push(String(value));
  return found;
}

/** The pieces of what the visitor typed that would give them away, each as a check over one string. */
const personal: Array<[what: string, test: (text: string) => boolean]> = [
  ['the full name', (text) => text.includes(visitor.fullName)],
  ['the surname', (text) => text.toLowerCase().includes('oyelaran')],
  ['the first name', (text) => text.toLowerCase().includes('wilhelmina')],
  ['the e-mail address', (text) => text.toLowerCase().includes(visitor.email)],
  ["the e-mail's mailbox", (text) => text.toLowerCase().includes('w.oyelaran.brackett')],
  ['the phone number', (text) => text.replace(/\D/g, '').includes('413867295')],
  ['the message', (text) => text.includes(visitor.message)],
  ['part of the message', (text) => /garden on thursday|after work/i.test(text)],
];

/** Names each piece of personal data found in any string of the values. */
function personalDataIn(values: unknown): string[] {
  const strings = stringsIn(values);
  return personal.filter(([, test]) => strings.some(test)).map(([what]) => what);
}

function fill(form: EstateEnquiry, values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    const input = shadow(form).querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${name}`)!;
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  }
}

/** Every analytics DOM event that reaches the document, with its detail. */
function recordEvents(): { seen: Array<[string, unknown]>; stop: () => void } {
  const seen: Array<[string, unknown]> = [];
  const names = ['estate-search', 'estate-listing-view', 'estate-shortlist-add', 'estate-lead-sent'];
  const listener = (event: Event) => seen.push([event.type, (event as CustomEvent).detail]);
  for (const name of names) document.addEventListener(name, listener);
  return { seen, stop: () => names.forEach((name) => document.removeEventListener(name, listener)) };
}

afterEach(() => {
  delete (window as { dataLayer?: unknown }).dataLayer;
  document.querySelectorAll('meta[name="estate-analytics"]').forEach((meta) => meta.remove());
  history.replaceState(null, '', testPageUrl);
  for (const key of Object.keys(localStorage)) if (key.startsWith('estate-enquiry:') || key.startsWith('estate-shortlist:')) localStorage.removeItem(key);
  sessionStorage.removeItem('estate-embed:campaign');
});

describe('analytics: the dataLayer bridge', () => {
  it('a search, a listing seen and an enquiry sent arrive in window.dataLayer in order, with nothing the visitor typed', async () => {
    const recorded = recordEvents();
    const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} type="sale" page-size="4" filters analytics="datalayer"></estate-listings>`);
    await el.loadComplete;
    await el.updateComplete;
    expect(layer(), 'nothing is pushed for a page merely loading').to.equal(undefined);

    // A search: two bedrooms or more, in a suburb typed into the filter bar.
    const form = shadow(el).querySelector<HTMLFormElement>('[part~="filters"]')!;
    form.querySelector<HTMLSelectElement>('select[name="minBeds"]')!.value = '2';
    const searched = oneEvent(el, 'estate-listings-loaded');
    form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await searched;
    await el.updateComplete;

    // A listing seen: the first result, opened in place.
    await waitUntil(() => shadow(el).querySelector('[part~="card-link"]'), 'the results of the search show');
    const link = shadow(el).querySelector<HTMLAnchorElement>(`[part~="card-link"]`)!;
    const listingId = Number(link.dataset.id);
    const viewed = oneEvent(el, 'estate-listing-view');
    link.click();
    const view = ((await viewed) as CustomEvent<ListingViewDetail>).detail;
    expect(view.listingId).to.equal(listingId);

    // An enquiry about it, sent through the relay.
    const inner = shadow(el).querySelector<EstateListing>('estate-listing')!;
    await inner.loadComplete;
    await inner.updateComplete;
    const enquiry = shadow(inner).querySelector<EstateEnquiry>('estate-enquiry')!;
    await enquiry.updateComplete;
    fill(enquiry, visitor);
    await enquiry.updateComplete;
    const sent = oneEvent(el, 'estate-lead-sent');
    shadow(enquiry).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
    const lead = ((await sent) as CustomEvent<LeadSentDetail>).detail;
    recorded.stop();

    expect(events()).to.deep.equal(['search', 'view_item', 'generate_lead']);
    const entries = layer()!;
    const search = entries.find((entry) => entry.event === 'search')!;
    expect(search.search_term).to.equal('type: sale, minBeds: 2, sort: newest');
    // Google's advice for ecommerce events: clear the previous ecommerce object first.
    const viewAt = entries.findIndex((entry) => entry.event === 'view_item');
    expect(entries[viewAt - 1]).to.deep.equal({ ecommerce: null });
    const item = (entries[viewAt]!.ecommerce as { items: Entry[] }).items[0]!;
    expect(item.item_id).to.equal(String(listingId));
    expect(item.item_category).to.equal('sale');
    expect(entries.find((entry) => entry.event === 'generate_lead')).to.deep.include({
      lead_type: 'enquiry',
      lead_id: lead.originalId,
      listing_id: listingId,
      agent_id: undefined,
    });
    expect(lead).to.deep.include({ leadType: 'enquiry', listingId });

    // The same moments as DOM events, for a page's own analytics, in the same order.
    expect(recorded.seen.map(([name]) => name)).to.deep.equal(['estate-search', 'estate-listing-view', 'estate-lead-sent']);
    expect((recorded.seen[0]![1] as SearchDetail).filters).to.deep.equal({ type: 'sale', minBeds: 2, sort: 'newest' });

    // Not one string anywhere in what was pushed or dispatched holds what the visitor typed.
    expect(personalDataIn(entries), 'personal data in window.dataLayer').to.deep.equal([]);
    expect(personalDataIn(recorded.seen), 'personal data in the analytics events').to.deep.equal([]);
  });

  it('the personal-data check finds each piece of what the visitor typed (so the check above can fail)', () => {
    expect(personalDataIn([{ event: 'generate_lead', user: { name: visitor.fullName } }])).to.include('the full name');
    expect(personalDataIn([{ email: visitor.email.toUpperCase() }])).to.include('the e-mail address');
    expect(personalDataIn([{ phone: '+61 413-867-295' }])).to.include('the phone number');
    expect(personalDataIn([{ items: [{ note: `re: ${visitor.message}` }] }])).to.include('the message');
    expect(personalDataIn([{ [visitor.email]: true }]), 'keys are searched too').to.include('the e-mail address');
  });

  it('turns on for the page with <meta name="estate-analytics" content="datalayer">; analytics="off" keeps one element out', async () => {
    const meta = Object.assign(document.createElement('meta'), { name: 'estate-analytics', content: 'datalayer' });
    document.head.append(meta);
    const listing = detail(41, {
      displayPrice: '$1,350,000',
      address: { display: '41 Example Street, Kew VIC', suburb: 'Kew', postcode: '3101', state: 'VIC' },
    });
    const shown = fixture<EstateListing>(html`<estate-listing no-enquiry .listing=${listing}></estate-listing>`);
    const { detail: view } = (await oneEvent(document, 'estate-listing-view')) as CustomEvent<ListingViewDetail>;
    await shown;
    expect(view).to.deep.equal({
      listingId: 41,
      listingType: 'sale',
      status: 'available',
      title: '41 Example Street, Kew VIC',
      propertyType: 'House',
      suburb: 'Kew',
      price: 1350000,
      currency: 'AUD',
    });
    expect(layer()).to.deep.equal([
      { ecommerce: null },
      {
        event: 'view_item',
        ecommerce: {
          currency: 'AUD',
          value: 1350000,
          items: [
            { item_id: '41', item_name: '41 Example Street, Kew VIC', item_category: 'sale', item_category2: 'House', item_category3: 'Kew', price: 1350000 },
          ],
        },
      },
    ]);

    const kept = fixture<EstateListing>(html`<estate-listing analytics="off" no-enquiry .listing=${detail(42)}></estate-listing>`);
    await oneEvent(document, 'estate-listing-view');
    await kept;
    expect(events(), 'the element that said off pushed nothing').to.deep.equal(['view_item']);
  });

  it('without the meta or the attribute it pushes nothing, and still dispatches the events', async () => {
    const shown = fixture<EstateListing>(html`<estate-listing no-enquiry .listing=${detail(43)}></estate-listing>`);
    const { detail: view } = (await oneEvent(document, 'estate-listing-view')) as CustomEvent<ListingViewDetail>;
    await shown;
    expect(view.listingId).to.equal(43);
    expect(layer()).to.equal(undefined);
  });

  it('never gives a withheld price, a range or words as a number', async () => {
    for (const [id, displayPrice] of [
      [44, 'Contact Agent'],
      [45, 'Offers over $850,000'],
      [46, '$2,350,000 - $2,590,000'],
      [47, null],
    ] as const) {
      const shown = fixture<EstateListing>(html`<estate-listing analytics="datalayer" no-enquiry .listing=${detail(id, { displayPrice })}></estate-listing>`);
      const { detail: view } = (await oneEvent(document, 'estate-listing-view')) as CustomEvent<ListingViewDetail>;
      await shown;
      expect(view.price, String(displayPrice)).to.equal(undefined);
    }
    const pushed = layer()!.filter((entry) => entry.event === 'view_item');
    expect(pushed).to.have.length(4);
    for (const entry of pushed) {
      const ecommerce = entry.ecommerce as { value?: number; items: Entry[] };
      expect(ecommerce.value).to.equal(undefined);
      expect(ecommerce.items[0]!.price).to.equal(undefined);
      expect(JSON.stringify(entry)).not.to.match(/850|2,350|2350|Contact Agent/);
    }
    // A weekly rent as one amount is a price.
    const rent = fixture<EstateListing>(
      html`<estate-listing analytics="datalayer" no-enquiry .listing=${detail(48, { type: 'lease', displayPrice: '$650 per week' })}></estate-listing>`,
    );
    expect(((await oneEvent(document, 'estate-listing-view')) as CustomEvent<ListingViewDetail>).detail.price).to.equal(650);
    await rent;
  });

  it('leaves out of search_term a typed suburb that looks like an e-mail address or a phone number', async () => {
    const el = await fixture<EstateListings>(
      html`<estate-listings relay=${RELAY} page-size="2" filters="suburb min-beds" analytics="datalayer"></estate-listings>`,
    );
    await el.loadComplete;
    await el.updateComplete;
    const form = shadow(el).querySelector<HTMLFormElement>('[part~="filters"]')!;
    for (const typed of [visitor.email, visitor.mobile]) {
      form.querySelector<HTMLInputElement>('input[name="suburb"]')!.value = typed;
      form.querySelector<HTMLSelectElement>('select[name="minBeds"]')!.value = '1';
      const searched = oneEvent(el, 'estate-search');
      form.querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
      await searched;
    }
    const terms = layer()!
      .filter((entry) => entry.event === 'search')
      .map((entry) => entry.search_term);
    expect(terms).to.deep.equal(['minBeds: 1', 'minBeds: 1']);
  });

  it("a home kept with a card's heart is estate-shortlist-add and add_to_wishlist; letting it go is neither", async () => {
    const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="2" analytics="datalayer"></estate-listings>`);
    await el.loadComplete;
    await el.updateComplete;
    const card = shadow(el).querySelector('[part~="card"]:not([part~="skeleton"])')!;
    const id = Number(card.querySelector<HTMLElement>('[part~="card-link"]')!.dataset.id);
    const heart = card.querySelector<HTMLButtonElement>('[part~="keep-button"]')!;
    const kept = oneEvent(el, 'estate-shortlist-add');
    heart.click();
    const { detail: home } = (await kept) as CustomEvent<ShortlistAddDetail>;
    expect(home.listingId).to.equal(id);
    expect(home.title).to.be.a('string').and.not.equal('');
    expect(layer()).to.deep.equal([{ ecommerce: null }, { event: 'add_to_wishlist', ecommerce: { items: [{ item_id: String(id), item_name: home.title }] } }]);
    await el.updateComplete;
    heart.click();
    await el.updateComplete;
    expect(heart.getAttribute('aria-pressed')).to.equal('false');
    expect(events(), 'letting a home go is not an event').to.deep.equal(['add_to_wishlist']);
  });

  it('a page whose dataLayer is not a list keeps working', async () => {
    (window as { dataLayer?: unknown }).dataLayer = 'not a list';
    const shown = fixture<EstateListing>(html`<estate-listing analytics="datalayer" no-enquiry .listing=${detail(49)}></estate-listing>`);
    await oneEvent(document, 'estate-listing-view');
    const el = await shown;
    expect(shadow(el).querySelector('[part~="title"]')).to.exist;
    expect(layer()).to.equal('not a list');
  });
});

describe('analytics: where a lead comes from', () => {
  /** A relay path that records what it is sent (test/support/fault-paths.mjs) and refuses it. */
  const recordingRelay = () => {
    const token = `origin-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
    return {
      relay: `${location.origin}/__faults/${token}/status-400/`,
      received: async () => (await (await fetch(`/__faults/${token}/received`)).json()) as Entry[],
    };
  };

  it('sends the page (origin and path) and the campaign the visit landed with, also from a later page', async () => {
    // The landing page: its utm_* are kept for the tab's visit.
    const landing = new URL(testPageUrl);
    landing.searchParams.set('utm_source', 'newsletter');
    landing.searchParams.set('utm_medium', 'email');
    landing.searchParams.set('utm_campaign', 'spring');
    landing.searchParams.set('email', visitor.email);
    history.replaceState(null, '', landing.href);
    await fixture(html`<estate-listings relay=${RELAY} page-size="1"></estate-listings>`);
    // Only the campaign's parameters are kept (the e-mail address in the URL stays behind).
    expect(sessionStorage.getItem('estate-embed:campaign')).to.equal('utm_source=newsletter&utm_medium=email&utm_campaign=spring');

    // Another page of the visit, with another campaign in its URL: the first one stands.
    history.replaceState(null, '', '/contact-us?utm_source=other&token=secret#form');
    const { relay, received } = recordingRelay();
    const form = await fixture<EstateEnquiry>(html`<estate-enquiry relay=${relay} agent-id="7"></estate-enquiry>`);
    fill(form, visitor);
    await form.updateComplete;
    const failed = oneEvent(form, 'estate-enquiry-error');
    shadow(form).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
    await failed;
    const [body] = await received();
    expect(body!.page).to.equal(`${location.origin}/contact-us`);
    expect(body!.campaign).to.deep.equal({ utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'spring' });
  });

  it('sends no campaign when the visit came without one, and cuts a long value to 200 characters', async () => {
    const first = recordingRelay();
    const form = await fixture<EstateEnquiry>(html`<estate-enquiry relay=${first.relay} agent-id="7"></estate-enquiry>`);
    fill(form, visitor);
    await form.updateComplete;
    let failed = oneEvent(form, 'estate-enquiry-error');
    shadow(form).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
    await failed;
    expect(Object.keys((await first.received())[0]!)).not.to.include('campaign');

    sessionStorage.removeItem('estate-embed:campaign');
    history.replaceState(null, '', `${location.pathname}?utm_content=${'c'.repeat(300)}`);
    const second = recordingRelay();
    const other = await fixture<EstateEnquiry>(html`<estate-enquiry relay=${second.relay} agent-id="7"></estate-enquiry>`);
    fill(other, visitor);
    await other.updateComplete;
    failed = oneEvent(other, 'estate-enquiry-error');
    shadow(other).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
    await failed;
    expect((await second.received())[0]!.campaign).to.deep.equal({ utm_content: 'c'.repeat(200) });
  });

  it('the relay puts them in the lead it takes (its answer names nothing dropped)', async () => {
    history.replaceState(null, '', `${location.pathname}?utm_source=google&utm_medium=cpc`);
    const agents = (await (await fetch(`${RELAY}/api/v1/agents`)).json()) as { items: Array<{ id: number }> };
    const form = await fixture<EstateEnquiry>(html`<estate-enquiry relay=${RELAY} agent-id=${agents.items[0]!.id}></estate-enquiry>`);
    const answers: Entry[] = [];
    const real = window.fetch;
    window.fetch = async (input, init) => {
      const response = await real(input, init);
      if (String(input).endsWith('/api/v1/enquiries')) answers.push(await response.clone().json());
      return response;
    };
    try {
      fill(form, visitor);
      await form.updateComplete;
      const sent = oneEvent(form, 'estate-lead-sent');
      shadow(form).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
      await sent;
    } finally {
      window.fetch = real;
    }
    await waitUntil(() => answers.length === 1);
    expect(answers[0]).to.deep.include({ status: 'queued' });
    expect(answers[0]).not.to.have.property('ignored');
  });
});
