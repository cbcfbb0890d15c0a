// The built-in languages as a phone (390 px) and a laptop (1280 px) show them (issue 34): the
// listings grid with its filter bar and the enquiry form in every built-in language and the pseudo-locale, their words
// fetched for that language only, axe clean, nothing cut off; right to left in Arabic; a failed
// fetch leaves English with one warning; an English page fetches no words.
import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/listings/define.ts';
import '../../widget/listings/filter-bar.ts';
import '../../widget/enquiry/define.ts';
import '../../widget/team/define.ts';
import '../../widget/lightbox/define.ts';
import '../../widget/appraisal/define.ts';
import { sendKeys } from '@web/test-runner-commands';
import type { EstateLightbox } from '../../widget/lightbox/lightbox.ts';
import { svgPhoto } from './listings-data.ts';
import { overflowing, untranslated } from './i18n-checks.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';
import type { EstateEnquiry } from '../../widget/enquiry/enquiry.ts';
import { registerPseudoLocale } from '../../widget/i18n/pseudo.ts';
import { BASE_LANG, registerSectionLoaders, wordsFor } from '../../widget/shared/translations.ts';
import type { ListingsStrings } from '../../widget/listings/strings.ts';
import type { EnquiryStrings } from '../../widget/enquiry/strings.ts';

const shadow = (el: Element) => el.shadowRoot!;
const text = (node: Element | null | undefined) => node?.textContent?.replace(/\s+/g, ' ').trim() ?? '';
const part = (el: Element, name: string) => shadow(el).querySelector<HTMLElement>(`[part~="${name}"]`);
const parts = (el: Element, name: string) => [...shadow(el).querySelectorAll<HTMLElement>(`[part~="${name}"]`)];
/** The languages' words files this page fetched (the dev server serves them as they are in the source tree). */
const wordsFetched = () =>
  performance
    .getEntriesByType('resource')
    .map((entry) => new URL(entry.name).pathname)
    .filter((path) => /^\/widget\/i18n\/(?!sections\/)[^/]+\//.test(path));
/** A language's words, as the element got them (the same module: the test imports it after the element did). */
async function wordsOf<Words>(code: string, section: string): Promise<Words> {
  return ((await import(/* @vite-ignore */ `../../widget/i18n/${code}/${section}.ts`)) as { default: Words }).default;
}

/**
 * Until the section's words for the language are in the registry (an English or pseudo page: at
 * once). The element shows English after 1.5 s without them, so a busy machine's slow fetch would
 * otherwise read as a missing translation.
 */
async function wordsArrived(section: string, lang: string): Promise<void> {
  const english = JSON.stringify(wordsFor(section, BASE_LANG));
  if (lang.toLowerCase().startsWith('en')) return;
  await waitUntil(() => JSON.stringify(wordsFor(section, lang)) !== english, `the ${lang} words of ${section}`, { timeout: 15000 });
}

async function gridIn(lang: string): Promise<EstateListings> {
  const container = await fixture<HTMLDivElement>(html`<div lang=${lang}><estate-listings relay=${RELAY} filters page-size="4"></estate-listings></div>`);
  const el = container.querySelector<EstateListings>('estate-listings')!;
  await el.loadComplete;
  await waitUntil(
    () => part(el, 'filters') && parts(el, 'card').length > 0 && !el.hasAttribute('data-estate-words-pending'),
    'the grid, its filters and words',
    {
      timeout: 15000,
    },
  );
  await wordsArrived('listings', lang);
  await el.updateComplete;
  return el;
}

/** The appraisal form (a seller's lead) in `lang`, its property types and words arrived. */
async function appraisalIn(lang: string): Promise<HTMLElement> {
  const container = await fixture<HTMLDivElement>(html`<div lang=${lang}><estate-appraisal relay=${RELAY}></estate-appraisal></div>`);
  const form = container.querySelector<HTMLElement>('estate-appraisal')!;
  await waitUntil(
    () => shadow(form).querySelector('select[name="propertyType"] option:nth-child(3)') && !form.hasAttribute('data-estate-words-pending'),
    'the appraisal form',
    { timeout: 15000 },
  );
  await wordsArrived('leads', lang);
  await (form as unknown as { updateComplete: Promise<unknown> }).updateComplete;
  return form;
}

async function formIn(lang: string): Promise<EstateEnquiry> {
  const container = await fixture<HTMLDivElement>(html`<div lang=${lang}><estate-enquiry relay=${RELAY} listing-id="1"></estate-enquiry></div>`);
  const el = container.querySelector<EstateEnquiry>('estate-enquiry')!;
  await waitUntil(() => part(el, 'form') && !el.hasAttribute('data-estate-words-pending'), 'the form and its words', { timeout: 15000 });
  await wordsArrived('enquiry', lang);
  await el.updateComplete;
  return el;
}

describe('languages at 390 px', () => {
  before(() => registerPseudoLocale());
  beforeEach(async () => {
    await setViewport({ width: 390, height: 844 });
  });

  it('an English page fetches no words, and its elements stay left to right', async () => {
    performance.clearResourceTimings();
    const el = await gridIn('en-AU');
    await formIn('en-AU');
    expect(wordsFetched(), 'words fetched by an English page').to.deep.equal([]);
    expect(el.hasAttribute('dir')).to.equal(false);
    expect(text(part(el, 'filters'))).to.contain('Bedrooms');
  });

  // Every built-in language; a region's tag reads its script (zh-CN is Simplified, zh-TW Traditional).
  const cases = [
    { lang: 'ar', code: 'ar', rtl: true },
    { lang: 'zh-CN', code: 'zh-Hans', rtl: false },
    { lang: 'zh-TW', code: 'zh-Hant', rtl: false },
    { lang: 'vi', code: 'vi', rtl: false },
    { lang: 'hi', code: 'hi', rtl: false },
    { lang: 'ko', code: 'ko', rtl: false },
    { lang: 'el', code: 'el', rtl: false },
    { lang: 'it', code: 'it', rtl: false },
    { lang: 'es', code: 'es', rtl: false },
  ];
  for (const width of [390, 1280]) {
    for (const { lang, code, rtl } of cases) {
      it(`at ${width} px shows the grid and the enquiry form in ${lang}, from its own words only, axe clean, nothing cut off`, async () => {
        await setViewport({ width, height: width < 600 ? 844 : 900 });
        performance.clearResourceTimings();
        const el = await gridIn(lang);
        const form = await formIn(lang);
        // Fetched once a page: the wider run finds them here already.
        if (width === 390)
          expect(wordsFetched(), `${code}'s words for the grid and the form, nothing else`).to.have.members([
            `/widget/i18n/${code}/listings.ts`,
            `/widget/i18n/${code}/enquiry.ts`,
          ]);
        else expect(wordsFetched(), 'fetched once a page').to.deep.equal([]);
        const listings = await wordsOf<ListingsStrings>(code, 'listings');
        const enquiry = await wordsOf<EnquiryStrings>(code, 'enquiry');
        await expect(el).to.be.accessible();
        await expect(form).to.be.accessible();
        expect(text(part(el, 'filters'))).to.contain(listings.minBeds);
        expect(part(el, 'filters')!.getAttribute('aria-label')).to.equal(listings.filtersLabel);
        expect(text(shadow(form).querySelector('label[for="fullName"]'))).to.contain(enquiry.labelName);
        expect(text(part(form, 'submit'))).to.equal(enquiry.labelSubmit);
        expect(el.getAttribute('dir') === 'rtl', 'dir').to.equal(rtl);
        expect(overflowing(el, ['filters', 'filter-field', 'card', 'card-body']).concat(overflowing(form, ['form', 'field', 'input']))).to.deep.equal([]);
        // The seller's form too: its property types in the language, axe clean, no field cut short.
        const appraisal = await appraisalIn(lang);
        const leads = await wordsOf<{ propertyTypes: string }>(code, 'leads');
        const types = [...shadow(appraisal).querySelectorAll<HTMLOptionElement>('select[name="propertyType"] option')].filter((option) => option.value);
        expect(types.map((option) => option.textContent?.trim())).to.deep.equal(leads.propertyTypes.split('|'));
        await expect(appraisal).to.be.accessible();
        expect(overflowing(appraisal, ['form', 'field', 'input'])).to.deep.equal([]);
      });
    }
  }

  it('counts and prices in Arabic with Latin digits, Arabic plural forms', async () => {
    const el = await gridIn('ar');
    const arListings = await wordsOf<ListingsStrings>('ar', 'listings');
    const status = text(part(el, 'status'));
    // "{count} عقار" and its kin: a number written 0–9, never ٠–٩.
    expect(status).to.match(/[0-9]/);
    expect(status).not.to.match(/[\u0660-\u0669]/);
    expect(Object.values(arListings.resultCount).some((form) => status.includes(form.replace('{count}', '').trim()))).to.equal(true);
    const prices = [...shadow(el).querySelectorAll('select[name="minPrice"] option')].map((option) => option.textContent ?? '');
    expect(prices.join(' ')).not.to.match(/[\u0660-\u0669]/);
  });

  it('in Arabic the card text starts on the right and the pager arrows point the other way', async () => {
    const el = await gridIn('ar');
    const card = parts(el, 'card')[0]!;
    const title = card.querySelector<HTMLElement>('[part~="card-title"]')!;
    expect(getComputedStyle(title).direction).to.equal('rtl');
    const cardBox = card.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(title);
    const textBox = range.getBoundingClientRect();
    // Right-aligned: the text's right edge is nearer the card's right edge than its left edge to the card's left.
    expect(cardBox.right - textBox.right).to.be.lessThan(textBox.left - cardBox.left + 1);
  });

  it('in Arabic the lightbox mirrors its previous and next: buttons change sides, arrows turn, ArrowLeft shows the next photo; the photo is not mirrored', async () => {
    const container = await fixture<HTMLDivElement>(html`<div lang="ar"><estate-lightbox label="صور"></estate-lightbox></div>`);
    const box = container.querySelector<EstateLightbox>('estate-lightbox')!;
    await box.show([svgPhoto(1), svgPhoto(2), svgPhoto(3)], 0);
    await waitUntil(() => !box.hasAttribute('data-estate-words-pending'), 'its words');
    await box.updateComplete;
    const previous = part(box, 'lightbox-previous')!;
    const next = part(box, 'lightbox-next')!;
    expect(next.getBoundingClientRect().left, 'next on the left').to.be.lessThan(previous.getBoundingClientRect().left);
    const listingWords = await wordsOf<{ next: string; previous: string }>('ar', 'listing');
    expect(next.getAttribute('aria-label')).to.equal(listingWords.next);
    expect(getComputedStyle(next.querySelector('svg')!).transform, 'the arrow turned').to.equal('matrix(-1, 0, 0, 1, 0, 0)');
    expect(getComputedStyle(previous.querySelector('svg')!).transform).to.equal('matrix(-1, 0, 0, 1, 0, 0)');
    const photo = shadow(box).querySelector('[part~="lightbox-image"]');
    expect(photo ? getComputedStyle(photo).transform : 'none', 'the photo as it is').to.equal('none');
    const counter = () => text(part(box, 'lightbox-counter'));
    expect(counter()).to.match(/^1 /);
    await sendKeys({ press: 'ArrowLeft' });
    await waitUntil(() => /^2 /.test(counter()), 'ArrowLeft: the next photo');
    box.close();
  });

  it('the appraisal form in Chinese shows property types in Chinese and sends them in English', async () => {
    const container = await fixture<HTMLDivElement>(html`<div lang="zh-Hans"><estate-appraisal relay=${RELAY}></estate-appraisal></div>`);
    const form = container.querySelector('estate-appraisal')!;
    await waitUntil(
      () => shadow(form).querySelector('select[name="propertyType"] option:nth-child(3)') && !form.hasAttribute('data-estate-words-pending'),
      'the form',
    );
    await wordsArrived('leads', 'zh-Hans');
    await (form as unknown as { updateComplete: Promise<unknown> }).updateComplete;
    const options = [...shadow(form).querySelectorAll<HTMLOptionElement>('select[name="propertyType"] option')].filter((option) => option.value);
    const leads = await wordsOf<{ propertyTypes: string }>('zh-Hans', 'leads');
    expect(options.map((option) => option.textContent?.trim())).to.deep.equal(leads.propertyTypes.split('|'));
    expect(options.map((option) => option.value)).to.deep.equal(['House', 'Apartment', 'Unit', 'Townhouse', 'Land', 'Other']);
  });

  it('in Arabic a field the relay refuses (a real 400) says so in Arabic; the error event keeps the relay’s words', async () => {
    const el = await formIn('ar');
    const words = await wordsOf<EnquiryStrings>('ar', 'enquiry');
    // Both pass the browser's checks; the relay's stricter rules refuse them, in English.
    const values = { fullName: 'Jane\u0007Citizen', email: 'jane@example.c', mobile: '0412 345 678', message: 'متى موعد المعاينة؟' };
    for (const [name, value] of Object.entries(values)) {
      const input = shadow(el).querySelector<HTMLInputElement>(`#${name}`)!;
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    }
    await el.updateComplete;
    const failed = new Promise<CustomEvent<{ status: number; fields: Record<string, string> }>>((resolve) =>
      el.addEventListener('estate-enquiry-error', (event) => resolve(event as CustomEvent<{ status: number; fields: Record<string, string> }>), { once: true }),
    );
    part(el, 'submit')!.click();
    const { detail } = await failed;
    expect(detail.status).to.equal(400);
    expect(Object.keys(detail.fields).sort()).to.deep.equal(['email', 'fullName']);
    await waitUntil(() => text(shadow(el).getElementById('email-error')) !== '', 'the refused fields marked', { timeout: 15000 });
    expect(text(shadow(el).getElementById('email-error'))).to.equal(words.errorEmail);
    expect(text(shadow(el).getElementById('fullName-error'))).to.equal(words.errorRefused);
    expect(detail.fields.fullName, 'the relay’s own words, for the developer').to.match(/Full name/);
    await expect(el).to.be.accessible();
  });

  it('the pseudo-locale shows every word of the grid and the form from the registry, and nothing overflows', async () => {
    const el = await gridIn('en-XA');
    const form = await formIn('en-XA');
    const hardCoded = [...untranslated(el), ...untranslated(form)];
    expect(hardCoded, 'text not from the registry').to.deep.equal([]);
    expect(overflowing(el, ['filters', 'filter-field', 'card', 'card-body']).concat(overflowing(form, ['form', 'field', 'input']))).to.deep.equal([]);
    await expect(form).to.be.accessible();
  });

  it('a failed fetch leaves English, with one warning', async () => {
    registerSectionLoaders('team', { ar: () => Promise.reject(new Error('offline')) });
    const warnings: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args);
    try {
      const container = await fixture<HTMLDivElement>(
        html`<div lang="ar"><estate-team relay="${RELAY}/__nowhere"></estate-team><estate-team></estate-team></div>`,
      );
      const [first] = [...container.querySelectorAll('estate-team')];
      await waitUntil(() => warnings.length > 0 && !first!.hasAttribute('data-estate-words-pending'), 'the warning');
      await first!.updateComplete;
      expect(warnings.length, 'one warning for two elements').to.equal(1);
      expect(String(warnings[0]![0])).to.contain('ar/team');
      await waitUntil(() => /team|Loading|again|office/i.test(text(shadow(first!).firstElementChild)), 'English words');
    } finally {
      console.warn = warn;
    }
  });
});
