// The DOM shim of @lit-labs/ssr must be in place before the element modules load (they are
// imported below, on first use, from the widget build's server copy).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { render } from '@lit-labs/ssr';
import { collectResult } from '@lit-labs/ssr/lib/render-result.js';
import { html } from 'lit';
import type { ListingDetail, ListingSummary } from '../../contract/relay-api.ts';
import type { Logger } from '../log.ts';
import { escapeHtml, scriptJson } from './html.ts';

/** What the server and, later, the browser both give the elements, so both render the same markup. */
export interface ElementSettings {
  /** The relay as browsers reach it (absolute): photo and API URLs resolve against it. */
  relay: string;
  timeZone: string;
  locale: string;
}

/**
 * The hydration data of a page: for each server-rendered element, in document order, the
 * properties it was rendered with. widget/hydrate.ts sets them on the elements before their code
 * runs, so the first render in the browser matches the markup and nothing is replaced.
 */
export const HYDRATION_DATA_ATTRIBUTE = 'data-estate-ssr';

/**
 * Where the widget build puts the elements built for Node (vite.ssr.config.ts: `ssr/elements.js`
 * in the widget's folder), with the same template minifier as the browser's chunks.
 */
export const SERVER_ELEMENTS = join('ssr', 'elements.js');

/**
 * What the widget build writes about Lit's hydration chunks (vite.config.ts, HYDRATION_MANIFEST):
 * the files in load order, the one to run last, and each one's SHA-384.
 */
const HYDRATION_MANIFEST = 'hydration.json';

export interface RenderedElement {
  html: string;
  /** `<script type="application/json" data-estate-ssr>` with the element's properties. */
  data: string;
}

export interface ElementRenderer {
  /** `<estate-listing>`, its shadow root as declarative shadow DOM. JSON-LD goes in the head, so the element adds none. */
  renderListing(listing: ListingDetail, settings: ElementSettings): Promise<RenderedElement>;
  /** `<estate-listings>` with the cards of one page; the list page adds real links for the other pages. */
  renderListings(items: ListingSummary[], settings: ElementSettings & { detailHref: string }): Promise<RenderedElement>;
  /**
   * The tags that load Lit's hydration (widget/hydrate.ts), from `base` (the relay as the page
   * reaches it), each with its integrity: they go before widget.js, so the hydration support is
   * in place before any element's code runs (module scripts run in document order). The loader
   * knows nothing of it, so pages the relay does not render pay nothing for it. '' when the
   * widget is not built.
   */
  hydrationScripts(base: string): string;
}

/**
 * Renders the elements from the server copy the widget build wrote beside the browser's chunks
 * (`<widgetDir>/ssr/elements.js`). Lit hydrates server markup only when the template strings the
 * server rendered are the browser's very strings, and the browser's are minified: rendering from
 * the TypeScript source would make markup the browser cannot hydrate. So without that file (the
 * widget not built) the pages carry the elements without a shadow root and the browser renders
 * them (head tags, JSON-LD and links stay server-made); a warning says so once, with the fix.
 */
export function elementRenderer(widgetDir: string, log: Pick<Logger, 'warn'>): ElementRenderer {
  const file = join(widgetDir, SERVER_ELEMENTS);
  let loaded: Promise<boolean> | undefined;
  const ready = () =>
    (loaded ??= existsSync(file)
      ? import(pathToFileURL(file).href).then(() => true)
      : Promise.resolve(false).then((found) => {
          log.warn({ file }, 'No server build of the elements (run npm run build:widget): listing pages carry the elements for the browser to render, without server-rendered shadow DOM');
          return found;
        }));

  let hydration: { files: string[]; integrity: Record<string, string> } | null | undefined;
  const hydrationManifest = () => {
    if (hydration === undefined) {
      const manifestFile = join(widgetDir, HYDRATION_MANIFEST);
      hydration = existsSync(manifestFile) ? (JSON.parse(readFileSync(manifestFile, 'utf8')) as { files: string[]; integrity: Record<string, string> }) : null;
    }
    return hydration;
  };

  return {
    hydrationScripts(base) {
      const manifest = hydrationManifest();
      if (!manifest?.files.length) return '';
      const url = (file: string) => escapeHtml(`${base}/${file}`);
      const sri = (file: string) => escapeHtml(manifest.integrity[file] ?? '');
      const run = manifest.files[manifest.files.length - 1]!;
      // Its imports first, checked as the loader checks the chunks it fetches; then the module itself.
      const preloads = manifest.files.slice(0, -1).map((file) => `<link rel="modulepreload" href="${url(file)}" integrity="${sri(file)}" crossorigin="anonymous">`);
      return `${preloads.join('')}<script type="module" src="${url(run)}" integrity="${sri(run)}" crossorigin="anonymous"></script>\n`;
    },
    async renderListing(listing, settings) {
      const data = hydrationData({ listing });
      if (!(await ready())) return { html: clientRendered('estate-listing', settings, { 'heading-level': '1', 'no-json-ld': '' }), data };
      const markup = await collectResult(
        render(html`<estate-listing
          data-estate-ssr
          relay=${settings.relay}
          locale=${settings.locale}
          time-zone=${settings.timeZone}
          heading-level="1"
          no-json-ld
          .listing=${listing}
        ></estate-listing>`),
      );
      return { html: markup, data };
    },
    async renderListings(items, settings) {
      const data = hydrationData({ listings: items });
      if (!(await ready())) return { html: clientRendered('estate-listings', settings, { 'heading-level': '2', 'detail-href': settings.detailHref }), data };
      const markup = await collectResult(
        render(html`<estate-listings
          data-estate-ssr
          relay=${settings.relay}
          locale=${settings.locale}
          time-zone=${settings.timeZone}
          heading-level="2"
          detail-href=${settings.detailHref}
          .listings=${items}
        ></estate-listings>`),
      );
      return { html: markup, data };
    },
  };
}

/** The element's tag with its attributes and no shadow root: widget/hydrate.ts gives it its properties, then it renders as on any page. */
function clientRendered(tag: string, settings: ElementSettings, attributes: Record<string, string>): string {
  const all: Record<string, string> = { [HYDRATION_DATA_ATTRIBUTE]: '', relay: settings.relay, locale: settings.locale, 'time-zone': settings.timeZone, ...attributes };
  const text = Object.entries(all)
    .map(([name, value]) => (value === '' ? name : `${name}="${escapeHtml(value)}"`))
    .join(' ');
  return `<${tag} ${text}></${tag}>`;
}

function hydrationData(properties: Record<string, unknown>): string {
  return `<script type="application/json" ${HYDRATION_DATA_ATTRIBUTE}>${scriptJson(properties)}</script>`;
}
