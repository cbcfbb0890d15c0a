// The DOM shim of @lit-labs/ssr must be in place before any element module loads.
import { render } from '@lit-labs/ssr';
import { collectResult } from '@lit-labs/ssr/lib/render-result.js';
import { html } from 'lit';
import type { ListingDetail, ListingSummary } from '../../contract/relay-api.ts';
import '../../widget/index.ts';
import { scriptJson } from './html.ts';

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

export interface RenderedElement {
  html: string;
  /** `<script type="application/json" data-estate-ssr>` with the element's properties. */
  data: string;
}

/** `<estate-listing>` with its shadow root as declarative shadow DOM. JSON-LD goes in the head, so the element adds none. */
export async function renderListing(listing: ListingDetail, settings: ElementSettings): Promise<RenderedElement> {
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
  return { html: markup, data: hydrationData({ listing }) };
}

/** `<estate-listings>` with the cards of one page; the list page adds real links for the other pages. */
export async function renderListings(items: ListingSummary[], settings: ElementSettings & { detailHref: string }): Promise<RenderedElement> {
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
  return { html: markup, data: hydrationData({ listings: items }) };
}

function hydrationData(properties: Record<string, unknown>): string {
  return `<script type="application/json" ${HYDRATION_DATA_ATTRIBUTE}>${scriptJson(properties)}</script>`;
}
