// <estate-agent> in Chromium against the runner's real relay (demo mode, embedded simulator): the
// demo agency's people as GET /api/v1/team and GET /api/v1/agents/{id} give them. The listing
// cards, the message form and the appraisal request are the real elements, the appraisal's code
// fetched only when its button is first pressed. Requests are held or answered here
// (people-requests.ts) only for states the shared relay cannot show on demand.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/agent/define.ts';
import type { AgentErrorDetail, EstateAgent } from '../../widget/agent/agent.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { AgentProfile, ListingSummary, Team } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { json, watchPeopleRequests, type PeopleRequests } from './people-requests.ts';

const shadow = (el: Element) => el.shadowRoot!;
const text = (node: Node | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const part = (el: EstateAgent, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
/** The profile's text (its section is a `profile` part too). */
const prose = (el: EstateAgent) => shadow(el).querySelector<HTMLElement>('[part~="profile"]');
/** How the page names the agent in its words ("About …", "Message …"): the whole name, right for "Mei Lin Chen" too. */
const spokenName = (agent: AgentProfile) => agent.name;
const testPageUrl = window.location.href;
const BADGES: Partial<Record<string, string>> = { sold: 'Sold', leased: 'Leased', 'under-offer': 'Under offer' };

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

let people: Promise<AgentProfile[]> | undefined;
/** Every person of the relay's team, as GET /api/v1/agents/{id} gives them, in the team's order. */
function relayPeople(): Promise<AgentProfile[]> {
  people ??= (async () => {
    const team = (await (await fetch(`${RELAY}/api/v1/team`)).json()) as Team;
    return Promise.all(
      team.items.map(async ({ id }) => {
        const response = await fetch(`${RELAY}/api/v1/agents/${id}`);
        expect(response.status, `GET /api/v1/agents/${id}`).to.equal(200);
        return (await response.json()) as AgentProfile;
      }),
    );
  })();
  return people;
}

/** The first of the relay's people who fits, read fresh from the relay (what the element must show). */
async function relayAgent(what: string, fits: (agent: AgentProfile) => boolean): Promise<AgentProfile> {
  const agent = (await relayPeople()).find(fits);
  expect(agent, `an agent of the demo agency ${what}`).to.exist;
  return (await (await fetch(`${RELAY}/api/v1/agents/${agent!.id}`)).json()) as AgentProfile;
}

const listed = (agent: AgentProfile) => agent.current.length > 0 && !!agent.phone;
const linkTarget = (listing: ListingSummary, template: string) =>
  template.replace('{id}', String(listing.id)).replace('{slug}', addressSlug(listing.address?.display || listing.heading));

describe('<estate-agent>', () => {
  let requests: PeopleRequests | undefined;

  before(async () => {
    await setViewport({ width: 1280, height: 900 });
  });

  afterEach(() => {
    requests?.restore();
    requests = undefined;
    history.replaceState(null, '', testPageUrl);
  });

  // First in the file: the appraisal's code is not on the page until its button is pressed.
  it('is accessible while loading and once loaded, its message form to that agent rendered with it', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    // The relay answers too fast to see the skeleton: the request waits here until let through.
    requests = watchPeopleRequests({ hold: true });
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    expect(part(el, 'skeleton')).to.exist;
    await expect(el).to.be.accessible();
    requests.release();
    expect((await settled(el)).id).to.equal(agent.id);
    expect(requests.paths).to.deep.equal([`agents/${agent.id}`]);
    // Registered with the agent (static dependencies): drawn in its first render, never an empty box first.
    const form = shadow(el).querySelector('estate-enquiry')!;
    expect(form.getAttribute('agent-id')).to.equal(String(agent.id));
    expect(form.getAttribute('relay')).to.equal(RELAY);
    expect(form.shadowRoot?.querySelector('form'), 'the form is drawn with the agent').to.exist;
    expect(customElements.get('estate-appraisal'), 'the appraisal’s code waits for its button').to.equal(undefined);
    await expect(el).to.be.accessible();
  });

  it('shows the relay’s name, position, office, homes on the market and call link; an e-mail link only when the relay gives one', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    expect(await settled(el)).to.deep.equal(agent);
    expect(shadow(el).querySelector('h2[part~="name"]')!.textContent).to.equal(agent.name);
    expect(text(part(el, 'position'))).to.equal(agent.position ?? '');
    expect(text(part(el, 'office'))).to.equal(agent.office.name);
    const n = agent.listingCount;
    expect(text(part(el, 'listing-count'))).to.equal(`${n} ${n === 1 ? 'home' : 'homes'} on the market`);
    expect(part(el, 'phone')!.getAttribute('href')).to.equal(`tel:${agent.phone!.replace(/(?!^\+)\D/g, '')}`);
    expect(text(part(el, 'phone'))).to.equal(`Call ${agent.name}, ${agent.phone}`);
    // The demo relay keeps AGENT_DIRECT_CONTACT off: no e-mail.
    expect(agent.email).to.equal(null);
    expect(part(el, 'email'), 'no e-mail unless the agency allows it').to.equal(null);
    expect(shadow(el).querySelector('a[href^="mailto:"]')).to.equal(null);
    // Without detail-href the cards open the relay's own listing pages.
    expect((await cardLinks(el, 'current'))[0]!.href).to.equal(linkTarget(agent.current[0]!, `${RELAY}/listings/{id}/{slug}`));

    // An agency that allows direct contact (a relay setting, fixed at its start): the host's copy says so.
    el.agent = { ...agent, email: 'agent@harbourandyarra.example' };
    await el.updateComplete;
    expect(part(el, 'email')!.getAttribute('href')).to.equal('mailto:agent@harbourandyarra.example');
    expect(text(part(el, 'email'))).to.equal(`Email ${spokenName(agent)}`);
  });

  it('shows a plain-text profile the relay gives as text, its paragraphs and line breaks kept; none when there is none', async () => {
    const agent = await relayAgent('with a plain-text profile', (candidate) => candidate.profile?.format === 'text');
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    await settled(el);
    const profile = agent.profile as { format: 'text'; text: string };
    expect(text(shadow(el).querySelector('[part~="about"] [part~="section-title"]'))).to.equal(`About ${spokenName(agent)}`);
    const profileText = prose(el)!;
    const paragraphs = profile.text
      .replace(/\r\n?/g, '\n')
      .split(/\n\s*\n/)
      .filter((paragraph) => paragraph.trim());
    expect(profileText.querySelectorAll('p')).to.have.length(paragraphs.length);
    expect(profileText.querySelectorAll('br')).to.have.length(paragraphs.reduce((breaks, paragraph) => breaks + paragraph.trim().split('\n').length - 1, 0));
    // As read on the screen (paragraphs and line breaks part the words; textContent would join them).
    expect((profileText as HTMLElement).innerText.replace(/\s+/g, ' ').trim()).to.equal(profile.text.replace(/\s+/g, ' ').trim());
    expect(profileText.querySelectorAll('*:not(p):not(br)')).to.have.length(0);

    const without = await relayAgent('with no profile', (candidate) => candidate.profile === null);
    const bare = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${without.id}></estate-agent>`);
    expect((await settled(bare)).id).to.equal(without.id);
    expect(shadow(bare).querySelector('section[part~="about"]')).to.equal(null);
  });

  it('inserts a profile the relay gives as HTML as it is, and never markup from a text profile', async () => {
    // Every HTML profile the relay gives (the relay's cleaning, server/crm/profile-text.ts, is what makes it safe to insert).
    const withHtml = (await relayPeople()).filter((candidate) => candidate.profile?.format === 'html');
    expect(withHtml, 'agents of the demo agency with an HTML profile (the seed types some in the CRM editor)').not.to.be.empty;
    for (const agent of withHtml) {
      const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
      await settled(el);
      const expected = document.createElement('template');
      expected.innerHTML = (agent.profile as { format: 'html'; html: string }).html;
      const profileText = prose(el)!;
      expect(
        [...profileText.querySelectorAll('*')].map((node) => node.tagName),
        agent.name,
      ).to.deep.equal([...expected.content.querySelectorAll('*')].map((node) => node.tagName));
      expect(text(profileText), agent.name).to.equal(text(expected.content));
    }
    // An agent the host passes in (.agent, no relay cleaning on the way) is drawn as given too; and a text
    // profile's tags stay text (a seed text profile has none: the relay would take it for HTML).
    const agent = await relayAgent('with homes on the market', listed);
    const el = await fixture<EstateAgent>(
      html`<estate-agent
        relay=${RELAY}
        .agent=${{
          ...agent,
          profile: {
            format: 'html',
            html: '<p>Sold homes in <strong>Kew</strong> for twenty years.</p><p><a href="https://example.com/awards" rel="nofollow noopener">Awards</a></p>',
          },
        }}
      ></estate-agent>`,
    );
    await settled(el);
    const profileText = prose(el)!;
    expect(profileText.querySelector('strong')!.textContent).to.equal('Kew');
    expect(profileText.querySelector('a')!.getAttribute('href')).to.equal('https://example.com/awards');
    expect(profileText.querySelectorAll('p')).to.have.length(2);

    el.agent = { ...agent, profile: { format: 'text', text: 'First line <b>not bold</b>\nSecond line\n\nNew paragraph' } };
    await el.updateComplete;
    const plain = prose(el)!;
    expect(plain.querySelector('b')).to.equal(null);
    expect(plain.querySelectorAll('p')).to.have.length(2);
    expect(plain.querySelectorAll('br')).to.have.length(1);
    expect(plain.querySelector('p')!.textContent).to.contain('<b>not bold</b>');
  });

  it('lists exactly the relay’s current homes and results of that agent as listing cards linking through detail-href', async () => {
    const agent = await relayAgent('with homes on the market and results', (candidate) => candidate.current.length > 0 && candidate.results.length > 0);
    const template = '/listing.html?id={id}&address={slug}';
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id} detail-href=${template} heading-level="1"></estate-agent>`);
    await settled(el);
    const current = await cardLinks(el, 'current');
    expect(current.map((link) => Number(link.dataset.id))).to.deep.equal(agent.current.map((listing) => listing.id));
    expect(current.map((link) => link.getAttribute('href'))).to.deep.equal(agent.current.map((listing) => linkTarget(listing, template)));
    const results = await cardLinks(el, 'results');
    expect(results.map((link) => Number(link.dataset.id))).to.deep.equal(agent.results.map((listing) => listing.id));
    // Headings follow the page's outline: the name h1, sections h2, the cards h3.
    expect(shadow(el).querySelector('h1[part~="name"]')).to.exist;
    expect(text(shadow(el).querySelector('[part~="current"] h2'))).to.equal('On the market');
    expect(text(shadow(el).querySelector('[part~="results"] h2'))).to.equal('Sold and leased');
    expect(current[0]!.closest('h3')).to.exist;
    // Each result card carries its badge and the price as the agency published it.
    const resultList = shadow(el).querySelector<EstateListings>('[part~="results"] estate-listings')!;
    const resultCards = [...shadow(resultList).querySelectorAll('[part~="card"]')];
    expect(resultCards.map((card) => text(card.querySelector('[part~="price"]')))).to.deep.equal(
      agent.results.map((listing) => listing.displayPrice?.trim() || 'Contact agent'),
    );
    expect(resultCards.map((card) => text(card.querySelector('[part~="badge"]')))).to.deep.equal(
      agent.results.map((listing) => BADGES[listing.badge ?? ''] ?? ''),
    );
    await expect(el).to.be.accessible();
  });

  it('says an agent with nothing on the market has none, and leaves out results they do not have', async () => {
    const agent = await relayAgent(
      'with nothing on the market and no results',
      (candidate) => candidate.current.length === 0 && candidate.results.length === 0,
    );
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    await settled(el);
    expect(part(el, 'listing-count')).to.equal(null);
    expect(text(shadow(el).querySelector('[part~="current"] p'))).to.equal(`${spokenName(agent)} has no homes on the market right now.`);
    expect(shadow(el).querySelector('[part~="results"]')).to.equal(null);
  });

  it('reads its id from the page URL with agent-id-param', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    requests = watchPeopleRequests();
    const url = new URL(testPageUrl);
    url.searchParams.set('agent', String(agent.id));
    history.replaceState(null, '', url.href);
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id-param="agent"></estate-agent>`);
    expect(await settled(el)).to.deep.equal(agent);
    expect(requests.paths).to.deep.equal([`agents/${agent.id}`]);
    expect(shadow(el).querySelector('h2[part~="name"]')!.textContent).to.equal(agent.name);
  });

  it('says a person is not on the team (the relay’s 404) and links to the team page, without a retry', async () => {
    const unknown = 987654321;
    expect((await fetch(`${RELAY}/api/v1/agents/${unknown}`)).status, 'the relay knows no such agent').to.equal(404);
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${unknown}></estate-agent>`);
    const failed = (await oneEvent(el, 'estate-agent-error')) as CustomEvent<AgentErrorDetail>;
    expect(failed.detail.status).to.equal(404);
    await el.updateComplete;
    expect(text(part(el, 'error'))).to.contain('This person is not on our team, or is no longer.');
    expect(part(el, 'retry-button')).to.equal(null);
    expect((part(el, 'team-link') as HTMLAnchorElement).href).to.equal(`${RELAY}/listings/agents`);
    await expect(el).to.be.accessible();
  });

  it('says an agent has left (410) and links to the page team-href names', async () => {
    // A 410 needs a published agent page and that agent gone from the CRM: removing one from the
    // shared simulator (it has no way back) would change every suite's listings, so this one answer is ours.
    requests = watchPeopleRequests({ answerFirst: [json({ error: 'agent_gone', message: 'This agent is no longer with the agency.' }, 410)] });
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id="98" team-href="/our-team"></estate-agent>`);
    const failed = (await oneEvent(el, 'estate-agent-error')) as CustomEvent<AgentErrorDetail>;
    expect(failed.detail.status).to.equal(410);
    await el.updateComplete;
    expect(text(part(el, 'error'))).to.contain('This agent has left the agency.');
    expect(part(el, 'team-link')!.getAttribute('href')).to.equal('/our-team');
    expect(part(el, 'retry-button')).to.equal(null);
    await expect(el).to.be.accessible();
  });

  it('offers a retry when the network fails, and loads the agent from the relay', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    // A network error on demand: the first request fails before it leaves the page.
    requests = watchPeopleRequests({ answerFirst: [new TypeError('Failed to fetch')] });
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    const failed = (await oneEvent(el, 'estate-agent-error')) as CustomEvent<AgentErrorDetail>;
    expect(failed.detail.status).to.equal(null);
    await el.updateComplete;
    expect(part(el, 'error')).to.exist;
    await expect(el).to.be.accessible();
    const loaded = oneEvent(el, 'estate-agent-loaded');
    part(el, 'retry-button')!.click();
    expect((await loaded).detail.agent).to.deep.equal(agent);
  });

  it('offers a retry when the relay answers 5xx, and loads again', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    // A failing CRM behind the shared relay would fail every suite's listings: this one answer only.
    requests = watchPeopleRequests({ answerFirst: [json({ error: 'upstream', message: 'CRM down' }, 502)] });
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    const failed = (await oneEvent(el, 'estate-agent-error')) as CustomEvent<AgentErrorDetail>;
    expect(failed.detail.status).to.equal(502);
    await el.updateComplete;
    const loaded = oneEvent(el, 'estate-agent-loaded');
    part(el, 'retry-button')!.click();
    expect((await loaded).detail.agent.id).to.equal(agent.id);
  });

  it('waits while the relay fills its cache (503 filling), saying so', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    // The runner's relay filled its cache before the tests began: the first answer is the one it gave then.
    requests = watchPeopleRequests({ answerFirst: [json({ state: 'filling', message: 'Filling', retryAfterSeconds: 1 }, 503, { 'Retry-After': '1' })] });
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    await waitUntil(() => text(shadow(el).querySelector('[role="status"]')).includes('on its way'), 'the filling message', { timeout: 10_000 });
    expect(await settled(el)).to.deep.equal(agent);
    expect(requests.paths).to.deep.equal([`agents/${agent.id}`, `agents/${agent.id}`]);
  });

  it('opens the appraisal request to that agent from its button, by keyboard, fetching its code then', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id}></estate-agent>`);
    await settled(el);
    const button = part(el, 'appraisal-button') as HTMLButtonElement;
    expect(text(button)).to.equal(`Ask ${spokenName(agent)} for an appraisal`);
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    expect(shadow(el).querySelector('estate-appraisal')).to.equal(null);
    button.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(button.getAttribute('aria-expanded')).to.equal('true');
    const appraisal = shadow(el).querySelector('estate-appraisal')!;
    expect(appraisal.getAttribute('agent-id')).to.equal(String(agent.id));
    await waitUntil(() => customElements.get('estate-appraisal') !== undefined && appraisal.shadowRoot?.querySelector('form'), 'the appraisal form', {
      timeout: 10_000,
    });
    expect(deepActive()).to.equal(button);
    await sendKeys({ press: 'Space' });
    await el.updateComplete;
    expect(button.getAttribute('aria-expanded')).to.equal('false');
    expect(shadow(el).querySelector('estate-appraisal')).to.equal(null);
  });

  it('takes the visitor from the header’s "Message" button to the message form', async () => {
    await setViewport({ width: 390, height: 700 });
    try {
      // The one with the most homes on the market: their form is furthest down.
      const busiest = (await relayPeople()).reduce((most, candidate) => (candidate.current.length > most.current.length ? candidate : most));
      const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${busiest.id}></estate-agent>`);
      await settled(el);
      const title = shadow(el).querySelector<HTMLElement>('[part~="contact"] [part~="section-title"]')!;
      expect(title.getBoundingClientRect().top, 'the form starts below the fold on a phone').to.be.greaterThan(700);
      const button = part(el, 'message-button')!;
      expect(text(button)).to.equal(`Message ${spokenName(busiest)}`);
      button.focus();
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => deepActive() === title, 'focus on the contact heading', { timeout: 10_000 });
      await waitUntil(() => title.getBoundingClientRect().top < 700 && title.getBoundingClientRect().top >= -1, 'the form scrolled into view', {
        timeout: 10_000,
      });
    } finally {
      await setViewport({ width: 1280, height: 900 });
    }
  });

  it('leaves out the forms when asked', async () => {
    const agent = await relayAgent('with homes on the market', listed);
    const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} agent-id=${agent.id} no-enquiry no-appraisal></estate-agent>`);
    await settled(el);
    expect(shadow(el).querySelector('estate-enquiry')).to.equal(null);
    expect(part(el, 'appraisal-button')).to.equal(null);
    expect(part(el, 'message-button')).to.equal(null);
    expect(shadow(el).querySelector('[part~="contact"]')).to.equal(null);
  });

  it('keeps every line whole on a phone, the portrait beside the name', async () => {
    await setViewport({ width: 390, height: 844 });
    try {
      const agent = await relayAgent('with homes on the market', listed);
      // The demo agency's names are short: the host's copy of a real agent takes a long name and e-mail.
      const long: AgentProfile = {
        ...agent,
        name: 'Alexandra Konstantinopoulou-Fitzgerald',
        position: 'Senior Sales Agent and Auctioneer',
        email: 'alexandra.konstantinopoulou@harbourandyarra.example',
      };
      const el = await fixture<EstateAgent>(html`<estate-agent relay=${RELAY} .agent=${long}></estate-agent>`);
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
      // The portrait is the relay's, and it loads.
      const photo = shadow(el).querySelector<HTMLImageElement>('img[part~="photo"]')!;
      expect(photo.src).to.equal(new URL(agent.photo!.url, `${RELAY}/`).href);
      await waitUntil(() => photo.complete && photo.naturalWidth > 0, 'the portrait loads from the relay', { timeout: 10_000 });
    } finally {
      await setViewport({ width: 1280, height: 900 });
    }
  });
});
