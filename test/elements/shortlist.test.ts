import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import '../../widget/listings/define.ts';
import '../../widget/listing/define.ts';
import '../../widget/shortlist/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { EstateShortlist, ShortlistEnquirySuccessDetail } from '../../widget/shortlist/shortlist.ts';
import type {
  EnquiryBatchAnswer,
  EnquiryBatchRequest,
  LeadStatusResponse as EnquiryStatusResponse,
  ListingDetail,
  ListingSummary,
  Page,
} from '../../contract/relay-api.ts';

// The shortlist against the real relay the runner started (demo mode, embedded CRM simulator), in
// real Chromium: hearts on cards and on the detail, <estate-shortlist>, localStorage and the
// `storage` event between two windows of one browser context, and enquiries through the relay.

const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };
/** What the shortlist belongs to: the relay as an absolute URL, agency path included. */
const storageKey = `estate-shortlist:${new URL(`${RELAY}/`).href}`;

const shadow = (el: Element) => el.shadowRoot!;
const hearts = (el: Element) => [...shadow(el).querySelectorAll<HTMLButtonElement>('[part~="keep-button"]')];
const homeIds = (el: EstateShortlist) => [...shadow(el).querySelectorAll<HTMLElement>('[part~="home"]')].map((home) => Number(home.dataset.id));
const home = (el: EstateShortlist, id: number) => shadow(el).querySelector<HTMLElement>(`[part~="home"][data-id="${id}"]`)!;
const stored = (): Array<{ id: number; address: string }> => JSON.parse(localStorage.getItem(storageKey) ?? '[]');

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

async function available(): Promise<ListingSummary[]> {
  const page = (await (await fetch(`${RELAY}/api/v1/listings?pageSize=100`)).json()) as Page<ListingSummary>;
  expect(page.items.length, 'the simulator seeds listings').to.be.greaterThan(3);
  return page.items;
}

function keep(...homes: Array<{ id: number; address: string }>): void {
  localStorage.setItem(storageKey, JSON.stringify(homes));
}

/** Waits until every kept home has its answer from the relay. */
async function checked(el: EstateShortlist): Promise<void> {
  await waitUntil(() => !shadow(el).textContent!.includes('Checking…'), 'every kept home is checked with the relay', { timeout: 10_000 });
}

/** Types as a person would (input events), without the keyboard. */
function type(el: EstateShortlist, name: string, value: string): void {
  const control = shadow(el).querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${name}`)!;
  control.value = value;
  control.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
}

describe('the shortlist', () => {
  beforeEach(async () => {
    localStorage.removeItem(storageKey);
    await setViewport({ width: 1200, height: 1000 });
  });

  afterEach(() => localStorage.removeItem(storageKey));

  it('is accessible and says it is empty when nothing is kept', async () => {
    const el = await fixture<EstateShortlist>(html`<estate-shortlist relay=${RELAY}></estate-shortlist>`);
    await expect(el).to.be.accessible();
    expect(shadow(el).querySelector('[part~="status"]')!.textContent!.trim()).to.equal('0 homes in your shortlist');
    expect(shadow(el).querySelector('[part~="empty"]')!.textContent).to.contain('Your shortlist is empty');
    expect(shadow(el).querySelector('form')).to.equal(null);
  });

  it('keeps and lets go of a home with the heart on its card: a named toggle button, in storage, and in the shortlist on the page at once', async () => {
    const items = await available();
    const container = await fixture<HTMLElement>(
      html`<div>
        <estate-listings relay=${RELAY} page-size="4"></estate-listings>
        <estate-shortlist relay=${RELAY}></estate-shortlist>
      </div>`,
    );
    const grid = container.querySelector<EstateListings>('estate-listings')!;
    const list = container.querySelector<EstateShortlist>('estate-shortlist')!;
    await grid.loadComplete;
    await grid.updateComplete;
    const [first, second] = hearts(grid);
    expect(first!.getAttribute('aria-pressed')).to.equal('false');
    expect(first!.getAttribute('aria-label')).to.equal(`Keep ${items[0]!.address.display}`);
    await expect(grid).to.be.accessible();

    first!.click();
    second!.click();
    await grid.updateComplete;
    expect(hearts(grid).map((heart) => heart.getAttribute('aria-pressed'))).to.deep.equal(['true', 'true', 'false', 'false']);
    expect(stored()).to.deep.equal([
      { id: items[0]!.id, address: items[0]!.address.display },
      { id: items[1]!.id, address: items[1]!.address.display },
    ]);
    await list.updateComplete;
    expect(homeIds(list)).to.deep.equal([items[0]!.id, items[1]!.id]);
    expect(shadow(list).querySelector('[part~="status"]')!.textContent!.trim()).to.equal('2 homes in your shortlist');

    first!.click();
    await grid.updateComplete;
    await list.updateComplete;
    expect(first!.getAttribute('aria-pressed')).to.equal('false');
    expect(stored().map((kept) => kept.id)).to.deep.equal([items[1]!.id]);
    expect(homeIds(list)).to.deep.equal([items[1]!.id]);
  });

  it('has the heart on the listing detail too, in step with the cards', async () => {
    const items = await available();
    const target = items[2]!;
    const container = await fixture<HTMLElement>(
      html`<div>
        <estate-listing relay=${RELAY} listing-id=${target.id} no-json-ld></estate-listing>
        <estate-listings relay=${RELAY} page-size="4"></estate-listings>
      </div>`,
    );
    const detail = container.querySelector<EstateListing>('estate-listing')!;
    const grid = container.querySelector<EstateListings>('estate-listings')!;
    await detail.loadComplete;
    await grid.loadComplete;
    await detail.updateComplete;
    const heart = hearts(detail)[0]!;
    expect(heart.textContent!.trim()).to.equal('Keep');
    expect(heart.getAttribute('aria-label')).to.equal(`Keep ${target.address.display}`);
    heart.click();
    await grid.updateComplete;
    await detail.updateComplete;
    expect(heart.getAttribute('aria-pressed')).to.equal('true');
    expect(hearts(grid)[2]!.getAttribute('aria-pressed'), 'the same home’s card heart').to.equal('true');
    expect(stored().map((kept) => kept.id)).to.deep.equal([target.id]);
  });

  it('is the same in another window at once, and survives a reload there', async () => {
    const items = await available();
    const grid = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="4"></estate-listings>`);
    await grid.loadComplete;
    await grid.updateComplete;
    const other = window.open(`/test/elements/shortlist-tab.html?relay=${encodeURIComponent(RELAY)}`, 'estate-shortlist-tab', 'popup,width=900,height=900')!;
    expect(other, 'the runner allows a second window').to.exist;
    try {
      const ready = () => (other as unknown as { __ready?: Promise<unknown> }).__ready;
      await waitUntil(ready, 'the other window loads the elements', { timeout: 20_000 });
      await ready();
      const otherGrid = other.document.querySelector('estate-listings')!;
      const otherList = other.document.querySelector('estate-shortlist')!;
      const pressed = () => [...otherGrid.shadowRoot!.querySelectorAll('[part~="keep-button"]')].map((heart) => heart.getAttribute('aria-pressed'));
      const otherIds = () => [...otherList.shadowRoot!.querySelectorAll<HTMLElement>('[part~="home"]')].map((row) => Number(row.dataset.id));
      expect(pressed().slice(0, 4)).to.deep.equal(['false', 'false', 'false', 'false']);

      // Kept here: the other window's hearts and shortlist follow (the browser's storage event).
      hearts(grid)[1]!.click();
      await waitUntil(() => pressed()[1] === 'true', 'the other window’s heart follows', { timeout: 5_000 });
      await waitUntil(() => otherIds().join() === String(items[1]!.id), 'the other window’s shortlist follows', { timeout: 5_000 });

      // Let go there: this window follows.
      (otherList.shadowRoot!.querySelector('[part~="remove-button"]') as HTMLButtonElement).click();
      await waitUntil(() => hearts(grid)[1]!.getAttribute('aria-pressed') === 'false', 'this window’s heart follows', { timeout: 5_000 });

      // Kept again, then the other window reloads: still kept there.
      hearts(grid)[3]!.click();
      await waitUntil(() => pressed()[3] === 'true', 'the other window follows again', { timeout: 5_000 });
      other.location.reload();
      await waitUntil(
        () => other.document.readyState === 'complete' && ready() !== undefined && other.document.querySelector('estate-listings')?.shadowRoot,
        'reloaded',
        {
          timeout: 20_000,
        },
      );
      await ready();
      const reloadedGrid = other.document.querySelector('estate-listings')!;
      const reloadedList = other.document.querySelector('estate-shortlist')!;
      await waitUntil(
        () => reloadedGrid.shadowRoot!.querySelectorAll('[part~="keep-button"]')[3]?.getAttribute('aria-pressed') === 'true',
        'kept after a reload',
        { timeout: 10_000 },
      );
      await waitUntil(
        () => reloadedList.shadowRoot!.querySelector<HTMLElement>('[part~="home"]')?.dataset.id === String(items[3]!.id),
        'listed after a reload',
      );
    } finally {
      other.close();
    }
  });

  it('shows a kept home the relay no longer has as gone, and a sold one as sold, rather than dropping them', async () => {
    const items = await available();
    const sold = items[1]!;
    // The relay answers 404 for a listing it does not have (withdrawn, or sold and no longer shown).
    expect((await fetch(`${RELAY}/api/v1/listings/1999999`)).status).to.equal(404);
    // No listing of the seeded relay is sold: its real answer for one listing is read as sold (the
    // only change made to what the relay said), so the element's reading of a sold status is seen.
    const real = window.fetch;
    window.fetch = async (input, init) => {
      const response = await real(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith(`/api/v1/listings/${sold.id}`)) return response;
      const body = (await response.json()) as ListingDetail;
      return new Response(JSON.stringify({ ...body, status: 'sold', badge: 'sold' }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    };
    try {
      keep(
        { id: items[0]!.id, address: items[0]!.address.display },
        { id: 1999999, address: '9 Gone Lane, Kew VIC' },
        { id: sold.id, address: sold.address.display },
      );
      const el = await fixture<EstateShortlist>(html`<estate-shortlist relay=${RELAY} detail-href="/homes/{id}/{slug}"></estate-shortlist>`);
      await checked(el);
      expect(homeIds(el)).to.deep.equal([items[0]!.id, 1999999, sold.id]);
      const gone = home(el, 1999999);
      expect(gone.getAttribute('part')).to.equal('home home-gone');
      expect(gone.querySelector('[part~="home-title"]')!.textContent!.trim()).to.equal('9 Gone Lane, Kew VIC');
      expect(gone.querySelector('[part~="home-status"]')!.textContent!.trim()).to.equal('No longer on the website');
      expect(gone.querySelector('a'), 'no link to a page that is gone').to.equal(null);
      expect(home(el, sold.id).querySelector('[part~="home-status"]')!.textContent!.trim()).to.equal('Sold');
      const listed = home(el, items[0]!.id);
      expect(listed.querySelector('[part~="price"]')!.textContent!.trim()).to.equal(items[0]!.displayPrice!.trim());
      expect(listed.querySelector<HTMLAnchorElement>('[part~="home-link"]')!.getAttribute('href')).to.match(new RegExp(`^/homes/${items[0]!.id}/`));
      // Only the home still for sale or rent takes an enquiry.
      expect(shadow(el).querySelector('[part~="submit"]')!.textContent!.trim()).to.equal('Send 1 enquiry');
      await expect(el).to.be.accessible();
    } finally {
      window.fetch = real;
    }
  });

  it('sends one enquiry per kept home through the relay in one request, each to its own listing, from one form', async () => {
    const items = (await available()).slice(4, 7);
    keep(...items.map((item) => ({ id: item.id, address: item.address.display })));
    const posted: Array<Record<string, unknown>> = [];
    const real = window.fetch;
    window.fetch = (input, init) => {
      if (init?.method === 'POST') posted.push(JSON.parse(String(init.body)));
      return real(input, init);
    };
    try {
      const el = await fixture<EstateShortlist>(html`<estate-shortlist relay=${RELAY}></estate-shortlist>`);
      await checked(el);
      await expect(el).to.be.accessible();
      expect(shadow(el).querySelector('[part~="submit"]')!.textContent!.trim()).to.equal('Send 3 enquiries');
      type(el, 'fullName', 'Alex Buyer');
      type(el, 'email', 'alex.buyer@example.com');
      const successes: ShortlistEnquirySuccessDetail[] = [];
      el.addEventListener('estate-shortlist-enquiry-success', (event) => successes.push(event.detail));
      // The relay takes a form sent in under ENQUIRY_MIN_FILL_MS as a bot's.
      await new Promise((resolve) => setTimeout(resolve, 3_100));
      shadow(el).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
      await waitUntil(() => successes.length === 3, 'all three accepted', { timeout: 15_000 });
      await el.updateComplete;

      // One request for the three homes: the question once, each home with its own originalId and subject.
      expect(posted).to.have.length(1);
      const batch = posted[0] as unknown as EnquiryBatchRequest;
      expect(batch.homes.map((one) => one.listingId)).to.deep.equal(items.map((item) => item.id));
      expect(new Set(batch.homes.map((one) => one.originalId)).size, 'each its own originalId').to.equal(3);
      expect(batch.homes.map((one) => one.subject)).to.deep.equal(items.map((item) => item.address.display));
      expect(batch).to.include({ fullName: 'Alex Buyer', email: 'alex.buyer@example.com', website: '' });
      expect(batch.message).to.equal('I am interested in this home. Please send me more information.');
      for (const { listingId, originalId } of successes) {
        expect(home(el, listingId).querySelector('[part~="outcome"]')!.textContent!.trim()).to.equal('Enquiry sent');
        const response = await real(`${RELAY}/api/v1/enquiries/${originalId}`);
        expect(response.status, `the relay holds ${originalId}`).to.equal(200);
        expect(((await response.json()) as EnquiryStatusResponse).status).to.equal('accepted');
      }
      expect(shadow(el).querySelector('[part~="form-status"]')!.textContent!.trim()).to.equal('Your 3 enquiries have been sent. The agents will be in touch.');
      // Nothing left unsent on this device.
      for (const item of items) expect(localStorage.getItem(`estate-enquiry:pending:listing:${item.id}`)).to.equal(null);
      await expect(el).to.be.accessible();
    } finally {
      window.fetch = real;
    }
  });

  it('shows a partial failure per home, keeps the unsent one and what was typed, and sends it again', async () => {
    const items = (await available()).slice(7, 9);
    keep(...items.map((item) => ({ id: item.id, address: item.address.display })));
    const failing = items[1]!.id;
    let failures = 0;
    const real = window.fetch;
    // The relay is reached for every request; only in the first batch, one listing's home is
    // answered 503 here (and not sent on), as a relay that could not store it would.
    window.fetch = async (input, init) => {
      if (init?.method === 'POST' && failures === 0) {
        failures += 1;
        const batch = JSON.parse(String(init.body)) as EnquiryBatchRequest;
        const held = batch.homes.find((one) => one.listingId === failing)!;
        const rest = { ...batch, homes: batch.homes.filter((one) => one !== held) };
        const answer = (await (await real(input, { ...init, body: JSON.stringify(rest) })).json()) as EnquiryBatchAnswer;
        answer.results.push({
          listingId: failing,
          originalId: held.originalId,
          httpStatus: 503,
          error: 'unavailable',
          message: 'Try again shortly.',
          retryAfterSeconds: 30,
        });
        return new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } });
      }
      return real(input, init);
    };
    try {
      const el = await fixture<EstateShortlist>(html`<estate-shortlist relay=${RELAY}></estate-shortlist>`);
      await checked(el);
      type(el, 'fullName', 'Sam Keeper');
      type(el, 'email', 'sam.keeper@example.com');
      type(el, 'message', 'Is the garden north facing?');
      await new Promise((resolve) => setTimeout(resolve, 3_100));
      const error = oneEvent(el, 'estate-shortlist-enquiry-error');
      shadow(el).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
      expect((await error).detail).to.include({ listingId: failing, status: 503, pending: true });
      await waitUntil(() => home(el, items[0]!.id).querySelector('[part~="outcome-sent"]'), 'the other home is sent');
      await el.updateComplete;
      expect(home(el, failing).querySelector('[part~="outcome"]')!.textContent!.trim()).to.equal(
        'Not sent yet: kept on this device and sent again automatically.',
      );
      expect(shadow(el).querySelector('[part~="form-status"]')!.textContent!.trim()).to.equal('1 of 2 enquiries sent. See each home for the others.');
      const kept = JSON.parse(localStorage.getItem(`estate-enquiry:pending:listing:${failing}`)!) as { request: Record<string, unknown> };
      expect(kept.request).to.include({ listingId: failing, fullName: 'Sam Keeper', message: 'Is the garden north facing?' });
      expect(shadow(el).querySelector<HTMLInputElement>('#fullName')!.value, 'nothing typed is lost').to.equal('Sam Keeper');
      expect(shadow(el).querySelector<HTMLTextAreaElement>('#message')!.value).to.equal('Is the garden north facing?');

      // The browser is back online: sent again at once, with the same originalId.
      const success = oneEvent(el, 'estate-shortlist-enquiry-success');
      window.dispatchEvent(new Event('online'));
      expect((await success).detail).to.deep.equal({ listingId: failing, originalId: kept.request.originalId });
      await el.updateComplete;
      expect(home(el, failing).querySelector('[part~="outcome"]')!.textContent!.trim()).to.equal('Enquiry sent');
      expect(localStorage.getItem(`estate-enquiry:pending:listing:${failing}`)).to.equal(null);
    } finally {
      window.fetch = real;
      for (const item of items) localStorage.removeItem(`estate-enquiry:pending:listing:${item.id}`);
    }
  });

  it('every listed home kept, one press: one request, an enquiry each that the relay holds; an answer lost on the way is sent again with the same originalIds', async () => {
    // Every home the runner's simulator lists (11): the 12-home case at the default limits is test/enquiries/batch.test.ts.
    const items = await available();
    const count = items.length;
    expect(count).to.be.greaterThan(8);
    keep(...items.map((item) => ({ id: item.id, address: item.address.display })));
    const posted: EnquiryBatchRequest[] = [];
    const real = window.fetch;
    // The first request reaches the relay, but its answer is lost (a dropped connection).
    window.fetch = async (input, init) => {
      if (init?.method !== 'POST') return real(input, init);
      posted.push(JSON.parse(String(init.body)) as EnquiryBatchRequest);
      const response = await real(input, init);
      if (posted.length === 1) throw new TypeError('Failed to fetch');
      return response;
    };
    try {
      const el = await fixture<EstateShortlist>(html`<estate-shortlist relay=${RELAY}></estate-shortlist>`);
      await checked(el);
      expect(shadow(el).querySelector('[part~="submit"]')!.textContent!.trim()).to.equal(`Send ${count} enquiries`);
      type(el, 'fullName', 'Robin Many');
      type(el, 'email', 'robin.many@example.com');
      type(el, 'message', 'Which of these have a garage?');
      await new Promise((resolve) => setTimeout(resolve, 3_100));
      const successes: ShortlistEnquirySuccessDetail[] = [];
      el.addEventListener('estate-shortlist-enquiry-success', (event) => successes.push(event.detail));
      const lost = oneEvent(el, 'estate-shortlist-enquiry-error');
      shadow(el).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
      expect((await lost).detail).to.include({ status: 0, pending: true });
      expect(posted, 'one request for every home').to.have.length(1);
      expect(posted[0]!.homes).to.have.length(count);
      // Back online: the same batch again, which the relay answers as retries.
      window.dispatchEvent(new Event('online'));
      await waitUntil(() => successes.length === count, 'all accepted', { timeout: 15_000 });
      expect(posted).to.have.length(2);
      expect(posted[1]!.homes).to.deep.equal(posted[0]!.homes);
      expect(successes.map((one) => one.originalId).sort()).to.deep.equal(posted[0]!.homes.map((one) => one.originalId).sort());
      for (const { originalId } of successes) {
        const response = await real(`${RELAY}/api/v1/enquiries/${originalId}`);
        expect(response.status, `the relay holds ${originalId}`).to.equal(200);
      }
      await el.updateComplete;
      expect(shadow(el).querySelector('[part~="form-status"]')!.textContent!.trim()).to.equal(
        `Your ${count} enquiries have been sent. The agents will be in touch.`,
      );
    } finally {
      window.fetch = real;
      for (const item of items) localStorage.removeItem(`estate-enquiry:pending:listing:${item.id}`);
    }
  });

  it('refuses the form with the enquiry form’s messages, focusing the first field to correct', async () => {
    const items = (await available()).slice(0, 1);
    keep({ id: items[0]!.id, address: items[0]!.address.display });
    const el = await fixture<EstateShortlist>(html`<estate-shortlist relay=${RELAY} consent-text="I agree to be contacted"></estate-shortlist>`);
    await checked(el);
    type(el, 'email', 'not-an-address');
    shadow(el).querySelector<HTMLButtonElement>('[part~="submit"]')!.click();
    await waitUntil(() => shadow(el).activeElement?.id === 'fullName', 'focus goes to the first field to correct');
    expect(shadow(el).querySelector('#fullName')!.getAttribute('aria-invalid')).to.equal('true');
    expect(shadow(el).querySelector('#fullName-error')!.textContent!.trim()).to.equal('Please fill in this field.');
    expect(shadow(el).querySelector('#email-error')!.textContent!.trim()).to.equal('Please enter an email address such as name@example.com.');
    expect(shadow(el).querySelector('#consent-error')!.textContent!.trim()).to.equal('Please tick this box to send your enquiry.');
    expect(shadow(el).querySelector('#email')!.getAttribute('aria-describedby')).to.equal('email-error');
    expect(shadow(el).querySelector('[part~="form-status"]')!.textContent).to.contain('Your enquiry was not sent');
    await expect(el).to.be.accessible();
  });

  it('works from the keyboard alone: heart with Space, remove with Enter, focus kept in the list', async () => {
    const items = await available();
    const container = await fixture<HTMLElement>(
      html`<div>
        <estate-listings relay=${RELAY} page-size="3"></estate-listings>
        <estate-shortlist relay=${RELAY} no-enquiry></estate-shortlist>
      </div>`,
    );
    const grid = container.querySelector<EstateListings>('estate-listings')!;
    const list = container.querySelector<EstateShortlist>('estate-shortlist')!;
    await grid.loadComplete;
    await grid.updateComplete;
    // From the first card's link, Tab reaches that card's heart.
    shadow(grid).querySelector<HTMLElement>('[part~="card-link"]')!.focus();
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(hearts(grid)[0]);
    await sendKeys({ press: 'Space' });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(hearts(grid)[1]);
    await sendKeys({ press: 'Enter' });
    await list.updateComplete;
    expect(homeIds(list)).to.deep.equal([items[0]!.id, items[1]!.id]);

    const removeButtons = () => [...shadow(list).querySelectorAll<HTMLButtonElement>('[part~="remove-button"]')];
    expect(removeButtons()[0]!.getAttribute('aria-label')).to.equal(`Remove ${items[0]!.address.display} from your shortlist`);
    removeButtons()[0]!.focus();
    await sendKeys({ press: 'Enter' });
    await list.updateComplete;
    expect(homeIds(list)).to.deep.equal([items[1]!.id]);
    expect(shadow(list).querySelector('[part~="status"]')!.textContent!.trim()).to.equal(`Removed ${items[0]!.address.display} from your shortlist.`);
    expect(deepActive(), 'focus on the home that took its place').to.equal(removeButtons()[0]);
    await sendKeys({ press: 'Enter' });
    await list.updateComplete;
    expect(homeIds(list)).to.deep.equal([]);
    expect(deepActive(), 'focus on the status line once the list is empty').to.equal(shadow(list).querySelector('[part~="status"]'));
    await grid.updateComplete;
    expect(hearts(grid).map((heart) => heart.getAttribute('aria-pressed'))).to.deep.equal(['false', 'false', 'false']);
    await expect(list).to.be.accessible();
  });
});
