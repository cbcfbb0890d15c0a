/**
 * The filter bar of `<estate-listings filters>`: its own module, fetched only for an element that
 * has one, so the home page's grid and the server-rendered lists (no bar) do not download it. It
 * hands its template to the element as it runs (filter-bar-slot.ts). widget.js fetches it with the
 * element's code when the page's tag has `filters` (define-with-filter-bar.ts); the element fetches
 * it itself when a bar is set later, or from a bundler.
 */
import { html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import { priceSteps } from '../../contract/price-bands.ts';
import { fill, formatMoney, formatNumber, resolveCurrency } from '../shared/format.ts';
import { SORTS, type BarFilter, type QueryKey } from './query.ts';
import { provideFilterBar, type FilterBarHost } from './filter-bar-slot.ts';
import { loadElement } from '../shared/load-element.ts';
import { relayBase } from '../shared/relay.ts';
import { alertOptions } from '../shared/alert-options.ts';
import './filter-bar.strings.ts';
// The drawn-area rule comes with the bar: every page with a bar has it at once.
import './area-rule.ts';

const DEFAULT_PROPERTY_TYPES = ['House', 'Apartment', 'Unit', 'Townhouse', 'Villa', 'Land'];
/** Land size choices (square metres): a courtyard home to a small acreage. */
const LAND_STEPS = [200, 400, 600, 800, 1000, 2000, 4000, 10_000, 40_000];

type Combobox = typeof import('./suburb-combobox.ts');
/** The suburb combobox's code once loaded (suburb-combobox.ts): fetched when the suburb field is first pointed at or focused, or at once when the query names suburbs. */
let combobox: Combobox | undefined;
let comboboxLoad: Promise<Combobox> | undefined;

/** Loads the combobox, then renders the bar again with it; `from` (the plain field, if focused) hands over its words and focus. */
function loadCombobox(host: FilterBarHost, from?: HTMLInputElement): void {
  // A part of the bar (vite.config.ts PART_ENTRIES): under widget.js the loader fetches it, integrity checked.
  comboboxLoad ??= loadElement('estate-suburb-combobox', () => import('./suburb-combobox.ts')) as Promise<Combobox>;
  comboboxLoad.then(
    (module) => {
      combobox = module;
      if (from) module.handOver(host, from);
      host.refresh();
    },
    // Without it the plain field stays: free text, several suburbs separated by commas.
    (error: unknown) => console.error(error),
  );
}

/** Whether each relay offers alerts, once it has answered (by its base URL). */
const alertsAnswered = new Map<string, boolean>();
/** The bars waiting for a relay's answer, to render again when it comes. */
const alertsWaiting = new Map<string, Set<() => void>>();

/**
 * Shows "Get alerts for this search" unless the relay says it does not offer alerts: asked once
 * per relay per page (options.ts), after the element's first listings are shown; until then, and
 * when it cannot be asked, the button stays (the form itself tells for certain).
 */
function alertsShown(host: FilterBarHost): boolean {
  const key = relayBase(host.relay);
  const answered = alertsAnswered.get(key);
  if (answered !== undefined || !host.listed) return answered ?? true;
  let waiting = alertsWaiting.get(key);
  if (!waiting) {
    const bars = (waiting = new Set());
    alertsWaiting.set(key, bars);
    void alertOptions(host.relay).then((options) => {
      alertsAnswered.set(key, options?.offered !== false);
      alertsWaiting.delete(key);
      for (const refresh of bars) refresh();
    });
  }
  waiting.add(host.refresh);
  return true;
}

function renderFilterBar(host: FilterBarHost): TemplateResult {
  const { text, locale, query, barFilters } = host;
  const currency = resolveCurrency(locale, host.currency);
  const id = (name: string) => `estate-filter-${name}`;
  // The sort's words ("Price (high to low)") are longer than a column: its field takes two.
  const select = (name: BarFilter, label: string, options: Array<[string, string]>, current: string) =>
    html`<div part="filter-field" class=${name === 'sort' ? 'field wide' : 'field'}>
      <label part="filter-label" for=${id(name)}>${label}</label>
      <select part="filter-control" id=${id(name)} name=${name} .value=${current}>
        ${options.map(([value, optionLabel]) => html`<option value=${value} ?selected=${value === current}>${optionLabel}</option>`)}
      </select>
    </div>`;
  const lease = query.type === 'lease';
  // The relay's band grid: a withheld price is found by exactly these steps.
  const prices = priceSteps(lease ? 'lease' : 'sale').map((value): [string, string] => {
    const money = formatMoney(locale, currency, value);
    return [String(value), lease ? fill(text.perWeek, { price: money }) : money];
  });
  const counts = (max: number): Array<[string, string]> => [
    ['', text.any],
    ...Array.from({ length: max }, (_unused, index): [string, string] => [String(index + 1), fill(text.atLeast, { count: formatNumber(locale, index + 1) })]),
  ];
  const types = (host.propertyTypes ? host.propertyTypes.split(',') : DEFAULT_PROPERTY_TYPES).map((name) => name.trim()).filter(Boolean);
  const value = (name: QueryKey) => (query[name] === undefined ? '' : String(query[name]));

  const fields: Record<BarFilter, () => TemplateResult> = {
    type: () =>
      select(
        'type',
        text.type,
        [
          ['', text.any],
          ['sale', text.typeSale],
          ['lease', text.typeLease],
        ],
        value('type'),
      ),
    suburb: () => {
      if (combobox) return combobox.renderSuburbField(host, id('suburb'));
      if (query.suburb) loadCombobox(host);
      const enhance = (event: Event) => loadCombobox(host, event.target as HTMLInputElement);
      return html`<div part="filter-field" class="field wide">
        <label part="filter-label" for=${id('suburb')}>${text.suburb}</label>
        <input
          part="filter-control"
          id=${id('suburb')}
          name="suburb"
          type="text"
          autocomplete="off"
          .value=${value('suburb')}
          @pointerenter=${enhance}
          @focus=${enhance}
        />
      </div>`;
    },
    minLand: () =>
      select(
        'minLand',
        text.minLand,
        [['', text.any], ...LAND_STEPS.map((area): [string, string] => [String(area), fill(text.landAtLeast, { area: `${formatNumber(locale, area)} m²` })])],
        value('minLand'),
      ),
    keywords: () =>
      html`<div part="filter-field" class="field">
        <label part="filter-label" for=${id('keywords')}>${text.keywords}</label>
        <input part="filter-control" id=${id('keywords')} name="keywords" type="search" enterkeyhint="search" .value=${value('keywords')} />
      </div>`,
    propertyType: () =>
      select('propertyType', text.propertyType, [['', text.any], ...types.map((name): [string, string] => [name, name])], value('propertyType')),
    minPrice: () => select('minPrice', text.minPrice, [['', text.any], ...prices], value('minPrice')),
    maxPrice: () => select('maxPrice', text.maxPrice, [['', text.any], ...prices], value('maxPrice')),
    minBeds: () => select('minBeds', text.minBeds, counts(5), value('minBeds')),
    minBaths: () => select('minBaths', text.minBaths, counts(4), value('minBaths')),
    minCars: () => select('minCars', text.minCars, counts(4), value('minCars')),
    sort: () =>
      select(
        'sort',
        text.sort,
        SORTS.map((sort): [string, string] => [sort, text.sortOptions[sort]]),
        value('sort') || 'newest',
      ),
  };
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.target as HTMLFormElement);
    const values: Partial<Record<QueryKey, unknown>> = Object.fromEntries(barFilters.map((name) => [name, data.get(name) ?? undefined]));
    // The suburb field's own checkbox (the combobox's): kept as it was while the plain field shows.
    if (barFilters.includes('suburb')) values.surrounding = combobox ? (data.get('surrounding') ?? undefined) : query.surrounding;
    host.applyFilters(values);
  };
  const toggleAlerts = () => {
    host.toggleAlerts();
    // The form's code, on the first open.
    loadElement('estate-saved-search', () => import('../saved-search/define.ts')).catch((error: unknown) => console.error(error));
  };
  return html`<form part="filters" class="filters" role="search" aria-label=${text.filtersLabel} @submit=${submit}>
      <div class="fields">${barFilters.map((name) => fields[name]())}</div>
      <div part="filter-actions" class="actions">
        <button type="submit" part="button button-primary" class="primary">${text.search}</button>
        <button type="button" part="button" class="secondary" @click=${host.resetFilters}>${text.reset}</button>
        ${
          alertsShown(host)
            ? html`<button type="button" part="button alerts-button" aria-expanded=${host.alertsOpen} aria-controls="alerts" @click=${toggleAlerts}>
                ${text.getAlerts}
              </button>`
            : nothing
        }
      </div>
    </form>
    ${
      host.alertsOpen
        ? html`<estate-saved-search
            id="alerts"
            part="alerts"
            relay=${ifDefined(host.relay ?? undefined)}
            consent-text=${ifDefined(host.alertsConsentText)}
            locale=${locale}
            currency=${ifDefined(host.currency ?? undefined)}
            .search=${query}
          ></estate-saved-search>`
        : nothing
    }`;
}

provideFilterBar(renderFilterBar);
