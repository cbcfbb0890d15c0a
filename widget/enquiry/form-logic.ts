/**
 * What an enquiry form (and every lead form built on it) does once a visitor starts on it: checks
 * the fields, sends, keeps a submission that has not reached the relay and tries it again. Fetched
 * on the form's first focus, input or submit, or when a kept submission waits on this device
 * (enquiry.ts), not with the form: a page that only shows forms does not pay for it (issue 33).
 * Under widget.js the loader fetches it as the manifest's `estate-enquiry-logic`, integrity checked.
 *
 * It imports nothing from enquiry.ts (one module would then be two halves of a cycle): the form
 * hands itself over as an EnquiryForm.
 */
import type { ReactiveControllerHost } from 'lit';
import type { FormSend } from './form-send.ts';
import type { EnquiryAccepted, EnquiryRequest } from '../../contract/relay-api.ts';
import { isPhoneNumber } from '../../contract/phone.ts';
import { nameProblem } from '../../contract/name.ts';
import { RelayError, fetchJson, relayUrl } from '../shared/relay.ts';
import { langOf } from '../shared/translations.ts';
import { fill } from '../shared/fill.ts';
import type { FieldInteractionController } from '../shared/field-interaction.ts';
import type { DataLayerEntry, LeadSentDetail, LeadType } from '../shared/analytics.ts';
import { generateLead, leadOrigin, withinLeadLimit } from '../shared/leads.ts';
import { consentText } from '../shared/consent-text.ts';
import { msSinceVisitStart } from '../shared/visit-start.ts';
import { newOriginalId, type PendingEnquiry } from './pending-store.ts';
import { PendingSubmissionController } from './pending-submission.ts';
import type { EnquiryStrings } from './strings.ts';
import type { EnquiryErrorDetail, EnquirySubmitDetail, EnquirySuccessDetail, FieldValues, LeadContactFields, SendOutcome } from './types.ts';

/** The form as its logic sees it: `<estate-enquiry>`'s state and the hooks its kinds override. */
export interface EnquiryForm extends HTMLElement, ReactiveControllerHost {
  values: FieldValues;
  errors: Partial<Record<string, string>>;
  notice: string;
  /** Messages from the relay's last 400, per field, until the visitor edits that field. */
  serverErrors: Partial<Record<string, string>>;
  /** reset() was called after the last send: the status region is empty again. */
  statusCleared: boolean;
  readonly interaction: FieldInteractionController<string>;
  readonly text: EnquiryStrings;
  readonly fieldNames: readonly string[];
  readonly storageKey: string | undefined;
  readonly consentText: string | undefined;
  readonly relay: string | null;
  readonly endpoint: string;
  readonly sending: boolean;
  readonly renderRoot: HTMLElement | DocumentFragment;
  control(field: string): HTMLInputElement | HTMLTextAreaElement | null;
  blank(): FieldValues;
  restore(request: EnquiryRequest): FieldValues;
  lead(contact: LeadContactFields): EnquiryRequest;
  accepted(answer: unknown, request: EnquiryRequest): void;
  refused(error: unknown): void;
  leadType(sent: EnquiryRequest | undefined): LeadType;
  fieldProblem(field: string, value: string): string | undefined;
  emit<T>(name: `estate-${string}`, detail: T, cancelable?: boolean): boolean;
  track<T>(name: `estate-${string}`, detail: T, dataLayer: DataLayerEntry[]): void;
}

/** The form's send: a task run by hand (a submit, a retry), never by a property change. */
export type SendTask = FormSend<PendingEnquiry, SendOutcome>;

/** A relay answer that will never change on retry: the submission is dropped, not kept. */
function isDefinitive(error: unknown): boolean {
  return error instanceof RelayError && error.status >= 400 && error.status < 500 && error.status !== 429 && error.status !== 408;
}

// Chromium's type=email accepts "name@host"; the relay (and every real mailbox) wants a domain with a dot.
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SEND_TIMEOUT_MS = 30_000;

function timeoutSignal(signal: AbortSignal, ms: number): AbortSignal {
  const timeout = AbortSignal.timeout(ms);
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([signal, timeout]);
  const controller = new AbortController();
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, { once: true });
  timeout.addEventListener('abort', abort, { once: true });
  return controller.signal;
}

/** Seconds from a Retry-After header (seconds or an HTTP date), or undefined. */
function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** The `suggestions` of a relay's 400 (lists of names by field), when it sent any. */
function relaySuggestions(error: unknown): { suggestions?: Record<string, string[]> } {
  const body = error instanceof RelayError ? (error.body as { suggestions?: unknown } | undefined) : undefined;
  const given = body?.suggestions;
  if (typeof given !== 'object' || given === null) return {};
  const suggestions = Object.fromEntries(
    Object.entries(given).map(([field, names]) => [field, Array.isArray(names) ? names.filter((name): name is string => typeof name === 'string') : []]),
  );
  return { suggestions };
}

/** One form's checks, send and kept submission. */
export class FormLogic {
  /** Where the submission being sent is kept (its form's storage key when it was sent). */
  #keptKey: string | undefined;
  /** A pending submission found in storage, to resume once rendered. */
  #resume: PendingEnquiry | undefined;
  /** Wait announced with a 429, in seconds. */
  #retryAfterSeconds = 0;
  /**
   * The submission being sent or waiting for a retry: kept, retried with backoff and when back
   * online, at the controller's default timing (5 s growing to 5 min; a Retry-After up to 10 min).
   */
  readonly submission: PendingSubmissionController;

  constructor(
    readonly form: EnquiryForm,
    readonly send: SendTask,
  ) {
    this.submission = new PendingSubmissionController(form, {
      resend: (pending) => void send.run(pending),
      canResend: () => !form.sending && form.isConnected,
    });
  }

  /** Looks for a submission kept under `key` (an earlier page's): the form shows it and sends it again once rendered. */
  restore(key: string): void {
    const stored = this.submission.restore(key);
    if (stored) {
      this.#resume = stored;
      this.form.values = this.form.restore(stored.request);
    }
  }

  /** After a render: sends the kept submission restore() found. */
  resume(): void {
    const resume = this.#resume;
    if (resume) {
      this.#resume = undefined;
      void this.send.run(resume);
    }
  }

  /** The consent box only exists when consent-text is set. */
  #fieldShown(field: string): boolean {
    return field !== 'consent' || this.form.control(field) !== null;
  }

  /** Sets the browser's validity for our extra rules, then shows (or clears) the field's message. */
  validate(field: string, control = this.form.control(field)): boolean {
    if (!control) return true;
    const { form } = this;
    const text = form.text;
    control.setCustomValidity('');
    const value = control.value.trim();
    const server = form.serverErrors[field];
    if (server) {
      control.setCustomValidity(server);
    } else if (field === 'email' && value && !control.validity.typeMismatch && !EMAIL_SHAPE.test(value)) {
      control.setCustomValidity(text.errorEmail);
    } else if (field === 'mobile' && value && !isPhoneNumber(value)) {
      control.setCustomValidity(text.errorMobile);
    } else if (control.required && control.type !== 'checkbox' && !value && control.value) {
      // Only spaces: the browser counts that as filled in, the relay does not.
      control.setCustomValidity(text.errorRequired);
    } else if (field === 'fullName' && value && nameProblem(value) === 'no_letter') {
      // Only invisible characters, dots or digits: as good as empty, and the relay refuses it.
      control.setCustomValidity(text.errorRequired);
    } else if (value) {
      control.setCustomValidity(form.fieldProblem(field, value) ?? '');
    }
    const validity = control.validity;
    let message: string | undefined;
    if (validity.valid) message = undefined;
    else if (validity.customError) message = control.validationMessage;
    else if (validity.valueMissing) message = field === 'consent' ? text.errorConsent : text.errorRequired;
    else if (validity.typeMismatch) message = text.errorEmail;
    else if (validity.tooLong) message = text.errorTooLong;
    else message = control.validationMessage;
    if (message !== form.errors[field]) form.errors = { ...form.errors, [field]: message };
    return validity.valid;
  }

  /** A submit: every field checked (focus to the first invalid one), the submission kept, then sent. */
  async submit(): Promise<void> {
    const { form } = this;
    form.interaction.submit();
    form.notice = '';
    await form.updateComplete;

    const invalid = form.fieldNames.filter((field) => !this.validate(field));
    if (invalid.length > 0) {
      form.notice = form.text.invalidMessage;
      await form.updateComplete;
      form.control(invalid[0]!)?.focus();
      return;
    }

    const key = form.storageKey;
    if (!key) {
      form.notice = form.text.refusedMessage;
      return;
    }

    // A retry keeps the originalId (and the timing) of the first send; an edited retry of a
    // submission that in fact arrived gets a 409, which we treat as "already received".
    const previous = this.submission.current?.request;
    const values = form.values as Record<string, string>;
    // The consent box's words go with it wherever one is shown (the lead forms always show one).
    const consentWords = consentText(form.renderRoot);
    const request = withinLeadLimit(
      form.lead({
        originalId: previous?.originalId ?? newOriginalId(),
        fullName: values.fullName!.trim(),
        email: values.email!.trim(),
        ...(values.mobile!.trim() ? { mobile: values.mobile!.trim() } : {}),
        ...(form.consentText !== undefined ? { consent: form.values.consent === true } : {}),
        ...(consentWords !== undefined ? { consentText: consentWords } : {}),
        website: form.renderRoot.querySelector<HTMLInputElement>('#website')?.value ?? '',
        elapsedMs: previous?.elapsedMs ?? msSinceVisitStart(),
        ...leadOrigin(),
      }),
    );

    if (!previous) {
      const proceed = form.emit<EnquirySubmitDetail>(
        'estate-enquiry-submit',
        {
          originalId: request.originalId,
          ...('listingId' in request && request.listingId !== undefined ? { listingId: request.listingId } : {}),
          ...('agentId' in request && request.agentId !== undefined ? { agentId: request.agentId } : {}),
          ...('subject' in request && request.subject ? { subject: request.subject } : {}),
          ...(request.consent !== undefined ? { consent: request.consent } : {}),
        },
        true,
      );
      if (!proceed) return;
    }

    const pending = { request, savedAt: this.submission.current?.savedAt ?? Date.now() };
    this.#keptKey = key;
    this.submission.keep(key, pending);
    void this.send.run(pending);
  }

  /** The send task's work: the kept submission posted to the relay. */
  async post(pending: PendingEnquiry, signal: AbortSignal): Promise<SendOutcome> {
    const { form } = this;
    this.submission.sending();
    form.notice = '';
    form.statusCleared = false;
    const url = relayUrl(form.relay, form.endpoint);
    try {
      const accepted = await fetchJson<EnquiryAccepted>(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(pending.request),
        signal: timeoutSignal(signal, SEND_TIMEOUT_MS),
        credentials: 'omit',
      });
      form.accepted(accepted, pending.request);
      return { originalId: accepted?.originalId ?? pending.request.originalId, status: 'queued', alreadyReceived: false };
    } catch (error) {
      // 409: this originalId was accepted before with other details (an edited retry of a send
      // whose answer was lost). The first version is the lead; do not create a second one.
      if (error instanceof RelayError && error.status === 409) {
        form.accepted(undefined, pending.request);
        return { originalId: pending.request.originalId, status: 'queued', alreadyReceived: true };
      }
      throw error;
    }
  }

  async afterSuccess(outcome: SendOutcome): Promise<void> {
    const { form } = this;
    // Called before the form is hidden: is the visitor's focus in it (they pressed the button)?
    const focusWasInside = (form.renderRoot as ShadowRoot).activeElement !== null;
    const sent = this.submission.current?.request;
    this.submission.settle(this.#keptKey ?? form.storageKey);
    form.values = form.blank();
    form.serverErrors = {};
    form.errors = {};
    form.interaction.reset();
    form.emit<EnquirySuccessDetail>('estate-enquiry-success', { originalId: outcome.originalId });
    // Every kind of lead form sends through here: the event names the kind it sent.
    const lead: LeadSentDetail = {
      leadType: form.leadType(sent),
      originalId: outcome.originalId,
      ...(sent && 'listingId' in sent && sent.listingId !== undefined ? { listingId: sent.listingId } : {}),
      ...(sent && 'agentId' in sent && sent.agentId !== undefined ? { agentId: sent.agentId } : {}),
    };
    form.track('estate-lead-sent', lead, [generateLead(lead)]);
    await form.updateComplete;
    // The form is gone: keep keyboard and screen-reader users where the result is.
    if (focusWasInside) form.renderRoot.querySelector<HTMLElement>('#status')?.focus();
  }

  async afterFailure(error: unknown): Promise<void> {
    const { form } = this;
    const pending = this.submission.current;
    if (!pending) return;
    const definitive = isDefinitive(error);
    form.refused(error);
    const status = error instanceof RelayError ? error.status : 0;
    const fields = error instanceof RelayError ? error.fields : {};
    if (definitive) {
      this.submission.settle(this.#keptKey ?? form.storageKey);
    } else {
      const wait = this.submission.failed(status === 429 ? (retryAfterMs((error as RelayError).retryAfter) ?? 60_000) : undefined);
      this.#retryAfterSeconds = Math.ceil(wait / 1000);
    }

    if (status === 400) {
      form.serverErrors = {};
      for (const field of form.fieldNames) {
        const message = fields[field];
        if (message && this.#fieldShown(field)) form.serverErrors[field] = this.#refusal(field, message);
      }
      form.interaction.submit();
      // Render the settled state first: while sending the inputs are read-only, and the browser
      // does not validate read-only inputs.
      form.requestUpdate();
      await form.updateComplete;
      const invalid = form.fieldNames.filter((field) => !this.validate(field));
      await form.updateComplete;
      if (invalid.length > 0) form.control(invalid[0]!)?.focus();
    }

    form.emit<EnquiryErrorDetail>('estate-enquiry-error', {
      status,
      message: error instanceof Error ? error.message : String(error),
      fields,
      ...relaySuggestions(error),
      originalId: pending.request.originalId,
      pending: !definitive,
    });
    form.requestUpdate();
  }

  /**
   * What a field the relay refused says: the relay's message (English, and the most precise) on
   * an English form; in another language the form's own words for that field, which the visitor
   * reads (the relay's stay in the error event's `fields` for the page's developer).
   */
  #refusal(field: string, message: string): string {
    if (/^en(-(?!xa)|$)/i.test(langOf(this.form))) return message;
    const text = this.form.text;
    return field === 'email' ? text.errorEmail : field === 'mobile' ? text.errorMobile : text.errorRefused;
  }

  /** What the status region says after a failed send. */
  failureText(error: unknown): string {
    const text = this.form.text;
    if (error instanceof RelayError) {
      if (error.status === 429) return fill(text.rateLimitedMessage, { seconds: this.#retryAfterSeconds });
      if (error.status === 400) {
        // Messages on visible fields are shown there; the rest (a page author's mistake such as a
        // too-long subject attribute) can only be told here.
        const shown = (field: string) => this.form.fieldNames.includes(field) && this.#fieldShown(field);
        const mapped = Object.keys(error.fields).some(shown);
        const unmapped = Object.entries(error.fields)
          .filter(([field]) => !shown(field))
          .map(([, message]) => message);
        if (mapped && unmapped.length === 0) return text.invalidMessage;
        return [mapped ? text.invalidMessage : text.refusedMessage, ...(unmapped.length > 0 ? unmapped : [error.message])].join(' ');
      }
      if (isDefinitive(error)) return text.refusedMessage;
    }
    return text.errorMessage;
  }
}
