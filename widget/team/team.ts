import { ifDefined } from 'lit/directives/if-defined.js';
import { html, nothing, type TemplateResult } from 'lit';
import { Task } from '@lit/task';
import type { Team, TeamMember } from '../../contract/relay-api.ts';
import { relayUrl, RelayError } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';
import { fill, plural, resolveLocale } from '../shared/format.ts';
import type { Section } from '../shared/localize.ts';
import { EstateElement } from '../shared/estate-element.ts';
import { renderPicture } from '../shared/picture.ts';
import { heading, headingLevel } from '../shared/heading.ts';
import { phoneIcon } from '../shared/icons.ts';
import { initials, telHref, unbroken } from '../shared/person.ts';
import { type TeamStrings } from './strings.ts';
import './strings.ts';
import { styles } from './team.styles.ts';

export interface TeamLoadedDetail {
  team: Team;
}

export interface TeamErrorDetail {
  status: number | null;
  message: string;
}

export interface AgentSelectDetail {
  id: number;
  member: TeamMember;
  /** Their page, from `agent-href`. */
  href: string;
}

/** Placeholder cards while the team loads. */
const SKELETON_CARDS = 4;
/** Portraits in the first row load eagerly; the rest wait until they near the viewport. */
const EAGER_PORTRAITS = 4;

/**
 * The agency's people who face the public, from the relay (`GET /api/v1/team`): a card each with
 * their portrait, name, position, phone and how many homes they have on the market, in the order
 * the agency chose (TEAM_ORDER, then by name), each linking to their page. Back-office staff, and
 * anyone the agency hides, are not in the relay's answer at all.
 *
 * @summary The agency's team: a card per person, linking to their page.
 *
 * @attr relay - Base URL of the relay. Default: where the widget script was loaded from.
 * @attr agent-href - URL template of a person's page, `{id}` and `{slug}` (their name in the path: `sarah-nguyen`) replaced (`/agent.html?id={id}`). Default: the relay's own agent pages, `<relay>/listings/agents/{id}/{slug}`.
 * @attr heading-level - Level of each card's heading, the person's name (default 3).
 * @attr sizes - `sizes` for the portraits. Default suits the grid.
 * @attr locale - BCP 47 locale for numbers (default en-AU).
 * @attr strings - JSON object overriding any of the element's words (see TeamStrings), over those of its language (`lang` on it or above it, else the page's; see "Words and languages").
 *
 * @slot empty - Replaces the "no one to show" message.
 * @slot error - Replaces the error message (the retry button stays).
 *
 * @csspart base - The element's wrapper.
 * @csspart status - The loading line (a live region, read by screen readers only).
 * @csspart list - The grid of cards.
 * @csspart card - One person.
 * @csspart skeleton - A placeholder card while loading.
 * @csspart card-media - The portrait's box.
 * @csspart card-image - The portrait.
 * @csspart initials - The initials shown in the portrait's place when the agency gave no photo.
 * @csspart card-body - The text under the portrait.
 * @csspart name - The name heading.
 * @csspart card-link - The link to their page (it covers the card).
 * @csspart position - Their position ("Sales Agent").
 * @csspart listing-count - How many homes they have on the market.
 * @csspart phone - Their call link (`tel:`), only when the relay gives a number.
 * @csspart button - Every button and button-like link.
 * @csspart empty - The "no one to show" panel.
 * @csspart error - The error panel.
 * @csspart retry-button - The retry button.
 *
 * @cssprop --estate-team-min-card - Narrowest card in the grid (default 12rem). Under 34rem wide the cards are rows instead, the portrait beside the text.
 * @cssprop --estate-team-portrait-width - The portrait's width in those rows (default 7rem).
 * @cssprop --estate-team-gap - Space between cards (default 1.25rem).
 * @cssprop --estate-team-portrait-ratio - The portrait's shape (default 4 / 5).
 * @cssprop --estate-skeleton-color - Placeholder colour while loading.
 *
 * @fires {CustomEvent<TeamLoadedDetail>} estate-team-loaded - The team rendered.
 * @fires {CustomEvent<TeamErrorDetail>} estate-team-error - Loading failed.
 * @fires {CustomEvent<AgentSelectDetail>} estate-agent-select - A person's card was chosen; cancelable (cancel to handle navigation yourself).
 */
export class EstateTeam extends EstateElement {
  static override localizedSections: Section[] = ['team'];
  static override styles = styles;

  static override properties = {
    agentHref: { type: String, attribute: 'agent-href' },
    headingLevel: { type: Number, attribute: 'heading-level' },
    sizes: { type: String },
    locale: { type: String },
    strings: { type: Object },
    team: { attribute: false },
    filling: { state: true },
  };

  declare agentHref: string | null;
  declare headingLevel: number;
  declare sizes: string | null;
  declare locale: string | null;
  /** Overrides for any of the element's words. */
  declare strings: Partial<TeamStrings> | null;
  /** A team the host already has (a page rendered on the server): rendered as given, no request made. */
  declare team: Team | null;
  /** The relay is filling its cache for the first time: the team is on its way. */
  declare protected filling: boolean;

  #retryCount = 0;

  readonly #teamTask = new Task(this, {
    task: async ([relay, hostTeam], { signal }) =>
      hostTeam ?? fetchJsonOnceFilled<Team>(relayUrl(relay, 'api/v1/team'), { signal, onFilling: (filling) => (this.filling = filling) }),
    args: () => [this.relay, this.team, this.#retryCount] as const,
    onComplete: (team) => void this.#afterLoad(team),
    onError: (error) => void this.#afterError(error),
  });

  constructor() {
    super();
    this.agentHref = null;
    this.headingLevel = 3;
    this.sizes = null;
    this.locale = null;
    this.strings = null;
    this.team = null;
    this.filling = false;
  }

  /** Settles when the current load does (resolves with the team shown, rejects with its error). */
  get loadComplete(): Promise<Team> {
    return this.updateComplete.then(() => this.#teamTask.taskComplete);
  }

  /** Loads the team again (after an error, or to pick up changes). */
  reload(): void {
    this.#retryCount += 1;
    this.requestUpdate();
  }

  /** The words in use: defaults with the host's overrides, merged once per `strings` value. */
  get #text(): TeamStrings {
    return this.localize.words('team', this.strings);
  }

  /** A person's page: `agent-href` filled in, else the relay's own page for them. */
  memberHref(member: Pick<TeamMember, 'id' | 'slug'>): string {
    const id = encodeURIComponent(String(member.id));
    const slug = encodeURIComponent(member.slug);
    if (!this.agentHref) return relayUrl(this.relay, `listings/agents/${id}/${slug}`);
    return this.agentHref.replace(/\{id\}/g, id).replace(/\{slug\}/g, slug);
  }

  async #afterLoad(team: Team): Promise<void> {
    await this.rendered();
    this.emit<TeamLoadedDetail>('estate-team-loaded', { team });
  }

  async #afterError(error: unknown): Promise<void> {
    if (error instanceof DOMException && error.name === 'AbortError') return;
    await this.rendered();
    this.emit<TeamErrorDetail>('estate-team-error', {
      status: error instanceof RelayError ? error.status : null,
      message: error instanceof Error ? error.message : String(error),
    });
  }

  #onCardClick(event: MouseEvent, member: TeamMember): void {
    // New-tab and download gestures are the browser's.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const proceed = this.emit<AgentSelectDetail>('estate-agent-select', { id: member.id, member, href: this.memberHref(member) }, true);
    if (!proceed) event.preventDefault();
  }

  // ---- rendering -------------------------------------------------------------------------

  override render(): TemplateResult {
    // A team the host gave is rendered at once, not after the task settles: on the server (where
    // no task runs) and again, identically, when the browser renders over that markup.
    return html`<div part="base" class="base">
      ${
        this.team
          ? this.#renderTeam(this.team)
          : this.#teamTask.render({
              initial: () => this.#renderSkeleton(),
              pending: () => this.#renderSkeleton(),
              complete: (team) => this.#renderTeam(team),
              error: () => this.#renderError(),
            })
      }
    </div>`;
  }

  #renderSkeleton(): TemplateResult {
    const text = this.#text;
    return html`<p part="status" class="visually-hidden" role="status">${this.filling ? text.filling : text.loading}</p>
      <ul part="list" class="list" aria-busy="true">
        ${Array.from(
          { length: SKELETON_CARDS },
          () =>
            html`<li part="card skeleton" class="card skeleton" aria-hidden="true">
              <div part="card-media" class="media"></div>
              <div part="card-body" class="body">
                <span class="line name-line"><span class="bone"></span></span>
                <span class="line position-line"><span class="bone"></span></span>
                <span class="line count-line"><span class="bone"></span></span>
                <span class="phone-bone bone"></span>
              </div>
            </li>`,
        )}
      </ul>`;
  }

  #renderTeam(team: Team): TemplateResult {
    const members = team.items ?? [];
    if (!members.length) return this.#renderEmpty();
    const sizes = this.sizes ?? '(min-width: 72rem) 16rem, (min-width: 40rem) 30vw, 50vw';
    return html`<p part="status" class="visually-hidden" role="status"></p>
      <ul part="list" class="list" aria-label=${this.#text.listLabel}>
        ${members.map((member, index) => this.#renderCard(member, index, sizes))}
      </ul>`;
  }

  #renderCard(member: TeamMember, index: number, sizes: string): TemplateResult {
    const text = this.#text;
    const locale = resolveLocale(this.locale, this.localize.lang);
    const tel = member.phone ? telHref(member.phone) : null;
    return html`<li part="card" class="card">
      <div part="card-media" class="media">
        ${
          member.photo
            ? renderPicture(member.photo, {
                relay: this.relay,
                sizes,
                // The name beside it says who it is; the portrait adds nothing to read.
                alt: '',
                loading: index < EAGER_PORTRAITS ? 'eager' : 'lazy',
                fetchPriority: index === 0 ? 'high' : 'auto',
                part: 'card-image',
              })
            : html`<span part="initials" class="initials" aria-hidden="true">${initials(member.name)}</span>`
        }
      </div>
      <div part="card-body" class="body">
        ${heading(
          headingLevel(this.headingLevel, 3),
          html`<a part="card-link" class="card-link" href=${this.memberHref(member)} @click=${(event: MouseEvent) => this.#onCardClick(event, member)}
            >${member.name}</a
          >`,
          { part: 'name', className: 'line name-line', lang: this.contentLanguage },
        )}
        ${member.position ? html`<p part="position" class="line position-line" lang=${ifDefined(this.contentLanguage)}>${member.position}</p>` : nothing}
        ${
          member.listingCount > 0
            ? html`<p part="listing-count" class="line count-line">${plural(locale, member.listingCount, text.listingCount)}</p>`
            : nothing
        }
        ${
          tel
            ? html`<a part="phone button" class="button phone" href=${tel}>
                <svg class="icon" viewBox="0 0 24 24" aria-hidden="true">${phoneIcon}</svg
                ><span class="visually-hidden">${fill(text.call, { name: member.name })}, </span>${unbroken(member.phone!)}
              </a>`
            : nothing
        }
      </div>
    </li>`;
  }

  #renderEmpty(): TemplateResult {
    const text = this.#text;
    return html`<p part="status" class="visually-hidden" role="status"></p>
      <div part="empty" class="panel empty">
        <slot name="empty">
          <p class="panel-title">${text.emptyTitle}</p>
          <p>${text.emptyHint}</p>
        </slot>
      </div>`;
  }

  #renderError(): TemplateResult {
    const text = this.#text;
    return html`<p part="status" class="visually-hidden" role="status"></p>
      <div part="error" class="panel error" role="alert">
        <slot name="error">
          <p class="panel-title">${text.errorTitle}</p>
          <p>${text.errorRetryLater}</p>
        </slot>
        <button type="button" part="button retry-button" class="primary" @click=${this.reload}>${text.retry}</button>
      </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'estate-team': EstateTeam;
  }
  interface GlobalEventHandlersEventMap {
    'estate-team-loaded': CustomEvent<TeamLoadedDetail>;
    'estate-team-error': CustomEvent<TeamErrorDetail>;
    'estate-agent-select': CustomEvent<AgentSelectDetail>;
  }
}
