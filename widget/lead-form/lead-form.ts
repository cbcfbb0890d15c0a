import { css, html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import { EstateEnquiry, type LeadContactFields } from '../enquiry/enquiry.ts';
import type { EnquiryStrings } from '../enquiry/strings.ts';
import { fill } from '../shared/fill.ts';
import type { Sections } from '../shared/localize.ts';
import { LocalizeController } from '../shared/translations.ts';
import { type LeadStrings } from './strings.ts';
import './strings.ts';

/** What the lead forms add to the enquiry form's look (whose rules for inputs also draw their choice lists): a group of fields under one legend. */
const leadStyles = css`
  fieldset {
    display: grid;
    gap: var(--_gap);
    margin: 0;
    padding: 0;
    border: 0;
  }

  legend {
    padding: 0;
    font-weight: 600;
  }

  .row {
    display: grid;
    gap: var(--_gap);
    grid-template-columns: repeat(auto-fit, minmax(min(100%, 9rem), 1fr));
  }

  .done p {
    margin: 0 0 0.5rem;
  }

  .link {
    display: inline-flex;
    align-items: center;
    min-height: var(--_target);
    font-weight: 600;
    color: var(--_estate-accent);
  }

  .link:focus-visible,
  .status button:focus-visible {
    outline: 3px solid var(--_estate-focus);
    outline-offset: 2px;
  }
`;

/**
 * What the lead forms other than the question share (`<estate-appraisal>`,
 * `<estate-open-home-registration>`, `<estate-inspection-request>`): the enquiry form's sending,
 * keeping, retrying and field rules, their own words (section `leads`), a consent box that is
 * always there (its label `consent-text`, else the words' `consent`), choice lists, and an
 * optional message. Each kind names its fields, builds its request and says what it is about.
 */
export abstract class LeadForm extends EstateEnquiry {
  static override styles = [...(EstateEnquiry.styles as unknown[]), leadStyles] as typeof EstateEnquiry.styles;

  /** Overrides of this form's words: the enquiry form's (`EnquiryStrings`) and the lead forms' (`LeadStrings`). */
  declare strings: Partial<EnquiryStrings & LeadStrings> | null;

  readonly #words = new LocalizeController<Sections>(this, ['leads']);

  /** The lead forms' words, in the page's language, with `strings` on top. */
  protected get words(): LeadStrings {
    return this.#words.words('leads', this.strings);
  }

  /** The kind's fields (before name, e-mail and mobile). */
  protected abstract kindFields(): unknown;

  protected override renderFields(): unknown {
    return html`${this.kindFields()} ${this.contactFields()} ${this.extraFields()} ${this.consentField(this.consentText ?? this.words.consent)}`;
  }

  /** What follows the contact fields: an optional message, by default. */
  protected extraFields(): unknown {
    return this.messageField(false);
  }

  protected override blank(): Record<string, string | boolean> {
    return { ...super.blank(), message: this.message ?? '' };
  }

  /** Name, e-mail, mobile and consent (always asked), and the optional message when there is one. */
  protected contact(contact: LeadContactFields): LeadContactFields & { message?: string } {
    const message = String(this.values.message ?? '').trim();
    return { ...contact, consent: this.values.consent === true, ...(message ? { message } : {}) };
  }

  /** The field's text, trimmed. */
  protected value(field: string): string {
    return String(this.values[field] ?? '').trim();
  }

  protected override lead(contact: LeadContactFields): EnquiryRequest {
    return this.kindLead(this.contact(contact));
  }

  /** The request of this kind, from the contact fields (and the message, when given). */
  protected abstract kindLead(contact: LeadContactFields & { message?: string }): EnquiryRequest;

  /** A choice list: `choices` as [value, label]; an optional one starts on "Choose…" (sent as nothing). */
  protected selectField(field: string, label: string, choices: Array<[string, string]>, required = false): TemplateResult {
    const error = this.errors[field];
    const text = this.text;
    return html`<div part="field field-${field}" class="field">
      <label part="label" for=${field}>${label}${required ? nothing : html`<span part="optional" class="optional">${` ${text.labelOptional}`}</span>`}</label>
      <select
        part="input input-${field}"
        id=${field}
        name=${field}
        ?required=${required}
        ?disabled=${this.sending}
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${ifDefined(error ? `${field}-error` : undefined)}
        @input=${this.onInput}
        @blur=${this.onBlur}
      >
        <option value="" ?selected=${!this.values[field]}>${this.words.choose}</option>
        ${choices.map(([value, name]) => html`<option value=${value} ?selected=${this.values[field] === value}>${name}</option>`)}
      </select>
      ${this.errorNode(field)}
    </div>`;
  }

  /** The words with `{…}` filled in. */
  protected say(words: string, values: Record<string, string | number>): string {
    return fill(words, values);
  }
}
