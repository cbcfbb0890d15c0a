/**
 * robots.txt with AGENCIES_FILE. Crawlers read it from the host they crawl, and a proxy on an
 * agency's site never passes it on, so the relay answers by Host:
 *
 * - at one of an agency's `hosts` the relay is that agency's listings site: crawl its pages, here
 *   is its sitemap (on its site, where the URLs it lists are);
 * - at any other host (the relay's own, PUBLIC_URL) the pages under /a/<slug>/ are copies of pages
 *   whose canonical address is the agency's site, with links that only work there: kept out of the
 *   crawl, for every agency at once (no slug named). Everything else stays open: a crawler that
 *   renders an agency's site fetches its widget, API answers and photos from here.
 */

/** An agency's host: its pages and sitemap are crawled; JSON fragments and other agencies' paths are not. */
export function agencyHostRobots(sitemapUrl: string): string {
  return ['User-agent: *', 'Disallow: /a/', 'Disallow: /fragments/', 'Disallow: /reports/', 'Allow: /', '', `Sitemap: ${sitemapUrl}`, ''].join('\n');
}

/**
 * The relay's own host: every agency's page copies under /a/<slug>/ kept out, by wildcard, so the
 * file names no agency (a list of slugs here was the integrator's client list, readable by anyone).
 * A crawler takes the longest matching rule (RFC 9309 §2.2.2), so the listing API, which also
 * ends its path in /listings and which a crawler rendering an agency's site needs, is opened by a
 * longer Allow. A crawler that does not know wildcards reads these rules as literal paths that
 * match nothing: it may crawl the copies, whose canonical links name the agency's site. An agency
 * without siteUrl or hosts (its pages name the relay as their address) is kept out with the rest:
 * opening it here would name it; giving it a site or a host is how its pages get crawled.
 */
export function relayHostRobots(): string {
  return [
    'User-agent: *',
    'Disallow: /listings/',
    'Disallow: /fragments/',
    'Disallow: /sitemap.xml',
    // The sellers' reports (server/reports/): each is also noindex, and no page links to one.
    'Disallow: /reports/',
    'Disallow: /a/*/listings',
    'Disallow: /a/*/fragments/',
    'Disallow: /a/*/sitemap.xml',
    'Disallow: /a/*/reports/',
    'Allow: /a/*/api/v1/listings',
    '',
  ].join('\n');
}
