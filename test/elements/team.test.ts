// <estate-team> in Chromium: the relay's people routes answered per test (people-data.ts), photos
// from the real relay's mirror where a test needs a real one.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/team/define.ts';
import type { EstateTeam, TeamErrorDetail } from '../../widget/team/team.ts';
import type { ListingSummary, Page, Team } from '../../contract/relay-api.ts';
import { defaultMembers, json, member, stubPeople, team } from './people-data.ts';

const shadow = (el: Element) => el.shadowRoot!;
const cards = (el: EstateTeam) => [...shadow(el).querySelectorAll<HTMLElement>('[part~="card"]:not([part~="skeleton"])')];
const text = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

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

describe('<estate-team>', () => {
  let stub: ReturnType<typeof stubPeople> | undefined;

  before(async () => {
    await setViewport({ width: 1200, height: 900 });
  });

  afterEach(() => {
    stub?.restore();
    stub = undefined;
  });

  it('is accessible while loading and once loaded', async () => {
    let answer!: (response: Response) => void;
    stub = stubPeople(() => new Promise<Response>((resolve) => (answer = resolve)));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    expect(shadow(el).querySelectorAll('[part~="skeleton"]').length).to.be.greaterThan(0);
    expect(text(shadow(el).querySelector('[role="status"]'))).to.equal('Loading the team…');
    await expect(el).to.be.accessible();
    answer(json(team()));
    await settled(el);
    expect(cards(el)).to.have.length(3);
    await expect(el).to.be.accessible();
  });

  it('shows each person in the order the relay gives: name, position, homes on the market and a call link when there is a number', async () => {
    stub = stubPeople(() => json(team()));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await settled(el);
    expect(stub.requests).to.deep.equal(['team']);
    const [sarah, tom, priya] = cards(el);
    expect(cards(el).map((card) => text(card.querySelector('[part~="name"]')))).to.deep.equal(['Sarah Nguyen', 'Tom Okafor', 'Priya Raman']);
    expect(text(sarah!.querySelector('[part~="position"]'))).to.equal('Director');
    expect(text(sarah!.querySelector('[part~="listing-count"]'))).to.equal('5 homes on the market');
    expect(text(tom!.querySelector('[part~="listing-count"]'))).to.equal('1 home on the market');
    // Nothing on the market: no "0 homes" line.
    expect(priya!.querySelector('[part~="listing-count"]')).to.equal(null);
    const call = sarah!.querySelector<HTMLAnchorElement>('[part~="phone"]')!;
    expect(call.getAttribute('href')).to.equal('tel:0395550121');
    expect(text(call)).to.equal('Call Sarah Nguyen, (03) 9555 0121');
    expect(priya!.querySelector('[part~="phone"]')).to.equal(null);
    // No e-mail on a card, even one the agency allows: that is for the person's page.
    expect(shadow(el).querySelector('a[href^="mailto:"]')).to.equal(null);
    // Headings: level 3 by default, the name the link.
    expect(sarah!.querySelector('h3 [part~="card-link"]')).to.exist;
  });

  it('links each card to the relay’s agent page by default, and to the page agent-href names', async () => {
    stub = stubPeople(() => json(team()));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await settled(el);
    const link = (card: HTMLElement) => card.querySelector<HTMLAnchorElement>('[part~="card-link"]')!.href;
    expect(link(cards(el)[0]!)).to.equal(`${RELAY}/listings/agents/21/sarah-nguyen`);
    el.agentHref = '/people/agent.html?id={id}&name={slug}';
    await el.updateComplete;
    expect(link(cards(el)[1]!)).to.equal(new URL('/people/agent.html?id=22&name=tom-okafor', location.href).href);
  });

  it('draws portraits from the relay’s mirror with srcset and sizes, and initials where there is no photo', async () => {
    // A real mirrored photo (relay-relative URLs), as the relay gives an agent's.
    const listings: Page<ListingSummary> = await (await fetch(`${RELAY}/api/v1/listings?pageSize=1`)).json();
    const photo = listings.items[0]!.photo!;
    expect(photo, 'a listing photo from the relay').to.exist;
    stub = stubPeople(() => json(team([member(31, 'Ada Lovelace', { photo }), member(32, 'Grace Hopper', { photo: null })])));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await settled(el);
    const img = cards(el)[0]!.querySelector<HTMLImageElement>('[part~="card-image"]')!;
    expect(img.src.startsWith(RELAY)).to.equal(true, 'portrait URLs resolve against the relay, not the page');
    expect(img.getAttribute('alt')).to.equal('');
    expect(img.getAttribute('fetchpriority')).to.equal('high');
    expect(img.getAttribute('width')).to.equal(String(photo.width));
    const source = cards(el)[0]!.querySelector('source[type="image/webp"]');
    if (photo.variants.some((variant) => variant.format === 'webp')) {
      expect(source!.getAttribute('srcset')).to.contain(RELAY);
      expect(source!.getAttribute('sizes')).to.contain('50vw');
    }
    await waitUntil(() => img.complete && img.naturalWidth > 0, 'the mirrored photo loads from the relay');
    const initials = cards(el)[1]!.querySelector('[part~="initials"]')!;
    expect(text(initials)).to.equal('GH');
    expect(initials.getAttribute('aria-hidden')).to.equal('true');
  });

  it('renders a team the host gives at once, without asking the relay, at the heading level asked', async () => {
    stub = stubPeople(() => json(team()));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY} heading-level="4" .team=${team(defaultMembers().slice(0, 2))}></estate-team>`);
    await settled(el);
    expect(stub.requests).to.deep.equal([]);
    expect(cards(el)).to.have.length(2);
    expect(shadow(el).querySelectorAll('h4[part~="name"]')).to.have.length(2);
  });

  it('says so when no one is to be shown', async () => {
    stub = stubPeople(() => json(team([])));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await settled(el);
    expect(text(shadow(el).querySelector('[part~="empty"]'))).to.contain('No one to show here yet.');
    await expect(el).to.be.accessible();
  });

  it('says it is waiting while the relay fills its cache (503 filling), then shows the team by itself', async () => {
    let calls = 0;
    stub = stubPeople(() => (++calls === 1 ? json({ state: 'filling', message: 'Filling', retryAfterSeconds: 1 }, 503, { 'Retry-After': '1' }) : json(team())));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
    await waitUntil(() => text(shadow(el).querySelector('[role="status"]')).includes('on its way'), 'the filling message');
    await settled(el);
    expect(calls).to.equal(2);
    expect(cards(el)).to.have.length(3);
  });

  it('shows an error with a retry that loads again, and tells the page', async () => {
    let calls = 0;
    stub = stubPeople(() => (++calls === 1 ? json({ error: 'upstream', message: 'CRM down' }, 502) : json(team())));
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
    expect((await loaded).detail.team.items).to.have.length(3);
    expect(cards(el)).to.have.length(3);
  });

  it('tells the page which person was chosen, by keyboard too, and lets it take the navigation over', async () => {
    stub = stubPeople(() => json(team()));
    const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY} agent-href="/agent?id={id}"></estate-team>`);
    await settled(el);
    const chosen: unknown[] = [];
    el.addEventListener('estate-agent-select', (event) => {
      chosen.push(event.detail);
      event.preventDefault();
    });
    const before = location.href;
    const first = cards(el)[0]!.querySelector<HTMLAnchorElement>('[part~="card-link"]')!;
    first.focus();
    expect(deepActive()).to.equal(first);
    // Tab order: the name's link, then the call link, then the next card's link.
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(cards(el)[0]!.querySelector('[part~="phone"]'));
    await sendKeys({ press: 'Tab' });
    expect(deepActive()).to.equal(cards(el)[1]!.querySelector('[part~="card-link"]'));
    await sendKeys({ press: 'Enter' });
    expect(chosen).to.have.length(1);
    expect(chosen[0]).to.deep.include({ id: 22, href: '/agent?id=22' });
    expect(location.href).to.equal(before);
  });

  it('takes words from strings', async () => {
    stub = stubPeople(() => json(team()));
    const el = await fixture<EstateTeam>(
      html`<estate-team relay=${RELAY} strings='{"listingCount":{"one":"{count} listing","other":"{count} listings"}}'></estate-team>`,
    );
    await settled(el);
    expect(text(cards(el)[0]!.querySelector('[part~="listing-count"]'))).to.equal('5 listings');
  });

  it('keeps every name and number whole on a phone', async () => {
    await setViewport({ width: 390, height: 844 });
    try {
      stub = stubPeople(() =>
        json(team([member(41, 'Alexandra Konstantinopoulou-Fitzgerald', { position: 'Senior Property Manager and Leasing Consultant' }), ...defaultMembers()])),
      );
      const el = await fixture<EstateTeam>(html`<estate-team relay=${RELAY}></estate-team>`);
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
