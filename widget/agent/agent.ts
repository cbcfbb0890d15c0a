import { html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { Task, initialState } from '@lit/task';
import { ifDefined } from 'lit/directives/if-defined.js';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { AgentProfile, AgentProfileText, ListingSummary } from '../../contract/relay-api.ts';
import { relayUrl, RelayError } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';
import { fill, plural, resolveLocale } from '../shared/format.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { renderPicture } from '../shared/picture.ts';
import { heading, headingLevel } from '../shared/heading.ts';
import { mailIcon, phoneIcon } from '../shared/icons.ts';
import { loadElement } from '../shared/load-element.ts';
import { idFrom } from '../shared/page-id.ts';
import { initials, mailAddress, telHref, unbroken } from '../shared/person.ts';
import { descriptionParagraphs } from '../listing/text.ts';
import { EstateListings } from '../listings/listings.ts';
import { EstateEnquiry } from '../enquiry/enquiry.ts';
import { type AgentStrings } from './strings.ts';
import './strings.ts';
import { styles } from './agent.styles.ts';

export interface AgentLoadedDetail {
  agent: AgentProfile;
}

export interface AgentErrorDetail {
  status: number | null;
  message: string;
}

/** Why there is no agent to show: the relay's 404 or 410, or no id given at all. */
class MissingAgent extends Error {
  constructor(readonly reason: 'not-found' | 'gone' | 'no-id') {
    super(reason);
  }
}

/** The parts of the listing cards inside, under names of their own (`listing-card`, …). */
const LISTING_PARTS =
  'list: listing-list, card: listing-card, card-media: listing-card-media, card-image: listing-card-image, badge: listing-badge, card-body: listing-card-body, price: listing-price, card-title: listing-card-title, card-link: listing-card-link, meta: listing-meta, features: listing-features, keep-button: listing-keep-button';

/**
 * One of the agency's people, their page: portrait, name, position, a call link and (only where the
 * agency allows it, so only when the relay gives one) their e-mail; their profile; their homes on
 * the market and their sold and leased results as listing cards; a message form to them and an
 * appraisal request to them. The message form comes with the element; the appraisal request's
 * code is fetched when its button is first pressed.
 *
 * @summary An agent's page: profile, listings, results, message form and appraisal request.
 *
 * @attr agent-id - The person to show (an `id` from `GET /api/v1/team`).
 * @attr agent-id-param - Read the id from this query parameter of the page URL instead (`agent.html?id=42` with `agent-id-param="id"`).
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr detail-href - URL template of a listing card's link, `{id}` and `{slug}` replaced (`/listing.html?id={id}`). Default: the relay's own listing pages, `<relay>/listings/{id}/{slug}`.
 * @attr team-href - The team page, linked from the page of someone not (or no longer) on the team. Default: the relay's own, `<relay>/listings/agents`.
 * @attr heading-level - Level of the name heading (default 2); section headings are one below, listing cards two.
 * @attr locale - BCP 47 locale for numbers and dates (default en-AU).
 * @attr time-zone - IANA zone for auction times on the cards. Default: the visitor's.
 * @attr no-enquiry - Leaves out the message form.
 * @attr no-appraisal - Leaves out the appraisal request.
 * @attr strings - JSON object overriding any of the element's words (see AgentStrings), over those of its language (`lang` on it or above it, else the page's; see "Words and languages").
 *
 * @slot after-profile - Content after the profile (a host's own testimonials or awards).
 *
 * @csspart base - The article.
 * @csspart header - Portrait, name, position and contact links.
 * @csspart portrait - The portrait's box.
 * @csspart photo - The portrait.
 * @csspart initials - The initials shown in the portrait's place when the agency gave no photo.
 * @csspart name - The name heading.
 * @csspart position - Their position.
 * @csspart office - The agency's name.
 * @csspart listing-count - How many homes they have on the market.
 * @csspart phone - The call link (`tel:`), only when the relay gives a number.
 * @csspart message-button - "Message {name}" in the header: takes the visitor to the message form (below the listings on a phone).
 * @csspart email - The e-mail link, only when the relay gives an address (the agency's AGENT_DIRECT_CONTACT).
 * @csspart button - Every button and button-like link.
 * @csspart section - Each section; also `about` (the profile's), `current`, `results`, `contact`.
 * @csspart section-title - Each section's heading.
 * @csspart profile - The profile's text.
 * @csspart listings - The listing cards of a section (an `<estate-listings>`; its parts are exported as `listing-list`, `listing-card`, `listing-card-media`, `listing-card-image`, `listing-badge`, `listing-card-body`, `listing-price`, `listing-card-title`, `listing-card-link`, `listing-meta`, `listing-features`, `listing-keep-button`).
 * @csspart enquiry - The message form (`<estate-enquiry agent-id>`).
 * @csspart appraisal-button - Opens (and closes) the appraisal request; `aria-expanded` tells which.
 * @csspart appraisal - The appraisal request (`<estate-appraisal agent-id>`).
 * @csspart skeleton - The loading placeholder.
 * @csspart error - The panel of an error, or of a person not (or no longer) on the team.
 * @csspart team-link - Its link to the team page.
 * @csspart retry-button - Its retry button.
 *
 * @cssprop --estate-agent-portrait-width - Width of the portrait (default 8rem on phones, 12rem from 40rem wide).
 * @cssprop --estate-agent-portrait-ratio - The portrait's shape (default 4 / 5).
 * @cssprop --estate-agent-side - Width of the contact column beside the profile on wide screens (default 24rem).
 * @cssprop --estate-skeleton-color - Placeholder colour while loading.
 *
 * @fires {CustomEvent<AgentLoadedDetail>} estate-agent-loaded - The agent's page rendered.
 * @fires {CustomEvent<AgentErrorDetail>} estate-agent-error - It could not be loaded (`status` 404: not on the team, 410: has left).
 */
export class EstateAgent extends EstateElement {
  static override localizedSections: Section[] = ['agent'];
  static override styles = styles;
  /**
   * The elements it renders, registered with it (see define.ts). The message form is one, as in
   * `<estate-listing>`: it is on every agent's page, above the fold on a wide screen and rendered
   * by the relay's pages, where a form fetched after the agent rendered would vanish and come
   * back. The appraisal request is not: its code is fetched when its button is first pressed.
   */
  static readonly dependencies = { 'estate-listings': EstateListings, 'estate-enquiry': EstateEnquiry };

  static override properties = {
    agentId: { type: Number, attribute: 'agent-id' },
    agentIdParam: { attribute: 'agent-id-param' },
    detailHref: { attribute: 'detail-href' },
    teamHref: { attribute: 'team-href' },
    headingLevel: { type: Number, attribute: 'heading-level' },
    locale: {},
    timeZone: { attribute: 'time-zone' },
    noEnquiry: { type: Boolean, attribute: 'no-enquiry' },
    noAppraisal: { type: Boolean, attribute: 'no-appraisal' },
    strings: { type: Object },
    agent: { attribute: false },
    filling: { state: true },
    appraisalOpen: { state: true },
  };

  declare agentId: number | null;
  declare agentIdParam: string | null;
  declare detailHref: string | null;
  declare teamHref: string | null;
  declare headingLevel: number;
  declare locale: string | null;
  declare timeZone: string | null;
  declare noEnquiry: boolean;
  declare noAppraisal: boolean;
  declare strings: Partial<AgentStrings> | null;
  /** An agent the host already has (a page rendered on the server): rendered as given, no request made. */
  declare agent: AgentProfile | null;
  /** The relay is filling its cache for the first time: the agent is on the way. */
  declare protected filling: boolean;
  /** The appraisal request is open under its button. */
  declare protected appraisalOpen: boolean;

  #retryCount = 0;

  readonly #agentTask = new Task(this, {
    task: async ([relay, id, hostAgent], { signal }) => {
      if (hostAgent) return hostAgent;
      // Neither an id nor a URL parameter to read one from: the host will set one (or `agent`).
      if (!id && !this.agentIdParam) return initialState;
      if (!id) throw new MissingAgent('no-id');
      try {
        return await fetchJsonOnceFilled<AgentProfile>(relayUrl(relay, `api/v1/agents/${encodeURIComponent(String(id))}`), {
          signal,
          onFilling: (filling) => (this.filling = filling),
        });
      } catch (error) {
        if (error instanceof RelayError && error.status === 404) throw new MissingAgent('not-found');
        if (error instanceof RelayError && error.status === 410) throw new MissingAgent('gone');
        throw error;
      }
    },
    args: () => [this.relay, this.effectiveId, this.agent, this.#retryCount] as const,
    onComplete: (agent) => void this.#afterLoad(agent),
    onError: (error) => void this.#afterError(error),
  });

  constructor() {
    super();
    this.agentId = null;
    this.agentIdParam = null;
    this.detailHref = null;
    this.teamHref = null;
    this.headingLevel = 2;
    this.locale = null;
    this.timeZone = null;
    this.noEnquiry = false;
    this.noAppraisal = false;
    this.strings = null;
    this.agent = null;
    this.filling = false;
    this.appraisalOpen = false;
  }

  /** The id shown: `agent-id`, else the page URL's `agent-id-param` parameter. */
  get effectiveId(): number | null {
    return idFrom(this.agentId, this.agentIdParam);
  }

  /** Settles when the current load does (resolves with the agent, rejects with its error). */
  get loadComplete(): Promise<AgentProfile> {
    return this.updateComplete.then(() => this.#agentTask.taskComplete);
  }

  reload(): void {
    this.#retryCount += 1;
    this.requestUpdate();
  }

  /** Moves focus to the agent's name (for hosts that show the element after a click). */
  focusHeading(): void {
    this.renderRoot.querySelector<HTMLElement>('[part~="name"]')?.focus();
  }

  /** The words in use: defaults with the host's overrides, merged once per `strings` value. */
  get #text(): AgentStrings {
    return this.localize.words('agent', this.strings);
  }

  get #teamLink(): string {
    return this.teamHref || relayUrl(this.relay, 'listings/agents');
  }

  /** The cards' link template: `detail-href`, else the relay's own listing pages (never opened in place inside a section). */
  get #detailLink(): string {
    return this.detailHref || `${relayUrl(this.relay, 'listings/')}{id}/{slug}`;
  }

  protected override updated(changed: PropertyValues<this>): void {
    // The appraisal request's code (with the other lead forms') comes when a visitor first opens it.
    if ((changed as Map<PropertyKey, unknown>).has('appraisalOpen') && this.appraisalOpen) {
      loadElement('estate-appraisal', () => import('../appraisal/define.ts')).catch((error: unknown) =>
        console.error('<estate-agent> could not load <estate-appraisal>:', error),
      );
    }
  }

  async #afterLoad(agent: AgentProfile): Promise<void> {
    await this.rendered();
    this.emit<AgentLoadedDetail>('estate-agent-loaded', { agent });
  }

  async #afterError(error: unknown): Promise<void> {
    if (error instanceof DOMException && error.name === 'AbortError') return;
    await this.rendered();
    const status =
      error instanceof RelayError ? error.status : error instanceof MissingAgent && error.reason !== 'no-id' ? (error.reason === 'gone' ? 410 : 404) : null;
    this.emit<AgentErrorDetail>('estate-agent-error', { status, message: error instanceof Error ? error.message : String(error) });
  }

  /** The header's "Message Sarah": the form is below the listings on a phone, so take the visitor there. */
  #goToContact(): void {
    const title = this.renderRoot.querySelector<HTMLElement>('[part~="contact"] [part~="section-title"]');
    title?.scrollIntoView({ block: 'start', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth' });
    title?.focus({ preventScroll: true });
  }

  #toggleAppraisal(): void {
    this.appraisalOpen = !this.appraisalOpen;
  }

  // ---- rendering -------------------------------------------------------------------------

  override render(): TemplateResult {
    // An agent the host gave is rendered at once, not after the task settles: on the server
    // (where no task runs) and again, identically, when the browser renders over that markup.
    if (this.agent) return this.#renderAgent(this.agent);
    return this.#agentTask.render({
      initial: () => this.#renderSkeleton(),
      pending: () => this.#renderSkeleton(),
      complete: (agent) => this.#renderAgent(agent),
      error: (error) => this.#renderError(error),
    }) as TemplateResult;
  }

  #renderSkeleton(): TemplateResult {
    return html`<div part="skeleton" class="skeleton" aria-busy="true">
      <p class="visually-hidden" role="status">${this.filling ? this.#text.filling : this.#text.loading}</p>
      <div class="header">
        <div class="portrait bone"></div>
        <div class="intro">
          <div class="bone title"></div>
          <div class="bone text short"></div>
          <div class="bone button-bone"></div>
        </div>
      </div>
      <div class="bone text"></div>
      <div class="bone text"></div>
      <div class="bone text short"></div>
    </div>`;
  }

  #renderError(error: unknown): TemplateResult {
    const text = this.#text;
    if (error instanceof MissingAgent && error.reason !== 'no-id') {
      const gone = error.reason === 'gone';
      return html`<div part="error" class="panel" role="alert">
        <p class="panel-title">${gone ? text.gone : text.notFound}</p>
        ${gone ? html`<p>${text.goneHint}</p>` : nothing}
        <a part="button team-link" class="button primary" href=${this.#teamLink}>${text.meetTheTeam}</a>
      </div>`;
    }
    const noId = error instanceof MissingAgent;
    return html`<div part="error" class="panel" role="alert">
      <p class="panel-title">${noId ? text.noAgentId : text.errorTitle}</p>
      ${
        noId
          ? nothing
          : html`<p>${text.errorRetryLater}</p>
              <button type="button" part="button retry-button" class="primary" @click=${this.reload}>${text.retry}</button>`
      }
    </div>`;
  }

  #renderAgent(agent: AgentProfile): TemplateResult {
    const level = headingLevel(this.headingLevel, 2);
    return html`<article part="base" class="base">
      ${this.#renderHeader(agent, level)}
      <div class="columns">
        <div class="main">
          ${this.#renderProfile(agent.profile, agent.name, level)}
          <slot name="after-profile"></slot>
          ${this.#renderListings('current', agent.current ?? [], level, agent)} ${this.#renderListings('results', agent.results ?? [], level, agent)}
        </div>
        ${this.noEnquiry && this.noAppraisal ? nothing : html`<div class="side">${this.#renderContact(agent, level)}</div>`}
      </div>
    </article>`;
  }

  #renderHeader(agent: AgentProfile, level: number): TemplateResult {
    const text = this.#text;
    const tel = agent.phone ? telHref(agent.phone) : null;
    const email = mailAddress(agent.email);
    return html`<header part="header" class="header">
      <div part="portrait" class="portrait">
        ${
          agent.photo
            ? renderPicture(agent.photo, {
                relay: this.relay,
                sizes: '(min-width: 40rem) 12rem, 8rem',
                alt: '',
                loading: 'eager',
                fetchPriority: 'high',
                part: 'photo',
              })
            : html`<span part="initials" class="initials" aria-hidden="true">${initials(agent.name)}</span>`
        }
      </div>
      <div class="intro">
        ${heading(level, agent.name, { part: 'name', className: 'name', focusable: true, lang: this.contentLanguage })}
        ${agent.position ? html`<p part="position" class="position" lang=${ifDefined(this.contentLanguage)}>${agent.position}</p>` : nothing}
        ${agent.office?.name ? html`<p part="office" class="muted" lang=${ifDefined(this.contentLanguage)}>${agent.office.name}</p>` : nothing}
        ${
          agent.listingCount > 0
            ? html`<p part="listing-count" class="muted">${plural(resolveLocale(this.locale, this.localize.lang), agent.listingCount, text.listingCount)}</p>`
            : nothing
        }
        ${
          tel || email || !this.noEnquiry
            ? html`<div class="actions">
                ${
                  tel
                    ? html`<a part="phone button" class="button primary" href=${tel}>
                        <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${phoneIcon}</svg
                        ><span class="visually-hidden">${fill(text.call, { name: agent.name })}, </span>${unbroken(agent.phone!)}
                      </a>`
                    : nothing
                }
                ${
                  this.noEnquiry
                    ? nothing
                    : html`<button type="button" part="button message-button" class="button" @click=${this.#goToContact}>
                        ${fill(text.messageButton, { name: agent.name })}
                      </button>`
                }
                ${
                  email
                    ? html`<a part="email button" class="button" href=${`mailto:${email}`}>
                        <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${mailIcon}</svg>${fill(text.email, { name: agent.name })}
                      </a>`
                    : nothing
                }
              </div>`
            : nothing
        }
      </div>
    </header>`;
  }

  #section(kind: string, level: number, title: string, body: unknown): TemplateResult {
    return html`<section part="section ${kind}" class="section ${kind}">
      ${heading(Math.min(6, level + 1), title, { part: 'section-title', className: 'section-title', focusable: kind === 'contact' })} ${body}
    </section>`;
  }

  /**
   * The profile as the relay gives it: its HTML (cleaned by the relay to paragraphs, breaks,
   * emphasis, lists and http(s) links) inserted as it is, or plain text as text nodes, paragraphs
   * and line breaks kept, so markup in the text stays the characters a reader sees.
   */
  #renderProfile(profile: AgentProfileText | null, name: string, level: number): TemplateResult | typeof nothing {
    let body: unknown;
    if (profile?.format === 'html' && profile.html.trim()) body = unsafeHTML(profile.html);
    else if (profile?.format === 'text') {
      const paragraphs = descriptionParagraphs(profile.text);
      if (paragraphs.length) body = paragraphs.map((lines) => html`<p>${lines.map((line, index) => html`${index ? html`<br />` : nothing}${line}`)}</p>`);
    }
    if (!body) return nothing;
    return this.#section(
      'about',
      level,
      fill(this.#text.about, { name }),
      html`<div part="profile" class="prose" lang=${ifDefined(this.contentLanguage)}>${body}</div>`,
    );
  }

  /** Their homes on the market, or their sold and leased results: the cards of `<estate-listings>`. */
  #renderListings(kind: 'current' | 'results', items: ListingSummary[], level: number, agent: AgentProfile): TemplateResult | typeof nothing {
    const text = this.#text;
    if (!items.length && kind === 'results') return nothing;
    return this.#section(
      kind,
      level,
      kind === 'current' ? text.current : text.results,
      items.length
        ? html`<estate-listings
            part="listings"
            relay=${ifDefined(this.relay ?? undefined)}
            locale=${ifDefined(this.locale ?? undefined)}
            time-zone=${ifDefined(this.timeZone ?? undefined)}
            detail-href=${this.#detailLink}
            heading-level=${Math.min(6, level + 2)}
            exportparts=${LISTING_PARTS}
            .listings=${items}
          ></estate-listings>`
        : html`<p class="muted">${fill(text.noCurrent, { name: agent.name })}</p>`,
    );
  }

  #renderContact(agent: AgentProfile, level: number): TemplateResult {
    const text = this.#text;
    const name = agent.name;
    return this.#section(
      'contact',
      level,
      fill(text.contact, { name }),
      html`${
        this.noEnquiry
          ? nothing
          : html`<estate-enquiry
              part="enquiry"
              agent-id=${agent.id}
              relay=${ifDefined(this.relay ?? undefined)}
              heading=${fill(text.message, { name })}
              heading-level=${Math.min(6, level + 2)}
            ></estate-enquiry>`
      }
      ${
        this.noAppraisal
          ? nothing
          : html`<button
                type="button"
                part="button appraisal-button"
                class="button appraisal-button"
                aria-expanded=${this.appraisalOpen ? 'true' : 'false'}
                @click=${this.#toggleAppraisal}
              >
                ${fill(text.appraisal, { name })}
              </button>
              ${
                this.appraisalOpen
                  ? html`<estate-appraisal
                      part="appraisal"
                      agent-id=${agent.id}
                      relay=${ifDefined(this.relay ?? undefined)}
                      heading-level=${Math.min(6, level + 2)}
                    ></estate-appraisal>`
                  : nothing
              }`
      }`,
    );
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-agent': EstateAgent;
  }
  interface GlobalEventHandlersEventMap {
    'estate-agent-loaded': CustomEvent<AgentLoadedDetail>;
    'estate-agent-error': CustomEvent<AgentErrorDetail>;
  }
}
