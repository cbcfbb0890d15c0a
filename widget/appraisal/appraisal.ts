import { html, type PropertyDeclarations, type PropertyValues } from 'lit';
import type { AppraisalRequest, EnquiryRequest, SellingWhen, Suburb } from '../../contract/relay-api.ts';
import type { LeadContactFields } from '../enquiry/enquiry.ts';
import { LeadForm } from '../lead-form/lead-form.ts';
import { fetchJson, relayUrl } from '../shared/relay.ts';
import { BASE_LANG, wordsFor } from '../shared/translations.ts';
import type { LeadStrings } from '../lead-form/strings.ts';

const FIELDS = ['street', 'suburb', 'postcode', 'propertyType', 'bedrooms', 'sellingWhen', 'fullName', 'email', 'mobile', 'message', 'consent'] as const;

/**
 * A seller's request for an appraisal ("what is my home worth?"): the property's address (the
 * suburb with the agency's own suburbs as suggestions, from `GET /api/v1/suburbs`), its type,
 * bedrooms, when they think of selling, how to reach them and their consent. The relay files it in
 * the CRM's holding area as an "Appraisal request" (with the agency's seller categories), for the
 * agent the page names (`agent-id`), else for the office. Sending, keeping and retrying are the
 * enquiry form's: exactly once, kept on the device until the relay has it.
 *
 * @summary Appraisal request form for sellers, delivered to the CRM exactly once.
 *
 * @attr {number} agent-id - The agent (`id` from `GET /api/v1/agents`) the request goes to. Default: the office.
 * @attr {string} relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr {string} consent-text - Label of the consent box (always shown and required). Default: the words' `consent`.
 * @attr {string} message - Initial text of the optional message field.
 * @attr {boolean} require-phone - Makes the mobile number required.
 * @attr {string} heading - Heading of the form. Default "What is my home worth?".
 * @attr {number} heading-level - Level of the heading for the page's outline (1-6, default 2).
 * @attr {string} strings - JSON object of words to override: the enquiry form's (EnquiryStrings) and the lead forms' (LeadStrings, e.g. `propertyTypes`).
 *
 * @slot heading - Replaces the heading text.
 * @slot consent - Replaces the consent box's label (e.g. to link a privacy policy).
 * @slot success - Replaces the success message.
 *
 * @csspart form - The form.
 * @csspart heading - The heading.
 * @csspart field - Each field's wrapper; also `field-street`, `field-suburb`, `field-postcode`, `field-propertyType`, `field-bedrooms`, `field-sellingWhen`, `field-name`, `field-email`, `field-mobile`, `field-message`, `field-consent`.
 * @csspart label - Each field's label.
 * @csspart optional - The "(optional)" marker.
 * @csspart input - Each input, list and the checkbox; also `input-<field>`.
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
 * @fires {CustomEvent<EnquirySuccessDetail>} estate-enquiry-success - The relay has the request (queued for the CRM).
 * @fires {CustomEvent<EnquiryErrorDetail>} estate-enquiry-error - A send failed; `detail.pending` tells whether it will be retried.
 */
export class EstateAppraisal extends LeadForm {
  static override properties: PropertyDeclarations = { suburbs: { state: true } };

  /** The agency's suburbs, for suggestions (none when the relay could not say). */
  declare protected suburbs: Suburb[];

  constructor() {
    super();
    this.suburbs = [];
  }

  protected override get fieldNames(): readonly string[] {
    return FIELDS;
  }

  protected override get target(): string {
    return `appraisal:${this.agentId ?? 'office'}`;
  }

  protected override missing(): undefined {
    return undefined;
  }

  protected override headingText(): string {
    return this.words.appraisalHeading;
  }

  protected override successContent(): unknown {
    return html`<slot name="success">${this.words.appraisalSuccess}</slot>`;
  }

  protected override firstUpdated(): void {
    super.firstUpdated();
    void this.#loadSuburbs();
  }

  protected override submitText(): string {
    return this.labelSubmit ?? this.words.appraisalSubmit;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    super.willUpdate(changed);
    // A suburb picked from the suggestions brings its postcode, unless one is typed already.
    const before = changed.get('values' as keyof EstateAppraisal) as Record<string, unknown> | undefined;
    const suburb = this.value('suburb').toLowerCase();
    if (!before || before.suburb === this.values.suburb || !suburb || this.value('postcode')) return;
    const known = this.suburbs.find((candidate) => candidate.name.toLowerCase() === suburb);
    if (known?.postcode) this.values = { ...this.values, postcode: known.postcode };
  }

  async #loadSuburbs(): Promise<void> {
    try {
      this.suburbs = (await fetchJson<{ items: Suburb[] }>(relayUrl(this.relay, 'api/v1/suburbs'), { credentials: 'omit' })).items ?? [];
    } catch {
      // Suggestions only: the visitor types the suburb anyway.
    }
  }

  protected override kindFields(): unknown {
    const words = this.words;
    const when: Array<[SellingWhen, string]> = [
      ['now', words.sellingNow],
      ['3-months', words.selling3],
      ['6-months', words.selling6],
      ['12-months', words.selling12],
      ['not-sure', words.sellingNotSure],
    ];
    return html`${this.textField('street', 'street', words.labelStreet, { type: 'text', autocomplete: 'street-address', required: true, maxlength: 200 })}
      <div class="row">
        ${this.textField('suburb', 'suburb', words.labelSuburb, { type: 'text', autocomplete: 'address-level2', required: true, maxlength: 100, list: 'suburbs' })}
        ${this.textField('postcode', 'postcode', words.labelPostcode, { type: 'text', autocomplete: 'postal-code', inputmode: 'numeric', required: true, maxlength: 10 })}
      </div>
      <datalist id="suburbs">${this.suburbs.map((suburb) => html`<option value=${suburb.name}></option>`)}</datalist>
      <div class="row">
        ${this.selectField('propertyType', words.labelPropertyType, propertyTypeOptions(words.propertyTypes))}
        ${this.textField('bedrooms', 'bedrooms', words.labelBedrooms, { type: 'number', autocomplete: 'off', inputmode: 'numeric', required: false, min: '0', max: '20' })}
      </div>
      ${this.selectField('sellingWhen', words.labelSellingWhen, when)}`;
  }

  protected override kindLead(contact: LeadContactFields & { message?: string }): EnquiryRequest {
    const bedrooms = this.value('bedrooms');
    const request: AppraisalRequest = {
      kind: 'appraisal',
      ...contact,
      ...(this.agentId !== undefined && Number.isFinite(this.agentId) ? { agentId: this.agentId } : {}),
      street: this.value('street'),
      suburb: this.value('suburb'),
      postcode: this.value('postcode'),
      ...(this.value('propertyType') ? { propertyType: this.value('propertyType') } : {}),
      ...(bedrooms ? { bedrooms: Number(bedrooms) } : {}),
      ...(this.value('sellingWhen') ? { sellingWhen: this.value('sellingWhen') as SellingWhen } : {}),
    };
    return request;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-appraisal': EstateAppraisal;
  }
}

/**
 * The property types as [value, label]: labels in the visitor's language, values in English (the
 * en-AU list, an agency's own included), so the agent reads "Townhouse" in the CRM whatever language
 * the form was in. A translated list of another length keeps its labels as values.
 */
function propertyTypeOptions(list: string): Array<[string, string]> {
  const labels = list.split('|');
  const english = wordsFor<LeadStrings>('leads', BASE_LANG).propertyTypes.split('|');
  return labels.map((label, index) => [english.length === labels.length ? english[index]! : label, label]);
}
