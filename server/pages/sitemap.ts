import { escapeHtml } from './html.ts';

/** The sitemaps protocol's limits per file (sitemaps.org): 50,000 URLs and 50 MB uncompressed. */
export const SITEMAP_MAX_URLS = 50_000;
const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
/** Where a URL's language versions are named (Google's hreflang in sitemaps: `xhtml:link rel="alternate"`). */
const XHTML_NS = 'http://www.w3.org/1999/xhtml';

export interface SitemapEntry {
  /** Absolute URL (http or https), at most 2,048 characters. */
  loc: string;
  /** W3C datetime (an ISO string). */
  lastmod?: string | null;
  /** The page's versions in every language the site offers, itself among them, and `x-default`. */
  alternates?: ReadonlyArray<{ hreflang: string; href: string }>;
}

/** A `<urlset>` of up to SITEMAP_MAX_URLS entries. */
export function urlset(entries: readonly SitemapEntry[]): string {
  const lines = entries.map((entry) => `<url><loc>${escapeHtml(entry.loc)}</loc>${lastmod(entry.lastmod)}${alternates(entry.alternates)}</url>`);
  const xhtml = entries.some((entry) => entry.alternates?.length) ? ` xmlns:xhtml="${XHTML_NS}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="${SITEMAP_NS}"${xhtml}>\n${lines.join('\n')}\n</urlset>\n`;
}

function alternates(versions: SitemapEntry['alternates']): string {
  return (versions ?? []).map(({ hreflang, href }) => `<xhtml:link rel="alternate" hreflang="${escapeHtml(hreflang)}" href="${escapeHtml(href)}"/>`).join('');
}

/** A `<sitemapindex>` naming the files of a sitemap too large for one. */
export function sitemapIndex(entries: readonly SitemapEntry[]): string {
  const lines = entries.map((entry) => `<sitemap><loc>${escapeHtml(entry.loc)}</loc>${lastmod(entry.lastmod)}</sitemap>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="${SITEMAP_NS}">\n${lines.join('\n')}\n</sitemapindex>\n`;
}

function lastmod(value: string | null | undefined): string {
  if (!value) return '';
  const time = Date.parse(value);
  // The epoch stands for "unknown" in the cache: better no lastmod than a wrong one.
  return Number.isFinite(time) && time > 0 ? `<lastmod>${new Date(time).toISOString().replace(/\.\d{3}Z$/, '+00:00')}</lastmod>` : '';
}

/** The newest lastmod of some entries (for an index line). */
export function newest(entries: readonly SitemapEntry[]): string | null {
  let best: string | null = null;
  for (const entry of entries) if (entry.lastmod && (!best || Date.parse(entry.lastmod) > Date.parse(best))) best = entry.lastmod;
  return best;
}
