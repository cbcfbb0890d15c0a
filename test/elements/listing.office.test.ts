// <estate-listing> when every agent of the listing has left the agency (issue #31): the agents'
// section names the office instead, with its number to call, so a buyer still has someone to ask.
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import '../../widget/listing/define.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { detail } from './listings-data.ts';

const text = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';

async function shown(listing: ListingDetail): Promise<EstateListing> {
  const el = await fixture<EstateListing>(html`<estate-listing relay="/" no-json-ld></estate-listing>`);
  const loaded = oneEvent(el, 'estate-listing-loaded');
  el.listing = listing;
  await loaded;
  return el;
}

const agentsSection = (el: EstateListing) => el.shadowRoot!.querySelector('section[part~="agents"]');

describe('<estate-listing> whose agents have all left', () => {
  it('names the office with a call link in the agents’ place, accessibly', async () => {
    const el = await shown({ ...detail(11, { agents: [] }), office: { name: 'Harbour & Yarra Property', phone: '(03) 9555 0100' } });
    const section = agentsSection(el)!;
    expect(text(section.querySelector('[part~="section-title"]'))).to.equal('Contact the agency');
    expect(section.querySelector('[part~="agent"]:not([part~="office"])')).to.equal(null);
    expect(text(section.querySelector('[part~="office-name"]'))).to.equal('Harbour & Yarra Property');
    const call = section.querySelector<HTMLAnchorElement>('[part~="office-phone"]')!;
    expect(call.getAttribute('href')).to.equal('tel:0395550100');
    expect(text(call)).to.equal('Call Harbour & Yarra Property, (03) 9555 0100');
    await expect(el).to.be.accessible();
  });

  it('says "Our office" when the agency set no name, and leaves the call link out without a number', async () => {
    const el = await shown({ ...detail(12, { agents: [] }), office: { name: null, phone: null } });
    expect(agentsSection(el)).to.equal(null);
    el.listing = { ...detail(12, { agents: [] }), office: { name: null, phone: '03 9555 0100' } };
    await el.updateComplete;
    expect(text(agentsSection(el)!.querySelector('[part~="office-name"]'))).to.equal('Our office');
    el.listing = { ...detail(12, { agents: [] }), office: { name: 'Harbour & Yarra', phone: null } };
    await el.updateComplete;
    expect(agentsSection(el)!.querySelector('[part~="office-phone"]')).to.equal(null);
  });

  it('shows the agents, not the office, while the listing has any', async () => {
    const el = await shown({ ...detail(13), office: { name: 'Harbour & Yarra Property', phone: '(03) 9555 0100' } });
    const section = agentsSection(el)!;
    expect(text(section.querySelector('[part~="section-title"]'))).to.equal('Contact the agent');
    expect(section.querySelector('[part~="office"]')).to.equal(null);
    expect(text(section.querySelector('[part~="agent-name"]'))).to.equal('Jane Citizen');
  });
});
