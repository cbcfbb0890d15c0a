/**
 * robots.txt with AGENCIES_FILE. Crawlers read it from the host they crawl, and a proxy on an
 * agency's site never passes it on, so the relay answers by Host:
 *
 * - at one of an agency's `hosts` the relay is that agency's listings site: crawl its pages, here
 *   is its sitemap (on its site, where the URLs it lists are);
 * - at any other host (the relay's own, PUBLIC_URL) the pages under /a/<slug>/ are copies of pages
 *   whose canonical address is the agency's site, with links that only work there: kept out of the
 *   crawl, per agency. Everything else stays open: a crawler that renders an agency's site fetches
 *   its widget, API answers and photos from here.
 */

/** An agency's host: its pages and sitemap are crawled; JSON fragments and other agencies' paths are not. */
export function agencyHostRobots(sitemapUrl: string): string {
  return ['User-agent: *', 'Disallow: /a/', 'Disallow: /fragments/', 'Allow: /', '', `Sitemap: ${sitemapUrl}`, ''].join('\n');
}

/**
 * The relay's own host: each listed agency's page copies kept out (by slug: a wildcard would also
 * match /a/<slug>/api/v1/listings, which a rendering crawler needs). An agency whose pages name
 * the relay as their canonical address (no siteUrl, no hosts) is left open.
 */
export function relayHostRobots(slugsWithSites: readonly string[]): string {
  const lines = ['User-agent: *', 'Disallow: /listings/', 'Disallow: /fragments/', 'Disallow: /sitemap.xml'];
  for (const slug of slugsWithSites) lines.push(`Disallow: /a/${slug}/listings`, `Disallow: /a/${slug}/fragments/`, `Disallow: /a/${slug}/sitemap.xml`);
  return `${lines.join('\n')}\n`;
}
