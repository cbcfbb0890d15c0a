import { css, html, type PropertyDeclarations } from 'lit';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import { SAVED_SEARCH_FILTER_NAMES, type SavedSearchFilters, type SavedSearchRequest } from '../../contract/saved-search.ts';
import type { LeadContactFields } from '../enquiry/enquiry.ts';
import { LeadForm } from '../lead-form/lead-form.ts';
import type { LeadType } from '../shared/analytics.ts';
import type { Sections } from '../shared/localize.ts';
import { LocalizeController } from '../shared/translations.ts';
import { type SavedSearchStrings } from './strings.ts';
import './strings.ts';

const FIELDS = ['fullName', 'email', 'mobile', 'consent'] as const;

/** The kept filters of a query (unset, empty and unkept ones left out), as `POST /api/v1/saved-searches` takes them. */
export function keptFilters(query: Record<string, unknown> | null | undefined): SavedSearchFilters {
  const kept: Record<string, unknown> = {};
  for (const name of SAVED_SEARCH_FILTER_NAMES) {
    const value = query?.[name];
    if (value !== undefined && value !== null && value !== '') kept[name] = value;
  }
  return kept as SavedSearchFilters;
}

/**
 * "Get alerts for this search": a visitor leaves a name, an e-mail address, optionally a mobile,
 * and their consent, and the relay saves the search (`search`: the list's filters) with the agency's
 * CRM as a contact with a buying or renting requirement, which agents match new listings against.
 * `<estate-listings>` renders it under its filter bar when the visitor asks (its code is fetched
 * then); a page may also place it itself with a `search`.
 *
 * Sending, keeping and retrying are the enquiry form's: the submission keeps its `originalId` across
 * retries and reloads until the relay has it (one kept submission per page origin), so it is saved
 * once.
 *
 * @summary "Get alerts for this search" form: the search goes to the agency's CRM exactly once.
 *
 * @attr {string} relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr {string} search - JSON object of the listing filters to follow (`type`, `suburb`, `minPrice`, `maxPrice`, `minBeds`, `minBaths`, `minCars`, `propertyType`; others are ignored). `<estate-listings>` sets it to its current filters.
 * @attr {string} consent-text - Label of the consent box (always shown and required: alerts are e-mail the visitor asks for). Default: the words' `consent`.
 * @attr {boolean} require-phone - Makes the mobile number required.
 * @attr {string} heading - Heading of the form. Default "Get alerts for this search".
 * @attr {number} heading-level - Level of the heading for the page's outline (1-6, default 2).
 * @attr {string} locale - BCP 47 locale for prices in the search's summary (default en-AU).
 * @attr {string} currency - ISO 4217 code for those prices. Default: the locale's.
 * @attr {string} analytics - `datalayer`: also push its analytics event to `window.dataLayer` as GA4's `generate_lead`. Default: the page's `<meta name="estate-analytics">`.
 * @attr {string} strings - JSON object of words to override: the enquiry form's (EnquiryStrings) and this form's (SavedSearchStrings).
 *
 * @slot heading - Replaces the heading text.
 * @slot consent - Replaces the consent box's label (e.g. to link a privacy policy).
 * @slot success - Replaces the success message.
 *
 * @csspart form - The form.
 * @csspart heading - The heading.
 * @csspart summary - The search in words.
 * @csspart field - Each field's wrapper; also `field-name`, `field-email`, `field-mobile`, `field-consent`.
 * @csspart label - Each field's label.
 * @csspart optional - The "(optional)" marker.
 * @csspart hint - The hint under the mobile field.
 * @csspart input - Each input and the checkbox; also `input-<field>`.
 * @csspart error - Each field's error message.
 * @csspart submit - The send button.
 * @csspart status - The live region telling sending, sent and failed.
 *
 * @cssprop --estate-enquiry-max-width - Maximum width of the form (default 36rem).
 * @cssprop --estate-enquiry-padding - Padding inside the form's surface (default `--estate-space`).
 * @cssprop --estate-enquiry-gap - Space between fields.
 * @cssprop --estate-color-accent - Button colour (global token; the enquiry form's tokens all apply).
 *
 * @fires {CustomEvent<EnquirySubmitDetail>} estate-enquiry-submit - Before the first send; cancelable. No personal data in the detail.
 * @fires {CustomEvent<EnquirySuccessDetail>} estate-enquiry-success - The relay has the saved search (queued for the CRM).
 * @fires {CustomEvent<EnquiryErrorDetail>} estate-enquiry-error - A send failed; `detail.pending` tells whether it will be retried.
 * @fires {CustomEvent<LeadSentDetail>} estate-lead-sent - Analytics: the relay accepted the saved search (`leadType` "saved-search" and its originalId, nothing typed or searched; see docs/analytics.md).
 */
export class EstateSavedSearch extends LeadForm {
  static override styles = [
    ...(LeadForm.styles as unknown[]),
    css`
      :host {
        margin-block-end: 1.5rem;
      }

      .summary {
        margin: 0;
      }
    `,
  ] as typeof LeadForm.styles;

  static override properties: PropertyDeclarations = { search: { type: Object }, locale: {}, currency: {} };

  /** The listing filters to follow (any query; only the kept filters are sent). */
  declare search: Record<string, unknown> | null;
  declare locale: string | null;
  declare currency: string | null;
  /** Overrides of this form's words: the enquiry form's and its own. */
  declare strings: Partial<Record<string, string>> | null;

  readonly #savedSearchWords = new LocalizeController<Sections>(this);

  constructor() {
    super();
    this.search = null;
    this.locale = null;
    this.currency = null;
  }

  /** This form's own words, in the page's language, with `strings` on top. */
  protected get alertWords(): SavedSearchStrings {
    return this.#savedSearchWords.words('savedSearch', this.strings as Partial<SavedSearchStrings> | null);
  }

  protected override get fieldNames(): readonly string[] {
    return FIELDS;
  }

  protected override get endpoint(): string {
    return 'api/v1/saved-searches';
  }

  protected override leadType(): LeadType {
    return 'saved-search';
  }

  /** One kept submission: a reload resends the search it was sent with, whatever the list shows now. */
  protected override get target(): string {
    return 'saved-search';
  }

  protected override missing(): undefined {
    return undefined;
  }

  protected override headingText(): string {
    return this.alertWords.heading;
  }

  protected override submitText(): string {
    return this.labelSubmit ?? this.alertWords.submit;
  }

  protected override successContent(): unknown {
    return html`<slot name="success">${this.alertWords.success}</slot>`;
  }

  protected override renderFields(): unknown {
    return html`${this.kindFields()} ${this.contactFields()} ${this.consentField(this.consentText ?? this.alertWords.consent)}`;
  }

  /** The search in words, so the visitor (and a screen reader) knows what the alerts are about. */
  protected override kindFields(): unknown {
    return html`<p part="summary" class="summary">${this.say(this.alertWords.intro, { search: this.summary() })}</p>`;
  }

  /** "for sale, House, in Richmond, from $500,000, 3+ bedrooms", or "any home". */
  protected summary(): string {
    const words = this.alertWords;
    const search = keptFilters(this.search);
    let money = (value: number) => String(value);
    try {
      const locale = this.locale || 'en-AU';
      const format = new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: this.currency || (locale.endsWith('NZ') ? 'NZD' : locale.endsWith('GB') ? 'GBP' : 'AUD'),
        maximumFractionDigits: 0,
      });
      money = (value) => format.format(value);
    } catch {
      // An unknown locale or currency: plain numbers.
    }
    const parts = [
      search.type === 'sale' ? words.forSale : search.type === 'lease' ? words.forLease : '',
      search.propertyType ?? '',
      search.suburb ? this.say(words.inSuburb, { suburb: search.suburb }) : '',
      search.minPrice !== undefined ? this.say(words.minPrice, { price: money(Number(search.minPrice)) }) : '',
      search.maxPrice !== undefined ? this.say(words.maxPrice, { price: money(Number(search.maxPrice)) }) : '',
      search.minBeds !== undefined ? this.say(words.minBeds, { count: Number(search.minBeds) }) : '',
      search.minBaths !== undefined ? this.say(words.minBaths, { count: Number(search.minBaths) }) : '',
      search.minCars !== undefined ? this.say(words.minCars, { count: Number(search.minCars) }) : '',
    ].filter(Boolean);
    return parts.length ? parts.join(', ') : words.anyHome;
  }

  protected override kindLead(contact: LeadContactFields): EnquiryRequest {
    const request: SavedSearchRequest = {
      originalId: contact.originalId,
      fullName: contact.fullName,
      email: contact.email,
      ...(contact.mobile ? { mobile: contact.mobile } : {}),
      consent: contact.consent === true,
      website: contact.website ?? '',
      elapsedMs: contact.elapsedMs,
      search: keptFilters(this.search),
    };
    // The base form keeps, resends and reports its request as it is; only its type names the enquiry kinds.
    return request as unknown as EnquiryRequest;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-saved-search': EstateSavedSearch;
  }
}
