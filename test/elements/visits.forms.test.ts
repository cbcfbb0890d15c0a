import { expect, fixture, html } from '@open-wc/testing';
import { RELAY } from '/__relay.js';
import '../../widget/enquiry/define.ts';
import '../../widget/open-home-registration/define.ts';
import type { EstateEnquiry } from '../../widget/enquiry/enquiry.ts';
import type { EstateOpenHomeRegistration } from '../../widget/open-home-registration/open-home-registration.ts';

// Counting starts with the first thing a page counts (issue #32, docs/visits.md), not with the
// first element: a page of forms alone (a contact page) never starts it, which is why the core
// that such a page downloads carries none of it (bench page-weight, contact). A page of its own
// (this file), so no other test's element has started the counting.

const beacons: Array<Array<{ kind: string; listingId: number }>> = [];
Object.defineProperty(navigator, 'sendBeacon', {
  configurable: true,
  value: (_url: string, body: string) => {
    beacons.push(JSON.parse(body));
    return true;
  },
});
/** widget/open-home-registration's mark of a registration made on this device. */
const REGISTERED_KEY = 'estate-open-home:registered:';
const leave = () => dispatchEvent(new PageTransitionEvent('pagehide'));

describe('visits: started by what is counted', () => {
  it('a page of forms alone counts nothing; an open home added to a calendar starts the counting', async () => {
    const form = await fixture<EstateEnquiry>(html`<estate-enquiry relay=${RELAY} agent-id="1"></estate-enquiry>`);
    await form.updateComplete;
    // An event no element of this page would send: heard only once counting has started.
    document.dispatchEvent(new CustomEvent('estate-listing-view', { detail: { listingId: 7 } }));
    leave();
    expect(beacons, 'no beacon from a page of forms').to.deep.equal([]);

    // This device registered for the open home before: its calendar link shows at once.
    localStorage.setItem(`${REGISTERED_KEY}99001`, '1');
    const registration = await fixture<EstateOpenHomeRegistration>(
      html`<estate-open-home-registration
        relay=${RELAY}
        listing-id="11"
        open-home-id="99001"
        calendar-href="data:text/calendar,BEGIN:VCALENDAR"
      ></estate-open-home-registration>`,
    );
    await registration.updateComplete;
    const calendar = registration.shadowRoot!.querySelector<HTMLAnchorElement>('[part~="calendar-link"]');
    expect(calendar, 'the calendar link').to.exist;
    // The click's download is stopped: the count is what matters here.
    calendar!.addEventListener('click', (event) => event.preventDefault(), { once: true });
    calendar!.click();
    leave();
    expect(beacons).to.deep.equal([[{ kind: 'calendar', listingId: 11 }]]);
    localStorage.removeItem(`${REGISTERED_KEY}99001`);
  });
});
