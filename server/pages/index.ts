import { join } from 'node:path';
import type { Clock } from '../runtime/clock.ts';
import type { Config } from '../runtime/config.ts';
import { answerCacheFor, type AnswerCache } from '../http/answer-cache.ts';
import type { Feature } from '../runtime/feature.ts';
import type { PublicListings } from '../listings/index.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { SitePaths } from './paths.ts';
import { publishedPages } from './published.ts';
import { elementRenderer } from './render.ts';
import { pagesRouter } from './router.ts';
import { WrapperCache, type WrapperSource } from './wrapper.ts';

export { WRAPPER_MARKER } from './wrapper.ts';
export { LIST_PAGE_SIZE } from './router.ts';

/** The demo agency: the name its pages carry when SITE_NAME is unset. */
const DEMO_SITE_NAME = 'Harbour & Yarra Property';

export interface PagesOptions {
  config: Config;
  store: Store;
  log: Logger;
  listings: PublicListings;
  /** The listing cache's change feed and fill state. */
  onListingsChange(listener: () => void): unknown;
  filled(): boolean;
  /** Relays on one database: whether this relay records the published pages (the agency's sync holder does). */
  recordsPublished?: () => boolean;
  /** Where this relay listens (demo mode: the site URL, and what share images are absolute against). */
  ownUrl: string;
  /** The widget build the relay serves: the server copy of the elements is in its ssr/ folder (render.ts). */
  widgetDir: string;
  /** The demo site's folder (its listing.html, without what its <main> holds, is the demo's shell). */
  demoDir?: string | null;
  maxUrlsPerSitemap?: number;
  now?: Clock;
  /** The relay's one answer cache (http/answer-cache.ts; default: the pages' own, from config.http). */
  answers?: AnswerCache;
}

/**
 * Server-rendered listing pages (issue #13) as a feature of the relay: its router serves
 * /listings/..., /sitemap.xml and /fragments/listings/... from the settings SITE_URL,
 * SITE_LISTING_PATH, SITE_WRAPPER_URL, SITE_NAME. No workers and no readiness of its own: it reads
 * the listing cache, whose feature says when that is filled.
 */
export function pagesFeature(options: PagesOptions): Feature {
  const { config, log } = options;
  // Canonical URLs name the agency's site; without one, the relay's public address.
  const siteUrl = config.site.url ?? config.http.publicUrl ?? options.ownUrl;
  const relayOrigin = config.http.publicUrl ?? options.ownUrl;
  const demoWrapper = config.demoMode && options.demoDir ? join(options.demoDir, 'listing.html') : null;
  const source: WrapperSource = config.site.wrapperUrl
    ? { url: config.site.wrapperUrl, refreshMinutes: config.site.wrapperMinutes }
    : demoWrapper
      ? { file: demoWrapper }
      : null;
  if (!config.demoMode && !config.site.url) {
    log.warn('SITE_URL is unset: listing pages name the relay (PUBLIC_URL) as their canonical address, not the agency site');
  }
  // The pages' enquiry forms post from the agency's domain to the relay: that origin must be allowed.
  if (!config.demoMode && config.site.url && !config.http.allowedOrigins.includes(new URL(config.site.url).origin)) {
    log.warn(
      { siteOrigin: new URL(config.site.url).origin },
      "SITE_URL's origin is not in ALLOWED_ORIGINS: enquiries sent from the listing pages on the agency site would be refused",
    );
  }
  const wrapper = new WrapperCache(source, log, options.now);
  const router = pagesRouter({
    listings: options.listings,
    onListingsChange: options.onListingsChange,
    filled: options.filled,
    recordsPublished: options.recordsPublished,
    published: publishedPages(options.store),
    wrapper,
    paths: new SitePaths(siteUrl, config.site.listingPath),
    // Pages the relay serves itself in the demo use root-relative URLs: right on whichever address opened them.
    element: { relay: config.http.publicUrl ?? '/', timeZone: config.site.timeZone, locale: 'en-AU' },
    renderer: elementRenderer(options.widgetDir, log),
    relayOrigin,
    siteName: config.site.name ?? (config.demoMode ? DEMO_SITE_NAME : null),
    currency: 'AUD',
    maxUrlsPerSitemap: options.maxUrlsPerSitemap,
    now: options.now,
    answers: options.answers ?? answerCacheFor(config.http),
    onRecordError: (error) =>
      log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not record the published listing pages (store busy); the next change records them',
      ),
  });
  return { name: 'pages', router, workers: [], readiness: {} };
}
