import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../widget/enquiry/define.ts';
import '../../widget/appraisal/define.ts';
import '../../widget/open-home-registration/define.ts';
import '../../widget/inspection-request/define.ts';
import '../../widget/listing/define.ts';
import type { EnquiryErrorDetail, EnquirySuccessDetail } from '../../widget/enquiry/enquiry.ts';
import type { ListingDetail, ListingSummary, Page } from '../../contract/relay-api.ts';

// The other lead forms (issue 22) against the real relay the runner started (demo mode, embedded
// CRM simulator), completed with the keyboard alone, and the enquiry form's note to a page's
// developer when it is given nothing to send to.

const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };

const root = (el: HTMLElement) => el.shadowRoot!;
const part = (el: HTMLElement, name: string) => root(el).querySelector<HTMLElement>(`[part~="${name}"]`);

async function expectSuccess(el: EventTarget, send: () => unknown): Promise<EnquirySuccessDetail> {
  const settled = Promise.race([oneEvent(el, 'estate-enquiry-success'), oneEvent(el, 'estate-enquiry-error')]) as Promise<
    CustomEvent<EnquirySuccessDetail & EnquiryErrorDetail>
  >;
  await send();
  const event = await settled;
  expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
  return event.detail;
}

async function relayHolds(originalId: string): Promise<void> {
  const response = await fetch(`${RELAY}/api/v1/enquiries/${originalId}`);
  expect(response.status, 'the relay holds the lead').to.equal(200);
}

const tab = () => sendKeys({ press: 'Tab' });
const type = (text: string) => sendKeys({ type: text });

/** Tabs to the next control and types into it. */
async function next(text: string): Promise<void> {
  await tab();
  await type(text);
}

async function withListing(find: (listing: ListingDetail) => boolean): Promise<ListingDetail> {
  const page = (await (await fetch(`${RELAY}/api/v1/listings?pageSize=40`)).json()) as Page<ListingSummary>;
  for (const item of page.items) {
    const listing = (await (await fetch(`${RELAY}/api/v1/listings/${item.id}`)).json()) as ListingDetail;
    if (find(listing)) return listing;
  }
  throw new Error('no listing as wanted');
}

beforeEach(() => localStorage.clear());

describe('<estate-enquiry> with nothing to send to', () => {
  it('shows its developer a note naming the missing attributes instead of a form, and warns in the console', async () => {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
    try {
      const el = await fixture<HTMLElement>(html`<estate-enquiry relay=${RELAY}></estate-enquiry>`);
      await expect(el).to.be.accessible();
      expect(root(el).querySelector('form'), 'no form to type into').to.equal(null);
      expect(part(el, 'setup')!.textContent).to.contain('listing-id').and.contain('agent-id');
      expect(warnings.some((line) => line.includes('estate-enquiry') && line.includes('listing-id'))).to.equal(true);
      // Given an agent later (a framework setting it), the form appears.
      el.setAttribute('agent-id', '450101');
      await (el as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
      expect(root(el).querySelector('form')).to.not.equal(null);
    } finally {
      console.warn = warn;
    }
  });

  it('says "Mobile (optional)" with its space', async () => {
    const el = await fixture<HTMLElement>(html`<estate-enquiry agent-id="450101" relay=${RELAY}></estate-enquiry>`);
    expect(root(el).querySelector('label[for="mobile"]')!.textContent!.replace(/\s+/g, ' ').trim()).to.equal('Mobile (optional)');
  });
});

describe('<estate-appraisal>', () => {
  it('starts with every field empty and each choice list on "Choose…"', async () => {
    const el = await fixture<HTMLElement>(html`<estate-appraisal relay=${RELAY}></estate-appraisal>`);
    for (const input of root(el).querySelectorAll<HTMLInputElement>('input:not([type="checkbox"]):not(.trap input)')) {
      expect(input.value, `#${input.id}`).to.equal('');
    }
    for (const select of root(el).querySelectorAll('select')) expect(select.selectedIndex, `#${select.id}`).to.equal(0);
  });

  it('is completed and sent with the keyboard alone, the suburb suggested from the agency’s listings, and is accessible', async () => {
    const wrapper = await fixture<HTMLElement>(
      html`<div>
        <button id="before">before</button>
        <estate-appraisal relay=${RELAY}></estate-appraisal>
      </div>`,
    );
    const el = wrapper.querySelector('estate-appraisal')!;
    await expect(el).to.be.accessible();
    await waitUntil(() => root(el).querySelectorAll('datalist option').length > 0, 'the agency’s suburbs are suggested');
    const suburb = root(el).querySelector<HTMLOptionElement>('datalist option')!.value;
    document.getElementById('before')!.focus();
    await next('14 Wellington Street');
    await next(suburb);
    // Its postcode comes with a suggested suburb.
    await waitUntil(() => /^\d{4}$/.test(root(el).querySelector<HTMLInputElement>('#postcode')!.value), 'postcode filled from the suburb');
    await tab();
    await tab();
    await sendKeys({ press: 'ArrowDown' }); // property type: House
    await next('3');
    await tab();
    await sendKeys({ press: 'ArrowDown' });
    await sendKeys({ press: 'ArrowDown' }); // within 3 months
    await next('Priya Raman');
    await next('priya@example.com');
    await next('0412 345 678');
    await next('We are thinking of downsizing.');
    await tab();
    await sendKeys({ press: 'Space' });
    await tab();
    expect(root(el).activeElement).to.equal(part(el, 'submit'));
    const { originalId } = await expectSuccess(el, () => sendKeys({ press: 'Enter' }));
    await relayHolds(originalId);
    expect(part(el, 'status')!.textContent).to.contain('appraisal request has been sent');
    await expect(el).to.be.accessible();
  });
});

describe('<estate-open-home-registration>', () => {
  it('is completed with the keyboard alone, offers the calendar file, and this device then says it registered', async () => {
    const listing = await withListing((candidate) => candidate.openHomes.some((openHome) => Date.parse(openHome.end) > Date.now() + 3600_000));
    const openHome = listing.openHomes.find((candidate) => Date.parse(candidate.end) > Date.now() + 3600_000)!;
    const wrapper = await fixture<HTMLElement>(
      html`<div>
        <button id="before">before</button>
        <estate-open-home-registration
          relay=${RELAY}
          listing-id=${listing.id}
          open-home-id=${openHome.id}
          when="Saturday 10:00"
          end=${openHome.end}
          calendar-href="data:text/calendar,BEGIN:VCALENDAR"
        ></estate-open-home-registration>
      </div>`,
    );
    const el = wrapper.querySelector('estate-open-home-registration')!;
    await expect(el).to.be.accessible();
    expect(part(el, 'heading')!.textContent).to.contain('Saturday 10:00');
    document.getElementById('before')!.focus();
    await next('Sam Lee');
    await next('sam.lee@example.com');
    await next('0412 345 678');
    await tab();
    await sendKeys({ press: 'Backspace' });
    await type('2');
    await tab();
    await sendKeys({ press: 'Space' });
    await tab();
    const { originalId } = await expectSuccess(el, () => sendKeys({ press: 'Enter' }));
    await relayHolds(originalId);
    expect(part(el, 'status')!.textContent).to.contain('You are registered for the open home, Saturday 10:00');
    expect(part(el, 'calendar-link')!.getAttribute('href')).to.equal('data:text/calendar,BEGIN:VCALENDAR');
    await expect(el).to.be.accessible();

    const again = await fixture<HTMLElement>(
      html`<estate-open-home-registration relay=${RELAY} listing-id=${listing.id} open-home-id=${openHome.id}></estate-open-home-registration>`,
    );
    expect(root(again).querySelector('form'), 'no form on a device that registered').to.equal(null);
    expect(part(again, 'status')!.textContent).to.contain('You registered for this open home');
    part(again, 'another')!.click();
    await (again as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
    expect(root(again).querySelector('form')).to.not.equal(null);
  });

  it('offers no form for an open home that is over', async () => {
    const el = await fixture<HTMLElement>(
      html`<estate-open-home-registration listing-id="1" open-home-id="2" end="2020-01-01T00:00:00Z"></estate-open-home-registration>`,
    );
    expect(root(el).querySelector('form')).to.equal(null);
    expect(part(el, 'status')!.textContent).to.contain('over');
  });
});

describe('<estate-inspection-request>', () => {
  it('is completed with the keyboard alone, refusing a preferred time in the past, and is accessible', async () => {
    const listing = await withListing((candidate) => candidate.status === 'available');
    const wrapper = await fixture<HTMLElement>(
      html`<div>
        <button id="before">before</button>
        <estate-inspection-request relay=${RELAY} listing-id=${listing.id}></estate-inspection-request>
      </div>`,
    );
    const el = wrapper.querySelector('estate-inspection-request')!;
    await expect(el).to.be.accessible();
    // A day of the month below 10, 3 to 34 days ahead (within the relay's 60): typing its leading
    // zero leaves the control empty for a moment, which the form must not write back over the
    // other segments. Chosen so on any day of the year, in the browser's own time zone.
    const at = new Date(Date.now() + 3 * 24 * 3600_000);
    while (at.getDate() >= 10) at.setDate(at.getDate() + 1);
    const pad = (value: number) => String(value).padStart(2, '0');
    // Chromium's datetime-local takes typed digits segment by segment (en-US: month, day, year, hour,
    // minute, AM/PM); the year takes up to six digits, so ArrowRight moves on from it.
    const typeTime = async (date: Date, hour: number) => {
      await type(`${pad(date.getMonth() + 1)}${pad(date.getDate())}${date.getFullYear()}`);
      await sendKeys({ press: 'ArrowRight' });
      await type(`${pad(hour)}30A`);
    };
    /** Tabs on until `id` has the focus (a date-time control may take Tab for its own segments). */
    const tabTo = async (id: string) => {
      for (let presses = 0; presses < 30 && root(el).activeElement?.id !== id; presses++) await tab();
      expect(root(el).activeElement?.id).to.equal(id);
    };
    document.getElementById('before')!.focus();
    await tab();
    await typeTime(new Date(Date.now() - 2 * 24 * 3600_000), 10);
    await tabTo('fullName');
    await type('Sam Lee');
    await next('sam.lee@example.com');
    await next('0412 345 678');
    await next('After 5 pm if possible.');
    await tab();
    await sendKeys({ press: 'Space' });
    await tab();
    await sendKeys({ press: 'Enter' });
    // The past time is refused in the form, and focus goes to it.
    await waitUntil(() => root(el).activeElement?.id === 'time1', 'focus on the past time');
    expect(root(el).querySelector('#time1-error')!.textContent).to.contain('in the future');
    await typeTime(at, 10);
    const { originalId } = await expectSuccess(el, async () => {
      const submit = root(el).querySelector<HTMLElement>('[part~="submit"]')!;
      for (let presses = 0; presses < 40 && root(el).activeElement !== submit; presses++) await tab();
      expect(root(el).activeElement).to.equal(submit);
      await sendKeys({ press: 'Enter' });
    });
    await relayHolds(originalId);
    expect(part(el, 'status')!.textContent).to.contain('confirm a time');
    await expect(el).to.be.accessible();
  });
});

describe('<estate-listing> visits', () => {
  it('offers "Register" on each open home and "Request a private inspection", opening their forms below the buttons (keyboard), axe clean', async () => {
    const listing = await withListing(
      (candidate) => candidate.status === 'available' && candidate.openHomes.some((openHome) => Date.parse(openHome.end) > Date.now()),
    );
    const el = await fixture<HTMLElement & { loadComplete: Promise<unknown>; updateComplete: Promise<unknown> }>(
      html`<estate-listing relay=${RELAY} listing-id=${listing.id} time-zone="Australia/Sydney" no-enquiry></estate-listing>`,
    );
    await el.loadComplete;
    await el.updateComplete;
    const register = root(el).querySelector<HTMLButtonElement>('[part~="register-button"]')!;
    expect(register.getAttribute('aria-expanded')).to.equal('false');
    register.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(register.getAttribute('aria-expanded')).to.equal('true');
    const form = root(el).querySelector('estate-open-home-registration')!;
    await waitUntil(() => form.shadowRoot?.querySelector('form') != null, 'the registration form renders');
    const openHome = listing.openHomes.find((candidate) => Date.parse(candidate.end) > Date.now())!;
    expect(form.getAttribute('open-home-id')).to.equal(String(openHome.id));
    // The same calendar file as the open home's own link: the relay's.
    expect(form.getAttribute('calendar-href')).to.contain(`/api/v1/listings/${listing.id}/open-homes/${openHome.id}.ics?`);
    const inspection = root(el).querySelector<HTMLButtonElement>('[part~="inspection-button"]')!;
    inspection.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    const request = root(el).querySelector('estate-inspection-request')!;
    await waitUntil(() => request.shadowRoot?.querySelector('form') != null, 'the inspection form renders');
    await expect(el).to.be.accessible();
    // Pressed again, the form closes.
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(root(el).querySelector('estate-inspection-request')).to.equal(null);
  });
});
