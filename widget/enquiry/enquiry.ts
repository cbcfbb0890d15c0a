import { html, isServer, nothing, type PropertyDeclarations, type PropertyValues, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import { resetStyles } from '../shared/reset.styles.ts';
import { styles } from './enquiry.styles.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { FieldInteractionController } from '../shared/field-interaction.ts';
import { FormSend } from './form-send.ts';
import { loadElement } from '../shared/load-element.ts';
import { type EnquiryStrings } from './strings.ts';
import './strings.ts';
import type { PendingEnquiry } from './pending-store.ts';
import { pendingKey } from './pending-key.ts';
import type { EnquiryForm, FormLogic } from './form-logic.ts';
import type { LeadType } from '../shared/analytics.ts';
import type { EnquiryErrorDetail, EnquirySubmitDetail, EnquirySuccessDetail, FieldValues, LeadContactFields, SendOutcome } from './types.ts';

export type * from './types.ts';

export const ENQUIRY_TAG = 'estate-enquiry';

/** The words that also have an attribute of their own (`label-name` for labelName, …). */
const SHORTHAND_KEYS = [
  'labelName',
  'labelEmail',
  'labelMobile',
  'labelMessage',
  'labelOptional',
  'labelSubmit',
  'hintMobile',
  'errorRequired',
  'errorEmail',
  'errorMobile',
  'errorTooLong',
  'errorConsent',
  'invalidMessage',
  'sendingMessage',
  'successMessage',
  'errorMessage',
  'rateLimitedMessage',
  'refusedMessage',
] as const satisfies ReadonlyArray<keyof EnquiryStrings>;

/** The visible fields; their names are the request's, so the relay's `fields` map onto them. */
export type EnquiryField = 'fullName' | 'email' | 'mobile' | 'message' | 'consent';
const FIELD_ORDER: readonly EnquiryField[] = ['fullName', 'email', 'mobile', 'message', 'consent'];

/** A server-rendered form, detached or about to be, and the control that had the focus in it. */
type ServerForm = [form: HTMLFormElement | null, focused: Element | null];

/**
 * Server-rendered forms by the root they sit in (the page, or the shadow root of the detail that
 * renders them), in page order, each waiting for the form rendered in its place.
 */
const serverForms = new WeakMap<Node, ServerForm[]>();

/** " (optional)": the space is in the text, where the template minifier cannot drop it (a space before a tag it does). */
const optional = (words: string) => ` ${words}`;

/** The manifest's key for form-logic.ts (vite.config.ts PART_ENTRIES), fetched once a visitor starts on a form. */
const LOGIC = 'estate-enquiry-logic';

/** Whether a submission is kept under `key` (storage may be missing or throw: then none is); the store comes with the logic. */
function hasKept(key: string): boolean {
  try {
    return localStorage.getItem(key) !== null;
  } catch {
    return false;
  }
}

/**
 * An enquiry form: a home buyer asks about a property (`listing-id`) or contacts an agent
 * (`agent-id`, a "contact me" form). The relay queues it for the agency's CRM.
 *
 * Each submission gets an `originalId` (a UUID) when first sent and keeps it across retries,
 * double clicks and reloads: until the relay has accepted or definitively refused it, the
 * submission is kept in `localStorage` (per listing or agent) and retried with the same id when
 * the page comes back, when the browser comes back online, and with backoff while the page stays
 * open. A spam trap field and the time since the form was shown go with it.
 *
 * @summary Enquiry / contact-me form that reaches the agency's CRM exactly once.
 *
 * @attr {number} listing-id - Property mode: the listing (`id` from `GET /api/v1/listings`) the enquiry is about.
 * @attr {number} agent-id - Contact-me mode: the agent (`id` from `GET /api/v1/agents`) to contact. Used when no `listing-id` is set.
 * @attr {string} relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr {string} subject - Subject sent with the enquiry (not shown to the visitor).
 * @attr {string} message - Initial text of the message field.
 * @attr {boolean} require-phone - Makes the mobile number required.
 * @attr {string} consent-text - When set, shows a required consent checkbox with this label; its words as shown (slotted ones included) are sent with the consent (`consentText`).
 * @attr {string} heading - Heading of the form. Default: "Enquire about this property" / "Send a message".
 * @attr {number} heading-level - Level of the heading for the page's outline (1-6, default 2).
 * @attr {string} label-name - Label of the full name field. Default "Full name".
 * @attr {string} label-email - Label of the email field. Default "Email".
 * @attr {string} label-mobile - Label of the mobile field. Default "Mobile".
 * @attr {string} label-message - Label of the message field. Default "Message".
 * @attr {string} label-optional - Marker after optional labels. Default "(optional)".
 * @attr {string} label-submit - Text of the send button. Default "Send enquiry".
 * @attr {string} hint-mobile - Hint under the mobile field. Default "An Australian, New Zealand or UK number".
 * @attr {string} error-required - Message for an empty required field.
 * @attr {string} error-email - Message for an email address that is not one.
 * @attr {string} error-mobile - Message for a phone number of the wrong form.
 * @attr {string} error-too-long - Message for a field over its length limit.
 * @attr {string} error-consent - Message for the unticked consent box.
 * @attr {string} invalid-message - Announced after a send is refused for invalid fields.
 * @attr {string} sending-message - Announced while sending. Default "Sending your enquiry…".
 * @attr {string} success-message - Shown and announced when the relay has accepted the enquiry.
 * @attr {string} error-message - Shown when the enquiry could not be sent yet (kept and retried).
 * @attr {string} rate-limited-message - Shown on a 429; `{seconds}` is replaced by the wait.
 * @attr {string} refused-message - Shown when the relay refuses the enquiry for good (not retried).
 * @attr {string} analytics - `datalayer`: also push its analytics event to `window.dataLayer` as GA4's `generate_lead`; any other value keeps it out. Default: the page's `<meta name="estate-analytics">`.
 * @attr {string} strings - JSON object of words to override (EnquiryStrings keys); the label and message attributes above are shorthands for single keys and win over it. Defaults come from its language (`lang` on it or above it, else the page's; see "Words and languages").
 *
 * @slot heading - Replaces the heading text.
 * @slot consent - Replaces the consent checkbox's label text (e.g. to add a link to a privacy policy).
 * @slot success - Replaces the success message.
 *
 * @csspart form - The form.
 * @csspart heading - The heading.
 * @csspart field - Each field's wrapper; also `field-name`, `field-email`, `field-mobile`, `field-message`, `field-consent`.
 * @csspart label - Each field's label.
 * @csspart optional - The "(optional)" marker.
 * @csspart hint - The hint under the mobile field.
 * @csspart input - Each input, the textarea and the checkbox; also `input-name`, `input-email`, … by field.
 * @csspart error - Each field's error message.
 * @csspart submit - The send button.
 * @csspart status - The live region telling sending, sent and failed.
 * @csspart setup - The note shown instead of the form while it has neither a `listing-id` nor an `agent-id` (for the page's developer; a console warning names the attribute too).
 *
 * @cssprop --estate-enquiry-max-width - Maximum width of the form (default 36rem).
 * @cssprop --estate-enquiry-padding - Padding inside the form's surface (default `--estate-space`, 1rem).
 * @cssprop --estate-enquiry-gap - Space between fields (default `--estate-space`).
 * @cssprop --estate-enquiry-target-size - Minimum height of inputs and the button (default 2.75rem).
 * @cssprop --estate-enquiry-heading-size - Font size of the heading (default 1.25rem).
 * @cssprop --estate-color-accent - Button colour (global token; also --estate-color-accent-contrast).
 * @cssprop --estate-color-danger - Error colour (global token).
 * @cssprop --estate-color-success - Success colour (global token).
 * @cssprop --estate-font-family - Font (global token; also --estate-color-text, --estate-color-border, --estate-color-surface, --estate-color-muted, --estate-radius, --estate-space).
 *
 * @fires {CustomEvent<EnquirySubmitDetail>} estate-enquiry-submit - Before the first send of a submission; cancelable (`preventDefault()` vetoes the send). No personal data in the detail.
 * @fires {CustomEvent<EnquirySuccessDetail>} estate-enquiry-success - The relay has accepted the enquiry (it is queued for the CRM).
 * @fires {CustomEvent<EnquiryErrorDetail>} estate-enquiry-error - A send failed; `detail.pending` tells whether it will be retried.
 * @fires {CustomEvent<LeadSentDetail>} estate-lead-sent - Analytics: the relay accepted the lead (`leadType` "enquiry", or the form's kind: "appraisal", "open-home", "inspection"; its originalId and listing or agent id, nothing typed; see docs/analytics.md).
 */
export class EstateEnquiry extends EstateElement {
  static override localizedSections: Section[] = ['enquiry'];
  static override styles = [resetStyles, styles];

  static override properties: PropertyDeclarations = {
    listingId: { type: Number, attribute: 'listing-id' },
    agentId: { type: Number, attribute: 'agent-id' },
    subject: {},
    message: {},
    requirePhone: { type: Boolean, attribute: 'require-phone' },
    consentText: { attribute: 'consent-text' },
    heading: {},
    headingLevel: { type: Number, attribute: 'heading-level' },
    // One word each (`label-name` for labelName, …), spelled out in the JSDoc above.
    ...Object.fromEntries(SHORTHAND_KEYS.map((key) => [key, { attribute: key.replace(/[A-Z]/g, '-$&').toLowerCase() }])),
    strings: { type: Object },
    values: { state: true },
    errors: { state: true },
    notice: { state: true },
  };

  declare listingId: number | undefined;
  declare agentId: number | undefined;
  declare subject: string | undefined;
  declare message: string;
  declare requirePhone: boolean;
  declare consentText: string | undefined;
  declare heading: string | undefined;
  declare headingLevel: number;
  // The one-word shorthands: unset until given (null once their attribute is removed).
  declare labelName: string | null | undefined;
  declare labelEmail: string | null | undefined;
  declare labelMobile: string | null | undefined;
  declare labelMessage: string | null | undefined;
  declare labelOptional: string | null | undefined;
  declare labelSubmit: string | null | undefined;
  declare hintMobile: string | null | undefined;
  declare errorRequired: string | null | undefined;
  declare errorEmail: string | null | undefined;
  declare errorMobile: string | null | undefined;
  declare errorTooLong: string | null | undefined;
  declare errorConsent: string | null | undefined;
  declare invalidMessage: string | null | undefined;
  declare sendingMessage: string | null | undefined;
  declare successMessage: string | null | undefined;
  declare errorMessage: string | null | undefined;
  declare rateLimitedMessage: string | null | undefined;
  declare refusedMessage: string | null | undefined;
  /**
   * Overrides for any of the form's words (EnquiryStrings), over those of the page's language; a
   * shorthand attribute (`label-name`, …) wins over both.
   */
  declare strings: Partial<EnquiryStrings> | null;

  /** Current field values (the inputs are bound to these). */
  declare protected values: FieldValues;
  /** Messages currently shown under fields. */
  declare protected errors: Partial<Record<string, string>>;
  /** A client-side message for the live region (e.g. "2 fields need attention"); overrides the task's. */
  declare protected notice: string;

  /** When a field's message may show (Lion's rules: touched and changed, or submitted). */
  protected readonly interaction = new FieldInteractionController<string>(this);
  /** Messages from the relay's last 400, per field, until the visitor edits that field. */
  protected serverErrors: Partial<Record<string, string>> = {};
  /** reset() was called after the last send: the status region is empty again. */
  protected statusCleared = false;
  /** Storage key the pending submission was last looked up under. */
  #checkedKey: string | undefined;
  /** The server-rendered form this one replaces, if any: its controls hold what the visitor typed. */
  #serverForm: ServerForm | undefined;
  /** Set between a submit event and the task starting, so a double click cannot slip in. */
  #submitting = false;
  /** The checks, send and kept submission (form-logic.ts), once fetched. */
  #logic: FormLogic | undefined;
  #logicLoad: Promise<FormLogic> | undefined;

  /** The send: a task run by hand (a submit, a retry), never by a property change; only ever run by the logic, so it is there. */
  #send = new FormSend<PendingEnquiry, SendOutcome>(
    this,
    (pending, signal) => this.#logic!.post(pending, signal),
    (outcome) => void this.#logic!.afterSuccess(outcome),
    (error) => void this.#logic!.afterFailure(error),
  );

  /**
   * Fetches the form's logic (once): on the first focus or input in the form, a submit, or a kept
   * submission to resume. Under widget.js the loader fetches it with its integrity checked.
   */
  #loadLogic(): Promise<FormLogic> {
    return (this.#logicLoad ??= loadElement(LOGIC, () => import('./form-logic.ts')).then(
      (module) => (this.#logic = new (module as typeof import('./form-logic.ts')).FormLogic(this as unknown as EnquiryForm, this.#send)),
    ));
  }

  /** With the logic on its way, an update is complete once the logic has had its say (a field checked, a submission restored). */
  protected override async getUpdateComplete(): Promise<boolean> {
    let complete = await super.getUpdateComplete();
    while (this.#logicLoad && !this.#logic) {
      await this.#logicLoad;
      complete = await super.getUpdateComplete();
    }
    return complete;
  }

  /** The words in use: the language's, then `strings`, then the shorthand attributes. */
  protected get text(): EnquiryStrings {
    const words = this.localize.words('enquiry', this.strings);
    const shorthands: Partial<EnquiryStrings> = {};
    for (const key of SHORTHAND_KEYS) {
      const value = this[key];
      if (typeof value === 'string') shorthands[key] = value;
    }
    return Object.keys(shorthands).length ? { ...words, ...shorthands } : words;
  }

  constructor() {
    super();
    this.message = '';
    this.requirePhone = false;
    this.headingLevel = 2;
    this.strings = null;
    this.values = this.blank();
    this.errors = {};
    this.notice = '';
  }

  /** Where the submission is kept between attempts: one slot per listing or agent. */
  get storageKey(): string | undefined {
    return pendingKey(this.target);
  }

  /** The originalId of the submission being sent or awaiting a retry, if any. */
  get pendingOriginalId(): string | undefined {
    return this.#logic?.submission.current?.request.originalId;
  }

  /** True while a send is in flight. */
  get sending(): boolean {
    return this.#send.phase === 'sending';
  }

  /** Empties the form for a new enquiry (e.g. after a success). Does not touch a pending submission. */
  reset(): void {
    this.values = this.blank();
    this.errors = {};
    this.notice = '';
    this.serverErrors = {};
    this.interaction.reset();
    if (!this.sending && !this.#logic?.submission.current) this.statusCleared = true;
    this.requestUpdate();
  }

  /**
   * A server-rendered form (server/pages) is thrown away when its code arrives (by its own
   * takeover, or the detail's around it). What the visitor typed into it meanwhile, and where the
   * caret was, goes to the form rendered in its place (firstUpdated): a slow phone loses no word.
   */
  override connectedCallback(): void {
    if (!this.renderRoot) {
      const root = this.getRootNode();
      const forms = serverForms.get(root) ?? serverForms.set(root, []).get(root)!;
      if (this.shadowRoot) forms.push([this.shadowRoot.querySelector('form'), this.shadowRoot.activeElement]);
      // One waiting for the detail around it to render takes nothing: that detail's new form does.
      if (!this.hasAttribute('defer-hydration')) this.#serverForm = forms.shift();
    }
    super.connectedCallback();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    // Next connection looks in storage again (a re-attached element resumes its submission).
    this.#checkedKey = undefined;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('message') && !this.interaction.isDirty('message') && !this.#logic?.submission.current) {
      this.values = { ...this.values, message: this.message ?? '' };
    }
    const key = this.storageKey;
    if (key && key !== this.#checkedKey && !this.sending) {
      this.#checkedKey = key;
      if (this.#logic) this.#logic.restore(key);
      else if (hasKept(key)) void this.#loadLogic().then((logic) => logic.restore(key));
    }
  }

  protected override firstUpdated(): void {
    const [serverForm, focused] = this.#serverForm ?? [];
    for (const field of this.fieldNames) {
      const typed = serverForm?.elements.namedItem(field) as HTMLInputElement | null;
      const control = this.control(field) as HTMLInputElement | null;
      if (!typed || !control) continue;
      // What the visitor changed (not the server's defaults) goes in as if typed here.
      if (typed.value !== typed.defaultValue || typed.checked !== typed.defaultChecked) {
        control.value = typed.value;
        control.checked = typed.checked;
        this.onInput({ target: control } as unknown as Event);
      }
      if (typed === focused) {
        control.focus({ preventScroll: true });
        // An email input has no caret to give (its selection is null).
        if (typed.selectionStart !== null) control.setSelectionRange(typed.selectionStart, typed.selectionEnd, typed.selectionDirection!);
      }
    }
    const missing = this.missing();
    if (missing) console.warn(`<${this.localName}> needs ${missing} to send anything: it shows a note instead of a form.`);
  }

  protected override updated(): void {
    // The controls show `values` after every render, also where they and the visitor's input
    // parted: the one place their value and checked state are set (no property binding, whose
    // last written value Lit compares with, not the control's: a date-time half retyped, empty for
    // a moment, would have been written back as empty over its other segments; Lit's live
    // directive, which did this before, cost its chunks and the detail's about 350 gzip bytes).
    // A field with no value yet (a lead form's own fields start absent) shows empty, not "undefined".
    for (const field of this.fieldNames) {
      const control = this.control(field) as HTMLInputElement | null;
      const key = control?.type === 'checkbox' ? 'checked' : 'value';
      const shown = this.values[field] ?? (key === 'checked' ? false : '');
      if (control && control[key] !== shown) (control[key] as unknown) = shown;
    }
    this.#logic?.resume();
  }

  override render(): TemplateResult {
    const missing = this.missing();
    // Nothing it could send: a note for the page's developer, never a form taking typing it cannot deliver.
    if (missing) return html`<p part="setup" class="setup">&lt;${this.localName}&gt; is not set up: give it ${missing}.</p>`;
    const sent = this.#phase() === 'sent';
    const level = Math.min(6, Math.max(1, Math.trunc(this.headingLevel) || 2));
    const heading = this.heading ?? this.headingText();
    // Rendered on a server, the button sends nothing before the code has come (nor does Enter,
    // with no submit button): the form has no action, so the browser would navigate, putting the
    // visitor's details in the URL and losing them. The browser's render makes it a submit button.
    return html`
      <form
        part="form"
        novalidate
        aria-labelledby="heading"
        ?hidden=${sent || this.formWithdrawn()}
        @submit=${this.#onSubmit}
        @focusin=${this.#onStart}
        @input=${this.#onStart}
      >
        <div part="heading" class="heading" id="heading" role="heading" aria-level=${level}>
          <slot name="heading">${heading}</slot>
        </div>
        ${this.renderFields()}
        <div class="trap" aria-hidden="true" inert>
          <label for="website">Website (leave empty)</label>
          <input id="website" name="website" type="text" tabindex="-1" autocomplete="off" />
        </div>
        <button part="submit" type=${isServer ? 'button' : 'submit'} aria-disabled=${this.sending ? 'true' : 'false'}>${this.submitText()}</button>
      </form>
      <div part="status" class="status" id="status" role="status" tabindex="-1" data-state=${this.#phase()}>${this.#statusContent()}</div>
    `;
  }

  // ---- what a kind of lead changes (the other lead forms extend this one) ----------------------

  /** The heading when the `heading` attribute gives none. */
  protected headingText(): string {
    return this.listingId === undefined && this.agentId !== undefined ? this.text.headingAgent : this.text.headingListing;
  }

  /** The button's words. */
  protected submitText(): string {
    return this.text.labelSubmit;
  }

  /** The form's fields between the heading and the button: who to answer, then the kind's own. */
  protected renderFields(): unknown {
    return html`${this.contactFields()} ${this.messageField()} ${this.consentText !== undefined ? this.consentField() : nothing}`;
  }

  /** The visible fields in order (the request's names: the relay's `fields` map onto them). */
  protected get fieldNames(): readonly string[] {
    return FIELD_ORDER;
  }

  /** The empty form (after a success, or reset()). */
  protected blank(): FieldValues {
    return { fullName: '', email: '', mobile: '', message: this.message, consent: false };
  }

  /** The form's values again from a kept submission (field names are the request's). */
  protected restore(request: EnquiryRequest): FieldValues {
    const kept = request as unknown as Record<string, unknown>;
    const values = this.blank();
    for (const field of this.fieldNames) if (kept[field] !== undefined) values[field] = typeof kept[field] === 'boolean' ? kept[field] : String(kept[field]);
    return values;
  }

  /** What the form is about, as its storage key says it ('listing:42'); undefined: nothing to send to. */
  protected get target(): string | undefined {
    const id = this.#target();
    return id.listingId !== undefined ? `listing:${id.listingId}` : id.agentId !== undefined ? `agent:${id.agentId}` : undefined;
  }

  /** The attribute(s) it still needs, for the note shown instead of the form; undefined when set up. */
  protected missing(): string | undefined {
    return this.target ? undefined : 'a listing-id or an agent-id';
  }

  /** The request for this kind of lead, from the fields every lead has. */
  protected lead(contact: LeadContactFields): EnquiryRequest {
    return { ...contact, ...this.#target(), ...(this.subject ? { subject: this.subject } : {}), message: String(this.values.message).trim() };
  }

  /** The relay's path this kind of lead is posted to. */
  protected get endpoint(): string {
    return 'api/v1/enquiries';
  }

  /** What the analytics event calls the lead sent: its kind (a question when none). */
  protected leadType(sent: EnquiryRequest | undefined): LeadType {
    return sent?.kind ?? 'enquiry';
  }

  /** A message for a field the browser's own checks pass but the kind's rules do not (a time in the past). */
  protected fieldProblem(_field: string, _value: string): string | undefined {
    return undefined;
  }

  /** The relay's 2xx answer to `request`, before the success is shown (a kind whose words follow the answer keeps what it needs). */
  protected accepted(_answer: unknown, _request: EnquiryRequest): void {}

  /** A send failed (`error`: a RelayError when the relay answered), before the failure is shown and its event fired. */
  protected refused(_error: unknown): void {}

  /** The form is taken away although nothing was sent (the relay no longer takes this kind of lead); the status stays. */
  protected formWithdrawn(): boolean {
    return false;
  }

  /** What the status says once the relay has the lead. */
  protected successContent(): unknown {
    return html`<slot name="success">${this.text.successMessage}</slot>`;
  }

  /** Name, e-mail and mobile: how to answer the visitor. */
  protected contactFields(): TemplateResult {
    return html`${this.textField('fullName', 'name', this.text.labelName, {
      type: 'text',
      autocomplete: 'name',
      required: true,
      maxlength: 100,
    })}
    ${this.textField('email', 'email', this.text.labelEmail, {
      type: 'email',
      autocomplete: 'email',
      inputmode: 'email',
      required: true,
      maxlength: 254,
    })}
    ${this.textField('mobile', 'mobile', this.text.labelMobile, {
      type: 'tel',
      autocomplete: 'tel',
      inputmode: 'tel',
      required: this.requirePhone,
      maxlength: 24,
      hint: this.text.hintMobile,
    })}`;
  }

  protected textField(
    field: string,
    partName: string,
    label: string,
    options: {
      type: string;
      autocomplete: string;
      inputmode?: string;
      required: boolean;
      maxlength?: number;
      hint?: string;
      min?: string;
      max?: string;
      list?: string;
    },
  ): TemplateResult {
    const error = this.errors[field];
    const describedBy = [options.hint ? `${field}-hint` : '', error ? `${field}-error` : ''].filter(Boolean).join(' ');
    return html`
      <div part="field field-${partName}" class="field">
        <label part="label" for=${field}>
          ${label}${options.required ? nothing : html`<span part="optional" class="optional">${optional(this.text.labelOptional)}</span>`}
        </label>
        ${options.hint ? html`<p part="hint" class="hint" id="${field}-hint">${options.hint}</p>` : nothing}
        <input
          part="input input-${partName}"
          id=${field}
          name=${field}
          type=${options.type}
          autocomplete=${options.autocomplete}
          inputmode=${ifDefined(options.inputmode)}
          maxlength=${ifDefined(options.maxlength)}
          min=${ifDefined(options.min)}
          max=${ifDefined(options.max)}
          list=${ifDefined(options.list)}
          ?required=${options.required}
          ?readonly=${this.sending}
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${ifDefined(describedBy || undefined)}
          @input=${this.onInput}
          @blur=${this.onBlur}
        />
        ${this.errorNode(field)}
      </div>
    `;
  }

  /** The message: required for a question, optional (`required` false) for the other kinds. */
  protected messageField(required = true): TemplateResult {
    const error = this.errors.message;
    return html`
      <div part="field field-message" class="field">
        <label part="label" for="message"
          >${this.text.labelMessage}${required ? nothing : html`<span part="optional" class="optional">${optional(this.text.labelOptional)}</span>`}</label
        >
        <textarea
          part="input input-message"
          id="message"
          name="message"
          rows="5"
          maxlength="5000"
          ?required=${required}
          ?readonly=${this.sending}
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${ifDefined(error ? 'message-error' : undefined)}
          @input=${this.onInput}
          @blur=${this.onBlur}
        ></textarea>
        ${this.errorNode('message')}
      </div>
    `;
  }

  protected consentField(label = this.consentText): TemplateResult {
    const error = this.errors.consent;
    return html`
      <div part="field field-consent" class="field consent">
        <input
          part="input input-consent"
          id="consent"
          name="consent"
          type="checkbox"
          required
          aria-invalid=${error ? 'true' : 'false'}
          aria-describedby=${ifDefined(error ? 'consent-error' : undefined)}
          @change=${this.onInput}
          @blur=${this.onBlur}
        />
        <label part="label" for="consent"><slot name="consent">${label}</slot></label>
        ${this.errorNode('consent')}
      </div>
    `;
  }

  protected errorNode(field: string): TemplateResult {
    const error = this.errors[field];
    return html`<p part="error" class="error" id="${field}-error" ?hidden=${!error}>${error ?? ''}</p>`;
  }

  #phase(): 'idle' | 'invalid' | 'sending' | 'sent' | 'failed' {
    if (this.notice) return 'invalid';
    if (this.statusCleared) return 'idle';
    return this.#send.phase;
  }

  #statusContent(): unknown {
    if (this.notice) return this.notice;
    if (this.statusCleared) return nothing;
    const phase = this.#send.phase;
    if (phase === 'sending') return this.text.sendingMessage;
    if (phase === 'sent') return this.successContent();
    // A send failed: the logic sent it, so it is there.
    return phase === 'failed' ? this.#logic!.failureText(this.#send.error) : undefined;
  }

  protected control(field: string): HTMLInputElement | HTMLTextAreaElement | null {
    return this.renderRoot.querySelector<HTMLInputElement | HTMLTextAreaElement>(`#${field}`);
  }

  protected onInput = (event: Event): void => {
    const control = event.target as HTMLInputElement | HTMLTextAreaElement;
    const field = control.name;
    const value = control instanceof HTMLInputElement && control.type === 'checkbox' ? control.checked : control.value;
    this.values = { ...this.values, [field]: value };
    delete this.serverErrors[field];
    this.notice = '';
    // Once shown, a message follows what the visitor types.
    if (this.interaction.changed(field, Boolean(this.errors[field]))) this.#validate(field, control);
  };

  protected onBlur = (event: Event): void => {
    const control = event.target as HTMLInputElement | HTMLTextAreaElement;
    const field = control.name;
    if (this.interaction.left(field)) this.#validate(field, control);
  };

  /** The visitor has started on the form: its logic is fetched now, so a check or a send need not wait for it. */
  #onStart = (): void => void this.#loadLogic();

  /** Checks the field (form-logic.ts validate), at once when the logic is there, else once it has come. */
  #validate(field: string, control: HTMLInputElement | HTMLTextAreaElement): void {
    if (this.#logic) this.#logic.validate(field, control);
    else void this.#loadLogic().then((logic) => logic.validate(field, control));
  }

  #target(): { listingId?: number; agentId?: number } {
    if (this.listingId !== undefined && Number.isFinite(this.listingId)) return { listingId: this.listingId };
    if (this.agentId !== undefined && Number.isFinite(this.agentId)) return { agentId: this.agentId };
    return {};
  }

  #onSubmit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault();
    // A double click or a second Enter while a send is in flight: the first send stands.
    if (this.sending || this.#submitting) return;
    this.#submitting = true;
    try {
      await (await this.#loadLogic()).submit();
    } finally {
      this.#submitting = false;
    }
  };
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-enquiry': EstateEnquiry;
  }
  interface GlobalEventHandlersEventMap {
    'estate-enquiry-submit': CustomEvent<EnquirySubmitDetail>;
    'estate-enquiry-success': CustomEvent<EnquirySuccessDetail>;
    'estate-enquiry-error': CustomEvent<EnquiryErrorDetail>;
  }
}
