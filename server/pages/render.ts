// The DOM shim of @lit-labs/ssr must be in place before the element modules load: both are
// imported on the first page rendered (loadRenderer), @lit-labs/ssr first.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TemplateResult } from 'lit';
import type { AgentProfile, ListingDetail, ListingSummary, Team } from '../../contract/relay-api.ts';
import type { Logger } from '../runtime/log.ts';
import type { LanguageWords } from '../../widget/ssr.ts';
import { escapeHtml, scriptJson } from './html.ts';

/** What the server and, later, the browser both give the elements, so both render the same markup. */
export interface ElementSettings {
  /** The relay as browsers reach it (absolute): photo and API URLs resolve against it. */
  relay: string;
  timeZone: string;
  /** Numbers, prices and dates: the page language's locale (widget/shared/format.ts's localeOfLanguage). */
  locale: string;
  /** The page's language (SITE_LANGUAGE, an agency's `language`): the elements' words are rendered in it. */
  lang: string;
}

/**
 * Marks a server-rendered element and the JSON after it: the properties it was rendered with.
 * The element reads them when it first connects (widget/shared/estate-element.ts), so its first
 * render in the browser is the server's markup again, drawn over it before the browser paints.
 */
export const SERVER_RENDERED_ATTRIBUTE = 'data-estate-ssr';

/**
 * Where the widget build puts the elements built for Node (vite.ssr.config.ts: `ssr/elements.js`
 * in the widget's folder), with the same template minifier as the browser's chunks.
 */
export const SERVER_ELEMENTS = join('ssr', 'elements.js');

export interface RenderedElement {
  html: string;
  /** `<script type="application/json" data-estate-ssr>` with the element's properties. */
  data: string;
  /**
   * In a built-in language other than English: `<script type="application/json"
   * data-estate-translation="built-in">` with the words of the sections it was rendered with, put
   * before it, so the browser renders the same words at once instead of fetching them. Else ''.
   */
  words: string;
}

export interface ElementRenderer {
  /** `<estate-listing>`, its shadow root as declarative shadow DOM. JSON-LD goes in the head, so the element adds none. */
  renderListing(listing: ListingDetail, settings: ElementSettings): Promise<RenderedElement>;
  /** `<estate-listings>` with the cards of one page; the list page adds real links for the other pages. */
  renderListings(items: ListingSummary[], settings: ElementSettings & { detailHref: string }): Promise<RenderedElement>;
  /** `<estate-team>` with every public person's card, each linking to `agentHref` (`{id}`, `{slug}`). */
  renderTeam(team: Team, settings: ElementSettings & { agentHref: string }): Promise<RenderedElement>;
  /**
   * `<estate-agent>`, the agent's page: their cards link to `detailHref`, the page of someone not
   * (or no longer) on the team to the team page, `agentHref` without its `{id}/{slug}`.
   */
  renderAgent(agent: AgentProfile, settings: ElementSettings & { agentHref: string; detailHref: string }): Promise<RenderedElement>;
}

/**
 * Renders the elements from the server copy the widget build wrote beside the browser's chunks
 * (`<widgetDir>/ssr/elements.js`). The browser renders its own markup over the server's before it
 * paints, so the two must be the very same, and the browser's templates are minified: rendering
 * from the TypeScript source would send other markup (whitespace between inline tags) that could
 * move when the browser's replaces it. So without that file (the widget not built) the pages carry the elements without a shadow root and the browser renders
 * them (head tags, JSON-LD and links stay server-made); a warning says so once, with the fix.
 */
export function elementRenderer(widgetDir: string, log: Pick<Logger, 'warn'>): ElementRenderer {
  const file = join(widgetDir, SERVER_ELEMENTS);
  let loaded: Promise<LitRenderer | null> | undefined;
  const ready = () =>
    (loaded ??= existsSync(file)
      ? loadRenderer(file)
      : Promise.resolve(null).then(() => {
          log.warn(
            { file },
            'No server build of the elements (run npm run build:widget): listing pages carry the elements for the browser to render, without server-rendered shadow DOM',
          );
          return null;
        }));

  /** One render at a time: the language the elements read on the server is the renderer's, not the element's (renderingIn). */
  let queue: Promise<unknown> = Promise.resolve();
  const inLanguage = <T>(lit: LitRenderer, lang: string, render: () => Promise<T>): Promise<T> => {
    const turn = queue.then(async () => {
      lit.elements.renderingIn(lang);
      try {
        return await render();
      } finally {
        lit.elements.renderingIn(BASE_LANGUAGE);
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  };

  /** The element server-rendered once the server build is loaded, else left for the browser (clientRendered). */
  const renderElement = async (
    settings: ElementSettings,
    data: string,
    unrendered: () => string,
    template: (html: LitRenderer['html']) => TemplateResult,
  ): Promise<RenderedElement> => {
    const lit = await ready();
    if (!lit) return { html: unrendered(), data, words: '' };
    const language = await lit.elements.languageWords(settings.lang);
    const html = await inLanguage(lit, settings.lang, () => lit.collectResult(lit.render(template(lit.html))));
    return { html, data, words: language ? wordsScript(language, html, lit.elements.sectionsOfTag) : '' };
  };

  return {
    renderListing: (listing, settings) =>
      renderElement(
        settings,
        pageData({ listing }),
        () => clientRendered('estate-listing', settings, { 'heading-level': '1', 'no-json-ld': '' }),
        (html) =>
          html`<estate-listing
            data-estate-ssr
            relay=${settings.relay}
            locale=${settings.locale}
            time-zone=${settings.timeZone}
            heading-level="1"
            no-json-ld
            .listing=${listing}
          ></estate-listing>`,
      ),
    renderListings: (items, settings) =>
      renderElement(
        settings,
        pageData({ listings: items }),
        () => clientRendered('estate-listings', settings, { 'heading-level': '2', 'detail-href': settings.detailHref }),
        (html) =>
          html`<estate-listings
            data-estate-ssr
            relay=${settings.relay}
            locale=${settings.locale}
            time-zone=${settings.timeZone}
            heading-level="2"
            detail-href=${settings.detailHref}
            .listings=${items}
          ></estate-listings>`,
      ),
    renderTeam: (team, settings) =>
      renderElement(
        settings,
        pageData({ team }),
        () => clientRendered('estate-team', settings, { 'heading-level': '2', 'agent-href': settings.agentHref }),
        (html) =>
          html`<estate-team
            data-estate-ssr
            relay=${settings.relay}
            locale=${settings.locale}
            heading-level="2"
            agent-href=${settings.agentHref}
            .team=${team}
          ></estate-team>`,
      ),
    renderAgent: (agent, settings) => {
      const teamHref = teamPage(settings.agentHref);
      return renderElement(
        settings,
        pageData({ agent }),
        () => clientRendered('estate-agent', settings, { 'heading-level': '1', 'detail-href': settings.detailHref, 'team-href': teamHref }),
        (html) =>
          html`<estate-agent
            data-estate-ssr
            relay=${settings.relay}
            locale=${settings.locale}
            time-zone=${settings.timeZone}
            heading-level="1"
            detail-href=${settings.detailHref}
            team-href=${teamHref}
            .agent=${agent}
          ></estate-agent>`,
      );
    },
  };
}

/** What the elements' server build (widget/ssr.ts) exports. */
type ServerElements = typeof import('../../widget/ssr.ts');

interface LitRenderer {
  render: typeof import('@lit-labs/ssr').render;
  collectResult: typeof import('@lit-labs/ssr/lib/render-result.js').collectResult;
  html: typeof import('lit').html;
  elements: Pick<ServerElements, 'languageWords' | 'renderingIn' | 'sectionsOfTag'>;
}

const BASE_LANGUAGE = 'en-AU';

/** The words of the sections the rendered elements (the element and those inside it) show, for the browser. */
function wordsScript(language: LanguageWords, html: string, sectionsOfTag: ServerElements['sectionsOfTag']): string {
  const translation: Record<string, unknown> = { $code: language.code };
  for (const [, tag] of html.matchAll(/<(estate-[a-z-]+)/g)) {
    for (const section of sectionsOfTag(tag!)) if (language.sections[section]) translation[section] = language.sections[section];
  }
  return `<script type="application/json" data-estate-translation="built-in">${scriptJson(translation)}</script>`;
}

/**
 * Lit's server renderer, its DOM shim and the elements' server build, loaded when the first page
 * is rendered, not at start: a relay whose agencies use no server-rendered page never holds them
 * (about 2 MB at load, more once the elements are in; bench/memory.ts).
 */
async function loadRenderer(elementsFile: string): Promise<LitRenderer> {
  const { render } = await import('@lit-labs/ssr');
  const { collectResult } = await import('@lit-labs/ssr/lib/render-result.js');
  const { html } = await import('lit');
  const elements = (await import(pathToFileURL(elementsFile).href)) as ServerElements;
  return { render, collectResult, html, elements };
}

/** The team page an agent's page links back to: the agent path template without its `/{id}/{slug}`. */
function teamPage(agentHref: string): string {
  const [path, query] = agentHref.split('?');
  return `${path!.replace(/\/\{id\}(\/\{slug\})?$/, '') || '/'}${query ? `?${query}` : ''}`;
}

/** The element's tag with its attributes and no shadow root: it reads its properties from the JSON after it, then renders as on any page. */
function clientRendered(tag: string, settings: ElementSettings, attributes: Record<string, string>): string {
  const all: Record<string, string> = {
    [SERVER_RENDERED_ATTRIBUTE]: '',
    relay: settings.relay,
    locale: settings.locale,
    'time-zone': settings.timeZone,
    ...attributes,
  };
  const text = Object.entries(all)
    .map(([name, value]) => (value === '' ? name : `${name}="${escapeHtml(value)}"`))
    .join(' ');
  return `<${tag} ${text}></${tag}>`;
}

function pageData(properties: Record<string, unknown>): string {
  return `<script type="application/json" ${SERVER_RENDERED_ATTRIBUTE}>${scriptJson(properties)}</script>`;
}
