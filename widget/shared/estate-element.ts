import { LitElement, type PropertyDeclarations } from 'lit';
import type { Section, Sections } from './localize.ts';
import { LocalizeController } from './translations.ts';
import { dispatchAnalytics, type DataLayerEntry } from './analytics.ts';
import { rememberCampaign } from './campaign.ts';
import { markVisitStart } from './visit-start.ts';

/** Marks an element the relay rendered and the JSON of its properties after it (server/pages/render.ts). */
const SERVER_RENDERED = 'data-estate-ssr';

/**
 * What every `estate-*` element shares (as Shoelace's ShoelaceElement): where its relay is, its
 * words in the page's language, and how it tells the page what happened. Nothing here touches the
 * DOM at construction, so the elements render on a server as they are.
 */
export class EstateElement extends LitElement {
  // Lit gathers each class's own `properties`, so an element lists only its own.
  static override properties: PropertyDeclarations = {
    relay: { type: String },
    contentLang: { attribute: 'content-lang' },
  };

  /** Base URL of the relay; null: where the widget script was loaded from. */
  declare relay: string | null;

  /** The language the agency writes its listings and profiles in (`content-lang`): en-AU when not set. */
  declare contentLang: string | null;

  /**
   * The `lang` to mark its CRM content with (descriptions, headings, addresses, agents' profiles),
   * which stays in the agency's language (`content-lang`, en-AU by default): only where that
   * differs from its own language (undefined on an English page, whose markup stays as it was), so
   * a screen reader reading a page in Arabic switches to an English voice for the address. (The
   * pseudo-locale, English made strange, counts as another language.)
   */
  protected get contentLanguage(): string | undefined {
    const content = this.contentLang?.trim() || 'en-AU';
    const lang = this.localize.lang;
    return lang !== 'en-xa' && content.toLowerCase().split('-')[0] === lang.split('-')[0] ? undefined : content;
  }

  /**
   * The sections of the translation registry it shows: in a language whose words are fetched
   * (widget/i18n), they are fetched as it connects, with its data, not after its first render.
   */
  static localizedSections: Section[] = [];

  /** Its words: the section of the translation registry for its language (see translations.ts). */
  protected readonly localize = new LocalizeController<Sections>(this, (this.constructor as typeof EstateElement).localizedSections);

  constructor() {
    super();
    this.relay = null;
    this.contentLang = null;
  }

  /**
   * Takes over markup the relay rendered on the server (server/pages): the properties it was
   * rendered with are in the JSON script after the element, and its shadow root is the server's,
   * declarative. The element renders again over it, without Lit's hydration (2.6 KB gzip that each
   * such page paid, issue #12): on its first connection it reads the JSON and empties that root,
   * then renders in a microtask of the same task, before the browser paints, the same markup into
   * the same boxes, so nothing flashes or moves. Unreadable JSON throws here, before the root is
   * emptied: the element stays the server's markup. A page that hydrates with Lit's own support
   * (which sets `litElementHydrateSupport`) keeps its roots for it.
   */
  override connectedCallback(): void {
    // Server-rendered inside another element's shadow root (Lit's server marks it so): that
    // element renders its own over it, so this one would only render to be thrown away.
    if (this.hasAttribute('defer-hydration')) return;
    if (!this.renderRoot) {
      const data = this.nextElementSibling as HTMLScriptElement | null;
      if (data?.hasAttribute(SERVER_RENDERED)) Object.assign(this, JSON.parse(data.text) as object);
      if (!('litElementHydrateSupport' in globalThis)) this.shadowRoot?.replaceChildren();
    }
    // The page a visitor lands on may carry a campaign (utm_*) that a lead sent later must name.
    rememberCampaign();
    // A lead form's fill time counts from the first element on the page, not from the form opening.
    markVisitStart();
    super.connectedCallback();
  }

  /**
   * Dispatches one of our events (prefixed `estate-`): bubbles out of every shadow root. Returns
   * false when a listener cancelled a `cancelable` one.
   */
  protected emit<T>(name: `estate-${string}`, detail: T, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent<T>(name, { detail, bubbles: true, composed: true, cancelable }));
  }

  /**
   * Dispatches one of the analytics events (analytics.ts) and, when the bridge is on for this
   * element, pushes its GA4 form to the page's dataLayer.
   */
  protected track<T>(name: `estate-${string}`, detail: T, dataLayer: DataLayerEntry[]): void {
    dispatchAnalytics(this, name, detail, dataLayer);
  }

  /**
   * Resolves once the render a Task's callback asked for is done: Task calls onComplete/onError
   * before it requests that render, so wait a microtask for the request, then for the render.
   */
  protected async rendered(): Promise<void> {
    await Promise.resolve();
    await this.updateComplete;
  }
}
