import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { a11ySnapshot, emulateMedia, sendKeys, setViewport } from '@web/test-runner-commands';
import '../../widget/enquiry/define.ts';
import type { EstateEnquiry, EnquiryErrorDetail, EnquirySuccessDetail } from '../../widget/enquiry/enquiry.ts';
import type { Agent, LeadStatusResponse as EnquiryStatusResponse, ListingSummary, Page } from '../../contract/relay-api.ts';

// The happy paths talk to the real relay the runner started (demo mode, embedded CRM simulator).
// Failures come from /__faults/<token>/<mode>/ on the runner's own server (test/support/fault-paths.mjs),
// which also records the bodies it was sent.

// The relay's URL, from the module the runner serves. Imported by a computed name: TypeScript 7 does
// not match rooted specifiers against the ambient declaration in relay-module.d.ts.
const relayModule = '/__relay.js';
const { RELAY } = (await import(relayModule)) as { RELAY: string };

let listingIds: number[] = [];
/** A real listing id; tests take different ones (storage is per listing), wrapping if few. */
const realListing = (index: number): number => listingIds[index % listingIds.length]!;
let agentIds: number[] = [];
let tokenCount = 0;

function faultRelay(mode: 'hold' | `status-${number}`): { relay: string; token: string } {
  const token = `t${Date.now().toString(36)}-${(tokenCount += 1)}`;
  return { relay: `${location.origin}/__faults/${token}/${mode}/`, token };
}

async function faultReceived(token: string): Promise<Array<Record<string, unknown>>> {
  return (await fetch(`/__faults/${token}/received`)).json();
}

async function releaseFault(token: string): Promise<void> {
  await fetch(`/__faults/${token}/release`, { method: 'POST' });
}

async function relayStatus(originalId: string): Promise<{ status: number; body?: EnquiryStatusResponse }> {
  const response = await fetch(`${RELAY}/api/v1/enquiries/${originalId}`);
  return { status: response.status, body: response.ok ? await response.json() : undefined };
}

function shadow(el: EstateEnquiry): ShadowRoot {
  return el.shadowRoot!;
}

function control(el: EstateEnquiry, name: string): HTMLInputElement | HTMLTextAreaElement {
  return shadow(el).querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${name}`)!;
}

function submitButton(el: EstateEnquiry): HTMLButtonElement {
  return shadow(el).querySelector<HTMLButtonElement>('[part~="submit"]')!;
}

function statusRegion(el: EstateEnquiry): HTMLElement {
  return shadow(el).querySelector<HTMLElement>('[part~="status"]')!;
}

function labelText(el: EstateEnquiry, name: string): string {
  return shadow(el).querySelector(`label[for="${name}"]`)!.textContent!.replace(/\s+/g, ' ').trim();
}

/** Types as a person would (input events), without the keyboard: for tests not about the keyboard. */
async function fill(el: EstateEnquiry, values: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(values)) {
    const input = control(el, name);
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
  }
  await el.updateComplete;
}

const visitor = {
  fullName: 'Jane Citizen',
  email: 'jane.citizen@example.com',
  mobile: '0412 345 678',
  message: 'Is the property still available for an inspection on Saturday?',
};

/**
 * The outcome of a send: the element's success or error event, whichever comes first, so a test
 * expecting one fails at once with the other's detail instead of timing out.
 */
async function outcome(target: EventTarget): Promise<CustomEvent<EnquirySuccessDetail & EnquiryErrorDetail>> {
  const settled = await Promise.race([oneEvent(target, 'estate-enquiry-success'), oneEvent(target, 'estate-enquiry-error')]);
  return settled as CustomEvent<EnquirySuccessDetail & EnquiryErrorDetail>;
}

async function expectSuccess(target: EventTarget, send: () => unknown): Promise<EnquirySuccessDetail> {
  const settled = outcome(target);
  await send();
  const event = await settled;
  expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-success');
  return event.detail;
}

async function expectFailure(target: EventTarget, send: () => unknown): Promise<EnquiryErrorDetail> {
  const settled = outcome(target);
  await send();
  const event = await settled;
  expect(event.type, JSON.stringify(event.detail)).to.equal('estate-enquiry-error');
  return event.detail;
}

function storedKeys(): string[] {
  return Object.keys(localStorage).filter((key) => key.startsWith('estate-enquiry:'));
}

before(async () => {
  const listings = (await (await fetch(`${RELAY}/api/v1/listings?pageSize=24`)).json()) as Page<ListingSummary>;
  listingIds = listings.items.map((item) => item.id);
  const agents = (await (await fetch(`${RELAY}/api/v1/agents`)).json()) as { items: Agent[] };
  agentIds = agents.items.map((agent) => agent.id);
  expect(listingIds.length, 'the simulator seeds listings').to.be.greaterThan(0);
  expect(agentIds.length, 'the simulator seeds agents').to.be.greaterThan(0);
});

beforeEach(() => {
  for (const key of storedKeys()) localStorage.removeItem(key);
});

describe('<estate-enquiry> rendering', () => {
  it('is accessible when empty', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" relay=${RELAY}></estate-enquiry>`);
    await expect(el).to.be.accessible();
  });

  it('has labelled fields with the right autocomplete, types and defaults', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1"></estate-enquiry>`);
    expect(shadow(el).querySelector('[part~="heading"]')!.textContent!.trim()).to.equal('Enquire about this property');
    expect(shadow(el).querySelector('[part~="heading"]')!.getAttribute('aria-level')).to.equal('2');
    expect(shadow(el).querySelector('form')!.getAttribute('aria-labelledby')).to.equal('heading');
    expect(labelText(el, 'fullName')).to.equal('Full name');
    expect(labelText(el, 'email')).to.equal('Email');
    expect(labelText(el, 'mobile')).to.equal('Mobile (optional)');
    expect(labelText(el, 'message')).to.equal('Message');
    expect(submitButton(el).textContent!.trim()).to.equal('Send enquiry');

    const name = control(el, 'fullName');
    const email = control(el, 'email');
    const mobile = control(el, 'mobile');
    const message = control(el, 'message');
    expect([name.getAttribute('autocomplete'), name.required, name.maxLength]).to.deep.equal(['name', true, 100]);
    expect([email.getAttribute('type'), email.getAttribute('autocomplete'), email.getAttribute('inputmode'), email.required]).to.deep.equal([
      'email',
      'email',
      'email',
      true,
    ]);
    expect([mobile.getAttribute('type'), mobile.getAttribute('autocomplete'), mobile.getAttribute('inputmode'), mobile.required]).to.deep.equal([
      'tel',
      'tel',
      'tel',
      false,
    ]);
    expect(mobile.getAttribute('aria-describedby')).to.equal('mobile-hint');
    expect([message.localName, message.required, message.maxLength, message.value]).to.deep.equal(['textarea', true, 5000, '']);
    expect(shadow(el).querySelector('#consent')).to.equal(null);
    expect(statusRegion(el).getAttribute('role')).to.equal('status');
    expect(statusRegion(el).textContent!.trim()).to.equal('');
    for (const field of [name, email, mobile, message]) expect(field.getAttribute('aria-invalid')).to.equal('false');
  });

  it('names the contact-me form for an agent', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry agent-id="3"></estate-enquiry>`);
    expect(shadow(el).querySelector('[part~="heading"]')!.textContent!.trim()).to.equal('Send a message');
    expect(el.storageKey).to.equal('estate-enquiry:pending:agent:3');
  });

  it('renders its attributes: labels, heading, default message, required phone, consent', async () => {
    const el = await fixture<EstateEnquiry>(html`
      <estate-enquiry
        listing-id="1"
        heading="Book an inspection"
        heading-level="3"
        label-name="Nom complet"
        label-email="Courriel"
        label-mobile="Portable"
        label-message="Votre message"
        label-submit="Envoyer"
        hint-mobile="Numéro australien"
        message="I would like to inspect this property."
        require-phone
        consent-text="I agree to be contacted about this property."
      ></estate-enquiry>
    `);
    const heading = shadow(el).querySelector('[part~="heading"]')!;
    expect(heading.textContent!.trim()).to.equal('Book an inspection');
    expect(heading.getAttribute('aria-level')).to.equal('3');
    expect(labelText(el, 'fullName')).to.equal('Nom complet');
    expect(labelText(el, 'email')).to.equal('Courriel');
    expect(labelText(el, 'mobile')).to.equal('Portable');
    expect(shadow(el).querySelector('#mobile-hint')!.textContent).to.equal('Numéro australien');
    expect(labelText(el, 'message')).to.equal('Votre message');
    expect(submitButton(el).textContent!.trim()).to.equal('Envoyer');
    expect(control(el, 'mobile').required).to.equal(true);
    expect(control(el, 'message').value).to.equal('I would like to inspect this property.');
    const consent = control(el, 'consent') as HTMLInputElement;
    expect([consent.type, consent.required, consent.checked]).to.deep.equal(['checkbox', true, false]);
    expect(labelText(el, 'consent')).to.equal('I agree to be contacted about this property.');
    await expect(el).to.be.accessible();
  });

  it('takes slotted content for the heading, the consent label and the success message', async () => {
    const el = await fixture<EstateEnquiry>(html`
      <estate-enquiry listing-id="1" consent-text="fallback">
        <span slot="heading">Ask the agent</span>
        <span slot="consent">I accept the <a href="/privacy">privacy policy</a></span>
        <span slot="success">Merci !</span>
      </estate-enquiry>
    `);
    const slotText = (name: string) =>
      shadow(el)
        .querySelector<HTMLSlotElement>(`slot[name="${name}"]`)!
        .assignedNodes()
        .map((node) => node.textContent)
        .join('');
    expect(slotText('heading')).to.equal('Ask the agent');
    expect(slotText('consent')).to.equal('I accept the privacy policy');
    expect(shadow(el).querySelector('slot[name="success"]'), 'the success slot is only rendered once sent').to.equal(null);
    await expect(el).to.be.accessible();
  });

  it('gives every control a large touch target on a phone', async () => {
    await setViewport({ width: 360, height: 740 });
    try {
      const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" consent-text="I agree"></estate-enquiry>`);
      for (const name of ['fullName', 'email', 'mobile', 'message']) {
        expect(control(el, name).getBoundingClientRect().height, name).to.be.at.least(44);
      }
      const button = submitButton(el).getBoundingClientRect();
      expect(Math.min(button.width, button.height)).to.be.at.least(44);
      // The checkbox itself is at least 24 px (WCAG 2.2 target size) and its label, 44 px high, ticks it too.
      const box = control(el, 'consent').getBoundingClientRect();
      expect(Math.min(box.width, box.height)).to.be.at.least(24);
      const label = shadow(el).querySelector('label[for="consent"]')!;
      expect(label.getBoundingClientRect().height).to.be.at.least(44);
      // Mobile browsers zoom into inputs with text under 16 px.
      expect(parseFloat(getComputedStyle(control(el, 'email')).fontSize)).to.be.at.least(16);
    } finally {
      await setViewport({ width: 800, height: 600 });
    }
  });

  it('is accessible in dark mode, with its error messages showing', async () => {
    await emulateMedia({ colorScheme: 'dark' });
    try {
      const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" consent-text="I agree"></estate-enquiry>`);
      submitButton(el).click();
      await waitUntil(() => control(el, 'fullName').getAttribute('aria-invalid') === 'true');
      await expect(el).to.be.accessible();
    } finally {
      await emulateMedia({ colorScheme: 'light' });
    }
  });

  it('puts a part on every meaningful node', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" consent-text="I agree"></estate-enquiry>`);
    const parts = new Set([...shadow(el).querySelectorAll('[part]')].flatMap((node) => node.getAttribute('part')!.split(/\s+/)));
    for (const part of ['form', 'heading', 'field', 'label', 'optional', 'hint', 'input', 'error', 'submit', 'status']) {
      expect(parts.has(part), part).to.equal(true);
    }
    for (const name of ['name', 'email', 'mobile', 'message', 'consent']) {
      expect(parts.has(`field-${name}`), `field-${name}`).to.equal(true);
      expect(parts.has(`input-${name}`), `input-${name}`).to.equal(true);
    }
  });

  it('renders over a server-rendered root of its own and keeps what was typed there, not the server defaults', async () => {
    // The server's markup: what the form renders, as declarative shadow DOM (property bindings
    // such as the fields' values are not in it, as with Lit's server rendering).
    const model = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="3" message="Is it still for sale?" consent-text="I agree"></estate-enquiry>`);
    const markup = `<estate-enquiry listing-id="3" message="Is it still for sale?" consent-text="I agree"><template shadowrootmode="open">${shadow(model).innerHTML}</template></estate-enquiry>`;
    model.remove();
    const page = document.createElement('div');
    page.setHTMLUnsafe(markup);
    const el = page.firstElementChild as EstateEnquiry;
    const server = el.shadowRoot!;
    server.querySelector<HTMLInputElement>('#fullName')!.value = 'Sam Seller';
    server.querySelector<HTMLInputElement>('#consent')!.checked = true;
    const serverName = server.querySelector('#fullName');
    document.body.append(page);
    try {
      await el.updateComplete;
      const control = (id: string) => shadow(el).querySelector<HTMLInputElement>(`#${id}`)!;
      expect(control('fullName')).not.to.equal(serverName);
      expect(control('fullName').value).to.equal('Sam Seller');
      expect(control('consent').checked).to.equal(true);
      // Left as the server rendered it: the element's own default message stands.
      expect(control('message').value).to.equal('Is it still for sale?');
      expect(control('email').value).to.equal('');
    } finally {
      page.remove();
    }
  });

  it('keeps the honeypot away from the keyboard and the accessibility tree', async () => {
    const el = await fixture<EstateEnquiry>(html`
      <div>
        <button id="before">before</button>
        <estate-enquiry listing-id="1" consent-text="I agree"></estate-enquiry>
      </div>
    `).then((wrapper) => wrapper.querySelector('estate-enquiry')!);
    const trap = control(el, 'website') as HTMLInputElement;
    expect(trap.tabIndex).to.equal(-1);
    expect(trap.getAttribute('autocomplete')).to.equal('off');
    expect(trap.closest('[aria-hidden="true"]')).to.not.equal(null);
    const box = trap.getBoundingClientRect();
    expect(box.right, 'off-screen').to.be.lessThan(0);

    trap.focus();
    expect(shadow(el).activeElement, 'cannot be focused even by script').to.not.equal(trap);

    // Tab through the whole form: every control once, in order, and never the trap.
    document.getElementById('before')!.focus();
    const visited: string[] = [];
    for (let step = 0; step < 8; step += 1) {
      await sendKeys({ press: 'Tab' });
      const active = shadow(el).activeElement as HTMLElement | null;
      if (!active) break;
      visited.push(active.getAttribute('name') ?? active.getAttribute('part')!);
    }
    expect(visited).to.deep.equal(['fullName', 'email', 'mobile', 'message', 'consent', 'submit']);

    const names: string[] = [];
    const walk = (node: { name?: string; children?: unknown[] }) => {
      if (node.name) names.push(node.name);
      for (const child of node.children ?? []) walk(child as typeof node);
    };
    walk((await a11ySnapshot({})) as unknown as { name?: string; children?: unknown[] });
    expect(names).to.include('Full name');
    expect(
      names.some((name) => /website/i.test(name)),
      names.join(' | '),
    ).to.equal(false);
  });
});

describe('<estate-enquiry> validation', () => {
  it('on a failed submit marks every invalid field, links its message and focuses the first', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" relay=${RELAY}></estate-enquiry>`);
    let sent = false;
    el.addEventListener('estate-enquiry-submit', () => (sent = true));
    await fill(el, { email: 'jane@' });
    submitButton(el).click();
    await waitUntil(() => shadow(el).activeElement === control(el, 'fullName'), 'focus moves to the first invalid field');
    await el.updateComplete;

    const expectations: Array<[string, string]> = [
      ['fullName', 'Please fill in this field.'],
      ['email', 'Please enter an email address such as name@example.com.'],
      ['message', 'Please fill in this field.'],
    ];
    for (const [name, message] of expectations) {
      const field = control(el, name);
      expect(field.getAttribute('aria-invalid'), name).to.equal('true');
      const ids = field.getAttribute('aria-describedby')!.split(' ');
      const error = shadow(el).getElementById(`${name}-error`)!;
      expect(ids, name).to.include(error.id);
      expect(error.hidden).to.equal(false);
      expect(error.textContent, name).to.equal(message);
    }
    // The optional, empty mobile is fine.
    expect(control(el, 'mobile').getAttribute('aria-invalid')).to.equal('false');
    expect(statusRegion(el).textContent).to.contain('please correct the fields');
    expect(sent, 'nothing is sent while fields are invalid').to.equal(false);
    await expect(el).to.be.accessible();
  });

  it('shows a message once a field is touched and changed, not before', async () => {
    const el = await fixture<EstateEnquiry>(html` <div><button id="before">before</button><estate-enquiry listing-id="1"></estate-enquiry></div> `).then(
      (wrapper) => wrapper.querySelector('estate-enquiry')!,
    );
    document.getElementById('before')!.focus();
    await sendKeys({ press: 'Tab' }); // full name: visited and left untouched
    await sendKeys({ press: 'Tab' }); // email
    await el.updateComplete;
    expect(control(el, 'fullName').getAttribute('aria-invalid'), 'untouched and unchanged').to.equal('false');

    await sendKeys({ type: 'jane.example.com' });
    await el.updateComplete;
    expect(control(el, 'email').getAttribute('aria-invalid'), 'not while first typing').to.equal('false');
    await sendKeys({ press: 'Tab' });
    await el.updateComplete;
    expect(control(el, 'email').getAttribute('aria-invalid'), 'after leaving it changed').to.equal('true');

    // Fixing it clears the message as the visitor types.
    control(el, 'email').focus();
    await sendKeys({ press: 'End' });
    await sendKeys({ press: 'Home' });
    await sendKeys({ type: 'jane@' });
    await el.updateComplete;
    expect(control(el, 'email').value).to.equal('jane@jane.example.com');
    expect(control(el, 'email').getAttribute('aria-invalid')).to.equal('false');
    expect(shadow(el).getElementById('email-error')!.hidden).to.equal(true);
  });

  it('accepts Australian, New Zealand and UK numbers and refuses others', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" require-phone></estate-enquiry>`);
    const mobile = control(el, 'mobile');
    const verdict = async (value: string) => {
      await fill(el, { mobile: value });
      mobile.dispatchEvent(new Event('blur'));
      await el.updateComplete;
      return mobile.getAttribute('aria-invalid') === 'false';
    };
    for (const good of [
      '0412 345 678',
      '+61 412 345 678',
      '+61 (0)412-345-678',
      '(02) 9876 5432',
      '021 123 4567',
      '+64 21 123 4567',
      '07700 900123',
      '+44 7700 900123',
    ]) {
      expect(await verdict(good), good).to.equal(true);
    }
    for (const bad of ['12345', '+1 415 555 0100', '0412 345', 'call me']) {
      expect(await verdict(bad), bad).to.equal(false);
      expect(shadow(el).getElementById('mobile-error')!.textContent).to.contain('Australian, New Zealand or UK');
      expect(mobile.getAttribute('aria-describedby')).to.equal('mobile-hint mobile-error');
    }
    expect(await verdict(''), 'required').to.equal(false);
  });

  it('takes a name with no letter (only invisible characters or dots) for an empty one, as the relay does', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" relay=${RELAY}></estate-enquiry>`);
    let sent = false;
    el.addEventListener('estate-enquiry-submit', () => (sent = true));
    const name = control(el, 'fullName');
    for (const blank of ['\u200b\u200b', '\u202e\u2066', '\u3164', '. .']) {
      await fill(el, { ...visitor, fullName: blank });
      submitButton(el).click();
      await waitUntil(() => name.getAttribute('aria-invalid') === 'true', `"${encodeURIComponent(blank)}" is refused`);
      expect(shadow(el).getElementById('fullName-error')!.textContent).to.equal('Please fill in this field.');
    }
    expect(sent, 'nothing is sent').to.equal(false);
    for (const good of ['李小龙', "Siobhán O'Connor"]) {
      await fill(el, { fullName: good });
      name.dispatchEvent(new Event('blur'));
      await el.updateComplete;
      expect(name.getAttribute('aria-invalid'), good).to.equal('false');
    }
  });

  it('requires the consent box when consent-text is set', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id="1" consent-text="I agree"></estate-enquiry>`);
    await fill(el, visitor);
    submitButton(el).click();
    await waitUntil(() => shadow(el).activeElement === control(el, 'consent'));
    await el.updateComplete;
    expect(control(el, 'consent').getAttribute('aria-invalid')).to.equal('true');
    expect(shadow(el).getElementById('consent-error')!.textContent).to.equal('Please tick this box to send your enquiry.');
    await expect(el).to.be.accessible();
  });
});

describe('<estate-enquiry> sending', () => {
  it('can be completed and sent with the keyboard alone', async () => {
    const listingId = realListing(0);
    const wrapper = await fixture<HTMLElement>(html`
      <div>
        <button id="before">before</button>
        <estate-enquiry listing-id=${listingId} relay=${RELAY} consent-text="I agree to be contacted"></estate-enquiry>
      </div>
    `);
    const el = wrapper.querySelector('estate-enquiry')!;
    document.getElementById('before')!.focus();
    await sendKeys({ press: 'Tab' });
    await sendKeys({ type: visitor.fullName });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ type: visitor.email });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ type: visitor.mobile });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ type: visitor.message });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ press: 'Space' });
    await sendKeys({ press: 'Tab' });
    expect(shadow(el).activeElement).to.equal(submitButton(el));

    const { originalId } = await expectSuccess(el, () => sendKeys({ press: 'Enter' }));
    expect(originalId).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    await el.updateComplete;
    await waitUntil(() => shadow(el).activeElement === statusRegion(el), 'focus follows the result');
    expect(statusRegion(el).textContent).to.contain('Your enquiry has been sent');
    expect(shadow(el).querySelector('form')!.hidden).to.equal(true);
    const { status, body } = await relayStatus(originalId);
    expect(status, 'the relay holds the enquiry').to.equal(200);
    expect(body!.status).to.equal('accepted');
    expect(storedKeys(), 'nothing pending once accepted').to.deep.equal([]);
    await expect(el).to.be.accessible();
  });

  it('shows the relay’s per-field errors on the right fields (real 400)', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${realListing(1)} relay=${RELAY}></estate-enquiry>`);
    // Both pass the browser's checks; the relay's stricter rules refuse them.
    await fill(el, { ...visitor, fullName: 'Jane\u0007Citizen', email: 'jane@example.c' });
    const detail = await expectFailure(el, () => submitButton(el).click());
    expect(detail.status).to.equal(400);
    expect(Object.keys(detail.fields).sort()).to.deep.equal(['email', 'fullName']);
    expect(detail.pending, 'a 400 is not retried').to.equal(false);

    await waitUntil(() => shadow(el).activeElement === control(el, 'fullName'), 'focus goes to the first refused field');
    await el.updateComplete;
    for (const name of ['fullName', 'email']) {
      expect(control(el, name).getAttribute('aria-invalid'), name).to.equal('true');
      expect(shadow(el).getElementById(`${name}-error`)!.textContent, name).to.equal(detail.fields[name]);
      expect(control(el, name).getAttribute('aria-describedby')).to.contain(`${name}-error`);
    }
    expect(control(el, 'message').getAttribute('aria-invalid')).to.equal('false');
    expect(storedKeys()).to.deep.equal([]);
    await expect(el).to.be.accessible();

    // Correcting a field clears the relay's message on it, and the corrected form goes through.
    await fill(el, { fullName: visitor.fullName, email: visitor.email });
    expect(control(el, 'fullName').getAttribute('aria-invalid')).to.equal('false');
    const accepted = await expectSuccess(el, () => submitButton(el).click());
    expect(accepted.originalId).to.not.equal(detail.originalId, 'a refused submission is over; the next is new');
  });

  it('says so when the relay refuses something the visitor cannot fix (real 400 on the subject) and keeps nothing', async () => {
    // A page author's mistake: a subject over the relay's limit. No field to mark; the status says it.
    const el = await fixture<EstateEnquiry>(
      html`<estate-enquiry listing-id=${realListing(1)} relay=${RELAY} subject=${'Inspection '.repeat(30)}></estate-enquiry>`,
    );
    await fill(el, visitor);
    const detail = await expectFailure(el, () => submitButton(el).click());
    expect(detail.status).to.equal(400);
    expect(Object.keys(detail.fields)).to.deep.equal(['subject']);
    await el.updateComplete;
    expect(statusRegion(el).textContent).to.contain('could not be accepted');
    expect(statusRegion(el).textContent).to.contain(detail.fields.subject);
    for (const name of ['fullName', 'email', 'mobile', 'message']) {
      expect(control(el, name).getAttribute('aria-invalid'), name).to.equal('false');
    }
    expect(storedKeys()).to.deep.equal([]);
    await expect(el).to.be.accessible();
  });

  it('is accessible while sending, and ignores a second click', async () => {
    const { relay, token } = faultRelay('hold');
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${realListing(2)} relay=${relay}></estate-enquiry>`);
    await fill(el, visitor);
    submitButton(el).click();
    submitButton(el).click();
    await waitUntil(() => el.sending, 'the send starts');
    await el.updateComplete;
    submitButton(el).click();
    await el.updateComplete;

    expect(submitButton(el).getAttribute('aria-disabled')).to.equal('true');
    expect(statusRegion(el).textContent!.trim()).to.equal('Sending your enquiry…');
    expect(control(el, 'message').readOnly, 'what is being sent cannot change under the visitor').to.equal(true);
    await expect(el).to.be.accessible();

    await expectFailure(el, () => releaseFault(token));
    const received = await faultReceived(token);
    expect(received.length, 'three clicks, one request').to.equal(1);
    await el.updateComplete;
    expect(submitButton(el).getAttribute('aria-disabled')).to.equal('false');
  });

  it('keeps the originalId when a failed send is retried, and the relay gets that id', async () => {
    const { relay, token } = faultRelay('status-503');
    const listingId = realListing(3);
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${listingId} relay=${relay}></estate-enquiry>`);
    await fill(el, visitor);
    const detail = await expectFailure(el, () => submitButton(el).click());
    expect([detail.status, detail.pending]).to.deep.equal([503, true]);
    await el.updateComplete;
    expect(statusRegion(el).textContent).to.contain('could not be sent yet');
    await expect(el).to.be.accessible();

    const [first] = await faultReceived(token);
    expect(first!.originalId).to.equal(detail.originalId);
    expect(first).to.include({ listingId, fullName: visitor.fullName, email: visitor.email, website: '' });
    expect(first!.elapsedMs).to.be.a('number');
    expect((await relayStatus(detail.originalId)).status, 'the relay has not seen it yet').to.equal(404);

    // The connection comes back; the visitor presses the button again.
    el.relay = RELAY;
    const accepted = await expectSuccess(el, () => submitButton(el).click());
    expect(accepted.originalId).to.equal(detail.originalId);
    const { status, body } = await relayStatus(detail.originalId);
    expect(status).to.equal(200);
    expect(body!.originalId).to.equal(detail.originalId);
  });

  it('treats a network failure as temporary (status 0) and keeps the submission', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${realListing(4)} relay="http://127.0.0.1:9/"></estate-enquiry>`);
    await fill(el, visitor);
    const detail = await expectFailure(el, () => submitButton(el).click());
    expect([detail.status, detail.pending]).to.deep.equal([0, true]);
    expect(el.pendingOriginalId).to.equal(detail.originalId);
    const stored = JSON.parse(localStorage.getItem(`estate-enquiry:pending:listing:${realListing(4)}`)!);
    expect(stored.request.originalId).to.equal(detail.originalId);
  });

  it('sends a kept submission by itself when the browser comes back online', async () => {
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${realListing(9)} relay="http://127.0.0.1:9/"></estate-enquiry>`);
    await fill(el, visitor);
    const detail = await expectFailure(el, () => submitButton(el).click());
    el.relay = RELAY;
    const resent = await expectSuccess(el, () => window.dispatchEvent(new Event('online')));
    expect(resent.originalId).to.equal(detail.originalId);
    expect((await relayStatus(detail.originalId)).status).to.equal(200);
  });

  it('tells the visitor how long to wait on a 429, and keeps the submission', async () => {
    const { relay } = faultRelay('status-429');
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${realListing(5)} relay=${relay}></estate-enquiry>`);
    await fill(el, visitor);
    const detail = await expectFailure(el, () => submitButton(el).click());
    expect([detail.status, detail.pending]).to.deep.equal([429, true]);
    await el.updateComplete;
    expect(statusRegion(el).textContent).to.contain('sent again in 30 seconds');
    expect(storedKeys()).to.have.length(1);
  });

  it('drops a submission the relay refuses for good (403) and starts a new one next time', async () => {
    const { relay, token } = faultRelay('status-403');
    const el = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${realListing(6)} relay=${relay}></estate-enquiry>`);
    await fill(el, visitor);
    const first = await expectFailure(el, () => submitButton(el).click());
    expect([first.status, first.pending]).to.deep.equal([403, false]);
    expect(storedKeys()).to.deep.equal([]);
    await el.updateComplete;
    expect(statusRegion(el).textContent).to.contain('could not be accepted');
    await expect(el).to.be.accessible();

    await expectFailure(el, () => submitButton(el).click());
    const received = await faultReceived(token);
    expect(received).to.have.length(2);
    expect(received[1]!.originalId).to.not.equal(received[0]!.originalId);
  });

  it('resends a pending submission after a reload, with the same originalId', async () => {
    const { relay, token } = faultRelay('status-502');
    const listingId = realListing(7);
    const first = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${listingId} relay=${relay}></estate-enquiry>`);
    await fill(first, visitor);
    const detail = await expectFailure(first, () => submitButton(first).click());
    first.remove(); // the tab is closed or reloaded

    // The page loads again (the relay reachable this time): the form resumes on its own.
    let again: EstateEnquiry | undefined;
    const resent = await expectSuccess(document, async () => {
      again = await fixture<EstateEnquiry>(html`<estate-enquiry listing-id=${listingId} relay=${RELAY}></estate-enquiry>`);
      expect(control(again, 'fullName').value, 'the visitor sees what is being sent').to.equal(visitor.fullName);
    });
    expect(resent.originalId).to.equal(detail.originalId);
    expect((await faultReceived(token))[0]!.originalId).to.equal(detail.originalId);
    expect((await relayStatus(detail.originalId)).status).to.equal(200);
    expect(storedKeys()).to.deep.equal([]);
    await again!.updateComplete;
    expect(statusRegion(again!).textContent).to.contain('Your enquiry has been sent');
  });

  it('lets the host veto a send, with no personal data in the event', async () => {
    const { relay, token } = faultRelay('status-503');
    const el = await fixture<EstateEnquiry>(html`
      <estate-enquiry listing-id=${realListing(8)} relay=${relay} subject="Inspection request" consent-text="I agree"></estate-enquiry>
    `);
    await fill(el, visitor);
    (control(el, 'consent') as HTMLInputElement).click();
    let seen: CustomEvent | undefined;
    const veto = (event: CustomEvent) => {
      seen = event;
      event.preventDefault();
    };
    document.addEventListener('estate-enquiry-submit', veto);
    try {
      submitButton(el).click();
      await waitUntil(() => seen !== undefined);
    } finally {
      document.removeEventListener('estate-enquiry-submit', veto);
    }
    expect(seen!.cancelable && seen!.bubbles && seen!.composed).to.equal(true);
    expect(Object.keys(seen!.detail).sort()).to.deep.equal(['consent', 'listingId', 'originalId', 'subject']);
    expect(seen!.detail).to.include({ listingId: realListing(8), subject: 'Inspection request', consent: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await faultReceived(token), 'nothing sent').to.deep.equal([]);
    expect(storedKeys()).to.deep.equal([]);
    expect(el.sending).to.equal(false);
  });

  it('sends a contact-me enquiry for an agent with subject and consent', async () => {
    const { relay, token } = faultRelay('status-500');
    const el = await fixture<EstateEnquiry>(html`
      <estate-enquiry agent-id=${agentIds[0]!} relay=${relay} subject="Appraisal" consent-text="I agree"></estate-enquiry>
    `);
    await fill(el, { ...visitor, mobile: '' });
    (control(el, 'consent') as HTMLInputElement).click();
    await expectFailure(el, () => submitButton(el).click());
    const [body] = await faultReceived(token);
    expect(body).to.deep.include({
      agentId: agentIds[0],
      fullName: visitor.fullName,
      email: visitor.email,
      subject: 'Appraisal',
      message: visitor.message,
      consent: true,
      website: '',
    });
    expect(body).to.not.have.property('listingId');
    expect(body).to.not.have.property('mobile');

    el.relay = RELAY;
    const accepted = await expectSuccess(el, () => submitButton(el).click());
    expect(accepted.originalId).to.equal(body!.originalId);
  });
});
