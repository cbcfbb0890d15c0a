import { addressSlug } from '../../contract/slug.ts';

/** The list pages: what each shows, and the page words (words/en-AU.ts) of its heading. */
export const LIST_PAGES = {
  buy: { type: 'sale', status: 'available', title: 'homesForSale' },
  rent: { type: 'lease', status: 'available', title: 'homesForRent' },
  sold: { type: 'sale', status: 'sold', title: 'recentlySold' },
} as const;

export type ListKind = keyof typeof LIST_PAGES;

/**
 * The pages' paths on the agency's site. The relay serves them under /listings/ (one location for
 * the agency's proxy to map); the site may map that prefix elsewhere (SITE_LISTING_PATH), so links
 * and canonical URLs are written with the site's prefix, never the relay's.
 */
export class SitePaths {
  constructor(
    /** The agency site's URL, no trailing slash ('https://agency.example'). */
    readonly siteUrl: string,
    /** Where the site maps the relay's /listings/ ('/listings'). */
    readonly prefix: string,
    /** The pages' language when it is one of the others the site offers (SITE_LANGUAGES): every path carries `?lang=`. */
    readonly lang?: string,
  ) {}

  listing(id: number, address: string | null | undefined): string {
    return this.inLanguage(`${this.prefix}/${id}/${addressSlug(address)}`);
  }

  /** A list page, its first page without `?page=`. */
  list(kind: ListKind, suburb?: string | null, page = 1): string {
    const path = `${this.prefix}/${kind}${suburb ? `/${addressSlug(suburb)}` : ''}`;
    return this.inLanguage(page > 1 ? `${path}?page=${page}` : path);
  }

  /** The team page. */
  team(): string {
    return this.inLanguage(`${this.prefix}/agents`);
  }

  /** One agent's page: their id, and their name as its slug. */
  agent(id: number, name: string): string {
    return this.inLanguage(`${this.prefix}/agents/${id}/${addressSlug(name)}`);
  }

  /** A link template the elements fill (`{id}`, `{slug}`), in the pages' language. */
  template(path: string): string {
    return this.inLanguage(`${this.prefix}${path}`);
  }

  /** The path with `?lang=` (or `&lang=`) when the pages are in another of the site's languages. */
  inLanguage(path: string): string {
    return this.lang ? `${path}${path.includes('?') ? '&' : '?'}lang=${encodeURIComponent(this.lang)}` : path;
  }

  absolute(path: string): string {
    return `${this.siteUrl}${path}`;
  }
}
