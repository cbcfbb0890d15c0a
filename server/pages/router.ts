import { Router, type Request, type Response } from 'express';
import type { AgentProfile, ListingDetail, ListingSummary, Page, Team } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { LINK_TRACKING_PARAMETERS } from '../../contract/attribution.ts';
import { resolveSrcset } from '../../widget/shared/picture.ts';
import type { Clock } from '../runtime/clock.ts';
import { HttpError } from '../http/errors.ts';
import { tooManyRenders, type AnswerCache } from '../http/answer-cache.ts';
import { clientOf, type PerClientLimit } from '../http/client-limit.ts';
import { trustedHost } from '../http/request-host.ts';
import type { PublicListings } from '../listings/index.ts';
import { goneHead, listHead, listingHead, shareImage } from './head.ts';
import { agentHead, teamHead } from './people-head.ts';
import { clip, escapeHtml } from './html.ts';
import { markCurrentPage, type CurrentPage } from './current-page.ts';
import { LIST_PAGES, type ListKind, type SitePaths } from './paths.ts';
import { DYNAMIC_EFFORT, EncodedBody, sendEncoded } from '../http/precompressed.ts';
import type { PublishedPages } from './published.ts';
import type { ElementRenderer, ElementSettings } from './render.ts';
import { newest, SITEMAP_MAX_URLS, sitemapIndex, urlset, type SitemapEntry } from './sitemap.ts';
import type { Wrapper, WrapperCache } from './wrapper.ts';
import { PageText, pageWordsIn } from './words.ts';
import { isRightToLeft } from '../../widget/i18n/languages.ts';

/** Cards per list page. */
export const LIST_PAGE_SIZE = 12;
const PAGE_CACHE_CONTROL = 'public, max-age=300, stale-while-revalidate=3600, stale-if-error=86400';
const GONE_CACHE_CONTROL = 'public, max-age=300';
/** Current listings linked from a 404 or 410 page. */
const LINKED_ON_GONE = 6;

export interface PagesRouterDeps {
  listings: PublicListings;
  /** Subscribes to changes of the listing cache (a new generation of pages). */
  onListingsChange(listener: () => void): unknown;
  /** Whether the listing cache has been filled once (before that, pages say they are on their way). */
  filled(): boolean;
  published: PublishedPages;
  wrapper: WrapperCache;
  paths: SitePaths;
  /** What the elements get (relay, time zone, locale). */
  element: ElementSettings;
  /** Renders the elements into declarative shadow DOM (render.ts). */
  renderer: ElementRenderer;
  /** Where browsers reach this agency's routes on the relay, absolute (its widget script; share images): PUBLIC_URL, or PUBLIC_URL/a/<slug> with AGENCIES_FILE. */
  relayBase: string;
  siteName: string | null;
  currency: string;
  maxUrlsPerSitemap?: number;
  now?: Clock;
  /** Whether this relay records the published pages (default: always; relays on one database: the sync holder). */
  recordsPublished?: () => boolean;
  /** Reports a failed pages_published write (the store is busy); the next change records again. */
  onRecordError?(error: unknown): void;
  /** Where rendered pages are kept: the relay's one answer cache, bounded in bytes (http/answer-cache.ts). */
  answers: AnswerCache;
  /** Renders one client may ask for a minute (default the answer cache's, the relay's one; AGENCIES_FILE: each agency its own). */
  renders?: PerClientLimit;
  /**
   * Where the site offers its pages in several languages (SITE_LANGUAGES): every language, the
   * site's own first. Each page then names its versions (hreflang) and links them (a switcher).
   * This router's language is `element.lang`; the site's own serves the sitemaps, which list every
   * page in every language with its versions.
   */
  languages?: readonly string[];
}

/** One rendered answer, kept with its ETag and its compressed bodies (server/http/precompressed.ts: made once). */
interface RenderedPage {
  status: number;
  type: string;
  body: EncodedBody;
  cacheControl: string;
  location?: string;
}

/** What a page is made of before it is put in the wrapper (the fragment endpoint gives these parts). */
interface PageParts {
  status: number;
  canonical: string | null;
  head: string;
  body: string;
  location?: string;
  /** The menu item the shell marks as current (current-page.ts); none when unset. */
  current?: CurrentPage;
}

/**
 * Server-rendered listing pages for the agency's own domain (issue #13): the listing at
 * /listings/<id>/<slug>, the buy, rent and sold lists (and per suburb), sitemaps, and fragments
 * for sites that assemble pages themselves. Everything comes from the listing cache through the
 * public listing shape; a render never calls the CRM. Rendered answers are kept per listing and
 * per cache generation, with ETags and precompressed bodies.
 */
export function pagesRouter(deps: PagesRouterDeps): Router {
  const { listings, paths, published, wrapper } = deps;
  const text = new PageText(pageWordsIn(deps.element.lang), deps.element.locale);
  const now = deps.now ?? Date.now;
  const maxUrls = deps.maxUrlsPerSitemap ?? SITEMAP_MAX_URLS;
  // Rendered pages in the relay's answer cache; renders under way here (a second request waits for the first).
  const cache = deps.answers.scope('pages');
  const renders = deps.renders ?? deps.answers.renders;
  const rendering = new Map<string, Promise<RenderedPage>>();
  let generation = 0;
  let recordTimer: NodeJS.Timeout | undefined;

  // Every current listing, read once per generation (sitemaps, suburb lists, the published pages' record).
  let indexed: { generation: number; listings: ReturnType<PublicListings['index']> } | undefined;
  const currentListings = () => {
    if (indexed?.generation !== generation) indexed = { generation, listings: listings.index() };
    return indexed.listings;
  };

  // The agency's public people, read once per generation (the team page, sitemaps, the record); each
  // one's page (their listings) only once it is asked for, by their page or the sitemap.
  let people: { generation: number; team: Team; profiles: Map<number, AgentProfile | undefined> } | undefined;
  const currentPeople = () => {
    if (people?.generation !== generation) people = { generation, team: listings.team(), profiles: new Map() };
    return people;
  };
  const profileOf = (id: number): AgentProfile | undefined => {
    const { team, profiles } = currentPeople();
    if (!profiles.has(id)) profiles.set(id, team.items.some((member) => member.id === id) ? listings.agent(id) : undefined);
    return profiles.get(id);
  };

  const recordPublished = () => {
    // Relays on one database: the agency's sync holder records, the others get its record (one answer, 410 or 404, from any relay).
    if (deps.recordsPublished && !deps.recordsPublished()) return;
    try {
      published.record(
        currentListings().map((listing) => ({ id: listing.id, path: paths.listing(listing.id, listing.address.display) })),
        now(),
      );
      published.recordAgents(
        currentPeople().team.items.map((member) => ({ id: member.id, path: paths.agent(member.id, member.name) })),
        now(),
      );
    } catch (error) {
      deps.onRecordError?.(error);
    }
  };
  deps.onListingsChange(() => {
    generation += 1;
    cache.clear();
    rendering.clear();
    // A sync writes in bursts: record the published pages once it has settled.
    clearTimeout(recordTimer);
    recordTimer = setTimeout(recordPublished, 1_000);
    recordTimer.unref();
  });
  let recorded = false;

  const router = Router({ caseSensitive: true, strict: true });

  // Until the first sync has filled the cache, every listing would look unknown: say they are on their way.
  router.use(['/listings', '/sitemap.xml', '/fragments'], (_req, res, next) => {
    if (deps.filled()) {
      if (!recorded) {
        recorded = true;
        recordPublished();
      }
      return next();
    }
    res.set('Retry-After', '5').set('Cache-Control', 'no-store');
    res.status(503).type('text/plain').send('The listings are being loaded for the first time. Try again in a few seconds.');
  });

  router.get(['/sitemap.xml', '/listings/sitemap.xml'], (req, res) => serve(req, res, 'sitemap', () => sitemap(0)));
  router.get('/listings/sitemap-:part.xml', (req, res, next) => {
    const part = wholeNumber(String(req.params.part));
    if (!part) return next();
    return serve(req, res, `sitemap|${part}`, () => sitemap(part));
  });

  for (const kind of Object.keys(LIST_PAGES) as ListKind[]) {
    router.get(`/listings/${kind}`, (req, res) => serveList(req, res, kind, null));
    router.get(`/listings/${kind}/:suburb`, (req, res) => serveList(req, res, kind, String(req.params.suburb)));
    router.get(`/fragments/listings/${kind}`, (req, res) => serveList(req, res, kind, null, true));
    router.get(`/fragments/listings/${kind}/:suburb`, (req, res) => serveList(req, res, kind, String(req.params.suburb), true));
  }

  // The agency's people (before /listings/:id, which 'agents' is not).
  router.get('/listings/agents', (req, res) => serve(req, res, 'team', async () => whole(await teamParts())));
  router.get('/fragments/listings/agents', (req, res) => serve(req, res, 'fragment-team', async () => fragment(await teamParts())));
  router.get(['/listings/agents/:id', '/listings/agents/:id/:slug'], (req, res, next) => {
    const id = wholeNumber(String(req.params.id));
    if (!id) return next();
    const slug = req.params.slug === undefined ? null : String(req.params.slug);
    return serve(req, res, `agent|${id}|${slug}`, async () => whole(await agentParts(id, slug)));
  });
  router.get('/fragments/listings/agents/:id', (req, res, next) => {
    const id = wholeNumber(String(req.params.id));
    if (!id) return next();
    return serve(req, res, `fragment-agent|${id}`, async () => fragment(await agentParts(id, null, true)));
  });

  router.get(['/listings/:id', '/listings/:id/:slug'], (req, res, next) => {
    const id = wholeNumber(String(req.params.id));
    if (!id) return next();
    const slug = req.params.slug === undefined ? null : String(req.params.slug);
    return serve(req, res, `listing|${id}|${slug}`, async () => whole(await listingParts(id, slug)));
  });

  router.get('/fragments/listings/:id', (req, res, next) => {
    const id = wholeNumber(String(req.params.id));
    if (!id) return next();
    return serve(req, res, `fragment|${id}`, async () => fragment(await listingParts(id, null, true)));
  });

  function serveList(req: Request, res: Response, kind: ListKind, suburbSlug: string | null, asFragment = false): Promise<void> {
    const raw = req.query.page;
    if (raw !== undefined && (typeof raw !== 'string' || !wholeNumber(raw))) {
      throw new HttpError(400, 'invalid_page', 'The page must be a whole number from 1.', { page: 'must be a whole number from 1' });
    }
    // A campaign's link carries utm_* and click ids: taken and ignored, not refused (one cached page for all).
    const unknown = Object.keys(req.query).filter((name) => name !== 'page' && name !== 'lang' && !LINK_TRACKING_PARAMETERS.includes(name));
    if (unknown.length)
      throw new HttpError(
        400,
        'invalid_query',
        'Only ?page= is understood here.',
        Object.fromEntries(unknown.map((name) => [name, 'is not a parameter of list pages'])),
      );
    const page = raw === undefined ? 1 : Number(raw);
    const key = `${asFragment ? 'fragment-' : ''}list|${kind}|${suburbSlug}|${page}`;
    return serve(req, res, key, async () => {
      const parts = await listParts(kind, suburbSlug, page);
      return asFragment ? fragment(parts) : whole(parts);
    });
  }

  /** Answers from the page cache (rendering once per generation), with a strong ETag, 304s and the best encoding the client takes. */
  async function serve(req: Request, res: Response, key: string, make: () => Promise<RenderedPage>): Promise<void> {
    // Per host (it chose the agency: a page kept for one host is never sent at another), per cache
    // generation, and per hour so that open homes that have finished drop out.
    const cacheKey = `${trustedHost(req) ?? ''}|${deps.element.lang}|${key}|${generation}|${Math.floor(now() / 3_600_000)}`;
    let page = cache.get<RenderedPage>(cacheKey);
    if (!page) {
      let pending = rendering.get(cacheKey);
      if (!pending) {
        const retryAfter = renders.take(clientOf(req));
        if (retryAfter !== undefined) throw tooManyRenders(retryAfter);
        const made = make();
        pending = made;
        rendering.set(cacheKey, made);
        const renderedIn = generation;
        // Kept once made, unless the listings changed meanwhile; a failed render is not kept: the next request tries again.
        made.then(
          (done) => {
            if (rendering.get(cacheKey) === made) rendering.delete(cacheKey);
            if (renderedIn === generation)
              cache.set(cacheKey, done, done.body, 2 * ((done.location?.length ?? 0) + done.cacheControl.length + done.type.length));
          },
          () => {
            if (rendering.get(cacheKey) === made) rendering.delete(cacheKey);
          },
        );
      }
      page = await pending;
    }
    res.status(page.status);
    // A page in the agency's shell (served on its domain through its proxy) loads the agency's own
    // scripts, styles and fonts, and the widget and photos from the relay: the relay's strict
    // policy would break it. The agency's site sets its own.
    if (deps.element.relay !== '/') res.removeHeader('Content-Security-Policy');
    res.set('Cache-Control', page.cacheControl);
    if (page.location) res.set('Location', page.location);
    res.type(page.type);
    // Compressed once per rendered page, in the coding the request takes; 304 when If-None-Match names it.
    sendEncoded(req, res, page.body);
  }

  // ---- a listing ------------------------------------------------------------------------

  async function listingParts(id: number, slug: string | null, asFragment = false): Promise<PageParts> {
    const listing = listings.detail(id);
    if (!listing) return gone(published.wasPublished(id) ? 410 : 404);
    const canonicalPath = paths.listing(listing.id, listing.address.display);
    // An old id (the CRM property's) or a missing or stale address in the path: one URL per listing.
    if (!asFragment && (listing.id !== id || slug !== addressSlug(listing.address.display))) {
      return { status: 301, canonical: null, head: '', body: '', location: canonicalPath };
    }
    const canonical = paths.absolute(canonicalPath);
    const element = await deps.renderer.renderListing(listing, deps.element);
    const head = [
      listingHead(listing, { canonical, siteName: deps.siteName, siteUrl: paths.siteUrl, relayUrl: deps.relayBase, currency: deps.currency, text }),
      preloadFirstPhoto(listing),
    ].join('\n');
    // Similar homes and recently viewed render in the browser only, once near the viewport: no
    // server markup, nothing in the first screen's cost.
    const shared = `relay="${escapeHtml(deps.element.relay)}" locale="${escapeHtml(deps.element.locale)}"`;
    const detailHref = escapeHtml(paths.template('/{id}/{slug}'));
    const more = [
      `<estate-similar-listings ${shared} time-zone="${escapeHtml(deps.element.timeZone)}" listing-id="${listing.id}" detail-href="${detailHref}"></estate-similar-listings>`,
      `<estate-recently-viewed ${shared} time-zone="${escapeHtml(deps.element.timeZone)}" exclude-id="${listing.id}" detail-href="${detailHref}"></estate-recently-viewed>`,
    ].join('\n');
    const body = `<nav class="estate-page-nav" aria-label="${escapeHtml(text.say('listingsNav'))}">${listLinks()}</nav>\n${element.words}${element.html}\n${element.data}\n${more}`;
    return { status: 200, canonical, head, body, current: { path: canonicalPath, ...sectionOf(listing) } };
  }

  /** The list a listing is shown in (its menu item: a home for sale under "Buy"). */
  function sectionOf(listing: ListingDetail): { section?: ListKind } {
    const kind = (Object.keys(LIST_PAGES) as ListKind[]).find((name) => LIST_PAGES[name].type === listing.type && LIST_PAGES[name].status === listing.status);
    return kind ? { section: kind } : {};
  }

  /** The first photo is the largest paint: let the browser fetch it while it reads the rest. */
  function preloadFirstPhoto(listing: ListingDetail): string {
    const photo = listing.photos[0] ?? listing.photo;
    if (!photo?.srcset.webp) return '';
    const srcset = resolveSrcset(deps.element.relay, photo.srcset.webp);
    return `<link rel="preload" as="image" type="image/webp" fetchpriority="high" imagesrcset="${escapeHtml(srcset)}" imagesizes="(min-width: 64rem) 44rem, 100vw">`;
  }

  /** 410 for a listing page that was published and has gone (withdrawn, or past the sold showcase); 404 for one that never was. */
  function gone(status: 404 | 410): PageParts {
    const current = listings.pageFor({ status: 'available', pageSize: String(LINKED_ON_GONE) }).items;
    const title = text.say(status === 410 ? 'listingGoneTitle' : 'listingMissingTitle');
    const lead = text.say(status === 410 ? 'listingGoneLead' : 'listingMissingLead');
    const body = `<section class="estate-gone">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(lead)}</p>
<ul>${current.map((item) => `<li><a href="${escapeHtml(paths.listing(item.id, item.address.display))}">${escapeHtml(item.address.display)}</a>${item.displayPrice ? ` · ${escapeHtml(item.displayPrice)}` : ''}</li>`).join('')}</ul>
<nav aria-label="${escapeHtml(text.say('listingsNav'))}">${listLinks()}</nav>
</section>`;
    return { status, canonical: null, head: goneHead(title, deps.siteName), body };
  }

  function listLinks(): string {
    return (Object.keys(LIST_PAGES) as ListKind[])
      .map((kind) => `<a href="${escapeHtml(paths.list(kind))}">${escapeHtml(text.say(LIST_PAGES[kind].title))}</a>`)
      .join(' · ');
  }

  // ---- the agency's people --------------------------------------------------------------

  const agentHref = () => paths.template('/agents/{id}/{slug}');
  const detailHref = () => paths.template('/{id}/{slug}');
  const peopleContext = (canonical: string) => ({
    canonical,
    siteName: deps.siteName,
    siteUrl: paths.siteUrl,
    relayUrl: deps.relayBase,
    text,
    agentUrl: (member: { id: number; name: string }) => paths.absolute(paths.agent(member.id, member.name)),
  });

  async function teamParts(): Promise<PageParts> {
    const { team } = currentPeople();
    const canonical = paths.absolute(paths.team());
    const element = await deps.renderer.renderTeam(team, { ...deps.element, agentHref: agentHref() });
    const teamTitle = text.say('ourTeam');
    const head = teamHead(team, { ...peopleContext(canonical), title: teamTitle });
    // Real links to every agent's page beside the element, for crawlers and script-less visitors.
    const links = team.items
      .map(
        (member) =>
          `<li><a href="${escapeHtml(paths.agent(member.id, member.name))}">${escapeHtml(member.name)}</a>${member.position ? ` · ${escapeHtml(member.position)}` : ''}</li>`,
      )
      .join('');
    const body = `<nav class="estate-page-nav" aria-label="${escapeHtml(text.say('listingsNav'))}">${listLinks()}</nav>
<h1 class="estate-page-title">${escapeHtml(teamTitle)}</h1>
${element.words}${element.html}
${element.data}
${team.items.length ? `<nav class="estate-people" aria-label="${escapeHtml(teamTitle)}"><ul>${links}</ul></nav>` : ''}`;
    return { status: 200, canonical, head, body };
  }

  async function agentParts(id: number, slug: string | null, asFragment = false): Promise<PageParts> {
    const agent = profileOf(id);
    if (!agent) return agentGone(published.agentWasPublished(id) ? 410 : 404);
    const canonicalPath = paths.agent(agent.id, agent.name);
    // A changed name, or none in the path: one URL per agent.
    if (!asFragment && slug !== agent.slug) return { status: 301, canonical: null, head: '', body: '', location: canonicalPath };
    const canonical = paths.absolute(canonicalPath);
    const element = await deps.renderer.renderAgent(agent, { ...deps.element, agentHref: agentHref(), detailHref: detailHref() });
    const head = agentHead(agent, peopleContext(canonical));
    const listingLinks = (title: string, items: ListingSummary[]) =>
      items.length
        ? `<nav class="estate-agent-listings" aria-label="${escapeHtml(text.say('agentList', { list: title, name: agent.name }))}"><h2>${escapeHtml(title)}</h2><ul>${items
            .map(
              (item) =>
                `<li><a href="${escapeHtml(paths.listing(item.id, item.address.display))}">${escapeHtml(item.address.display)}</a>${item.displayPrice ? ` · ${escapeHtml(item.displayPrice)}` : ''}</li>`,
            )
            .join('')}</ul></nav>`
        : '';
    const body = `<nav class="estate-page-nav" aria-label="${escapeHtml(text.say('listingsNav'))}">${listLinks()} · <a href="${escapeHtml(paths.team())}">${escapeHtml(text.say('ourTeam'))}</a></nav>
${element.words}${element.html}
${element.data}
${listingLinks(text.say('onTheMarket'), agent.current)}
${listingLinks(text.say('soldAndLeased'), agent.results)}`;
    return { status: 200, canonical, head, body };
  }

  /** 410 for an agent whose page was published and who has left or is no longer shown; 404 for an id that never had a page. */
  function agentGone(status: 404 | 410): PageParts {
    const { team } = currentPeople();
    const title = text.say(status === 410 ? 'agentGoneTitle' : 'agentMissingTitle');
    const lead = text.say(status === 410 ? 'agentGoneLead' : 'agentMissingLead');
    const body = `<section class="estate-gone">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(lead)}</p>
<ul>${team.items.map((member) => `<li><a href="${escapeHtml(paths.agent(member.id, member.name))}">${escapeHtml(member.name)}</a>${member.position ? ` · ${escapeHtml(member.position)}` : ''}</li>`).join('')}</ul>
<nav aria-label="${escapeHtml(text.say('listingsNav'))}"><a href="${escapeHtml(paths.team())}">${escapeHtml(text.say('ourTeam'))}</a> · ${listLinks()}</nav>
</section>`;
    return { status, canonical: null, head: goneHead(title, deps.siteName), body };
  }

  // ---- list pages -----------------------------------------------------------------------

  function suburbOf(kind: ListKind, suburbSlug: string): string | undefined {
    const { type, status } = LIST_PAGES[kind];
    return suburbsOf(type, status).find((suburb) => addressSlug(suburb) === suburbSlug);
  }

  function suburbsOf(type: string, status: string): string[] {
    const names = new Set<string>();
    for (const listing of currentListings())
      if (listing.type === type && listing.status === status && listing.address.suburb) names.add(listing.address.suburb);
    return [...names].sort((a, b) => a.localeCompare(b));
  }

  async function listParts(kind: ListKind, suburbSlug: string | null, pageNumber: number): Promise<PageParts> {
    const { type, status } = LIST_PAGES[kind];
    const title = text.say(LIST_PAGES[kind].title);
    const suburb = suburbSlug === null ? null : (suburbOf(kind, suburbSlug) ?? null);
    if (suburbSlug !== null && !suburb) return gone(404);
    const result: Page<ListingSummary> = listings.pageFor({
      type,
      status,
      ...(suburb ? { suburb } : {}),
      sort: 'newest',
      page: String(pageNumber),
      pageSize: String(LIST_PAGE_SIZE),
    });
    const pages = Math.max(1, Math.ceil(result.total / LIST_PAGE_SIZE));
    if (pageNumber > pages) return gone(404);
    const heading = suburb ? text.say('listInSuburb', { list: title, suburb }) : title;
    const canonical = paths.absolute(paths.list(kind, suburb, pageNumber));
    const element = await deps.renderer.renderListings(result.items, { ...deps.element, detailHref: paths.template('/{id}/{slug}') });
    const first = result.items[0];
    const description = clip(
      `${deps.siteName ? text.count('listDescriptionFrom', result.total, { list: heading, agency: deps.siteName }) : text.count('listDescription', result.total, { list: heading })}${
        result.items.length
          ? ` ${result.items
              .slice(0, 3)
              .map((item) => item.address.display)
              .join('; ')}.`
          : ''
      }`,
      160,
    );
    const head = listHead({
      title: pageNumber > 1 ? text.say('listPage', { list: heading, page: pageNumber }) : heading,
      description,
      canonical,
      siteName: deps.siteName,
      image: shareImage(first?.photo, deps.relayBase, first?.address.display ?? heading),
    });
    const suburbs = suburb ? [] : suburbsOf(type, status);
    const body = `<h1 class="estate-page-title">${escapeHtml(heading)}</h1>
${element.words}${element.html}
${element.data}
${pagination(kind, suburb, pageNumber, pages)}
${suburbs.length ? `<nav class="estate-suburbs" aria-label="${escapeHtml(text.say('listBySuburb', { list: title }))}"><h2>${escapeHtml(text.say('bySuburb'))}</h2><ul>${suburbs.map((name) => `<li><a href="${escapeHtml(paths.list(kind, name))}">${escapeHtml(name)}</a></li>`).join('')}</ul></nav>` : ''}`;
    return { status: 200, canonical, head, body, current: { path: paths.list(kind, suburb), section: kind, isSectionPage: !suburb && pageNumber === 1 } };
  }

  /** Real links to every page (a window around the current one), so crawlers and script-less visitors can page. */
  function pagination(kind: ListKind, suburb: string | null, current: number, pages: number): string {
    if (pages <= 1) return '';
    const link = (page: number, label: string, rel?: string) =>
      `<a href="${escapeHtml(paths.list(kind, suburb, page))}"${rel ? ` rel="${rel}"` : ''}${page === current ? ' aria-current="page"' : ''}>${label}</a>`;
    const items: string[] = [];
    if (current > 1) items.push(`<li>${link(current - 1, escapeHtml(text.say('previous')), 'prev')}</li>`);
    for (let page = 1; page <= pages; page++) {
      if (page === 1 || page === pages || Math.abs(page - current) <= 2) items.push(`<li>${link(page, escapeHtml(text.number(page)))}</li>`);
      else if (!items.at(-1)?.includes('…')) items.push('<li aria-hidden="true">…</li>');
    }
    if (current < pages) items.push(`<li>${link(current + 1, escapeHtml(text.say('next')), 'next')}</li>`);
    return `<nav class="estate-pagination" aria-label="${escapeHtml(text.say('pages'))}"><ul>${items.join('')}</ul></nav>`;
  }

  // ---- sitemaps -------------------------------------------------------------------------

  function sitemapEntries(): SitemapEntry[] {
    const all = currentListings();
    const entries: SitemapEntry[] = [];
    for (const kind of Object.keys(LIST_PAGES) as ListKind[]) {
      const { type, status } = LIST_PAGES[kind];
      const members = all.filter((listing) => listing.type === type && listing.status === status);
      entries.push({ loc: paths.absolute(paths.list(kind)), lastmod: newest(members.map((listing) => ({ loc: '', lastmod: listing.modified }))) });
      for (const suburb of suburbsOf(type, status)) {
        entries.push({
          loc: paths.absolute(paths.list(kind, suburb)),
          lastmod: newest(members.filter((listing) => listing.address.suburb === suburb).map((listing) => ({ loc: '', lastmod: listing.modified }))),
        });
      }
    }
    for (const listing of all) entries.push({ loc: paths.absolute(paths.listing(listing.id, listing.address.display)), lastmod: listing.modified });
    // The team page and each agent's, last changed when one of their listings was.
    const { team } = currentPeople();
    const agentEntries: SitemapEntry[] = [];
    for (const member of team.items) {
      const profile = profileOf(member.id);
      const lastmod = newest([...(profile?.current ?? []), ...(profile?.results ?? [])].map((listing) => ({ loc: '', lastmod: listing.modified })));
      agentEntries.push({ loc: paths.absolute(paths.agent(member.id, member.name)), lastmod });
    }
    if (team.items.length) entries.push({ loc: paths.absolute(paths.team()), lastmod: newest(agentEntries) }, ...agentEntries);
    return inEveryLanguage(entries);
  }

  /**
   * Where the site offers several languages: every page once per language, each naming all its
   * versions and x-default (the site's own), as Google reads hreflang in a sitemap.
   */
  function inEveryLanguage(entries: SitemapEntry[]): SitemapEntry[] {
    if ((deps.languages?.length ?? 0) < 2) return entries;
    return entries.flatMap((entry) => {
      const versions = languageVersions(entry.loc);
      const alternates = [...versions.map(({ code, url }) => ({ hreflang: code, href: url })), { hreflang: 'x-default', href: versions[0]!.url }];
      return versions.map(({ url }) => ({ loc: url, lastmod: entry.lastmod, alternates }));
    });
  }

  /** Part 0: the sitemap (or, past maxUrls, the index of its parts); part n: the n-th part. */
  async function sitemap(part: number): Promise<RenderedPage> {
    const entries = sitemapEntries();
    const parts = Math.ceil(entries.length / maxUrls);
    if (part === 0 && parts <= 1) return encode(200, 'application/xml; charset=utf-8', urlset(entries), PAGE_CACHE_CONTROL);
    if (part === 0) {
      const index = Array.from({ length: parts }, (_, i) => {
        const slice = entries.slice(i * maxUrls, (i + 1) * maxUrls);
        return { loc: paths.absolute(`${paths.prefix}/sitemap-${i + 1}.xml`), lastmod: newest(slice) };
      });
      return encode(200, 'application/xml; charset=utf-8', sitemapIndex(index), PAGE_CACHE_CONTROL);
    }
    if (part > parts || parts <= 1) throw new HttpError(404, 'not_found', 'No such sitemap part.');
    return encode(200, 'application/xml; charset=utf-8', urlset(entries.slice((part - 1) * maxUrls, part * maxUrls)), PAGE_CACHE_CONTROL);
  }

  // ---- assembly -------------------------------------------------------------------------

  async function whole(parts: PageParts): Promise<RenderedPage> {
    if (parts.location) return encode(301, 'text/plain; charset=utf-8', `Moved to ${parts.location}`, PAGE_CACHE_CONTROL, parts.location);
    const shell = await wrapper.get();
    const { beforeContent, afterContent } = markCurrentPage(shell, parts.current ?? { path: '' }, paths.siteUrl);
    const versions = parts.canonical ? languageVersions(parts.canonical) : [];
    const alternates = versions.map(({ code, url }) => `<link rel="alternate" hreflang="${escapeHtml(code)}" href="${escapeHtml(url)}">`);
    if (versions[0]) alternates.push(`<link rel="alternate" hreflang="x-default" href="${escapeHtml(versions[0].url)}">`);
    const head = `${inLanguage(shell.head, deps.element.lang)}${parts.head}\n${alternates.join('\n')}${alternates.length ? '\n' : ''}`;
    const html = `${head}${widgetScript(shell)}${PAGE_STYLES}\n${beforeContent}${languageSwitcher(versions)}${parts.body}${afterContent}`;
    return encode(parts.status, 'text/html; charset=utf-8', html, parts.status === 200 ? PAGE_CACHE_CONTROL : GONE_CACHE_CONTROL);
  }

  function fragment(parts: PageParts): Promise<RenderedPage> {
    const body = JSON.stringify({
      status: parts.status,
      canonical: parts.canonical,
      head: `${parts.head}\n<script type="module" src="${escapeHtml(deps.relayBase)}/widget.js"></script>${PAGE_STYLES}`,
      body: parts.body,
    });
    return encode(
      parts.status === 301 ? 200 : parts.status,
      'application/json; charset=utf-8',
      body,
      parts.status === 200 ? PAGE_CACHE_CONTROL : GONE_CACHE_CONTROL,
    );
  }

  /** The page in each of the site's languages (none when it offers one): its URL with `?lang=` for all but the site's own. */
  function languageVersions(canonical: string): Array<{ code: string; url: string }> {
    const offered = deps.languages ?? [];
    if (offered.length < 2) return [];
    const url = new URL(canonical);
    return offered.map((code, index) => {
      const version = new URL(url);
      if (index === 0) version.searchParams.delete('lang');
      else version.searchParams.set('lang', code);
      return { code, url: version.href };
    });
  }

  /** Links to the page in each language, each named in its own (its autonym) and marked with its `lang`; the current one says so. */
  function languageSwitcher(versions: Array<{ code: string; url: string }>): string {
    if (!versions.length) return '';
    const links = versions.map(({ code, url }) => {
      const current = code === deps.element.lang ? ' aria-current="true"' : '';
      return `<li><a href="${escapeHtml(relativeTo(url))}" hreflang="${escapeHtml(code)}" lang="${escapeHtml(code)}"${current}>${escapeHtml(autonym(code))}</a></li>`;
    });
    // Its style with it: a page of a site in one language carries none of this.
    return `<style>.estate-languages ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0 0 1rem;padding:0}.estate-languages a{display:inline-block;padding:.5rem 0}.estate-languages a[aria-current]{font-weight:600}</style>
<nav class="estate-languages" aria-label="${escapeHtml(text.say('languages'))}"><ul>${links.join('')}</ul></nav>\n`;
  }

  /** A page's address as a link on the site itself: its path and query (the same page on whichever host opened it). */
  function relativeTo(url: string): string {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  }

  function widgetScript(shell: Wrapper): string {
    return shell.loadsWidget ? '' : `<script type="module" src="${escapeHtml(widgetBase())}/widget.js"></script>\n`;
  }

  /** Where the page's browser fetches the widget: root-relative on pages the relay serves itself (the demo), else the relay's address. */
  function widgetBase(): string {
    return deps.element.relay === '/' ? '' : deps.relayBase;
  }

  return router;
}

/**
 * The wrapper's `<html>` tag in the page's language: `lang` (what the elements read, and screen
 * readers and search engines) and, for a right-to-left one, `dir="rtl"`; other attributes kept.
 */
export function inLanguage(head: string, lang: string): string {
  return head.replace(/<html\b[^>]*>/i, (tag) => {
    const kept = tag
      .slice(5, -1)
      .replace(/\s(lang|dir)\s*=\s*("[^"]*"|'[^']*'|[^\s>]*)/gi, '')
      .trimEnd();
    return `<html lang="${escapeHtml(lang)}"${isRightToLeft(lang) ? ' dir="rtl"' : ''}${kept}>`;
  });
}

/** A language's name in itself ("Tiếng Việt", "简体中文", "English"), as a language switcher shows it. */
export function autonym(code: string): string {
  const named = code.startsWith('en') ? 'en' : code;
  const name = new Intl.DisplayNames([code], { type: 'language' }).of(named) ?? code;
  return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
}

/** Light-DOM parts of the pages (title, pagination, suburb links); the elements style themselves. */
const PAGE_STYLES = `<style>
.estate-page-title{margin:1.5rem 0 1rem}
.estate-page-nav{margin:1rem 0;font-size:.95rem}
.estate-pagination ul,.estate-suburbs ul{display:flex;flex-wrap:wrap;gap:.5rem;list-style:none;padding:0;margin:1.5rem 0}
.estate-pagination a{display:inline-block;min-width:2.75rem;min-height:2.75rem;line-height:2.75rem;text-align:center;padding:0 .5rem;border:1px solid currentColor;border-radius:.5rem;text-decoration:none}
.estate-pagination a[aria-current]{font-weight:700}
.estate-suburbs a{display:inline-block;padding:.5rem .25rem}
.estate-people ul,.estate-agent-listings ul{list-style:none;padding:0;margin:1.5rem 0}
.estate-people a,.estate-agent-listings a{display:inline-block;padding:.5rem .25rem}
</style>`;

async function encode(status: number, type: string, text: string, cacheControl: string, location?: string): Promise<RenderedPage> {
  return { status, type, body: new EncodedBody(Buffer.from(text), DYNAMIC_EFFORT), cacheControl, ...(location ? { location } : {}) };
}

function wholeNumber(raw: string): number | undefined {
  return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : undefined;
}
