import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { FieldInteractionController } from '../shared/field-interaction.ts';
import { fill, plural, resolveLocale } from '../shared/format.ts';
import { heading, headingLevel } from '../shared/heading.ts';
import { renderPicture } from '../shared/picture.ts';
import { ShortlistController, type KeptHome } from '../shared/shortlist.ts';
import type { EnquiryStrings } from '../enquiry/strings.ts';
import '../enquiry/strings.ts';
import { fieldMessage, type EnquiryFieldName } from '../enquiry/field-rules.ts';
import { KeptHomesController, type KeptHomeState } from './kept-homes.ts';
import { ShortlistEnquiriesController, type HomeOutcome } from './enquiries.ts';
import type { LeadSentDetail } from '../shared/analytics.ts';
import { generateLead, leadOrigin } from '../shared/leads.ts';
import { msSinceVisitStart } from '../shared/visit-start.ts';
import { type ShortlistStrings } from './strings.ts';
import './strings.ts';
import { styles } from './shortlist.styles.ts';

export interface ShortlistEnquirySuccessDetail {
  listingId: number;
  originalId: string;
}

export interface ShortlistEnquiryErrorDetail {
  listingId: number;
  /** HTTP status of the relay's answer; 0 when none came (offline, timeout). */
  status: number;
  message: string;
  /** True when the enquiry is kept on this device and sent again by itself. */
  pending: boolean;
}

const FIELDS: readonly EnquiryFieldName[] = ['fullName', 'email', 'mobile', 'message', 'consent'];

interface FieldValues {
  fullName: string;
  email: string;
  mobile: string;
  message: string;
  consent: boolean;
}

/**
 * The visitor's shortlist: the homes they kept with the heart on a card or a listing, from this
 * browser's storage (per relay and agency, the same in every tab at once; no account, no cookie).
 * Each home shows as the relay has it now; one that sold, leased or left the website says so
 * rather than vanishing. One form ("Enquire about these") sends an enquiry about each home still
 * for sale or rent to that home's agent, through the relay's enquiry API; each home tells how its
 * enquiry went, and one that could not be sent yet is kept on this device and sent again.
 *
 * @summary The homes a visitor kept, and one enquiry form for all of them.
 *
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from. The shortlist belongs to this relay and agency path.
 * @attr detail-href - URL template for a home's link, `{id}` and `{slug}` replaced (`/listing.html?id={id}`). Without it, addresses are not links.
 * @attr heading-level - Level of each home's heading and of the form's (default 2).
 * @attr locale - BCP 47 locale for numbers (default en-AU).
 * @attr consent-text - When set, the form shows a required consent checkbox with this label.
 * @attr require-phone - Makes the mobile number required.
 * @attr no-enquiry - Leaves out the form.
 * @attr analytics - `datalayer`: also push its analytics events to `window.dataLayer` as GA4 events (`generate_lead` per home's enquiry); any other value keeps them out. Default: the page's `<meta name="estate-analytics">`.
 * @attr strings - JSON object overriding any of the element's words (see ShortlistStrings), over those of its language. The form's labels and messages are the enquiry form's (section `enquiry`).
 *
 * @slot empty - Replaces the "shortlist is empty" message.
 *
 * @csspart base - The element's wrapper.
 * @csspart status - The live line counting the homes (and telling a removal).
 * @csspart list - The list of homes.
 * @csspart home - One kept home; also `home-gone` for one the relay no longer has.
 * @csspart home-media - Its photo box.
 * @csspart home-image - Its photo.
 * @csspart home-title - Its address heading.
 * @csspart home-link - The address link.
 * @csspart price - Its price text, as the agency wrote it.
 * @csspart home-status - "Sold", "Leased", "Under offer", "No longer on the website".
 * @csspart outcome - How its enquiry went; also `outcome-sending`, `outcome-sent`, `outcome-waiting`, `outcome-refused`.
 * @csspart button - Every button.
 * @csspart remove-button - A home's remove button.
 * @csspart empty - The empty panel.
 * @csspart form - The "enquire about these" form; also the enquiry form's `heading`, `field`, `label`, `optional`, `hint`, `input`, `error` parts inside it.
 * @csspart submit - The send button.
 * @csspart form-status - The live region telling sending, sent and failed.
 *
 * @cssprop --estate-shortlist-photo - Width of a home's photo (default 8rem).
 *
 * @fires {CustomEvent<ShortlistEnquirySuccessDetail>} estate-shortlist-enquiry-success - The relay accepted one home's enquiry (it is queued for the CRM). No personal data in the detail.
 * @fires {CustomEvent<LeadSentDetail>} estate-lead-sent - Analytics: the relay accepted one home's enquiry (`leadType` "enquiry", its originalId and listing id, nothing typed; see docs/analytics.md).
 * @fires {CustomEvent<ShortlistEnquiryErrorDetail>} estate-shortlist-enquiry-error - Sending one home's enquiry failed; `detail.pending` tells whether it will be sent again.
 */
export class EstateShortlist extends EstateElement {
  static override localizedSections: Section[] = ['shortlist', 'enquiry'];
  static override styles = styles;

  static override properties = {
    detailHref: { attribute: 'detail-href' },
    headingLevel: { type: Number, attribute: 'heading-level' },
    locale: {},
    consentText: { attribute: 'consent-text' },
    requirePhone: { type: Boolean, attribute: 'require-phone' },
    noEnquiry: { type: Boolean, attribute: 'no-enquiry' },
    strings: { type: Object },
    values: { state: true },
    errors: { state: true },
    notice: { state: true },
    announcement: { state: true },
  };

  declare detailHref: string | null;
  declare headingLevel: number;
  declare locale: string | null;
  declare consentText: string | undefined;
  declare requirePhone: boolean;
  declare noEnquiry: boolean;
  /** Overrides for any of the element's words. */
  declare strings: Partial<ShortlistStrings> | null;
  declare protected values: FieldValues;
  declare protected errors: Partial<Record<EnquiryFieldName, string>>;
  /** The form's live region: sending, the outcome, what to correct. */
  declare protected notice: string;
  /** Said in the status line after a removal, until the list changes again. */
  declare protected announcement: string;

  readonly #shortlist = new ShortlistController(this);
  readonly #homes = new KeptHomesController(this);
  readonly #interaction = new FieldInteractionController<EnquiryFieldName>(this);
  readonly #enquiries = new ShortlistEnquiriesController(this, {
    relay: () => this.relay,
    sent: (listingId, originalId) => {
      this.emit<ShortlistEnquirySuccessDetail>('estate-shortlist-enquiry-success', { listingId, originalId });
      const lead: LeadSentDetail = { leadType: 'enquiry', originalId, listingId };
      this.track('estate-lead-sent', lead, [generateLead(lead)]);
    },
    failed: (listingId, status, message, pending) =>
      this.emit<ShortlistEnquiryErrorDetail>('estate-shortlist-enquiry-error', { listingId, status, message, pending }),
    fieldsRefused: (fields) => void this.#fieldsRefused(fields),
    settled: () => this.#settled(),
  });
  /** What the relay last said about each field, until the visitor edits it. */
  #relayErrors: Partial<Record<EnquiryFieldName, string>> = {};
  #resumed = false;
  /** The kept ids the status line last counted. */
  #counted = '';

  constructor() {
    super();
    this.detailHref = null;
    this.headingLevel = 2;
    this.locale = null;
    this.requirePhone = false;
    this.noEnquiry = false;
    this.strings = null;
    this.values = { fullName: '', email: '', mobile: '', message: '', consent: false };
    this.errors = {};
    this.notice = '';
    this.announcement = '';
  }

  /** The listing ids kept, oldest first. */
  get listingIds(): number[] {
    return this.#shortlist.homes.map((home) => home.id);
  }

  get #text(): ShortlistStrings {
    return this.localize.words('shortlist', this.strings);
  }

  get #fieldWords(): EnquiryStrings {
    return this.localize.words('enquiry');
  }

  // update(), not willUpdate(): the shortlist is read in the controllers' hostUpdate, between the two.
  // Properties set here, before super.update(), render in this same update.
  protected override update(changed: PropertyValues<this>): void {
    const ids = this.listingIds;
    this.#homes.want(ids);
    const counted = ids.join();
    if (counted !== this.#counted) {
      // Another change (here or in another tab) replaces what a removal announced.
      if (this.#counted) this.announcement = '';
      this.#counted = counted;
    }
    if (!this.#resumed) {
      this.#resumed = true;
      if (!this.values.message) this.values = { ...this.values, message: this.#text.defaultMessage };
      // An enquiry an earlier page left unsent is sent now, and the form shows what it carries.
      const request = this.#enquiries.resume(ids);
      if (request) {
        this.values = {
          fullName: request.fullName,
          email: request.email,
          mobile: request.mobile ?? '',
          message: request.message,
          consent: request.consent ?? false,
        };
      }
    }
    super.update(changed);
  }

  protected override updated(): void {
    // The controls show `values` after every render, also where they and the visitor's input parted.
    for (const field of FIELDS) {
      const control = this.#control(field) as HTMLInputElement | null;
      const key = field === 'consent' ? 'checked' : 'value';
      if (control && control[key] !== this.values[field]) (control[key] as unknown) = this.values[field];
    }
  }

  // ---- rendering -------------------------------------------------------------------------

  override render(): TemplateResult {
    const text = this.#text;
    const homes = this.#shortlist.homes;
    return html`<div part="base" class="base">
      <p part="status" class="status" role="status" tabindex="-1">
        ${this.announcement || plural(resolveLocale(this.locale, this.localize.lang), homes.length, text.count)}
      </p>
      ${
        homes.length
          ? html`<ul part="list" class="list" aria-label=${text.listLabel}>
                ${homes.map((home) => this.#renderHome(home))}
              </ul>
              ${this.noEnquiry ? nothing : this.#renderEnquiry()}`
          : html`<div part="empty" class="panel">
              <slot name="empty">
                <p class="panel-title">${text.emptyTitle}</p>
                <p>${text.emptyHint}</p>
              </slot>
            </div>`
      }
    </div>`;
  }

  #renderHome(home: KeptHome): TemplateResult {
    const text = this.#text;
    const state = this.#homes.state(home.id);
    const listing = state.kind === 'listed' ? state.listing : null;
    const address = listing?.address?.display || listing?.heading || home.address;
    const note = this.#note(state);
    const outcome = this.#enquiries.outcomes.get(home.id);
    const href = listing && this.detailHref ? this.#detailLink(listing) : null;
    return html`<li part=${state.kind === 'gone' ? 'home home-gone' : 'home'} class="home" data-id=${home.id}>
      <div part="home-media" class="media">
        ${listing?.photo ? renderPicture(listing.photo, { relay: this.relay, sizes: '8rem', alt: '', loading: 'lazy', part: 'home-image' }) : nothing}
      </div>
      <div class="body">
        ${heading(headingLevel(this.headingLevel, 2), href ? html`<a part="home-link" href=${href}>${address}</a>` : address, {
          part: 'home-title',
          className: 'title',
        })}
        ${listing ? html`<p part="price" class="price">${listing.displayPrice?.trim() || text.priceFallback}</p>` : nothing}
        ${note ? html`<p part="home-status" class="note">${note}</p>` : nothing}
        ${outcome ? html`<p part="outcome outcome-${outcome.kind}" class="outcome">${this.#outcomeText(outcome)}</p>` : nothing}
      </div>
      <button
        type="button"
        part="button remove-button"
        class="remove"
        aria-label=${fill(text.removeName, { address })}
        @click=${() => this.#remove(home, address)}
      >
        ${text.remove}
      </button>
    </li>`;
  }

  #note(state: KeptHomeState): string {
    const text = this.#text;
    if (state.kind === 'checking') return text.checking;
    if (state.kind === 'gone') return text.statusGone;
    if (state.kind === 'unknown') return text.statusUnknown;
    const { listing } = state;
    if (listing.status === 'sold') return text.statusSold;
    if (listing.status === 'leased') return text.statusLeased;
    return listing.badge === 'under-offer' ? text.statusUnderOffer : '';
  }

  #outcomeText(outcome: HomeOutcome): string {
    const text = this.#text;
    switch (outcome.kind) {
      case 'sending':
        return text.sending;
      case 'sent':
        return text.sent;
      case 'refused':
        return fill(text.refused, { reason: outcome.reason });
      default:
        return outcome.seconds ? fill(text.waitingFor, { seconds: outcome.seconds }) : text.waiting;
    }
  }

  #detailLink(listing: ListingDetail): string {
    return this.detailHref!.replace(/\{id\}/g, encodeURIComponent(String(listing.id))).replace(
      /\{slug\}/g,
      addressSlug(listing.address?.display || listing.heading),
    );
  }

  /** The kept homes an enquiry can go to now: listed, for sale or rent, and not sent already. */
  #targets(): Array<{ id: number; subject: string }> {
    const targets: Array<{ id: number; subject: string }> = [];
    for (const home of this.#shortlist.homes) {
      const state = this.#homes.state(home.id);
      if (state.kind !== 'listed' || state.listing.status !== 'available') continue;
      const outcome = this.#enquiries.outcomes.get(home.id)?.kind;
      if (outcome === 'sent' || outcome === 'refused') continue;
      targets.push({ id: home.id, subject: state.listing.address?.display || home.address });
    }
    return targets;
  }

  /** The form while a home can take an enquiry (or one is under way); the live region always, so it is heard. */
  #renderEnquiry(): TemplateResult {
    const targets = this.#targets();
    const checking = this.#shortlist.homes.some((home) => this.#homes.state(home.id).kind === 'checking');
    const open = targets.length > 0 || this.#enquiries.pendingIds.length > 0;
    return html`${open ? this.#renderForm(targets) : checking || this.notice ? nothing : html`<p class="none">${this.#text.enquireNone}</p>`}
      <p part="form-status" class="form-status" id="form-status" role="status" tabindex="-1">${this.notice}</p>`;
  }

  #renderForm(targets: ReadonlyArray<unknown>): TemplateResult {
    const text = this.#text;
    const words = this.#fieldWords;
    const sending = this.#enquiries.sending;
    return html`<form part="form" class="form" novalidate aria-labelledby="enquire-heading" @submit=${this.#onSubmit}>
      ${heading(headingLevel(this.headingLevel, 2), text.enquireHeading, { part: 'heading', className: 'heading', id: 'enquire-heading' })}
      <p class="intro">${text.enquireIntro}</p>
      ${this.#textField('fullName', 'name', words.labelName, { type: 'text', autocomplete: 'name', required: true, maxlength: 100 })}
      ${this.#textField('email', 'email', words.labelEmail, { type: 'email', autocomplete: 'email', inputmode: 'email', required: true, maxlength: 254 })}
      ${this.#textField('mobile', 'mobile', words.labelMobile, {
        type: 'tel',
        autocomplete: 'tel',
        inputmode: 'tel',
        required: this.requirePhone,
        maxlength: 24,
        hint: words.hintMobile,
      })}
      <div part="field field-message" class="field">
        <label part="label" for="message">${words.labelMessage}</label>
        <textarea
          part="input input-message"
          id="message"
          name="message"
          rows="4"
          maxlength="5000"
          required
          ?readonly=${sending}
          aria-invalid=${this.errors.message ? 'true' : 'false'}
          aria-describedby=${ifDefined(this.errors.message ? 'message-error' : undefined)}
          @input=${this.#onInput}
          @blur=${this.#onBlur}
        ></textarea>
        ${this.#errorNode('message')}
      </div>
      ${this.consentText !== undefined ? this.#consentField() : nothing}
      <div class="trap" aria-hidden="true" inert>
        <label for="website">Website (leave empty)</label>
        <input id="website" name="website" type="text" tabindex="-1" autocomplete="off" />
      </div>
      ${
        targets.length
          ? html`<button type="submit" part="button submit" class="primary" aria-disabled=${sending ? 'true' : 'false'}>
              ${plural(resolveLocale(this.locale, this.localize.lang), targets.length, text.submit)}
            </button>`
          : nothing
      }
    </form>`;
  }

  #textField(
    field: 'fullName' | 'email' | 'mobile',
    partName: string,
    label: string,
    options: { type: string; autocomplete: string; inputmode?: string; required: boolean; maxlength: number; hint?: string },
  ): TemplateResult {
    const error = this.errors[field];
    const describedBy = [options.hint ? `${field}-hint` : '', error ? `${field}-error` : ''].filter(Boolean).join(' ');
    return html`<div part="field field-${partName}" class="field">
      <label part="label" for=${field}>
        ${label}${options.required ? nothing : html`<span part="optional" class="optional">${` ${this.#fieldWords.labelOptional}`}</span>`}
      </label>
      ${options.hint ? html`<p part="hint" class="hint" id="${field}-hint">${options.hint}</p>` : nothing}
      <input
        part="input input-${partName}"
        id=${field}
        name=${field}
        type=${options.type}
        autocomplete=${options.autocomplete}
        inputmode=${ifDefined(options.inputmode)}
        maxlength=${options.maxlength}
        ?required=${options.required}
        ?readonly=${this.#enquiries.sending}
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${ifDefined(describedBy || undefined)}
        @input=${this.#onInput}
        @blur=${this.#onBlur}
      />
      ${this.#errorNode(field)}
    </div>`;
  }

  #consentField(): TemplateResult {
    const error = this.errors.consent;
    return html`<div part="field field-consent" class="field consent">
      <input
        part="input input-consent"
        id="consent"
        name="consent"
        type="checkbox"
        required
        aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${ifDefined(error ? 'consent-error' : undefined)}
        @change=${this.#onInput}
        @blur=${this.#onBlur}
      />
      <label part="label" for="consent">${this.consentText}</label>
      ${this.#errorNode('consent')}
    </div>`;
  }

  #errorNode(field: EnquiryFieldName): TemplateResult {
    const error = this.errors[field];
    return html`<p part="error" class="error" id="${field}-error" ?hidden=${!error}>${error ?? ''}</p>`;
  }

  // ---- visitor actions -------------------------------------------------------------------

  async #remove(home: KeptHome, address: string): Promise<void> {
    const buttons = [...this.renderRoot.querySelectorAll<HTMLElement>('[part~="remove-button"]')];
    const index = this.listingIds.indexOf(home.id);
    this.#shortlist.toggle(home);
    this.announcement = fill(this.#text.removed, { address });
    // The list and the line moved on: `#counted` already holds the new list, so the announcement stays.
    this.#counted = this.listingIds.join();
    await this.updateComplete;
    // Focus goes to the home that took its place (its row is reused: Lit renders the list by
    // position), or the one before when it was the last, else to the status line.
    const next = [buttons[index], buttons[index - 1]].find((button) => button?.isConnected);
    (next ?? this.renderRoot.querySelector<HTMLElement>('[part~="status"]'))?.focus();
  }

  #control(field: EnquiryFieldName): HTMLInputElement | HTMLTextAreaElement | null {
    return this.renderRoot.querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${field}`);
  }

  #validate(field: EnquiryFieldName): boolean {
    const control = this.#control(field);
    if (!control) return true;
    const message = fieldMessage(field, control, this.#fieldWords, this.#relayErrors[field]);
    if (message !== this.errors[field]) this.errors = { ...this.errors, [field]: message };
    return message === undefined;
  }

  #onInput = (event: Event): void => {
    const control = event.target as HTMLInputElement | HTMLTextAreaElement;
    const field = control.name as EnquiryFieldName;
    this.values = { ...this.values, [field]: control instanceof HTMLInputElement && control.type === 'checkbox' ? control.checked : control.value };
    delete this.#relayErrors[field];
    if (this.#interaction.changed(field, Boolean(this.errors[field]))) this.#validate(field);
  };

  #onBlur = (event: Event): void => {
    const field = (event.target as HTMLInputElement).name as EnquiryFieldName;
    if (this.#interaction.left(field)) this.#validate(field);
  };

  #onSubmit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    if (this.#enquiries.sending) return;
    this.#interaction.submit();
    const invalid = FIELDS.filter((field) => !this.#validate(field));
    if (invalid.length) {
      this.notice = this.#fieldWords.invalidMessage;
      await this.updateComplete;
      this.#control(invalid[0]!)?.focus();
      return;
    }
    const targets = this.#targets();
    if (!targets.length) return;
    const { fullName, email, mobile, message, consent } = this.values;
    this.notice = this.#text.sending;
    this.#enquiries.send(targets, {
      fullName: fullName.trim(),
      email: email.trim(),
      ...(mobile.trim() ? { mobile: mobile.trim() } : {}),
      message: message.trim(),
      ...(this.consentText !== undefined ? { consent } : {}),
      website: this.renderRoot.querySelector<HTMLInputElement>('#website')?.value ?? '',
      elapsedMs: msSinceVisitStart(),
      ...leadOrigin(),
    });
  };

  async #fieldsRefused(fields: Record<string, string>): Promise<void> {
    this.#relayErrors = {};
    for (const field of FIELDS) if (fields[field]) this.#relayErrors[field] = fields[field];
    this.#interaction.submit();
    // Rendered first: while sending the inputs are read-only, and the browser does not validate those.
    this.requestUpdate();
    await this.updateComplete;
    const invalid = FIELDS.filter((field) => !this.#validate(field));
    this.notice = this.#fieldWords.invalidMessage;
    await this.updateComplete;
    this.#control(invalid[0] ?? 'fullName')?.focus();
  }

  #settled(): void {
    const outcomes = [...this.#enquiries.outcomes.values()];
    if (!outcomes.length) return;
    const sent = outcomes.filter((outcome) => outcome.kind === 'sent').length;
    const text = this.#text;
    if (sent === outcomes.length) {
      this.notice = plural(resolveLocale(this.locale, this.localize.lang), sent, text.summaryAllSent);
      // Sent: the form starts afresh (a later send is a new set of enquiries).
      this.values = { fullName: '', email: '', mobile: '', message: text.defaultMessage, consent: false };
      this.errors = {};
      this.#interaction.reset();
    } else if (this.notice !== this.#fieldWords.invalidMessage) {
      this.notice = fill(text.summaryPartial, { sent, total: outcomes.length });
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-shortlist': EstateShortlist;
  }
  interface GlobalEventHandlersEventMap {
    'estate-shortlist-enquiry-success': CustomEvent<ShortlistEnquirySuccessDetail>;
    'estate-shortlist-enquiry-error': CustomEvent<ShortlistEnquiryErrorDetail>;
  }
}
