import type { ListingDetail } from '../../contract/relay-api.ts';
import { descriptionParagraphs } from './text.ts';

/**
 * schema.org data for search engines: a RealEstateListing whose Offer is for a Place. Built only
 * from public fields the relay already sent; the price is the agency's own text (never a number
 * the agency chose not to publish).
 */
export function listingJsonLd(listing: ListingDetail, options: { pageUrl: string; currency: string; imageUrls: string[] }): Record<string, unknown> {
  const address = listing.address ?? { display: '', suburb: null, postcode: null, state: null };
  const description = descriptionParagraphs(listing.description)
    .map((lines) => lines.join('\n'))
    .join('\n\n');
  const place: Record<string, unknown> = {
    '@type': 'Place',
    name: address.display || listing.heading || undefined,
    address: {
      '@type': 'PostalAddress',
      streetAddress: address.display || undefined,
      addressLocality: address.suburb ?? undefined,
      addressRegion: address.state ?? undefined,
      postalCode: address.postcode ?? undefined,
    },
  };
  if (listing.geolocation) {
    place.geo = { '@type': 'GeoCoordinates', latitude: listing.geolocation.latitude, longitude: listing.geolocation.longitude };
  }
  if (listing.propertyType) place.additionalType = listing.propertyType;

  const offer: Record<string, unknown> = {
    '@type': 'Offer',
    businessFunction: listing.type === 'lease' ? 'http://purl.org/goodrelations/v1#LeaseOut' : 'http://purl.org/goodrelations/v1#Sell',
    availability: listing.status === 'available' ? 'https://schema.org/InStock' : 'https://schema.org/SoldOut',
    priceCurrency: options.currency,
    description: listing.displayPrice || undefined,
    itemOffered: place,
    offeredBy: listing.agents.length
      ? listing.agents.map((agent) => ({ '@type': 'Person', name: agent.name, jobTitle: agent.position ?? undefined, telephone: agent.phone ?? undefined }))
      : undefined,
  };

  return {
    '@context': 'https://schema.org',
    '@type': 'RealEstateListing',
    name: listing.heading || address.display,
    description: description || undefined,
    url: options.pageUrl,
    image: options.imageUrls.length ? options.imageUrls : undefined,
    datePosted: listing.inserted ?? undefined,
    dateModified: listing.modified,
    offers: offer,
  };
}

/**
 * JSON for a `<script type="application/ld+json">`. Set as textContent (never parsed as HTML),
 * and `<` escaped anyway so the text can never close its script element if a page serialises it.
 */
export function jsonLdText(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The part of the Trusted Types API we use (not yet in TypeScript's DOM library). */
interface ScriptPolicy {
  createScript(text: string): unknown;
}
let jsonLdPolicy: ScriptPolicy | null | undefined;

/**
 * The JSON-LD text as a TrustedScript where the page enforces Trusted Types: setting a script's
 * text is guarded even for `application/ld+json`. Sites that enforce them allow our policy name
 * (`trusted-types lit-html estate-embed`, see the README). The policy only ever wraps the output
 * of jsonLdText(), which escapes `<`, so it cannot carry a script of anyone's choosing.
 */
export function trustedJsonLd(text: string): string {
  if (jsonLdPolicy === undefined) {
    const factory = (globalThis as { trustedTypes?: { createPolicy(name: string, rules: { createScript(value: string): string }): ScriptPolicy } })
      .trustedTypes;
    try {
      jsonLdPolicy = factory ? factory.createPolicy('estate-embed', { createScript: (value) => value }) : null;
    } catch {
      jsonLdPolicy = null; // the page's `trusted-types` list does not allow our name
    }
  }
  return (jsonLdPolicy ? jsonLdPolicy.createScript(text) : text) as string;
}
