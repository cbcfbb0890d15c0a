/**
 * Marks the agency's menu item for the page being served (issue #33): the shell is one page of the
 * agency's site, so its menu marks that page (or none) as current, whatever the listing page is.
 * Every `aria-current` of the shell's links is taken out, then the link to this page gets
 * `aria-current="page"`, or the link to the section a page sits in (a listing under "Buy") gets
 * `aria-current="true"`, as the WAI-ARIA practices mark the current item of a set.
 */
export interface CurrentPage {
  /** The page's path on the agency's site (`/listings/buy`, `/listings/123/12-example-street-kew-vic`). */
  path: string;
  /** The list this page belongs to (`buy`, `rent`, `sold`): its menu item when no link is to the page itself. */
  section?: string;
  /** The page is that list's own first page (the menu's "Buy" may link the site's page of it, `/buy`): marked as the page, not as within it. */
  isSectionPage?: boolean;
}

const LINK = /<a\b[^>]*>/gi;
const HREF = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;
const ARIA_CURRENT = /\saria-current\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)/gi;

/** The shell's parts with the menu marked for `page`. `siteUrl`: the agency site's origin, for absolute links in the menu. */
export function markCurrentPage(
  parts: { beforeContent: string; afterContent: string },
  page: CurrentPage,
  siteUrl: string,
): { beforeContent: string; afterContent: string } {
  const links = [...linksOf(parts.beforeContent, siteUrl)];
  const pagePath = trimSlash(page.path);
  const exact = links.find((link) => link.path === pagePath);
  // Within a list ("/listings/buy/kew", page 2) or its section (a listing for sale): the link to
  // that list, where the menu links the relay's list page or the site's own page of it ("/buy").
  const sectionLink =
    exact ??
    links.find((link) => link.path !== '/' && pagePath.startsWith(`${link.path}/`)) ??
    (page.section ? links.find((link) => link.path !== '/' && lastSegment(link.path) === page.section) : undefined);
  const unmark = (html: string) => html.replace(LINK, (tag) => tag.replace(ARIA_CURRENT, ''));
  let before = unmark(parts.beforeContent);
  if (sectionLink) {
    const value = sectionLink === exact || page.isSectionPage ? 'page' : 'true';
    let seen = 0;
    before = before.replace(LINK, (tag) => (seen++ === sectionLink.index ? tag.replace(/^<a\b/i, `<a aria-current="${value}"`) : tag));
  }
  return { beforeContent: before, afterContent: unmark(parts.afterContent) };
}

function* linksOf(html: string, siteUrl: string): Generator<{ index: number; path: string }> {
  const origin = safeOrigin(siteUrl);
  let index = 0;
  for (const match of html.matchAll(LINK)) {
    const href = HREF.exec(match[0]);
    const value = href ? (href[1] ?? href[2] ?? href[3] ?? '') : '';
    const path = sitePath(value.replace(/&amp;/g, '&'), origin);
    if (path !== undefined) yield { index, path };
    index += 1;
  }
}

/** A link's path on the site, undefined for another site's, a fragment or a non-http link. */
function sitePath(href: string, origin: string | undefined): string | undefined {
  if (!href || href.startsWith('#')) return undefined;
  try {
    const url = new URL(href, origin ?? 'http://site.invalid');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    if (origin ? url.origin !== origin : url.origin !== 'http://site.invalid') return undefined;
    return trimSlash(url.pathname.replace(/\/index\.html$/, '/'));
  } catch {
    return undefined;
  }
}

function safeOrigin(siteUrl: string): string | undefined {
  try {
    return new URL(siteUrl).origin;
  } catch {
    return undefined;
  }
}

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function lastSegment(path: string): string {
  return (
    path
      .split('/')
      .filter(Boolean)
      .at(-1)
      ?.replace(/\.html$/, '') ?? ''
  );
}
