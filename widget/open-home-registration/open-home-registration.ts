import { html, type PropertyDeclarations, type TemplateResult } from 'lit';
import type { EnquiryRequest, OpenHomeRegistrationRequest } from '../../contract/relay-api.ts';
import type { LeadContactFields } from '../enquiry/enquiry.ts';
import { LeadForm } from '../lead-form/lead-form.ts';
import { countVisit } from '../shared/visits.ts';

const FIELDS = ['fullName', 'email', 'mobile', 'attendees', 'consent'] as const;
const REGISTERED = 'estate-open-home:registered:';

/** Storage can be missing or throw (privacy modes, sandboxed frames): then nothing is remembered. */
function remembered(openHomeId: number, set = false): boolean {
  try {
    if (set) localStorage.setItem(REGISTERED + openHomeId, '1');
    return localStorage.getItem(REGISTERED + openHomeId) === '1';
  } catch {
    return false;
  }
}

/**
 * A registration for one open home of a listing: name, e-mail, mobile, how many people are coming,
 * consent. The relay checks the open home is still on the listing and not over, and sends it to
 * the CRM as an enquiry on the listing naming the open home's date and time, once per e-mail
 * address and open home: a second registration is answered as the first (so nobody learns whether
 * an address registered) and not sent again, and the confirmation is worded to be right either
 * way. The browser that registered remembers it (the open home's id only, no personal data) and
 * says so instead of the form. `<estate-listing>` shows one for an open home when a visitor presses
 * its "Register"; a page may place one itself.
 *
 * @summary Open-home registration form, delivered to the CRM once per person and open home.
 *
 * @attr {number} listing-id - The listing (`id` from `GET /api/v1/listings`).
 * @attr {number} open-home-id - The open home (`openHomes[].id` of the listing).
 * @attr {string} when - The open home's date and time as the page shows them, for the heading and the confirmation.
 * @attr {string} end - When the open home ends (ISO 8601): past it, the form is not shown.
 * @attr {string} calendar-href - The open home's calendar file (an `.ics` URL), offered with the confirmation.
 * @attr {string} calendar-file - The calendar file's download name.
 * @attr {string} relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr {string} consent-text - Label of the consent box (always shown and required).
 * @attr {boolean} require-phone - Makes the mobile number required.
 * @attr {string} heading - Heading of the form. Default "Register for the open home, {when}".
 * @attr {number} heading-level - Level of the heading (1-6, default 2).
 * @attr {string} strings - JSON object of words to override (EnquiryStrings and LeadStrings keys).
 *
 * @slot heading - Replaces the heading text.
 * @slot consent - Replaces the consent box's label.
 *
 * @csspart form - The form.
 * @csspart heading - The heading.
 * @csspart field - Each field's wrapper; also `field-name`, `field-email`, `field-mobile`, `field-attendees`, `field-consent`.
 * @csspart label - Each field's label.
 * @csspart input - Each input and the checkbox; also `input-<field>`.
 * @csspart error - Each field's error message.
 * @csspart submit - The register button.
 * @csspart status - The live region telling sending, registered and failed; also the note when the open home is over.
 * @csspart calendar-link - The "Add to calendar" link with the confirmation.
 * @csspart another - The "Register another person" button after a registration on this device.
 *
 * @cssprop --estate-enquiry-padding - Padding inside the form's surface (default `--estate-space`; the enquiry form's tokens all apply).
 *
 * @fires {CustomEvent<EnquirySubmitDetail>} estate-enquiry-submit - Before the first send; cancelable. No personal data in the detail.
 * @fires {CustomEvent<EnquirySuccessDetail>} estate-enquiry-success - The relay has the registration.
 * @fires {CustomEvent<EnquiryErrorDetail>} estate-enquiry-error - A send failed; `detail.pending` tells whether it will be retried.
 */
export class EstateOpenHomeRegistration extends LeadForm {
  static override properties: PropertyDeclarations = {
    openHomeId: { type: Number, attribute: 'open-home-id' },
    when: {},
    end: {},
    calendarHref: { attribute: 'calendar-href' },
    calendarFile: { attribute: 'calendar-file' },
    another: { state: true },
  };

  declare openHomeId: number | undefined;
  declare when: string;
  declare end: string | undefined;
  declare calendarHref: string | undefined;
  declare calendarFile: string | undefined;
  /** The visitor asked to register someone else on a device that registered before. */
  declare protected another: boolean;
  /** A registration was sent from this form (its confirmation shows, not the note of an earlier one). */
  #sentHere = false;

  constructor() {
    super();
    this.when = '';
    this.another = false;
    this.addEventListener('estate-enquiry-success', () => {
      this.#sentHere = true;
      if (this.openHomeId !== undefined) remembered(this.openHomeId, true);
    });
  }

  protected override get fieldNames(): readonly string[] {
    return FIELDS;
  }

  protected override blank(): Record<string, string | boolean> {
    return { ...super.blank(), attendees: '1' };
  }

  protected override get target(): string | undefined {
    return this.listingId !== undefined && this.openHomeId !== undefined ? `open-home:${this.listingId}:${this.openHomeId}` : undefined;
  }

  protected override missing(): string | undefined {
    return this.target ? undefined : 'a listing-id and an open-home-id';
  }

  protected override headingText(): string {
    return this.say(this.words.openHomeHeading, { when: this.when });
  }

  protected override submitText(): string {
    return this.labelSubmit ?? this.words.openHomeSubmit;
  }

  override render(): TemplateResult {
    const words = this.words;
    if (this.end && Date.parse(this.end) <= Date.now()) return html`<p part="status" class="status">${words.openHomeOver}</p>`;
    if (!this.another && !this.pendingOriginalId && this.openHomeId !== undefined && remembered(this.openHomeId) && !this.#sentHere) {
      return html`<div part="status" class="status done" data-state="sent">
        <p>${words.openHomeRegistered}</p>
        ${this.#calendarLink()}
        <button part="another" type="button" class="link" @click=${() => (this.another = true)}>${words.registerAnother}</button>
      </div>`;
    }
    return super.render();
  }

  protected override successContent(): unknown {
    return html`<div class="done">
      <p>${this.say(this.words.openHomeSuccess, { when: this.when })}</p>
      ${this.#calendarLink()}
    </div>`;
  }

  #calendarLink(): unknown {
    return this.calendarHref
      ? html`<a
          part="calendar-link"
          class="link"
          href=${this.calendarHref}
          download=${this.calendarFile ?? 'open-home.ics'}
          @click=${() => this.listingId && countVisit(this, 'calendar', this.listingId)}
          >${this.words.addToCalendar}</a
        >`
      : '';
  }

  protected override kindFields(): unknown {
    return '';
  }

  protected override extraFields(): unknown {
    return this.textField('attendees', 'attendees', this.words.labelAttendees, {
      type: 'number',
      autocomplete: 'off',
      inputmode: 'numeric',
      required: true,
      min: '1',
      max: '10',
    });
  }

  protected override kindLead(contact: LeadContactFields): EnquiryRequest {
    const request: OpenHomeRegistrationRequest = {
      kind: 'open-home',
      ...contact,
      listingId: this.listingId!,
      openHomeId: this.openHomeId!,
      attendees: Number(this.value('attendees')),
    };
    return request;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-open-home-registration': EstateOpenHomeRegistration;
  }
}
