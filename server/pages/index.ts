import { join } from 'node:path';
import { Router } from 'express';
import type { Clock } from '../runtime/clock.ts';
import type { Config } from '../runtime/config.ts';
import { answerCacheFor, type AnswerCache } from '../http/answer-cache.ts';
import { PerClientLimit } from '../http/client-limit.ts';
import { HttpError } from '../http/errors.ts';
import { localeOfLanguage } from '../../widget/shared/format.ts';
import type { Feature } from '../runtime/feature.ts';
import type { PublicListings } from '../listings/index.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import { SitePaths } from './paths.ts';
import { publishedPages } from './published.ts';
import { elementRenderer, type ElementRenderer } from './render.ts';
import { pagesRouter } from './router.ts';
import { WrapperCache, type WrapperSource } from './wrapper.ts';

export { WRAPPER_MARKER } from './wrapper.ts';
export { elementRenderer } from './render.ts';
export { LIST_PAGE_SIZE } from './router.ts';

/** The demo agency: the name its pages carry when SITE_NAME is unset. */
export const DEMO_SITE_NAME = 'Harbour & Yarra Property';
/** The demo agency's office number when SITE_PHONE is unset: in the range set aside for fiction (it rings no one). */
export const DEMO_SITE_PHONE = '(03) 5550 1000';

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
  /**
   * AGENCIES_FILE: the agency these pages are of. Its site settings are config.site (agencyConfig);
   * its widget and API are under /a/<slug>/ on the relay; it has its own render limit per client;
   * warnings name its fields in the file.
   */
  agency?: { slug: string; hosts: readonly string[] };
  /** One renderer for every agency's pages (it loads the server build once, and warns once without it). */
  renderer?: ElementRenderer;
}

/**
 * Server-rendered listing pages (issue #13) as a feature of the relay: its router serves
 * /listings/..., /sitemap.xml and /fragments/listings/... from the settings SITE_URL,
 * SITE_LISTING_PATH, SITE_WRAPPER_URL, SITE_NAME, SITE_TIME_ZONE (with AGENCIES_FILE: each
 * agency's siteUrl, listingPath, wrapperUrl, name and timeZone, the router mounted under
 * /a/<slug>/ and at the root of its hosts). No workers and no readiness of its own: it reads the
 * listing cache, whose feature says when that is filled.
 */
export function pagesFeature(options: PagesOptions): Feature {
  const { config, agency } = options;
  const log = agency ? options.log.child({ agency: agency.slug }) : options.log;
  const publicUrl = config.http.publicUrl ?? options.ownUrl;
  // An agency's widget and enquiry API are its own, under /a/<slug>/.
  const relayBase = agency ? `${publicUrl}/a/${agency.slug}` : publicUrl;
  const site = pageSite(config, publicUrl, agency);
  const demoWrapper = config.demoMode && options.demoDir ? join(options.demoDir, 'listing.html') : null;
  const source: WrapperSource = config.site.wrapperUrl
    ? { url: config.site.wrapperUrl, refreshMinutes: config.site.wrapperMinutes, setting: agency ? `AGENCIES_FILE "${agency.slug}" wrapperUrl` : undefined }
    : demoWrapper
      ? { file: demoWrapper }
      : null;
  warnAboutSite(config, log, site, agency);
  const wrapper = new WrapperCache(source, log, options.now);
  const answers = options.answers ?? answerCacheFor(config.http);
  // One router per language the site offers its pages in (SITE_LANGUAGES): `?lang=<code>` picks one.
  const languages = [config.site.language, ...config.site.otherLanguages];
  // One renderer for them all: it loads the elements once, and renders one page at a time in its language.
  const renderer = options.renderer ?? elementRenderer(options.widgetDir, log);
  // One agency's crawler (or a scraper of its site) spends its own renders, never another agency's; each of its languages too.
  const renders = agency ? new PerClientLimit(config.http.uncachedRendersPerMinute, options.now ?? Date.now) : undefined;
  const routerIn = (language: string, own: boolean) =>
    pagesRouter({
      listings: options.listings,
      onListingsChange: options.onListingsChange,
      filled: options.filled,
      // The site's own language records the published pages; the others' paths are the same pages.
      recordsPublished: own ? options.recordsPublished : () => false,
      published: publishedPages(options.store),
      wrapper,
      paths: new SitePaths(site.url, site.prefix, own ? undefined : language),
      // Pages the relay serves itself in the demo use root-relative URLs: right on whichever address opened them.
      element: {
        relay: agency ? relayBase : (config.http.publicUrl ?? '/'),
        timeZone: config.site.timeZone,
        locale: localeOfLanguage(language),
        lang: language,
      },
      renderer,
      relayBase,
      siteName: config.site.name ?? (config.demoMode ? DEMO_SITE_NAME : null),
      currency: 'AUD',
      maxUrlsPerSitemap: options.maxUrlsPerSitemap,
      now: options.now,
      answers,
      renders,
      onRecordError: (error) =>
        log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          'could not record the published listing pages (store busy); the next change records them',
        ),
      languages: languages.length > 1 ? languages : undefined,
    });
  const routers = new Map(languages.map((language, index) => [language, routerIn(language, index === 0)]));
  const router = Router();
  router.use((req, res, next) => {
    const wanted = req.query.lang;
    // Only the pages take `lang`: any other route of the relay is none of this.
    if (wanted === undefined || !/^\/(listings|fragments|sitemap)/.test(req.path)) return routers.get(languages[0]!)!(req, res, next);
    const language = typeof wanted === 'string' ? languages.find((code) => code.toLowerCase() === wanted.toLowerCase()) : undefined;
    if (!language)
      return next(new HttpError(400, 'invalid_lang', `This site's pages are in ${languages.join(', ')}.`, { lang: `must be one of ${languages.join(', ')}` }));
    return routers.get(language)!(req, res, next);
  });
  return { name: 'pages', router, workers: [], readiness: {} };
}

/** Where the pages' canonical URLs, links and sitemaps point: the agency's site and the path it maps the relay's /listings/ to. */
interface PageSite {
  url: string;
  prefix: string;
  /** Whether that is the relay itself (no site named): the pages are their own canonical copy there. */
  onRelay: boolean;
}

/**
 * The agency's site (SITE_URL, or its siteUrl); an agency without one but with hosts: its first
 * host (the relay serves its pages at that host's root paths); else the relay: its public address
 * in single-agency mode, /a/<slug>/listings/ with AGENCIES_FILE (where its pages are served).
 */
export function pageSite(config: Config, publicUrl: string, agency?: { slug: string; hosts: readonly string[] }): PageSite {
  if (config.site.url) return { url: config.site.url, prefix: config.site.listingPath, onRelay: false };
  if (agency?.hosts[0]) return { url: `https://${agency.hosts[0]}`, prefix: config.site.listingPath, onRelay: false };
  if (agency) return { url: publicUrl, prefix: `/a/${agency.slug}/listings`, onRelay: true };
  return { url: publicUrl, prefix: config.site.listingPath, onRelay: true };
}

/** Settings that leave the pages working but not as the agency would want: said once at start (and, per agency, on reload). */
function warnAboutSite(config: Config, log: Logger, site: PageSite, agency: PagesOptions['agency']): void {
  if (config.demoMode) return;
  const origins = config.http.allowedOrigins;
  if (!agency) {
    if (!config.site.url) log.warn('SITE_URL is unset: listing pages name the relay (PUBLIC_URL) as their canonical address, not the agency site');
    // The pages' enquiry forms post from the agency's domain to the relay: that origin must be allowed.
    else if (!origins.includes(new URL(config.site.url).origin))
      log.warn(
        { siteOrigin: new URL(config.site.url).origin },
        "SITE_URL's origin is not in ALLOWED_ORIGINS: enquiries sent from the listing pages on the agency site would be refused",
      );
    return;
  }
  const field = `AGENCIES_FILE "${agency.slug}"`;
  if (site.onRelay)
    log.warn(
      { canonical: `${site.url}${site.prefix}/` },
      `${field} has no siteUrl nor hosts: its listing pages name the relay (PUBLIC_URL/a/${agency.slug}/listings/…) as their canonical address, not the agency's site`,
    );
  // Every name its pages are read at posts its enquiry forms to the relay from that origin.
  const siteOrigin = new URL(site.url).origin;
  if (!site.onRelay && config.site.url && !origins.includes(siteOrigin))
    log.warn({ siteOrigin }, `${field}: siteUrl's origin is not in its allowedOrigins: enquiries sent from its listing pages would be refused`);
  const allowedHosts = new Set(origins.map((origin) => new URL(origin).hostname));
  const unallowed = agency.hosts.filter((host) => !allowedHosts.has(host));
  if (unallowed.length)
    log.warn(
      { hosts: unallowed },
      `${field}: hosts ${unallowed.join(', ')} have no origin in its allowedOrigins: enquiries sent from its listing pages at those names would be refused`,
    );
}
