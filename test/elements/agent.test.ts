// <estate-agent> in Chromium: the relay's people routes answered per test (people-data.ts); the
// listing cards, the message form and the appraisal request are the real elements, the
// appraisal's code fetched only when its button is first pressed.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/agent/define.ts';
import type { AgentErrorDetail, EstateAgent } from '../../widget/agent/agent.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { AgentProfile } from '../../contract/relay-api.ts';
import { json, profile, stubPeople } from './people-data.ts';

const shadow = (el: Element) => el.shadowRoot!;
const text = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const part = (el: EstateAgent, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const testPageUrl = window.location.href;

function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

async function settled(el: EstateAgent): Promise<AgentProfile> {
  const agent = await el.loadComplete;
  await el.updateComplete;
  return agent;
}

/** The card links of a section's `<estate-listings>`, once it has rendered them. */
async function cardLinks(el: EstateAgent, section: 'current' | 'results'): Promise<HTMLAnchorElement[]> {
  const list = shadow(el).querySelector<EstateListings>(`[part~="${section}"] estate-listings`);
  if (!list) return [];
  await list.updateComplete;
  return [...shadow(list).querySelectorAll<HTMLAnchorElement>('[part~="card-link"]')];
}

describe('<estate-agent>', () => {
  let stub: ReturnType<typeof stubPeople> | undefined;

  before(async () => {
    await setViewport({ width: 1280, height: 900 });
  });

  afterEach(() => {
    stub?.restore();
    stub = undefined;
    history.replaceState(null, '', testPageUrl);
  });

  // First in the file: the appraisal's code is not on the page until its button is pressed.
  it('is accessible while loading and once loaded, its message form to that agent rendered with it', async () => {
    let answer!: (response: Response) => void;
    stub = stubPeople(() => new Promise<Response>((resolve) => (answer = resolve)));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
    expect(part(el, 'skeleton')).to.exist;
    await expect(el).to.be.accessible();
    answer(json(profile(21)));
    await settled(el);
    expect(stub.requests).to.deep.equal(['agents/21']);
    // Registered with the agent (static dependencies): drawn in its first render, never an empty box first.
    const form = shadow(el).querySelector('estate-enquiry')!;
    expect(form.getAttribute('agent-id')).to.equal('21');
    expect(form.shadowRoot?.querySelector('form'), 'the form is drawn with the agent').to.exist;
    expect(customElements.get('estate-appraisal'), 'the appraisal’s code waits for its button').to.equal(undefined);
    await expect(el).to.be.accessible();
  });

  it('shows the name, position, office, homes on the market and a call link; an e-mail link only when the relay gives one', async () => {
    stub = stubPeople(() => json(profile(21)));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
    await settled(el);
    expect(shadow(el).querySelector('h2[part~="name"]')!.textContent).to.equal('Sarah Nguyen');
    expect(text(part(el, 'position'))).to.equal('Director');
    expect(text(part(el, 'office'))).to.equal('Harbour & Yarra Property');
    expect(text(part(el, 'listing-count'))).to.equal('2 homes on the market');
    expect(part(el, 'phone')!.getAttribute('href')).to.equal('tel:0395550121');
    expect(text(part(el, 'phone'))).to.equal('Call Sarah Nguyen, (03) 9555 0121');
    expect(part(el, 'email'), 'no e-mail unless the agency allows it').to.equal(null);
    expect(shadow(el).querySelector('a[href^="mailto:"]')).to.equal(null);
    // Without detail-href the cards open the relay's own listing pages.
    expect((await cardLinks(el, 'current'))[0]!.href).to.equal(`${RELAY}/listings/2101/2101-example-street-kew-vic`);

    el.agent = profile(21, { email: 'sarah@harbourandyarra.example' });
    await el.updateComplete;
    expect(part(el, 'email')!.getAttribute('href')).to.equal('mailto:sarah@harbourandyarra.example');
    expect(text(part(el, 'email'))).to.equal('Email Sarah');
  });

  it('inserts a profile the relay gives as HTML, and shows a text profile as text with its line breaks', async () => {
    stub = stubPeople(() => json(profile(21)));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} .agent=${profile(21)}></estate-agent>`);
    await settled(el);
    expect(text(shadow(el).querySelector('[part~="profile"] [part~="section-title"]'))).to.equal('About Sarah');
    const prose = part(el, 'profile')!;
    expect(prose.querySelector('strong')!.textContent).to.equal('Kew');
    expect(prose.querySelector('a')!.getAttribute('href')).to.equal('https://example.com/awards');
    expect(prose.querySelectorAll('p')).to.have.length(2);

    el.agent = profile(21, { profile: { format: 'text', text: 'First line <b>not bold</b>\nSecond line\n\nNew paragraph' } });
    await el.updateComplete;
    const plain = part(el, 'profile')!;
    expect(plain.querySelector('b')).to.equal(null);
    expect(plain.querySelectorAll('p')).to.have.length(2);
    expect(plain.querySelectorAll('br')).to.have.length(1);
    expect(plain.querySelector('p')!.textContent).to.contain('<b>not bold</b>');

    el.agent = profile(21, { profile: null });
    await el.updateComplete;
    expect(shadow(el).querySelector('section[part~="profile"]')).to.equal(null);
  });

  it('lists their current homes and their results as listing cards linking through detail-href', async () => {
    stub = stubPeople(() => json(profile(21)));
    const el = await fixture<EstateAgent>(
      html`<estate-agent relay=${RELAY} agent-id="21" detail-href="/listing.html?id={id}&address={slug}" heading-level="1"></estate-agent>`,
    );
    const agent = await settled(el);
    const current = await cardLinks(el, 'current');
    expect(current.map((link) => link.dataset.id)).to.deep.equal(agent.current.map((listing) => String(listing.id)));
    expect(current[0]!.getAttribute('href')).to.equal(`/listing.html?id=2101&address=2101-example-street-kew-vic`);
    const results = await cardLinks(el, 'results');
    expect(results.map((link) => link.dataset.id)).to.deep.equal(['2103']);
    // Headings follow the page's outline: the name h1, sections h2, the cards h3.
    expect(shadow(el).querySelector('h1[part~="name"]')).to.exist;
    expect(text(shadow(el).querySelector('[part~="current"] h2'))).to.equal('On the market');
    expect(text(shadow(el).querySelector('[part~="results"] h2'))).to.equal('Sold and leased');
    expect(current[0]!.closest('h3')).to.exist;
    // The sold card carries the badge and the price as the agency published it.
    const resultList = shadow(el).querySelector<EstateListings>('[part~="results"] estate-listings')!;
    expect(text(shadow(resultList).querySelector('[part~="price"]'))).to.equal('Sold $1,420,000');
    expect(text(shadow(resultList).querySelector('[part~="badge"]'))).to.equal('Sold');

    el.agent = profile(21, { current: [], results: [] });
    await el.updateComplete;
    expect(text(shadow(el).querySelector('[part~="current"] p'))).to.equal('Sarah has no homes on the market right now.');
    expect(shadow(el).querySelector('[part~="results"]')).to.equal(null);
  });

  it('reads its id from the page URL with agent-id-param', async () => {
    stub = stubPeople((path) => json(profile(Number(path.split('/')[1]))));
    const url = new URL(testPageUrl);
    url.searchParams.set('agent', '37');
    history.replaceState(null, '', url.href);
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id-param="agent"></estate-agent>`);
    expect((await settled(el)).id).to.equal(37);
    expect(stub.requests).to.deep.equal(['agents/37']);
  });

  it('says a person is not on the team (404) and links to the team page, without a retry', async () => {
    stub = stubPeople(() => json({ error: 'not_found', message: 'No such agent' }, 404));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="99"></estate-agent>`);
    const failed = (await oneEvent(el, 'estate-agent-error')) as CustomEvent<AgentErrorDetail>;
    expect(failed.detail.status).to.equal(404);
    await el.updateComplete;
    expect(text(part(el, 'error'))).to.contain('This person is not on our team, or is no longer.');
    expect(part(el, 'retry-button')).to.equal(null);
    expect((part(el, 'team-link') as HTMLAnchorElement).href).to.equal(`${RELAY}/listings/agents`);
    await expect(el).to.be.accessible();
  });

  it('says an agent has left (410) and links to the page team-href names', async () => {
    stub = stubPeople(() => json({ error: 'agent_gone', message: 'This agent has left' }, 410));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="98" team-href="/our-team"></estate-agent>`);
    const failed = (await oneEvent(el, 'estate-agent-error')) as CustomEvent<AgentErrorDetail>;
    expect(failed.detail.status).to.equal(410);
    await el.updateComplete;
    expect(text(part(el, 'error'))).to.contain('This agent has left the agency.');
    expect(part(el, 'team-link')!.getAttribute('href')).to.equal('/our-team');
    await expect(el).to.be.accessible();
  });

  it('offers a retry when the relay fails, and loads again', async () => {
    let calls = 0;
    stub = stubPeople(() => (++calls === 1 ? json({ error: 'upstream', message: 'CRM down' }, 502) : json(profile(21))));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
    await oneEvent(el, 'estate-agent-error');
    await el.updateComplete;
    const loaded = oneEvent(el, 'estate-agent-loaded');
    part(el, 'retry-button')!.click();
    expect((await loaded).detail.agent.id).to.equal(21);
  });

  it('waits while the relay fills its cache (503 filling), saying so', async () => {
    let calls = 0;
    stub = stubPeople(() =>
      ++calls === 1 ? json({ state: 'filling', message: 'Filling', retryAfterSeconds: 1 }, 503, { 'Retry-After': '1' }) : json(profile(21)),
    );
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
    await waitUntil(() => text(shadow(el).querySelector('[role="status"]')).includes('on its way'), 'the filling message');
    await settled(el);
    expect(calls).to.equal(2);
  });

  it('opens the appraisal request to that agent from its button, by keyboard, fetching its code then', async () => {
    stub = stubPeople(() => json(profile(21)));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
    await settled(el);
    const button = part(el, 'appraisal-button') as HTMLButtonElement;
    expect(text(button)).to.equal('Ask Sarah for an appraisal');
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    expect(shadow(el).querySelector('estate-appraisal')).to.equal(null);
    button.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(button.getAttribute('aria-expanded')).to.equal('true');
    const appraisal = shadow(el).querySelector('estate-appraisal')!;
    expect(appraisal.getAttribute('agent-id')).to.equal('21');
    await waitUntil(() => customElements.get('estate-appraisal') !== undefined && appraisal.shadowRoot?.querySelector('form'), 'the appraisal form');
    expect(deepActive()).to.equal(button);
    await sendKeys({ press: 'Space' });
    await el.updateComplete;
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    expect(shadow(el).querySelector('estate-appraisal')).to.equal(null);
  });

  it('takes the visitor from the header’s "Message" button to the message form', async () => {
    await setViewport({ width: 390, height: 700 });
    try {
      stub = stubPeople(() => json(profile(21)));
      const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
      await settled(el);
      const title = shadow(el).querySelector<HTMLElement>('[part~="contact"] [part~="section-title"]')!;
      expect(title.getBoundingClientRect().top, 'the form starts below the fold on a phone').to.be.greaterThan(700);
      const button = part(el, 'message-button')!;
      expect(text(button)).to.equal('Message Sarah');
      button.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => deepActive() === title, 'focus on the contact heading');
      await waitUntil(() => title.getBoundingClientRect().top < 700 && title.getBoundingClientRect().top >= -1, 'the form scrolled into view');
    } finally {
      await setViewport({ width: 1280, height: 900 });
    }
  });

  it('leaves out the forms when asked', async () => {
    stub = stubPeople(() => json(profile(21)));
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21" no-enquiry no-appraisal></estate-agent>`);
    await settled(el);
    expect(shadow(el).querySelector('estate-enquiry')).to.equal(null);
    expect(part(el, 'appraisal-button')).to.equal(null);
    expect(part(el, 'message-button')).to.equal(null);
    expect(shadow(el).querySelector('[part~="contact"]')).to.equal(null);
  });

  it('keeps every line whole on a phone, the portrait beside the name', async () => {
    await setViewport({ width: 390, height: 844 });
    try {
      stub = stubPeople(() =>
        json(
          profile(21, {
            name: 'Alexandra Konstantinopoulou-Fitzgerald',
            position: 'Senior Sales Agent and Auctioneer',
            email: 'alexandra.konstantinopoulou@harbourandyarra.example',
          }),
        ),
      );
      const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="21"></estate-agent>`);
      await settled(el);
      const host = el.getBoundingClientRect();
      for (const node of shadow(el).querySelectorAll<HTMLElement>(
        '[part~="name"], [part~="position"], [part~="phone"], [part~="email"], [part~="section-title"]',
      )) {
        expect(node.scrollWidth, text(node)).to.be.at.most(node.clientWidth + 1);
        expect(node.getBoundingClientRect().right, text(node)).to.be.at.most(host.right + 0.5);
      }
      const portrait = part(el, 'portrait')!.getBoundingClientRect();
      const name = part(el, 'name')!.getBoundingClientRect();
      expect(name.left).to.be.greaterThan(portrait.right);
    } finally {
      await setViewport({ width: 1280, height: 900 });
    }
  });
});
