// The translation registry (widget/shared/translations.ts, typed by localize.ts) as a page sees it: the words follow the
// page's or the element's `lang`, nested elements (the detail in a grid, the enquiry form in a
// detail) follow too, an agency registers a language or changes a few words, `strings` overrides
// one element, and the old shorthand attributes still win.
import { aTimeout, expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import '../../widget/listings/define.ts';
import '../../widget/listing/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { EstateEnquiry } from '../../widget/enquiry/enquiry.ts';
import { registerBuiltInTranslation, registerTranslation, wordsFor } from '../../widget/shared/localize.ts';
import { defaultEnquiryStrings } from '../../widget/enquiry/strings.ts';
import { detail, summary } from './listings-data.ts';

const text = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const shadow = (el: Element) => el.shadowRoot!;
const formOf = (listing: EstateListing) => shadow(listing).querySelector<EstateEnquiry>('estate-enquiry')!;
const labelOf = (form: EstateEnquiry, field: string) => text(shadow(form).querySelector(`label[for="${field}"]`));
const submitOf = (form: EstateEnquiry) => text(shadow(form).querySelector('button[type="submit"]'));

async function listingWithHostData(lang?: string): Promise<EstateListing> {
  const container = await fixture<HTMLDivElement>(html`<div lang=${lang ?? ''}></div>`);
  if (!lang) container.removeAttribute('lang');
  container.innerHTML = '<estate-listing></estate-listing>';
  const el = container.querySelector('estate-listing')!;
  const loaded = oneEvent(el, 'estate-listing-loaded');
  el.listing = detail(3);
  await loaded;
  await formOf(el).updateComplete;
  return el;
}

describe('translation registry', () => {
  const pageLang = document.documentElement.lang;
  afterEach(() => {
    document.documentElement.lang = pageLang;
  });

  it('uses en-AU words by default, and en-GB ones on a page in en-GB, nested form included', async () => {
    const el = await listingWithHostData();
    expect(labelOf(formOf(el), 'mobile')).to.contain('Mobile');
    expect(text(shadow(formOf(el)).querySelector('[id$="mobile-hint"]'))).to.equal('An Australian, New Zealand or UK number');

    document.documentElement.lang = 'en-GB';
    // A change of the page's language re-renders the elements on it, the nested form too.
    await waitUntil(() => labelOf(formOf(el), 'mobile').includes('Mobile number'), 'the form inside the detail follows <html lang>');
    expect(text(shadow(formOf(el)).querySelector('[id$="mobile-hint"]'))).to.equal('A UK, Australian or New Zealand number');
    expect(text(shadow(el).querySelector('[part~="facts"]'))).to.contain('Parking spaces');
  });

  it('translates the detail inside <estate-listings> and the form inside that detail, from one lang on an ancestor', async () => {
    registerTranslation({
      $code: 'fr',
      listings: { backToResults: 'Retour aux résultats', resultCount: { one: '{count} bien', other: '{count} biens' } },
      listing: { enquire: 'Se renseigner sur ce bien', facts: 'Caractéristiques' },
      enquiry: { labelName: 'Nom complet', labelSubmit: 'Envoyer' },
    });
    const container = await fixture<HTMLDivElement>(html`<section lang="fr-CA"></section>`);
    container.innerHTML = '<estate-listings></estate-listings>';
    const grid = container.querySelector<EstateListings>('estate-listings')!;
    grid.listings = [summary(3), summary(4)];
    await grid.loadComplete;
    await grid.updateComplete;
    // fr-CA has no words of its own: those of fr.
    expect(text(shadow(grid).querySelector('[part~="status"]'))).to.equal('2 biens');

    shadow(grid).querySelector<HTMLAnchorElement>('[part~="card-link"]')!.click();
    await waitUntil(() => customElements.get('estate-listing') && shadow(grid).querySelector('estate-listing')?.shadowRoot, 'the detail opens');
    const inPlace = shadow(grid).querySelector<EstateListing>('estate-listing')!;
    expect(text(shadow(grid).querySelector('[part~="back-button"]'))).to.equal('Retour aux résultats');
    inPlace.listing = detail(3);
    await waitUntil(() => formOf(inPlace)?.shadowRoot?.querySelector('form'), 'the detail shows its enquiry form');
    await formOf(inPlace).updateComplete;
    expect(text(shadow(inPlace).querySelector('[part~="facts"]'))).to.contain('Caractéristiques');
    expect(labelOf(formOf(inPlace), 'fullName')).to.equal('Nom complet');
    expect(submitOf(formOf(inPlace))).to.equal('Envoyer');
    // Words fr does not have come from the base language.
    expect(labelOf(formOf(inPlace), 'email')).to.equal('Email');
  });

  it('lets an agency change a few words of a built-in language, and one element its own, the shorthand attribute winning', async () => {
    registerTranslation({ $code: 'en-AU', enquiry: { labelSubmit: 'Ask the agent' } });
    try {
      const el = await listingWithHostData('en-AU');
      expect(submitOf(formOf(el))).to.equal('Ask the agent');
      expect(labelOf(formOf(el), 'fullName')).to.equal('Full name');

      const form = await fixture<EstateEnquiry>(
        html`<estate-enquiry agent-id="7" strings='{"labelName":"Your name","labelEmail":"Your email"}' label-email="Email address"></estate-enquiry>`,
      );
      expect(labelOf(form, 'fullName')).to.equal('Your name');
      expect(labelOf(form, 'email'), 'label-email is a shorthand that wins over strings').to.equal('Email address');
      form.strings = { labelName: 'Name' };
      await form.updateComplete;
      expect(labelOf(form, 'fullName')).to.equal('Name');
      await expect(form).to.be.accessible();
    } finally {
      registerTranslation({ $code: 'en-AU', enquiry: { labelSubmit: 'Send enquiry' } });
    }
  });

  it("follows the element's own lang over the page's", async () => {
    document.documentElement.lang = 'en-GB';
    const form = await fixture<EstateEnquiry>(html`<estate-enquiry agent-id="7" lang="en-NZ"></estate-enquiry>`);
    expect(text(shadow(form).querySelector('[id$="mobile-hint"]'))).to.equal('A New Zealand, Australian or UK number');
    form.setAttribute('lang', 'en-AU');
    await aTimeout(0);
    await form.updateComplete;
    expect(text(shadow(form).querySelector('[id$="mobile-hint"]'))).to.equal('An Australian, New Zealand or UK number');
  });

  it('reads translations the page declares in a JSON script (no JavaScript of its own), and ignores a broken one', async () => {
    const broken = Object.assign(document.createElement('script'), { type: 'application/json', textContent: '{ not json' });
    broken.dataset.estateTranslation = '';
    const declared = Object.assign(document.createElement('script'), {
      type: 'application/json',
      textContent: JSON.stringify([{ $code: 'de', enquiry: { labelName: 'Vollständiger Name' } }]),
    });
    declared.dataset.estateTranslation = '';
    document.head.append(broken, declared);
    const errors: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const form = await fixture<EstateEnquiry>(html`<estate-enquiry agent-id="7" lang="de"></estate-enquiry>`);
      expect(labelOf(form, 'fullName')).to.equal('Vollständiger Name');
      expect(String(errors[0])).to.contain('data-estate-translation');
    } finally {
      console.error = consoleError;
      broken.remove();
      declared.remove();
    }
  });

  it("keeps an agency's words when an element's built-in words are registered after them (a module run late, or twice)", async () => {
    registerTranslation({ $code: 'en-AU', enquiry: { labelSubmit: 'Ask the agent' } });
    try {
      // What the enquiry form's strings module does when it runs (again).
      registerBuiltInTranslation({ $code: 'en-AU', enquiry: defaultEnquiryStrings });
      expect(wordsFor('enquiry', 'en-AU').labelSubmit).to.equal('Ask the agent');
      expect(wordsFor('enquiry', 'en-AU').labelName).to.equal('Full name');
      const form = await fixture<EstateEnquiry>(html`<estate-enquiry agent-id="7"></estate-enquiry>`);
      expect(submitOf(form)).to.equal('Ask the agent');
    } finally {
      registerTranslation({ $code: 'en-AU', enquiry: { labelSubmit: 'Send enquiry' } });
    }
  });
});
