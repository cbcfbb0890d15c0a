import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../widget/saved-search/define.ts';
import '../../widget/listings/define.ts';
import '../../widget/enquiry/define.ts';
import '../../widget/appraisal/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { EstateSavedSearch } from '../../widget/saved-search/saved-search.ts';
import type { EnquiryErrorDetail, EnquirySuccessDetail } from '../../widget/enquiry/enquiry.ts';
import { defaultSavedSearchStrings } from '../../widget/saved-search/strings.ts';
import { CONSENT_TEXT_MAX } from '../../contract/relay-api.ts';
import { summary } from './listings-data.ts';
import { alertOptions } from '../../widget/shared/alert-options.ts';

// Double opt-in (issue 29), the elements' side: the consent words and page sent with every lead
// that has a consent box, the success words following how the relay confirms a saved search, and
// no alerts form (a note for the site's developer) where the relay does not offer alerts. The
// happy paths use the real relay the runner started (demo mode, embedded CRM simulator); a relay's
// other "Get alerts" settings are the runner's /__faults/<token>/alerts-<state>/ answers.

const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };

let tokenCount = 0;
function faultRelay(mode: `status-${number}` | 'alerts-off' | 'alerts-refused' | 'alerts-agent'): { relay: string; token: string } {
  const token = `optin${Date.now().toString(36)}-${(tokenCount += 1)}`;
  return { relay: `${location.origin}/__faults/${token}/${mode}/`, token };
}
async function faultReceived(token: string): Promise<Array<Record<string, unknown>>> {
  return (await fetch(`/__faults/${token}/received`)).json();
}

const root = (el: HTMLElement) => el.shadowRoot!;
const part = (el: HTMLElement, name: string) => root(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const control = (el: HTMLElement, id: string) => root(el).querySelector<HTMLInputElement>(`#${id}`)!;

/** Types into the form's fields as a visitor would (each control's own event), and ticks the consent box. */
async function fillIn(el: HTMLElement & { updateComplete: Promise<boolean> }, values: Record<string, string>): Promise<void> {
  await el.updateComplete;
  for (const [field, value] of Object.entries(values)) {
    control(el, field).value = value;
    control(el, field).dispatchEvent(new Event('input'));
  }
  const consent = control(el, 'consent');
  consent.checked = true;
  consent.dispatchEvent(new Event('change'));
  await el.updateComplete;
}

async function outcome(el: EventTarget, send: () => unknown): Promise<CustomEvent<EnquirySuccessDetail & EnquiryErrorDetail>> {
  const settled = Promise.race([oneEvent(el, 'estate-enquiry-success'), oneEvent(el, 'estate-enquiry-error')]);
  await send();
  return (await settled) as CustomEvent<EnquirySuccessDetail & EnquiryErrorDetail>;
}

/** The bodies POSTed while `run` runs (the relay itself answers them). */
async function watchPosts<T>(run: () => Promise<T>): Promise<{ result: T; bodies: Array<Record<string, unknown>> }> {
  const bodies: Array<Record<string, unknown>> = [];
  const realFetch = window.fetch;
  window.fetch = (input, init) => {
    if (init?.method === 'POST') bodies.push(JSON.parse(String(init.body)) as Record<string, unknown>);
    return realFetch(input, init);
  };
  try {
    return { result: await run(), bodies };
  } finally {
    window.fetch = realFetch;
  }
}

/** console.warn's messages while `run` runs. */
async function watchWarnings(run: () => Promise<void>): Promise<string[]> {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
  try {
    await run();
  } finally {
    console.warn = warn;
  }
  return warnings;
}

const visitor = { fullName: 'Priya Raman', email: 'priya.optin@example.com' };
const thisPage = () => location.origin + location.pathname;

beforeEach(() => {
  localStorage.clear();
  history.replaceState(null, '', location.pathname);
});

describe('<estate-saved-search> consent words and page', () => {
  it('sends the consent-text words as shown (whitespace collapsed) and the page, and the relay takes them', async () => {
    const el = await fixture<EstateSavedSearch>(
      html`<estate-saved-search
        relay=${RELAY}
        consent-text="  I agree to   alerts
        from Harbour Realty. "
        .search=${{ type: 'sale' }}
      ></estate-saved-search>`,
    );
    await fillIn(el, visitor);
    const { result: event, bodies } = await watchPosts(() => outcome(el, () => part(el, 'submit')!.click()));
    expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
    expect(bodies).to.have.length(1);
    expect(bodies[0]).to.deep.include({ consent: true, consentText: 'I agree to alerts from Harbour Realty.', page: thisPage() });
  });

  it('sends the slotted label’s words (a link’s included) in place of the attribute’s', async () => {
    const el = await fixture<EstateSavedSearch>(
      html`<estate-saved-search relay=${RELAY} consent-text="not these words" .search=${{ type: 'lease' }}>
        <span slot="consent">I agree to alerts and the <a href="/privacy">privacy policy</a>.</span>
      </estate-saved-search>`,
    );
    await fillIn(el, visitor);
    const { result: event, bodies } = await watchPosts(() => outcome(el, () => part(el, 'submit')!.click()));
    expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
    expect(bodies[0]).to.deep.include({ consentText: 'I agree to alerts and the privacy policy.', page: thisPage() });
  });

  it('sends its default words when given none, and at most CONSENT_TEXT_MAX characters of long ones', async () => {
    const { relay, token } = faultRelay('status-502');
    const el = await fixture<EstateSavedSearch>(html`<estate-saved-search relay=${relay} .search=${{ type: 'sale' }}></estate-saved-search>`);
    await fillIn(el, visitor);
    await outcome(el, () => part(el, 'submit')!.click());
    expect((await faultReceived(token))[0]).to.deep.include({ consentText: defaultSavedSearchStrings.consent });

    localStorage.clear();
    const long = faultRelay('status-502');
    const words = 'I agree to alerts. '.repeat(40);
    const wordy = await fixture<EstateSavedSearch>(
      html`<estate-saved-search relay=${long.relay} consent-text=${words} .search=${{ type: 'sale' }}></estate-saved-search>`,
    );
    await fillIn(wordy, visitor);
    await outcome(wordy, () => part(wordy, 'submit')!.click());
    const [sent] = await faultReceived(long.token);
    expect(sent!.consentText).to.equal(words.trim().slice(0, CONSENT_TEXT_MAX));
  });
});

describe('<estate-saved-search> success words', () => {
  it('reads the real relay’s options across origins (this page is not the relay’s): offered, by e-mail', async () => {
    expect(new URL(RELAY).origin).to.not.equal(location.origin);
    expect(await alertOptions(RELAY)).to.deep.include({ offered: true, confirmation: 'email' });
  });

  it('after an e-mail confirmation: check the inbox of the address typed, nothing sent before the link; announced, focus on it', async () => {
    const el = await fixture<EstateSavedSearch>(html`<estate-saved-search relay=${RELAY} .search=${{ type: 'sale', minBeds: 2 }}></estate-saved-search>`);
    await fillIn(el, visitor);
    part(el, 'submit')!.focus();
    const event = await outcome(el, () => part(el, 'submit')!.click());
    expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
    await el.updateComplete;
    const status = part(el, 'status')!;
    expect(status.getAttribute('role')).to.equal('status');
    expect(status.textContent).to.contain(visitor.email).and.contain('inbox').and.contain('Nothing is sent to you until you follow it');
    expect(part(el, 'form')!.hidden).to.equal(true);
    expect(root(el).activeElement).to.equal(status);
    await expect(el).to.be.accessible();
  });

  it('after an agent confirmation: the agency confirms before sending any', async () => {
    const { relay } = faultRelay('alerts-agent');
    const el = await fixture<EstateSavedSearch>(html`<estate-saved-search relay=${relay} .search=${{ type: 'sale' }}></estate-saved-search>`);
    await fillIn(el, visitor);
    const event = await outcome(el, () => part(el, 'submit')!.click());
    expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
    await el.updateComplete;
    expect(part(el, 'status')!.textContent).to.contain('The agency will confirm your alerts with you before sending any');
    expect(part(el, 'status')!.textContent).to.not.contain('inbox');
  });

  it('in the page’s language: en-GB and en-NZ words', async () => {
    const wrapper = await fixture<HTMLElement>(
      html`<div lang="en-GB"><estate-saved-search relay=${RELAY} .search=${{ type: 'lease' }}></estate-saved-search></div>`,
    );
    const el = wrapper.querySelector('estate-saved-search')!;
    await fillIn(el, { ...visitor, email: 'priya.gb@example.com' });
    expect((await outcome(el, () => part(el, 'submit')!.click())).type).to.equal('estate-enquiry-success');
    await el.updateComplete;
    expect(part(el, 'status')!.textContent).to.contain('Almost there').and.contain('priya.gb@example.com').and.contain('until you click it');

    localStorage.clear();
    const nz = await fixture<HTMLElement>(html`<div lang="en-NZ"><estate-saved-search relay=${RELAY} .search=${{ type: 'sale' }}></estate-saved-search></div>`);
    const nzForm = nz.querySelector('estate-saved-search')!;
    await fillIn(nzForm, { ...visitor, email: 'priya.nz@example.com' });
    expect((await outcome(nzForm, () => part(nzForm, 'submit')!.click())).type).to.equal('estate-enquiry-success');
    await nzForm.updateComplete;
    expect(part(nzForm, 'status')!.textContent).to.contain('an email from the agency').and.contain('priya.nz@example.com');
  });
});

describe('<estate-saved-search> where the relay does not offer alerts', () => {
  it('shows its developer a setup note instead of a form, and warns in the console naming the relay’s settings', async () => {
    const { relay } = faultRelay('alerts-off');
    let el!: EstateSavedSearch;
    const warnings = await watchWarnings(async () => {
      el = await fixture<EstateSavedSearch>(html`<estate-saved-search relay=${relay} .search=${{ type: 'sale' }}></estate-saved-search>`);
      await waitUntil(() => part(el, 'setup'), 'the setup note replaces the form', { timeout: 10_000 });
    });
    expect(part(el, 'form'), 'no form taking typing it cannot deliver').to.equal(null);
    expect(part(el, 'setup')!.textContent).to.contain('does not offer alerts').and.contain('SMTP_URL');
    expect(warnings.join('\n')).to.contain('<estate-saved-search>').and.contain('SMTP_URL and MAIL_FROM');
    await expect(el).to.be.accessible();
  });

  it('shows the form when the relay could not be asked (the send tells)', async () => {
    const { relay } = faultRelay('status-502'); // its GETs are refused (405)
    const asked: Array<Promise<Response>> = [];
    const realFetch = window.fetch;
    window.fetch = (input, init) => {
      const answer = realFetch(input, init);
      if (String(input).endsWith('/saved-searches/options')) asked.push(answer);
      return answer;
    };
    try {
      const el = await fixture<EstateSavedSearch>(html`<estate-saved-search relay=${relay} .search=${{ type: 'sale' }}></estate-saved-search>`);
      await waitUntil(() => asked.length > 0, 'the form asks the relay when it connects');
      await Promise.allSettled(asked);
      await new Promise((resolve) => setTimeout(resolve));
      await el.updateComplete;
      expect(part(el, 'form')).to.not.equal(null);
      expect(part(el, 'form')!.hidden).to.equal(false);
      expect(part(el, 'setup')).to.equal(null);
    } finally {
      window.fetch = realFetch;
    }
  });

  it('a send refused 403 alerts_not_offered: the visitor told in plain words, nothing kept, the form withdrawn, the developer’s note', async () => {
    const { relay, token } = faultRelay('alerts-refused');
    const el = await fixture<EstateSavedSearch>(html`<estate-saved-search relay=${relay} .search=${{ type: 'sale' }}></estate-saved-search>`);
    await fillIn(el, visitor);
    part(el, 'submit')!.focus();
    let event!: CustomEvent<EnquirySuccessDetail & EnquiryErrorDetail>;
    const warnings = await watchWarnings(async () => {
      event = await outcome(el, () => part(el, 'submit')!.click());
      await el.updateComplete;
    });
    expect([event.type, event.detail.status, event.detail.pending]).to.deep.equal(['estate-enquiry-error', 403, false]);
    expect(await faultReceived(token)).to.have.length(1);
    await waitUntil(() => part(el, 'setup'), 'the setup note shows');
    const status = part(el, 'status')!;
    expect(status.getAttribute('role')).to.equal('status');
    expect(status.textContent).to.contain('alerts are not available on this site').and.contain('your details were not kept');
    expect(part(el, 'form')!.hidden, 'no form to type into again').to.equal(true);
    expect(root(el).activeElement, 'focus where the words are').to.equal(status);
    expect(part(el, 'setup')!.textContent).to.contain('SMTP_URL');
    expect(warnings.join('\n')).to.contain('SMTP_URL');
    expect(localStorage.length, 'not kept for a resend the relay would refuse').to.equal(0);
    await expect(el).to.be.accessible();
  });
});

describe('<estate-listings> "Get alerts for this search" and the relay’s options', () => {
  const cards = Array.from({ length: 3 }, (_unused, index) => summary(index + 1));

  it('hides the button, leaving no gap, where the relay does not offer alerts', async () => {
    const { relay } = faultRelay('alerts-off');
    const list = await fixture<EstateListings>(html`<estate-listings relay=${relay} filters="min-beds" .listings=${cards}></estate-listings>`);
    await list.loadComplete;
    await waitUntil(() => part(list, 'filters') && !part(list, 'alerts-button'), 'the button goes once the relay has answered', { timeout: 10_000 });
    const actions = part(list, 'filter-actions')!;
    expect([...actions.children].map((child) => child.getAttribute('part'))).to.deep.equal(['button button-primary', 'button']);
    await expect(list).to.be.accessible();
  });

  it('keeps the button where the relay could not be asked, and where it offers alerts', async () => {
    for (const mode of ['status-502', 'alerts-agent'] as const) {
      const { relay } = faultRelay(mode);
      const asked: Array<Promise<Response>> = [];
      const realFetch = window.fetch;
      window.fetch = (input, init) => {
        const answer = realFetch(input, init);
        if (String(input).endsWith('/saved-searches/options')) asked.push(answer);
        return answer;
      };
      try {
        const list = await fixture<EstateListings>(html`<estate-listings relay=${relay} filters="min-beds" .listings=${cards}></estate-listings>`);
        await list.loadComplete;
        await waitUntil(() => asked.length === 1, `${mode}: asked once the listings are shown`);
        await Promise.allSettled(asked);
        await new Promise((resolve) => setTimeout(resolve));
        await list.updateComplete;
        expect(part(list, 'alerts-button'), mode).to.not.equal(null);
        expect(asked, `${mode}: asked once`).to.have.length(1);
      } finally {
        window.fetch = realFetch;
      }
    }
  });
});

describe('the enquiry and lead forms send their consent box’s words', () => {
  it('<estate-enquiry> with consent-text sends consentText with consent; without a consent box, neither', async () => {
    const listing = ((await (await fetch(`${RELAY}/api/v1/listings?pageSize=1`)).json()) as { items: Array<{ id: number }> }).items[0]!;
    const el = await fixture<HTMLElement & { updateComplete: Promise<boolean> }>(
      html`<estate-enquiry relay=${RELAY} listing-id=${listing.id} consent-text="I agree to  the agency contacting me."></estate-enquiry>`,
    );
    await fillIn(el, { ...visitor, message: 'Is it still available?' });
    const { result: event, bodies } = await watchPosts(() => outcome(el, () => part(el, 'submit')!.click()));
    expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
    expect(bodies[0]).to.deep.include({ consent: true, consentText: 'I agree to the agency contacting me.' });

    localStorage.clear();
    const plain = await fixture<HTMLElement & { updateComplete: Promise<boolean> }>(
      html`<estate-enquiry relay=${RELAY} listing-id=${listing.id}></estate-enquiry>`,
    );
    await plain.updateComplete;
    for (const [field, value] of Object.entries({ ...visitor, message: 'And the strata fees?' })) {
      control(plain, field).value = value;
      control(plain, field).dispatchEvent(new Event('input'));
    }
    const { bodies: plainBodies } = await watchPosts(() => outcome(plain, () => part(plain, 'submit')!.click()));
    expect(plainBodies[0]).to.not.have.property('consent');
    expect(plainBodies[0]).to.not.have.property('consentText');
  });

  it('<estate-appraisal> (the lead forms’ consent box) sends its slotted words', async () => {
    const { relay, token } = faultRelay('status-502');
    const el = await fixture<HTMLElement & { updateComplete: Promise<boolean> }>(
      html`<estate-appraisal relay=${relay}
        ><span slot="consent">Yes, contact me about <b>my appraisal</b>.</span></estate-appraisal
      >`,
    );
    await fillIn(el, { street: '14 Wellington Street', suburb: 'Kew', postcode: '3101', ...visitor });
    const event = await outcome(el, () => part(el, 'submit')!.click());
    expect(event.detail.status, JSON.stringify(event.detail)).to.equal(502);
    expect((await faultReceived(token))[0]).to.deep.include({ kind: 'appraisal', consent: true, consentText: 'Yes, contact me about my appraisal.' });
  });
});
