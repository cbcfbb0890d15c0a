import type { ListingDetail, ListingSummary, Office, Photo } from '../../contract/relay-api.ts';
import { listingJsonLd } from '../../widget/listing/json-ld.ts';
import { descriptionParagraphs } from '../../widget/listing/text.ts';
import { clip, escapeHtml, scriptJson } from './html.ts';
import type { PageText } from './words.ts';

export interface HeadContext {
  /** The page's canonical URL on the agency's site. */
  canonical: string;
  /** The agency's name (SITE_NAME), if known. */
  siteName: string | null;
  /** The agency's site URL (for the agency in JSON-LD). */
  siteUrl: string;
  /** Absolute base photo URLs are resolved against (the relay as browsers reach it). */
  relayUrl: string;
  currency: string;
  /** The page's words (words.ts), in the site's language. */
  text: PageText;
}

/** An Open Graph image: the largest JPEG rendition with its own width and height. */
export interface ShareImage {
  url: string;
  width: number;
  height: number;
  alt: string;
}

export function shareImage(photo: Photo | null | undefined, relayUrl: string, alt: string): ShareImage | null {
  if (!photo) return null;
  const jpeg = photo.variants.filter((variant) => variant.format === 'jpeg').sort((a, b) => b.width - a.width)[0];
  const width = jpeg?.width ?? photo.width;
  const height = photo.width > 0 ? Math.round((width * photo.height) / photo.width) : photo.height;
  return { url: new URL(jpeg?.url ?? photo.url, `${relayUrl}/`).href, width, height, alt };
}

/** "Sold", "For sale", "For lease": what a shared link says the listing is. */
function offerWord(listing: Pick<ListingSummary, 'type' | 'status'>, text: PageText): string {
  if (listing.status === 'sold') return text.say('offerSold');
  if (listing.status === 'leased') return text.say('offerLeased');
  return text.say(listing.type === 'lease' ? 'offerForLease' : 'offerForSale');
}

/** A sentence of facts for when the agency wrote no description: "3 bed, 2 bath house in Kew. For sale." */
function factsSentence(listing: ListingSummary, text: PageText): string {
  const counts = [
    listing.bed ? text.count('beds', listing.bed) : null,
    listing.bath ? text.count('baths', listing.bath) : null,
    listing.cars ? text.count('cars', listing.cars) : null,
  ]
    .filter(Boolean)
    .join(', ');
  // The CRM's property type ("house") is an English word: in a sentence in another language it
  // would read as a mistake, so there the counts alone say what the home is.
  const type = text.english ? (listing.propertyType?.toLowerCase() ?? text.say('property')) : counts ? null : text.say('property');
  const joined = [counts, type].filter(Boolean).join(' ');
  const what = `${joined[0]?.toUpperCase() ?? ''}${joined.slice(1)}`;
  const where = listing.address.suburb ? text.say('whatIn', { what, suburb: listing.address.suburb }) : `${what}.`;
  return `${where} ${offerWord(listing, text)}.`;
}

/** Title, description, canonical, Open Graph, Twitter card and JSON-LD of a listing page. */
export function listingHead(listing: ListingDetail, context: HeadContext): string {
  const address = listing.address.display || listing.heading || 'Property';
  // The price as the agency wrote it ("Contact Agent", "$1,350,000"), never a number it withheld.
  const price = listing.displayPrice?.trim() || (listing.status === 'available' ? null : offerWord(listing, context.text));
  const title = [address, price, context.siteName].filter(Boolean).join(' · ');
  const prose = descriptionParagraphs(listing.description)
    .map((lines) => lines.join(' '))
    .join(' ');
  const description = clip(prose || `${factsSentence(listing, context.text)}${listing.heading ? ` ${listing.heading}` : ''}`, 160);
  const photos = listing.photos.length ? listing.photos : listing.photo ? [listing.photo] : [];
  const image = shareImage(photos[0], context.relayUrl, photos[0]?.caption || address);
  return [
    `<title>${escapeHtml(title)}</title>`,
    meta('name', 'description', description),
    `<link rel="canonical" href="${escapeHtml(context.canonical)}">`,
    ...openGraph({ title, description, url: context.canonical, siteName: context.siteName, image, type: 'website' }),
    `<script type="application/ld+json">${scriptJson(listingGraph(listing, context, photos))}</script>`,
  ].join('\n');
}

/** The head of a list page (buy, rent, sold; per suburb). */
export function listHead(options: {
  title: string;
  description: string;
  canonical: string;
  siteName: string | null;
  image: ShareImage | null;
  robots?: string;
  /** Open Graph's type: 'website' (default), 'profile' for a person's page. */
  type?: 'website' | 'profile';
}): string {
  const title = [options.title, options.siteName].filter(Boolean).join(' · ');
  return [
    `<title>${escapeHtml(title)}</title>`,
    meta('name', 'description', options.description),
    `<link rel="canonical" href="${escapeHtml(options.canonical)}">`,
    ...(options.robots ? [meta('name', 'robots', options.robots)] : []),
    ...openGraph({
      title,
      description: options.description,
      url: options.canonical,
      siteName: options.siteName,
      image: options.image,
      type: options.type ?? 'website',
    }),
  ].join('\n');
}

/** The head of a page that is gone or never was: not to be indexed. */
export function goneHead(title: string, siteName: string | null): string {
  return [`<title>${escapeHtml([title, siteName].filter(Boolean).join(' · '))}</title>`, meta('name', 'robots', 'noindex')].join('\n');
}

function meta(attribute: 'name' | 'property', key: string, content: string): string {
  return `<meta ${attribute}="${key}" content="${escapeHtml(content)}">`;
}

function openGraph(options: { title: string; description: string; url: string; siteName: string | null; image: ShareImage | null; type: string }): string[] {
  const { image } = options;
  return [
    meta('property', 'og:type', options.type),
    meta('property', 'og:title', options.title),
    meta('property', 'og:description', options.description),
    meta('property', 'og:url', options.url),
    ...(options.siteName ? [meta('property', 'og:site_name', options.siteName)] : []),
    ...(image
      ? [
          meta('property', 'og:image', image.url),
          ...(image.url.startsWith('https:') ? [meta('property', 'og:image:secure_url', image.url)] : []),
          meta('property', 'og:image:type', 'image/jpeg'),
          meta('property', 'og:image:width', String(image.width)),
          meta('property', 'og:image:height', String(image.height)),
          meta('property', 'og:image:alt', image.alt),
        ]
      : []),
    meta('name', 'twitter:card', image ? 'summary_large_image' : 'summary'),
    meta('name', 'twitter:title', options.title),
    meta('name', 'twitter:description', options.description),
    ...(image ? [meta('name', 'twitter:image', image.url), meta('name', 'twitter:image:alt', image.alt)] : []),
  ];
}

/**
 * The agency as schema.org names it on every page (listing, team and agent pages share its `@id`):
 * the office's name (else the site's) and number, each where known.
 */
export function agencyNode(office: Office, siteName: string | null, siteUrl: string): Record<string, unknown> {
  const name = office.name ?? siteName;
  return {
    '@type': 'RealEstateAgent',
    '@id': `${siteUrl}/#agency`,
    ...(name ? { name } : {}),
    url: `${siteUrl}/`,
    ...(office.phone ? { telephone: office.phone } : {}),
  };
}

/** schema.org: the listing and its offer (the widget's builder), its open homes as events, and the agency. */
function listingGraph(listing: ListingDetail, context: HeadContext, photos: Photo[]): Record<string, unknown> {
  const imageUrls = photos.slice(0, 6).map((photo) => shareImage(photo, context.relayUrl, '')!.url);
  const { '@context': _context, ...item } = listingJsonLd(listing, { pageUrl: context.canonical, currency: context.currency, imageUrls });
  // A listing page names the agency only when it has a name (a page of no one's is still a listing).
  const agency = (listing.office.name ?? context.siteName) ? agencyNode(listing.office, context.siteName, context.siteUrl) : null;
  const address = listing.address;
  const location = {
    '@type': 'Place',
    name: address.display,
    address: {
      '@type': 'PostalAddress',
      streetAddress: address.display,
      addressLocality: address.suburb ?? undefined,
      addressRegion: address.state ?? undefined,
      postalCode: address.postcode ?? undefined,
    },
  };
  const events =
    listing.status === 'available'
      ? listing.openHomes.map((openHome) => ({
          '@type': 'Event',
          name: context.text.say('openHomeEvent', { address: address.display }),
          startDate: openHome.start,
          endDate: openHome.end,
          eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
          eventStatus: 'https://schema.org/EventScheduled',
          location,
          url: context.canonical,
          image: imageUrls.length ? imageUrls : undefined,
          description: context.text.say('openHomeEventDescription', { address: address.display }),
          organizer: agency ? { '@id': agency['@id'] } : undefined,
          offers: { '@type': 'Offer', price: 0, priceCurrency: context.currency, availability: 'https://schema.org/InStock', url: context.canonical },
        }))
      : [];
  if (agency) item.provider = { '@id': agency['@id'] };
  return { '@context': 'https://schema.org', '@graph': [item, ...events, ...(agency ? [agency] : [])] };
}
