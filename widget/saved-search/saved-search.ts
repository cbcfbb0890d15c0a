import { css, html, nothing, type PropertyDeclarations } from 'lit';
import { Task, TaskStatus } from '@lit/task';
import { formatBoundingBox, listItems, parseBoundingBox } from '../../contract/listing-filters.ts';
import { canonicalArea } from '../../contract/drawn-area.ts';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import { AREA_SUBURBS_MAX, suburbKey, withSurrounding, type AreaSuburbs } from '../../contract/saved-search-area.ts';
import {
  SAVED_SEARCH_FILTER_NAMES,
  type SavedSearchAccepted,
  type SavedSearchConfirmation,
  type SavedSearchFilters,
  type SavedSearchOptions,
  type SavedSearchRequest,
} from '../../contract/saved-search.ts';
import type { EnquiryErrorDetail, LeadContactFields } from '../enquiry/enquiry.ts';
import { RelayError, relayBase, relayUrl } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';
import { LeadForm } from '../lead-form/lead-form.ts';
import type { LeadType } from '../shared/analytics.ts';
import type { Sections } from '../shared/localize.ts';
import { LocalizeController } from '../shared/translations.ts';
import { alertOptions, alertsNoLongerOffered } from '../shared/alert-options.ts';
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
  // Several suburbs chosen ("Kew,Hawthorn"): the requirement's list, as a map area's are sent.
  if (typeof kept.suburb === 'string' && kept.suburb.includes(',')) {
    kept.suburbs = kept.suburb.split(',');
    delete kept.suburb;
  }
  return kept as SavedSearchFilters;
}

/**
 * The map area a query follows, as the query of `GET /api/v1/suburbs` (`area=…` for a drawn
 * outline, else `bbox=…`, canonical), or undefined: none, a bad one, or a suburb chosen by name
 * (then the suburb is the search's place; the requirement holds one list).
 */
export function areaOf(query: Record<string, unknown> | null | undefined): string | undefined {
  const suburb = query?.suburb;
  if (typeof suburb === 'string' && suburb.trim() !== '') return undefined;
  const drawn = typeof query?.area === 'string' ? canonicalArea(query.area) : undefined;
  if (drawn !== undefined) return `area=${encodeURIComponent(drawn)}`;
  const bbox = query?.bbox;
  if (typeof bbox !== 'string') return undefined;
  const box = parseBoundingBox(bbox);
  return typeof box === 'string' ? undefined : `bbox=${encodeURIComponent(formatBoundingBox(box))}`;
}

/**
 * The chosen suburbs when the query includes the suburbs around them ("include surrounding
 * suburbs", `surrounding`), canonical and comma-separated, or undefined.
 */
export function surroundedOf(query: Record<string, unknown> | null | undefined): string | undefined {
  const suburb = query?.suburb;
  if (query?.surrounding !== 'true' || typeof suburb !== 'string') return undefined;
  const names = listItems(suburb);
  return names.length > 0 ? names.join(',') : undefined;
}

/** A suburb the relay refused (its field, the name sent, the relay's message and close names). */
interface RefusedSuburb {
  field: string;
  name: string;
  message: string;
  suggestions: string[];
}

/**
 * "Get alerts for this search": a visitor leaves a name, an e-mail address, optionally a mobile,
 * and their consent, and the relay saves the search (`search`: the list's filters) with the agency's
 * CRM as a contact with a buying or renting requirement, which agents match new listings against.
 * `<estate-listings>` renders it under its filter bar when the visitor asks (its code is fetched
 * then); a page may also place it itself with a `search`.
 *
 * With "include surrounding suburbs" (`surrounding: 'true'` beside the suburbs) the suburbs around
 * the chosen ones are asked of the relay (`GET /api/v1/suburbs?around=`), named in the summary and
 * sent with them, 12 in all (the requirement holds suburbs, not "and around").
 * A map area (`bbox`, or a drawn `area`, in the search, with no suburb chosen) is followed as the suburbs it covers,
 * asked of the relay (`GET /api/v1/suburbs?bbox=` or `?area=`, contract/saved-search-area.ts) and named in the
 * summary before sending: at most 12 (AREA_SUBURBS_MAX), the rest counted and said. The form does not
 * send until they are known. A suburb the agency's CRM does not know is refused by the relay (400);
 * its message and the close names it offers show under the summary, each a button that takes it.
 *
 * It asks the relay whether it offers alerts (`GET /api/v1/saved-searches/options`) when it first
 * connects: where it does not, it shows a note for the site's developer instead of a form. It sends
 * the consent box's words as shown (`consentText`) and the page, and after a 202 says what happens
 * next as the relay confirms (a link e-mailed to the address typed, or the agency in touch).
 *
 * Sending, keeping and retrying are the enquiry form's: the submission keeps its `originalId` across
 * retries and reloads until the relay has it (one kept submission per page origin), so it is saved
 * once.
 *
 * @summary "Get alerts for this search" form: the search goes to the agency's CRM exactly once.
 *
 * @attr {string} relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr {string} search - JSON object of the listing filters to follow (`type`, `suburb`, `minPrice`, `maxPrice`, `minBeds`, `minBaths`, `minCars`, `propertyType`, `minLand`, `surrounding`: the suburbs around the chosen ones too, and `bbox` or `area`: a map area or a drawn one, followed as the suburbs it covers; others are ignored). `<estate-listings>` and `<estate-map>` set it to their current filters.
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
 * @slot success - Replaces the success message (which otherwise says how the relay confirms the search: an e-mailed link, or the agency).
 *
 * @csspart form - The form.
 * @csspart heading - The heading.
 * @csspart summary - The search in words.
 * @csspart area-note - What the summary says of a map area's suburbs past the cap, or why none are known.
 * @csspart search-error - A suburb the agency does not know: the relay's message and its suggestions.
 * @csspart suggestion - Each suggested suburb (a button taking it in place of the refused one).
 * @csspart field - Each field's wrapper; also `field-name`, `field-email`, `field-mobile`, `field-consent`.
 * @csspart label - Each field's label.
 * @csspart optional - The "(optional)" marker.
 * @csspart hint - The hint under the mobile field.
 * @csspart input - Each input and the checkbox; also `input-<field>`.
 * @csspart error - Each field's error message.
 * @csspart submit - The send button.
 * @csspart status - The live region telling sending, sent and failed.
 * @csspart setup - The note shown instead of the form where the relay does not offer alerts (for the page's developer; a console warning names the relay's settings too).
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

      .summary,
      .area-note {
        margin: 0;
      }

      .suggestions {
        display: flex;
        flex-wrap: wrap;
        gap: 0.25rem 0.5rem;
        align-items: baseline;
      }

      .suggestion {
        font: inherit;
        padding: 0.125rem 0.5rem;
        border: 1px solid currentColor;
        border-radius: var(--estate-radius, 0.25rem);
        background: transparent;
        color: inherit;
        cursor: pointer;
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

  readonly #savedSearchWords = new LocalizeController<Sections>(this, ['savedSearch']);
  /** Asks again after a failure (a send while it had failed). */
  #areaAttempt = 0;
  /** A refused suburb's name (its key) → the suggestion the visitor took in its place. */
  readonly #taken = new Map<string, string>();
  /** Suburbs the relay refused in the last send, shown under the summary. */
  #refused: RefusedSuburb[] = [];
  /** The search of the last send (the names a refusal's field indexes). */
  #sentSearch: SavedSearchFilters | undefined;
  /** How the relay confirms the search it accepted (its 202), and the address it was sent for: the success words follow them. */
  #confirmation: SavedSearchConfirmation | undefined;
  #confirmedEmail = '';
  /** A send was answered 403 `alerts_not_offered`: the form is withdrawn, the visitor told, the developer shown why. */
  #withdrawn: Pick<SavedSearchOptions, 'setup'> | undefined;

  /** Whether the relay offers alerts, asked when the form first connects (once per relay per page, shared with the filter bar). */
  readonly #options = new Task(this, {
    task: ([relay]) => alertOptions(relay),
    args: () => [this.relay] as const,
    onComplete: (options) => {
      if (options?.offered === false) this.#warnNotOffered(options.setup);
    },
  });

  /** The suburbs of the map area the search follows (none without one). */
  readonly #area = new Task(this, {
    task: async ([relay, area], { signal }): Promise<AreaSuburbs | undefined> =>
      area === undefined ? undefined : fetchJsonOnceFilled<AreaSuburbs>(`${relayUrl(relay, 'api/v1/suburbs')}?${area}`, { signal }),
    args: () => [this.relay, areaOf(this.search), this.#areaAttempt] as const,
  });

  /** The suburbs around the chosen ones, with "include surrounding suburbs" (none without it). */
  readonly #around = new Task(this, {
    task: async ([relay, chosen], { signal }): Promise<AreaSuburbs | undefined> =>
      chosen === undefined
        ? undefined
        : fetchJsonOnceFilled<AreaSuburbs>(`${relayUrl(relay, 'api/v1/suburbs')}?around=${encodeURIComponent(chosen)}`, { signal }),
    args: () => [this.relay, surroundedOf(this.search), this.#areaAttempt] as const,
  });

  constructor() {
    super();
    this.search = null;
    this.locale = null;
    this.currency = null;
    // Not sent before a map area's suburbs are known: without them the alert would be about every home of the agency.
    this.addEventListener('estate-enquiry-submit', (event) => {
      const problem = this.#areaProblem();
      if (!problem) return;
      event.preventDefault();
      this.notice = problem;
      if (this.#area.status === TaskStatus.ERROR || this.#around.status === TaskStatus.ERROR) {
        this.#areaAttempt++;
        this.requestUpdate();
      }
    });
    this.addEventListener('estate-enquiry-error', (event) => void this.#onRefusal(event.detail));
  }

  /** The relay does not offer alerts (its options said so, or a send was refused for it): what it said to set up; undefined while it does, or could not be asked. */
  #notOffered(): Pick<SavedSearchOptions, 'setup'> | undefined {
    if (this.#withdrawn) return this.#withdrawn;
    const options = this.#options.value;
    return this.#options.status === TaskStatus.COMPLETE && options?.offered === false ? options : undefined;
  }

  #warnNotOffered(setup: string | undefined): void {
    console.warn(`<${this.localName}> shows no form: ${this.#setupNote(setup)}`);
  }

  /** For the site's developer (the relay's `setup` names its settings; never personal data). */
  #setupNote(setup: string | undefined): string {
    return `the relay at ${relayBase(this.relay)} does not offer alerts.${setup ? ` ${setup}` : ''}`;
  }

  /**
   * Not offered: a note for the site's developer instead of a form (as the enquiry form without a
   * listing). Withdrawn after a send: the form's live region stays, telling the visitor in plain
   * words that nothing was kept.
   */
  override render(): ReturnType<LeadForm['render']> {
    const notOffered = this.#notOffered();
    if (!notOffered) return super.render();
    const note = html`<p part="setup" class="setup">&lt;${this.localName}&gt; is not set up: ${this.#setupNote(notOffered.setup)}</p>`;
    return this.#withdrawn ? html`${super.render()}${note}` : note;
  }

  protected override formWithdrawn(): boolean {
    return this.#withdrawn !== undefined;
  }

  protected override refused(error: unknown): void {
    const body =
      error instanceof RelayError && error.status === 403 ? (error.body as { error?: unknown; setup?: unknown; message?: unknown } | undefined) : undefined;
    if (body?.error !== 'alerts_not_offered') return;
    const setup = typeof body.setup === 'string' ? body.setup : typeof body.message === 'string' ? body.message : undefined;
    this.#withdrawn = setup ? { setup } : {};
    alertsNoLongerOffered(this.relay, setup);
    this.#warnNotOffered(setup);
    this.notice = this.alertWords.notOffered;
    // The form is about to hide: keep keyboard and screen-reader users where the words are (as after a success).
    const focusWasInside = (this.renderRoot as ShadowRoot).activeElement !== null;
    void this.updateComplete.then(() => {
      if (focusWasInside) this.renderRoot.querySelector<HTMLElement>('#status')?.focus();
    });
  }

  protected override accepted(answer: unknown, request: EnquiryRequest): void {
    const confirmation = (answer as Partial<SavedSearchAccepted> | undefined)?.confirmation;
    this.#confirmation = confirmation === 'email' || confirmation === 'agent' ? confirmation : this.#options.value?.confirmation;
    this.#confirmedEmail = request.email;
  }

  /** Why the search cannot be sent yet (its map area's suburbs unknown or none), or undefined. */
  #areaProblem(): string | undefined {
    const words = this.alertWords;
    if (surroundedOf(this.search) !== undefined) {
      if (this.#around.status === TaskStatus.ERROR) return words.surroundingFailed;
      if (this.#around.status !== TaskStatus.COMPLETE) return words.surroundingWait;
    }
    if (areaOf(this.search) === undefined) return undefined;
    if (this.#area.status === TaskStatus.ERROR) return words.areaFailed;
    const area = this.#area.value;
    if (this.#area.status !== TaskStatus.COMPLETE || !area) return words.areaWait;
    return area.items.length === 0 ? words.areaEmpty : undefined;
  }

  /** A 400 naming suburbs: each shown under the summary with the relay's close names. */
  async #onRefusal(detail: EnquiryErrorDetail): Promise<void> {
    if (detail.status !== 400) return;
    const sent = this.#sentSearch;
    this.#refused = Object.entries(detail.fields).flatMap(([field, message]) => {
      const index = /^search\.suburbs\.(\d+)$/.exec(field)?.[1];
      const name = field === 'search.suburb' ? sent?.suburb : index !== undefined ? sent?.suburbs?.[Number(index)] : undefined;
      return name === undefined ? [] : [{ field, name, message, suggestions: detail.suggestions?.[field] ?? [] }];
    });
    this.requestUpdate();
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('[part~="suggestion"], #search-error')?.focus();
  }

  /** Takes a suggested suburb in place of a refused one. */
  #take(refused: RefusedSuburb, suggestion: string): void {
    this.#taken.set(suburbKey(refused.name), suggestion);
    this.#refused = this.#refused.filter((entry) => entry !== refused);
    this.notice = '';
    this.requestUpdate();
  }

  /** What is sent: the kept filters, a map area's suburbs, and the suggestions taken for refused names. */
  #searchToSend(): SavedSearchFilters {
    const search = keptFilters(this.search);
    const area = areaOf(this.search) === undefined ? undefined : this.#area.value;
    if (area && area.items.length > 0) search.suburbs = area.items.map((suburb) => suburb.name);
    const chosen = surroundedOf(this.search);
    const around = chosen === undefined ? undefined : this.#around.value;
    if (chosen !== undefined && around) {
      search.suburbs = withSurrounding(chosen.split(','), around).names;
      delete search.suburb;
    }
    const taken = (name: string) => this.#taken.get(suburbKey(name)) ?? name;
    if (search.suburb !== undefined) search.suburb = taken(String(search.suburb));
    if (search.suburbs) search.suburbs = [...new Map(search.suburbs.map((name) => [suburbKey(taken(name)), taken(name)])).values()];
    return search;
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

  /** What happens next, as the relay's 202 said: a link e-mailed to the address typed, or an agent in touch; an older relay's answer says neither. */
  protected override successContent(): unknown {
    const words = this.alertWords;
    const text =
      this.#confirmation === 'email'
        ? this.say(words.successEmail, { email: this.#confirmedEmail })
        : this.#confirmation === 'agent'
          ? words.successAgent
          : words.success;
    return html`<slot name="success">${text}</slot>`;
  }

  protected override renderFields(): unknown {
    return html`${this.kindFields()} ${this.contactFields()} ${this.consentField(this.consentText ?? this.alertWords.consent)}`;
  }

  /** The search in words, so the visitor (and a screen reader) knows what the alerts are about; a map area's note; refused suburbs. */
  protected override kindFields(): unknown {
    const words = this.alertWords;
    const area = areaOf(this.search) === undefined ? undefined : this.#area.value;
    const chosen = surroundedOf(this.search);
    const around = chosen === undefined ? undefined : this.#around.value;
    const aroundMore = around ? withSurrounding(chosen!.split(','), around).more : 0;
    const note =
      chosen !== undefined && this.#around.status === TaskStatus.ERROR
        ? words.surroundingFailed
        : aroundMore > 0
          ? this.say(words.surroundingMore, { count: aroundMore, max: AREA_SUBURBS_MAX })
          : area && area.items.length === 0
            ? words.areaEmpty
            : area && area.more > 0
              ? this.say(words.areaMore, { count: area.more, max: AREA_SUBURBS_MAX })
              : this.#area.status === TaskStatus.ERROR && areaOf(this.search) !== undefined
                ? words.areaFailed
                : undefined;
    const refused = this.#refused;
    return html`<p part="summary" class="summary" aria-describedby=${refused.length > 0 ? 'search-error' : nothing}>
        ${this.say(words.intro, { search: this.summary() })}
      </p>
      ${note ? html`<p part="area-note" class="area-note">${note}</p>` : nothing}
      ${
        refused.length > 0
          ? html`<div part="error search-error" class="error" id="search-error" tabindex="-1">
              ${refused.map(
                (entry) =>
                  html`<p>${entry.message}</p>
                    ${
                      entry.suggestions.length > 0
                        ? html`<p class="suggestions">
                            <span>${words.suggestionsLabel}</span>
                            ${entry.suggestions.map(
                              (suggestion) =>
                                html`<button type="button" part="suggestion" class="suggestion" @click=${() => this.#take(entry, suggestion)}>
                                  ${suggestion}
                                </button>`,
                            )}
                          </p>`
                        : nothing
                    }`,
              )}
            </div>`
          : nothing
      }`;
  }

  /** A map area's suburbs in words: "Kew, Hawthorn or Richmond", or that they are being found. */
  #areaWords(search: SavedSearchFilters): string {
    const words = this.alertWords;
    const names = search.suburbs ?? [];
    if (names.length === 0) return this.#area.status === TaskStatus.PENDING || this.#area.status === TaskStatus.INITIAL ? words.areaLoading : '';
    // A drawn outline becomes suburbs: the buyer is told so.
    return this.say(areaOf(this.search)?.startsWith('area=') ? words.inDrawnArea : words.inSuburb, { suburb: this.#joined(names) });
  }

  /** "Kew", "Kew or Hawthorn", "Kew, Hawthorn or Richmond". */
  #joined(names: readonly string[]): string {
    return names.length === 1 ? names[0]! : this.say(this.alertWords.areaLast, { first: names.slice(0, -1).join(', '), last: names.at(-1)! });
  }

  /** "for sale, House, in Richmond, from $500,000, 3+ bedrooms", or "any home". */
  protected summary(): string {
    const words = this.alertWords;
    const search = this.#searchToSend();
    let money = (value: number) => String(value);
    try {
      const lang = this.#savedSearchWords.lang;
      // As format.ts's localeOfLanguage (not imported: its chunk is the listings'): English as en-AU, Arabic with Latin digits.
      const locale = this.locale || (/^en(-|$)/.test(lang) ? 'en-AU' : /^ar(-|$)/.test(lang) ? `${lang}-u-nu-latn` : lang);
      const format = new Intl.NumberFormat(locale, {
        style: 'currency',
        currency: this.currency || (locale.endsWith('NZ') ? 'NZD' : locale.endsWith('GB') ? 'GBP' : 'AUD'),
        maximumFractionDigits: 0,
      });
      money = (value) => format.format(value);
    } catch {
      // An unknown locale or currency: plain numbers.
    }
    const chosen = surroundedOf(this.search);
    const findingAround = chosen !== undefined && (this.#around.status === TaskStatus.PENDING || this.#around.status === TaskStatus.INITIAL);
    const parts = [
      search.type === 'sale' ? words.forSale : search.type === 'lease' ? words.forLease : '',
      search.propertyType ?? '',
      findingAround
        ? this.say(words.surroundingLoading, { suburbs: this.#joined(chosen.split(',')) })
        : search.suburb
          ? this.say(words.inSuburb, { suburb: search.suburb })
          : search.suburbs?.length || areaOf(this.search) !== undefined
            ? this.#areaWords(search)
            : '',
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
      ...(contact.consentText ? { consentText: contact.consentText } : {}),
      ...(contact.page ? { page: contact.page } : {}),
      website: contact.website ?? '',
      elapsedMs: contact.elapsedMs,
      search: this.#searchToSend(),
      // The confirmation e-mail and its page are written in the form's language when the relay has its words.
      language: this.localize.lang,
    };
    this.#sentSearch = request.search;
    this.#refused = [];
    // The base form keeps, resends and reports its request as it is; only its type names the enquiry kinds.
    return request as unknown as EnquiryRequest;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-saved-search': EstateSavedSearch;
  }
}
