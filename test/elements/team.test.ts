// <estate-team> in Chromium against the runner's real relay (demo mode, embedded simulator): the
// demo agency's team as GET /api/v1/team gives it, portraits from the relay's /photos/. Requests
// are held or failed (people-requests.ts) only for states the shared relay cannot show on demand.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/team/define.ts';
import type { EstateTeam, TeamErrorDetail } from '../../widget/team/team.ts';
import type { Team } from '../../contract/relay-api.ts';
import { json, watchPeopleRequests, type PeopleRequests } from './people-requests.ts';

const shadow = (el: Element) => el.shadowRoot!;
const cards = (el: EstateTeam) => [...shadow(el).querySelectorAll<HTMLElement>('[part~="card"]:not([part~="skeleton"])')];
const text = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const cardLink = (card: HTMLElement) => card.querySelector<HTMLAnchorElement>('[part~="card-link"]')!;

/** The focused element, through shadow roots. */
function deepActive(): Element | null {
  let active = document.activeElement;
  while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
  return active;
}

async function settled(el: EstateTeam): Promise<Team> {
  const loaded = await el.loadComplete;
  await el.updateComplete;
  return loaded;
}

/** The team as the relay answers it now: what the element must show. */
async function relayTeam(): Promise<Team> {
  const response = await fetch(`${RELAY}/api/v1/team`);
  expect(response.status, 'GET /api/v1/team').to.equal(200);
  const team = (await response.json()) as Team;
  expect(team.items.length, 'the demo agency has a team of several').to.be.at.least(2);
  return team;
}

describe('<estate-team>', () => {
  let requests: PeopleRequests | undefined;

  before(async () => {
    await setViewport({ width: 1200, height: 900 });
  });

  afterEach(() => {
    requests?.restore();
    requests = undefined;
  });

  it('is accessible while loading and once loaded', async () => {
    // The relay answers too fast to see the skeleton: the request waits here until let through.
    requests = watchPeopleRequests({ hold: true });
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    expect(shadow(el).querySelectorAll('[part~="skeleton"]').length).to.be.greaterThan(0);
    expect(text(shadow(el).querySelector('[role="status"]'))).to.equal('Loading the team…');
    await expect(el).to.be.accessible();
    requests.release();
    const team = await settled(el);
    expect(cards(el)).to.have.length(team.items.length);
    await expect(el).to.be.accessible();
  });

  it('shows exactly the relay’s people in its order: name, position, homes on the market and a call link where there is a number', async () => {
    const expected = await relayTeam();
    requests = watchPeopleRequests();
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    const team = await settled(el);
    expect(requests.paths).to.deep.equal(['team']);
    expect(team).to.deep.equal(expected);
    expect(cards(el).map((card) => text(card.querySelector('[part~="name"]')))).to.deep.equal(expected.items.map((member) => member.name));
    expect(expected.items.some((member) => member.listingCount > 0)).to.equal(true, 'someone has homes on the market');
    expected.items.forEach((member, index) => {
      const card = cards(el)[index]!;
      expect(text(card.querySelector('[part~="position"]')), member.name).to.equal(member.position ?? '');
      const count = card.querySelector('[part~="listing-count"]');
      // Nothing on the market: no "0 homes" line.
      if (member.listingCount === 0) expect(count, member.name).to.equal(null);
      else expect(text(count), member.name).to.equal(`${member.listingCount} ${member.listingCount === 1 ? 'home' : 'homes'} on the market`);
      const call = card.querySelector<HTMLAnchorElement>('[part~="phone"]');
      if (!member.phone) expect(call, member.name).to.equal(null);
      else {
        expect(call!.getAttribute('href'), member.name).to.equal(`tel:${member.phone.replace(/(?!^\+)\D/g, '')}`);
        expect(text(call), member.name).to.equal(`Call ${member.name}, ${member.phone}`);
      }
      // Headings: level 3 by default, the name the link.
      expect(card.querySelector('h3 [part~="card-link"]'), member.name).to.exist;
    });
    // No e-mail on a card, even one the agency allows: that is for the person's page.
    expect(shadow(el).querySelector('a[href^="mailto:"]')).to.equal(null);
  });

  it('links each card to the relay’s agent page by default, and to the page agent-href names', async () => {
    const { items } = await relayTeam();
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await settled(el);
    expect(cards(el).map((card) => cardLink(card).href)).to.deep.equal(items.map((member) => `${RELAY}/listings/agents/${member.id}/${member.slug}`));
    el.agentHref = '/people/agent.html?id={id}&name={slug}';
    await el.updateComplete;
    const second = items[1]!;
    expect(cardLink(cards(el)[1]!).href).to.equal(new URL(`/people/agent.html?id=${second.id}&name=${second.slug}`, location.href).href);
  });

  it('draws the portraits from the relay’s /photos/ with srcset and sizes', async () => {
    const { items } = await relayTeam();
    expect(items.some((member) => member.photo)).to.equal(true, 'the relay gives portraits');
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await settled(el);
    for (const [index, member] of items.entries()) {
      const card = cards(el)[index]!;
      const img = card.querySelector<HTMLImageElement>('[part~="card-image"]');
      if (!member.photo) {
        expect(img, member.name).to.equal(null);
        expect(card.querySelector('[part~="initials"]'), member.name).to.exist;
        continue;
      }
      expect(img!.src, member.name).to.equal(new URL(member.photo.url, `${RELAY}/`).href);
      expect(img!.src.startsWith(`${RELAY}/photos/`)).to.equal(true, 'portrait URLs resolve against the relay, not the page');
      expect(img!.getAttribute('alt')).to.equal('');
      expect(img!.getAttribute('width')).to.equal(String(member.photo.width));
      expect(img!.getAttribute('fetchpriority')).to.equal(index === 0 ? 'high' : 'auto');
      if (member.photo.variants.some((variant) => variant.format === 'webp')) {
        const source = card.querySelector('source[type="image/webp"]')!;
        expect(source.getAttribute('srcset')).to.contain(`${RELAY}/photos/`);
        expect(source.getAttribute('sizes')).to.contain('50vw');
      }
      img!.scrollIntoView({ block: 'center' });
      await waitUntil(() => img!.complete && img!.naturalWidth > 0, `${member.name}'s portrait loads from the relay`, { timeout: 10000 });
    }
  });

  it('renders a team the host gives at once, without asking the relay, at the heading level asked, initials where there is no photo', async () => {
    const real = await relayTeam();
    // The demo agency's people all have portraits and numbers: the host's copy takes one's away.
    const [first, second] = real.items;
    const given: Team = { ...real, items: [first!, { ...second!, photo: null, phone: null }] };
    requests = watchPeopleRequests();
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY} heading-level="4" .team=${given}></estate-team>`);
    await settled(el);
    expect(requests.paths).to.deep.equal([]);
    expect(cards(el)).to.have.length(2);
    expect(shadow(el).querySelectorAll('h4[part~="name"]')).to.have.length(2);
    const bare = cards(el)[1]!;
    expect(bare.querySelector('[part~="card-image"]')).to.equal(null);
    expect(bare.querySelector('[part~="phone"]')).to.equal(null);
    const initials = bare.querySelector('[part~="initials"]')!;
    // The first and last names' initials ("Mei Lin Chen": "MC").
    const words = second!.name.split(/\s+/).filter(Boolean);
    expect(text(initials)).to.equal([words[0]!, words.at(-1)!].map((word) => word[0]!.toUpperCase()).join(''));
    expect(initials.getAttribute('aria-hidden')).to.equal('true');
    await expect(el).to.be.accessible();
  });

  it('says so when no one is to be shown', async () => {
    // The demo agency always has people: an empty team is the host's.
    const { office } = await relayTeam();
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY} .team=${{ items: [], office }}></estate-team>`);
    await settled(el);
    expect(text(shadow(el).querySelector('[part~="empty"]'))).to.contain('No one to show here yet.');
    await expect(el).to.be.accessible();
  });

  it('says it is waiting while the relay fills its cache (503 filling), then shows the team by itself', async () => {
    // The runner's relay filled its cache before the tests began: the first answer is the one it gave then.
    const expected = await relayTeam();
    requests = watchPeopleRequests({ answerFirst: [json({ state: 'filling', message: 'Filling', retryAfterSeconds: 1 }, 503, { 'Retry-After': '1' })] });
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await waitUntil(() => text(shadow(el).querySelector('[role="status"]')).includes('on its way'), 'the filling message');
    await settled(el);
    expect(requests.paths).to.deep.equal(['team', 'team']);
    expect(cards(el)).to.have.length(expected.items.length);
  });

  it('shows an error with a retry that loads again, and tells the page', async () => {
    const expected = await relayTeam();
    // A failing CRM behind the shared relay would fail every suite's listings: this one answer only.
    requests = watchPeopleRequests({ answerFirst: [json({ error: 'upstream', message: 'CRM down' }, 502)] });
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    const failed = (await oneEvent(el, 'estate-team-error')) as CustomEvent<TeamErrorDetail>;
    expect(failed.detail.status).to.equal(502);
    await el.updateComplete;
    const error = shadow(el).querySelector('[part~="error"]')!;
    expect(error.getAttribute('role')).to.equal('alert');
    expect(text(error)).to.contain('We could not load the team.');
    await expect(el).to.be.accessible();
    const loaded = oneEvent(el, 'estate-team-loaded');
    shadow(el).querySelector<HTMLButtonElement>('[part~="retry-button"]')!.click();
    expect((await loaded).detail.team).to.deep.equal(expected);
    expect(cards(el)).to.have.length(expected.items.length);
  });

  it('tells the page which person was chosen, by keyboard too, and lets it take the navigation over', async () => {
    const { items } = await relayTeam();
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY} agent-href="/agent?id={id}"></estate-team>`);
    await settled(el);
    const chosen: unknown[] = [];
    el.addEventListener('estate-agent-select', (event) => {
      chosen.push(event.detail);
      event.preventDefault();
    });
    const before = location.href;
    const first = cardLink(cards(el)[0]!);
    first.focus();
    expect(deepActive()).to.equal(first);
    // Tab order: the name's link, then the call link (where there is one), then the next card's link.
    const call = cards(el)[0]!.querySelector('[part~="phone"]');
    if (items[0]!.phone) {
      await sendKeys({ press: 'Tab' });
      expect(deepActive()).to.equal(call);
    } else expect(call).to.equal(null);
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(cardLink(cards(el)[1]!));
    await sendKeys({ press: 'Enter' });
    expect(chosen).to.have.length(1);
    expect(chosen[0]).to.deep.include({ id: items[1]!.id, href: `/agent?id=${items[1]!.id}` });
    expect(location.href).to.equal(before);
  });

  it('takes words from strings', async () => {
    const { items } = await relayTeam();
    const el = await fixture<EstateTeam>(
      html`<estate-team relay=${RELAY} strings='{"listingCount":{"one":"{count} listing","other":"{count} listings"}}'></estate-team>`,
    );
    await settled(el);
    const counts = cards(el).map((card) => text(card.querySelector('[part~="listing-count"]')));
    expect(counts).to.deep.equal(items.map(({ listingCount: n }) => (n === 0 ? '' : `${n} ${n === 1 ? 'listing' : 'listings'}`)));
  });

  it('keeps every name and number whole on a phone', async () => {
    await setViewport({ width: 390, height: 844 });
    try {
      const real = await relayTeam();
      // The longest name and position the demo agency has are short: the host adds a long one.
      const long = { ...real.items[0]!, id: 1, name: 'Alexandra Konstantinopoulou-Fitzgerald', position: 'Senior Property Manager and Leasing Consultant' };
      const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY} .team=${{ ...real, items: [long, ...real.items] }}></estate-team>`);
      await settled(el);
      for (const node of shadow(el).querySelectorAll<HTMLElement>('[part~="name"], [part~="position"], [part~="phone"], [part~="listing-count"]')) {
        expect(node.scrollWidth, text(node)).to.be.at.most(node.clientWidth + 1);
        const box = node.getBoundingClientRect();
        const card = node.closest('[part~="card"]')!.getBoundingClientRect();
        expect(box.right, text(node)).to.be.at.most(card.right + 0.5);
      }
      // One person a row, the portrait beside the text, the number on one line.
      const [first, second] = cards(el);
      expect(second!.getBoundingClientRect().top).to.be.at.least(first!.getBoundingClientRect().bottom);
      expect(first!.querySelector('[part~="card-body"]')!.getBoundingClientRect().left).to.be.at.least(
        first!.querySelector('[part~="card-media"]')!.getBoundingClientRect().right,
      );
      for (const phone of shadow(el).querySelectorAll('[part~="phone"]')) expect(phone.getBoundingClientRect().height, text(phone)).to.be.at.most(48);
    } finally {
      await setViewport({ width: 1200, height: 900 });
    }
  });
});
