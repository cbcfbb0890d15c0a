import { html } from 'lit';
import type { EnquiryRequest, InspectionRequest } from '../../contract/relay-api.ts';
import type { LeadContactFields } from '../enquiry/enquiry.ts';
import { LeadForm } from '../lead-form/lead-form.ts';

const TIMES = ['time1', 'time2', 'time3'] as const;
const FIELDS = [...TIMES, 'fullName', 'email', 'mobile', 'message', 'consent'] as const;
/** How far ahead a time may be (the relay's limit, server/enquiries/schema.ts LEAD_LIMITS). */
const WINDOW_DAYS = 60;
const DAY = 24 * 60 * 60_000;

/** A time as a `datetime-local` control holds it: the visitor's own clock, to the minute. */
function localInput(time: number): string {
  const date = new Date(time - new Date(time).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}

/**
 * A request for a private inspection of a listing at one of up to three times the visitor
 * prefers (each in the future and within 60 days, in the visitor's time zone; the relay writes
 * them in the agency's), with how to reach them, an optional message and consent. Delivered to the
 * CRM as an enquiry on the listing, exactly once. `<estate-listing>` shows one when a visitor
 * presses "Request a private inspection"; a page may place one itself.
 *
 * @summary Private inspection request form with up to three preferred times.
 *
 * @attr {number} listing-id - The listing (`id` from `GET /api/v1/listings`).
 * @attr {string} relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr {string} consent-text - Label of the consent box (always shown and required).
 * @attr {string} message - Initial text of the optional message field.
 * @attr {boolean} require-phone - Makes the mobile number required.
 * @attr {string} heading - Heading of the form. Default "Request a private inspection".
 * @attr {number} heading-level - Level of the heading (1-6, default 2).
 * @attr {string} strings - JSON object of words to override (EnquiryStrings and LeadStrings keys).
 *
 * @slot heading - Replaces the heading text.
 * @slot consent - Replaces the consent box's label.
 * @slot success - Replaces the success message.
 *
 * @csspart form - The form.
 * @csspart heading - The heading.
 * @csspart times - The group of preferred times.
 * @csspart field - Each field's wrapper; also `field-time1`, `field-time2`, `field-time3`, `field-name`, `field-email`, `field-mobile`, `field-message`, `field-consent`.
 * @csspart label - Each field's label.
 * @csspart hint - The hint under the times' legend.
 * @csspart input - Each input, the textarea and the checkbox; also `input-<field>`.
 * @csspart error - Each field's error message.
 * @csspart submit - The send button.
 * @csspart status - The live region telling sending, sent and failed.
 *
 * @cssprop --estate-enquiry-padding - Padding inside the form's surface (default `--estate-space`; the enquiry form's tokens all apply).
 *
 * @fires {CustomEvent<EnquirySubmitDetail>} estate-enquiry-submit - Before the first send; cancelable. No personal data in the detail.
 * @fires {CustomEvent<EnquirySuccessDetail>} estate-enquiry-success - The relay has the request.
 * @fires {CustomEvent<EnquiryErrorDetail>} estate-enquiry-error - A send failed; `detail.pending` tells whether it will be retried.
 */
export class EstateInspectionRequest extends LeadForm {
  protected override get fieldNames(): readonly string[] {
    return FIELDS;
  }

  protected override get target(): string | undefined {
    return this.listingId !== undefined && Number.isFinite(this.listingId) ? `inspection:${this.listingId}` : undefined;
  }

  protected override missing(): string | undefined {
    return this.target ? undefined : 'a listing-id';
  }

  protected override headingText(): string {
    return this.words.inspectionHeading;
  }

  protected override submitText(): string {
    return this.labelSubmit ?? this.words.inspectionSubmit;
  }

  protected override successContent(): unknown {
    return html`<slot name="success">${this.words.inspectionSuccess}</slot>`;
  }

  protected override restore(request: EnquiryRequest): Record<string, string | boolean> {
    const values = super.restore(request);
    const times = request.kind === 'inspection' ? request.preferredTimes : [];
    TIMES.forEach((field, index) => (values[field] = times[index] ? localInput(Date.parse(times[index])) : ''));
    return values;
  }

  protected override kindFields(): unknown {
    const words = this.words;
    // No min or max: Chromium's picker then fills segments not typed yet from them as a visitor types.
    const range = { type: 'datetime-local', autocomplete: 'off' };
    return html`<fieldset part="times" aria-describedby="times-hint">
      <legend>${words.labelTime}</legend>
      <p part="hint" class="hint" id="times-hint">${words.inspectionHint}</p>
      ${TIMES.map((field, index) => this.textField(field, field, index ? words.labelTimeOther : words.labelTime, { ...range, required: index === 0 }))}
    </fieldset>`;
  }

  protected override fieldProblem(field: string, value: string): string | undefined {
    if (!field.startsWith('time')) return undefined;
    const time = Date.parse(value);
    if (time <= Date.now()) return this.words.errorPast;
    if (time > Date.now() + WINDOW_DAYS * DAY) return this.say(this.words.errorTooFar, { max: WINDOW_DAYS });
    const earlier = TIMES.slice(0, TIMES.indexOf(field as (typeof TIMES)[number])).map((other) => this.value(other));
    return earlier.includes(value) ? this.words.errorSameTime : undefined;
  }

  protected override kindLead(contact: LeadContactFields & { message?: string }): EnquiryRequest {
    const request: InspectionRequest = {
      kind: 'inspection',
      ...contact,
      listingId: this.listingId!,
      // A datetime-local value is the visitor's own clock: Date reads it so, and sends the instant.
      preferredTimes: TIMES.map((field) => this.value(field))
        .filter(Boolean)
        .map((value) => new Date(value).toISOString()),
    };
    return request;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-inspection-request': EstateInspectionRequest;
  }
}
