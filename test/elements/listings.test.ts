import { expect, fixture, html } from '@open-wc/testing';
import '../../widget/listings/listings.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import { summary } from './listings-data.ts';

describe('<estate-listings> smoke', () => {
  it('renders host data', async () => {
    const el = await fixture<EstateListings>(html`<estate-listings .listings=${[summary(1), summary(2, { badge: 'sold' })]}></estate-listings>`);
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 50));
    console.log(el.shadowRoot!.innerHTML.length);
    await expect(el).to.be.accessible();
  });
});
