import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys, setViewport } from '@web/test-runner-commands';
import { RELAY } from '/__relay.js';
import '../../widget/listings/define.ts';
import type { EstateListings } from '../../widget/listings/listings.ts';

/*
 * The filter bar's suburb combobox (issue #30, widget/listings/suburb-combobox.ts) against the test
 * relay's real suggestions: the WAI-ARIA combobox pattern by keyboard, chips, the live region, axe.
 */
const shadow = (el: Element) => el.shadowRoot!;
const testPageUrl = window.location.href;
const combobox = (el: EstateListings) => shadow(el).querySelector<HTMLInputElement>('input[role="combobox"]');
const options = (el: EstateListings) => [...shadow(el).querySelectorAll<HTMLElement>('[role="option"]')];
const chips = (el: EstateListings) =>
  [...shadow(el).querySelectorAll<HTMLElement>('[part~="suburb-chip"]')].map((chip) => chip.textContent!.replace('×', '').trim());
const status = (el: EstateListings) => shadow(el).querySelector('.field [role="status"]')?.textContent?.trim() ?? '';
const active = (el: EstateListings) => shadow(el).activeElement;

async function barWithCombobox(attributes = ''): Promise<EstateListings> {
  const el = await fixture<EstateListings>(
    html`<estate-listings relay=${RELAY} page-size="3" filters="suburb min-beds" type=${attributes || 'sale'}></estate-listings>`,
  );
  await el.loadComplete;
  await el.updateComplete;
  // The plain field until first used: focusing it fetches the combobox, which takes over the focus.
  shadow(el).querySelector<HTMLInputElement>('#estate-filter-suburb')!.focus();
  await waitUntil(() => combobox(el) && active(el) === combobox(el), 'the combobox took over the field and its focus', { timeout: 5000 });
  return el;
}

async function typeAndWait(el: EstateListings, words: string): Promise<void> {
  await sendKeys({ type: words });
  await waitUntil(() => combobox(el)!.getAttribute('aria-expanded') === 'true' || /No suburb/.test(status(el)), `suggestions for ${words}`, { timeout: 5000 });
}

/** A second suburb the test relay's listings are in (its seed's Hawthorn is the first): by its postcode, and as an address writes it. */
let other: { name: string; postcode: string; state: string };

describe('suburb combobox (filter bar)', () => {
  before(async () => {
    const { items } = (await (await fetch(`${RELAY}/api/v1/suburbs`)).json()) as {
      items: Array<{ name: string; postcode: string | null; state: string | null }>;
    };
    const found = items.find(
      (suburb) => suburb.name !== 'Hawthorn' && suburb.postcode && suburb.state && items.filter((each) => each.postcode === suburb.postcode).length === 1,
    );
    expect(found, 'a suburb with a postcode of its own').to.not.equal(undefined);
    other = found as typeof other;
  });

  beforeEach(async () => {
    await setViewport({ width: 1200, height: 1000 });
    window.history.replaceState(null, '', testPageUrl);
  });
  afterEach(() => window.history.replaceState(null, '', testPageUrl));

  it('is accessible, closed and open, and follows the combobox pattern', async () => {
    const el = await barWithCombobox();
    await expect(el).to.be.accessible();
    const input = combobox(el)!;
    expect(input.getAttribute('aria-autocomplete')).to.equal('list');
    expect(input.getAttribute('aria-expanded')).to.equal('false');
    const list = shadow(el).getElementById(input.getAttribute('aria-controls')!)!;
    expect(list.getAttribute('role')).to.equal('listbox');
    expect(shadow(el).getElementById(input.getAttribute('aria-labelledby')!)!.textContent!.trim()).to.equal('Suburb');
    await typeAndWait(el, 'Hawthorne');
    expect(input.value).to.equal('Hawthorne');
    expect(options(el)[0]!.textContent).to.contain('Hawthorn');
    expect(status(el)).to.match(/suburbs? suggested/);
    await expect(el).to.be.accessible();
  });

  it('moves with the arrows, takes the active suggestion with Enter as a chip, closes with Escape', async () => {
    const el = await barWithCombobox();
    const input = combobox(el)!;
    await typeAndWait(el, 'Hawthorne');
    expect(input.hasAttribute('aria-activedescendant')).to.equal(false);
    await sendKeys({ press: 'ArrowDown' });
    await el.updateComplete;
    const first = options(el)[0]!;
    expect(input.getAttribute('aria-activedescendant')).to.equal(first.id);
    expect(first.getAttribute('aria-selected')).to.equal('true');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chips(el).includes('Hawthorn'), 'Hawthorn chosen');
    expect(input.value).to.equal('');
    expect(input.getAttribute('aria-expanded')).to.equal('false');
    expect(status(el)).to.equal('Hawthorn added');
    expect(active(el)).to.equal(input);

    // A postcode names its suburb; Escape closes the suggestions, a second Escape clears the words.
    await typeAndWait(el, other.postcode);
    expect(options(el)[0]?.textContent).to.contain(other.name);
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    expect(input.getAttribute('aria-expanded')).to.equal('false');
    expect(input.value).to.equal(other.postcode);
    await sendKeys({ press: 'Escape' });
    await el.updateComplete;
    expect(input.value).to.equal('');
    // "Kew, VIC 3101" as an address writes it; ArrowUp from closed takes the last suggestion (the only one).
    await typeAndWait(el, `${other.name}, ${other.state} ${other.postcode}`);
    expect(options(el)).to.have.length(1);
    await sendKeys({ press: 'ArrowUp' });
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chips(el).includes(other.name), `${other.name} chosen`);
    expect(chips(el)).to.deep.equal(['Hawthorn', other.name]);
  });

  it('removes chips with Backspace and with their buttons, by keyboard, announcing each, and searches the chosen suburbs', async () => {
    const el = await barWithCombobox();
    for (const words of ['Hawthorn', other.name]) {
      await typeAndWait(el, words);
      await sendKeys({ press: 'ArrowDown' });
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => chips(el).length && chips(el).at(-1) === words, `${words} chosen`);
    }
    await sendKeys({ press: 'Backspace' });
    await waitUntil(() => chips(el).length === 1, `${other.name} removed`);
    expect(status(el)).to.equal(`${other.name} removed`);
    // Back to the chip's remove button (Shift+Tab from the field), Enter: removed, focus back on the field.
    await sendKeys({ down: 'Shift' });
    await sendKeys({ press: 'Tab' });
    await sendKeys({ up: 'Shift' });
    expect(active(el)!.getAttribute('aria-label')).to.equal('Remove Hawthorn');
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => chips(el).length === 0 && active(el) === combobox(el), 'Hawthorn removed, focus on the field');
    expect(status(el)).to.equal('Hawthorn removed');

    for (const words of [other.name, 'Hawthorn']) {
      await typeAndWait(el, words);
      await sendKeys({ press: 'ArrowDown' });
      await sendKeys({ press: 'Enter' });
      await waitUntil(() => chips(el).at(-1) === words, `${words} chosen`);
    }
    shadow(el).querySelector<HTMLInputElement>('input[name="surrounding"]')!.click();
    shadow(el).querySelector<HTMLButtonElement>('button[type="submit"]')!.click();
    await waitUntil(() => el.query.suburb === `${other.name},Hawthorn`, 'searched the two suburbs');
    expect(el.query.surrounding).to.equal('true');
    const url = new URL(window.location.href);
    expect(url.searchParams.get('suburb')).to.equal(`${other.name},Hawthorn`);
    expect(url.searchParams.get('surrounding')).to.equal('true');
  });

  it('shows the suburbs of a shared link as chips, with surrounding suburbs ticked', async () => {
    const url = new URL(testPageUrl);
    url.searchParams.set('suburb', 'Kew,Hawthorn');
    url.searchParams.set('surrounding', 'true');
    window.history.replaceState(null, '', url.href);
    const el = await fixture<EstateListings>(html`<estate-listings relay=${RELAY} page-size="3" filters="suburb"></estate-listings>`);
    await waitUntil(() => chips(el).length === 2, 'chips from the URL', { timeout: 5000 });
    expect(chips(el)).to.deep.equal(['Kew', 'Hawthorn']);
    expect(shadow(el).querySelector<HTMLInputElement>('input[name="surrounding"]')!.checked).to.equal(true);
    await expect(el).to.be.accessible();
  });
});
