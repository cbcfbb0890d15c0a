import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { RELAY } from '/__relay.js';
import '../../widget/listings/define.ts';
import '../../widget/listing/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { VisitDetail } from '../../widget/shared/visits.ts';

// Counting without tracking (issue #32, docs/visits.md): the widget's counting module gathers the
// elements' events and sends them with navigator.sendBeacon, against the real relay the runner
// started. The beacons are recorded here (and posted to the relay to check their shape): a
// headless browser is a bot to the relay, which answers 204 and counts nothing.

interface Beacon {
  url: string;
  events: Array<{ kind: string; listingId: number; source?: string }>;
  body: string;
}
const beacons: Beacon[] = [];
// Before any element connects: the module starts with the first one.
Object.defineProperty(navigator, 'sendBeacon', {
  configurable: true,
  value: (url: string, body: string) => {
    beacons.push({ url, body, events: JSON.parse(body) });
    return true;
  },
});

const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;
const leave = () => dispatchEvent(new PageTransitionEvent('pagehide'));

afterEach(() => {
  history.replaceState(null, '', testPageUrl);
  for (const key of Object.keys(localStorage)) if (key.startsWith('estate-shortlist:')) localStorage.removeItem(key);
  sessionStorage.removeItem('estate-embed:campaign');
});

describe('visits: the counting beacon', () => {
  it('sends the cards shown, a detail seen (with its campaign), its photos opened and a home kept as one beacon when the page is left', async () => {
    history.replaceState(null, '', '/buy?utm_source=%20Spring%20Mailout');
    const visits: VisitDetail[] = [];
    document.addEventListener('estate-visit', (event) => visits.push(event.detail));
    const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} type="sale" page-size="2"></estate-listings>`);
    await el.loadComplete;
    await el.updateComplete;
    const link = shadow(el).querySelector<HTMLAnchorElement>('[part~="card-link"]')!;
    const id = Number(link.dataset.id);
    await waitUntil(() => visits.some((visit) => visit.kind === 'card' && visit.listingId === id), 'the first card is counted as shown');

    const heart = shadow(el).querySelector<HTMLButtonElement>('[part~="card"] [part~="keep-button"]')!;
    heart.click();
    const viewed = oneEvent(el, 'estate-listing-view');
    link.click();
    await viewed;
    const inner = shadow(el).querySelector<EstateListing>('estate-listing')!;
    await inner.loadComplete;
    await inner.updateComplete;
    shadow(inner).querySelector<HTMLButtonElement>('[part~="gallery-item"]')!.click();
    await waitUntil(() => visits.some((visit) => visit.kind === 'photos'), 'opening the lightbox is counted');

    expect(beacons, 'nothing is sent before the page is left (or 10 s pass)').to.have.length(0);
    leave();
    expect(beacons).to.have.length(1);
    const [beacon] = beacons;
    expect(beacon!.url).to.equal(`${RELAY.replace(/\/$/, '')}/api/v1/visits`);
    const kinds = beacon!.events.filter((event) => event.listingId === id);
    expect(kinds).to.deep.include({ kind: 'card', listingId: id });
    expect(kinds).to.deep.include({ kind: 'kept', listingId: id });
    // As the page says it: the relay reads it into its sources (test/visits/beacon-source.test.ts).
    expect(kinds).to.deep.include({ kind: 'detail', listingId: id, source: 'utm: Spring Mailout' });
    expect(kinds).to.deep.include({ kind: 'photos', listingId: id });
    expect(
      beacon!.events.filter((event) => event.kind === 'card' && event.listingId === id),
      'a card once per page',
    ).to.have.length(1);

    // The relay takes it as it is (a headless browser is not counted, but a malformed beacon would be 400).
    const answer = await fetch(beacon!.url, { method: 'POST', body: beacon!.body, headers: { 'Content-Type': 'text/plain;charset=UTF-8' } });
    expect(answer.status).to.equal(204);

    leave();
    expect(beacons, 'nothing new: no beacon').to.have.length(1);
  });

  it('names the page kind for a detail without a campaign, a shared link as shared, and sets no cookie and no storage', async () => {
    // Whatever an earlier test left waiting goes first.
    leave();
    localStorage.clear();
    sessionStorage.clear();
    beacons.length = 0;
    history.replaceState(null, '', '/rent');
    document.dispatchEvent(new CustomEvent('estate-listing-view', { detail: { listingId: 7 } }));
    history.replaceState(null, '', '/listing.html?id=8&shared=1');
    document.dispatchEvent(new CustomEvent('estate-listing-view', { detail: { listingId: 8 } }));
    history.replaceState(null, '', '/some/where');
    document.dispatchEvent(new CustomEvent('estate-listing-view', { detail: { listingId: 9 } }));
    document.dispatchEvent(new CustomEvent('estate-listing-view', { detail: { listingId: 0 } }));
    leave();
    expect(beacons.map((beacon) => beacon.events)).to.deep.equal([
      [
        { kind: 'detail', listingId: 7, source: 'page:rent' },
        { kind: 'detail', listingId: 8, source: 'shared' },
        { kind: 'detail', listingId: 9, source: 'page:some' },
      ],
    ]);
    expect(document.cookie).to.equal('');
    expect(localStorage.length).to.equal(0);
    expect(sessionStorage.length).to.equal(0);
  });

  it('sends at most 40 events a beacon, the rest with the next', async () => {
    leave();
    beacons.length = 0;
    for (let id = 1; id <= 45; id += 1) document.dispatchEvent(new CustomEvent('estate-visit', { detail: { kind: 'card', listingId: id } }));
    expect(
      beacons.map((beacon) => beacon.events.length),
      'a full batch goes at once',
    ).to.deep.equal([40]);
    leave();
    expect(beacons.map((beacon) => beacon.events.length)).to.deep.equal([40, 5]);
    expect(beacons.every((beacon) => new Blob([beacon.body]).size < 4096)).to.equal(true);
  });
});
