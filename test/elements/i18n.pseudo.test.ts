// Every element in the pseudo-locale (en-XA: accented, 40 % longer) at 390 and 1280 px (issue 34): each
// visible word, accessible name, placeholder and title comes from the translation registry (a word
// written into a template shows unaccented and fails), and the words' growth breaks no box.
import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { TemplateResult } from 'lit';
import { RELAY } from '/__relay.js';
import '../../widget/listing/define.ts';
import '../../widget/listings/define.ts';
import '../../widget/listings/filter-bar.ts';
import '../../widget/team/define.ts';
import '../../widget/agent/define.ts';
import '../../widget/shortlist/define.ts';
import '../../widget/map/define.ts';
import '../../widget/appraisal/define.ts';
import '../../widget/inspection-request/define.ts';
import '../../widget/saved-search/define.ts';
import type { EstateListing } from '../../widget/listing/listing.ts';
import type { ListingSummary, Page, Team } from '../../contract/relay-api.ts';
import { registerPseudoLocale } from '../../widget/i18n/pseudo.ts';
import { detail } from './listings-data.ts';
import { overflowing, untranslated } from './i18n-checks.ts';

const shadow = (el: Element) => el.shadowRoot!;

async function inPseudo<T extends Element>(template: TemplateResult, tag: string, ready: (el: T) => boolean): Promise<T> {
  const container = await fixture<HTMLDivElement>(html`<div lang="en-XA" style="width: 390px">${template}</div>`);
  const el = container.querySelector<T>(tag)!;
  await waitUntil(() => ready(el), `${tag} rendered`, { timeout: 15000 });
  await (el as unknown as { updateComplete: Promise<unknown> }).updateComplete;
  return el;
}

const has = (el: Element, selector: string) => !!shadow(el)?.querySelector(selector);

describe('every element in the pseudo-locale at 390 and 1280 px', () => {
  // (Similar homes draw the grid's cards, which i18n.test.ts checks: their relay answer waits for the geocoder.)
  let firstListing: ListingSummary;
  let agentId: number;
  before(async () => {
    registerPseudoLocale();
    firstListing = ((await (await fetch(`${RELAY}/api/v1/listings?type=sale&pageSize=1`)).json()) as Page<ListingSummary>).items[0]!;
    agentId = ((await (await fetch(`${RELAY}/api/v1/team`)).json()) as Team).items[0]!.id;
  });
  beforeEach(async () => {
    await setViewport({ width: 390, height: 844 });
  });

  const cases: Array<{ name: string; make: () => Promise<Element>; boxes: string[] }> = [
    {
      name: '<estate-listing> (with its enquiry form)',
      make: async () => {
        const container = await fixture<HTMLDivElement>(html`<div lang="en-XA"><estate-listing></estate-listing></div>`);
        const el = container.querySelector<EstateListing>('estate-listing')!;
        const loaded = oneEvent(el, 'estate-listing-loaded');
        el.listing = detail(3);
        await loaded;
        await el.updateComplete;
        await shadow(el).querySelector<EstateListing>('estate-enquiry')?.updateComplete;
        return el;
      },
      boxes: ['header', 'facts', 'features'],
    },
    {
      name: '<estate-team>',
      make: () => inPseudo(html`<estate-team relay=${RELAY}></estate-team>`, 'estate-team', (el) => has(el, '[part~="name"]')),
      boxes: ['member', 'card'],
    },
    {
      name: '<estate-agent>',
      make: () => inPseudo(html`<estate-agent relay=${RELAY} agent-id=${agentId}></estate-agent>`, 'estate-agent', (el) => has(el, '[part~="name"]')),
      boxes: ['header'],
    },
    {
      name: '<estate-shortlist> (empty)',
      make: () => inPseudo(html`<estate-shortlist relay=${RELAY}></estate-shortlist>`, 'estate-shortlist', (el) => has(el, '[part~="status"]')),
      boxes: [],
    },
    {
      name: '<estate-map>',
      make: () =>
        inPseudo(html`<estate-map relay=${RELAY} style="height: 500px"></estate-map>`, 'estate-map', (el) => has(el, '[part~="stage"]') && has(el, 'button')),
      boxes: [],
    },
    {
      name: '<estate-appraisal>',
      make: () =>
        inPseudo(html`<estate-appraisal relay=${RELAY}></estate-appraisal>`, 'estate-appraisal', (el) =>
          has(el, 'select[name="propertyType"] option:nth-child(3)'),
        ),
      boxes: ['form', 'field', 'input'],
    },
    {
      name: '<estate-inspection-request>',
      make: () =>
        inPseudo(
          html`<estate-inspection-request relay=${RELAY} listing-id=${firstListing.id}></estate-inspection-request>`,
          'estate-inspection-request',
          (el) => has(el, '[part~="form"]'),
        ),
      boxes: ['form', 'field', 'input'],
    },
    {
      name: '<estate-saved-search>',
      make: () => inPseudo(html`<estate-saved-search relay=${RELAY}></estate-saved-search>`, 'estate-saved-search', (el) => has(el, '[part~="form"]')),
      boxes: ['form', 'field', 'input'],
    },
  ];

  for (const width of [390, 1280]) {
    for (const { name, make, boxes } of cases) {
      it(`${name} at ${width} px: every word from the registry, nothing overflowing`, async () => {
        await setViewport({ width, height: width < 600 ? 844 : 900 });
        const el = await make();
        expect(untranslated(el), 'text not from the registry').to.deep.equal([]);
        expect(overflowing(el, boxes)).to.deep.equal([]);
      });
    }
  }
});
