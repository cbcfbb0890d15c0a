import { html, nothing, type SVGTemplateResult, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { ListingSummary } from '../../contract/relay-api.ts';
import { addressSlug } from '../../contract/slug.ts';
import { fill, formatNumber, formatShortDateTime, plural, type PluralForms } from './format.ts';
import { heading } from './heading.ts';
import { bathIcon, bedIcon, carIcon } from './icons.ts';
import { renderPicture } from './picture.ts';
import { renderKeep } from './shortlist.ts';

// Markup that <estate-listing> and the listing cards (<estate-listings>, <estate-similar-listings>,
// <estate-recently-viewed>) draw alike (their CSS is in listing-parts.styles.ts, the card's own in
// listing-card.styles.ts).

/** The words a status badge needs; both elements' strings carry them. */
export interface BadgeStrings {
  badgeUnderOffer: string;
  badgeSold: string;
  badgeLeased: string;
}

/** "Under offer", "Sold" or "Leased" for the listing's badge; null when it has none. */
export function badgeLabel(badge: ListingSummary['badge'], text: BadgeStrings): string | null {
  switch (badge) {
    case 'under-offer':
      return text.badgeUnderOffer;
    case 'sold':
      return text.badgeSold;
    case 'leased':
      return text.badgeLeased;
    default:
      return null;
  }
}

/**
 * One of beds, baths or cars: an icon and the number for the eye, the plural phrase ("3 bedrooms")
 * for assistive technology. Nothing when the CRM gave no positive count.
 */
export function renderFeature(
  locale: string,
  count: number | null,
  forms: PluralForms,
  icon: SVGTemplateResult,
  iconPart?: string,
): TemplateResult | typeof nothing {
  return typeof count === 'number' && count > 0
    ? html`<li part="feature" class="feature">
        <svg part=${ifDefined(iconPart)} class="icon" viewBox="0 0 24 24" aria-hidden="true">${icon}</svg>
        <span aria-hidden="true">${formatNumber(locale, count)}</span>
        <span class="visually-hidden">${plural(locale, count, forms)}</span>
      </li>`
    : nothing;
}

/** The words a listing card needs (`<estate-listings>`, `<estate-similar-listings>`, `<estate-recently-viewed>`). */
export interface CardStrings extends BadgeStrings {
  bedrooms: PluralForms;
  bathrooms: PluralForms;
  carSpaces: PluralForms;
  /** Shown when the agency left the price empty. */
  priceFallback: string;
  auction: string;
  /** The accessible name of a card's heart (a toggle button: pressed while the home is kept). */
  keep: string;
}

export interface CardOptions {
  relay: string | null;
  locale: string;
  timeZone: string | null;
  headingLevel: number;
  sizes: string;
  /** The `lang` of the CRM's words (address, price, property type) where it differs from the element's. */
  contentLang?: string;
  /** The card's link; null: the title is plain text (a home no longer listed). */
  href: string | null;
  onLinkClick?: (event: MouseEvent) => void;
  /** The photo loads at once (the first cards of a page), else when it nears the viewport. */
  eager?: boolean;
  fetchPriority?: 'high' | 'auto';
  /** The heart's state; undefined: no heart. */
  kept?: boolean;
  toggleKeep?: () => void;
  /** Instead of the listing's own badge (e.g. "No longer listed"). */
  badge?: { part: string; label: string };
}

/**
 * The inside of one listing card (photo, badge, price, linked address, type and auction, features,
 * heart): the markup `<estate-listings>` draws, shared so every card looks and reads alike. The
 * `<li part="card">` around it is the element's (the grid's carries the map highlight). Styles:
 * listing-card.styles.ts `cardStyles`.
 */
export function renderCardContent(listing: ListingSummary, text: CardStrings, options: CardOptions): TemplateResult {
  const address = listing.address?.display || listing.heading || '';
  const ownPrice = !!listing.displayPrice?.trim();
  const price = ownPrice ? listing.displayPrice : text.priceFallback;
  const contentLang = ifDefined(options.contentLang);
  const ownBadge = badgeLabel(listing.badge, text);
  const badge = options.badge ?? (ownBadge ? { part: `badge badge-${listing.badge}`, label: ownBadge } : null);
  // A past auction says nothing useful on a sold card.
  const auction =
    listing.auctionDateTime && listing.status === 'available'
      ? formatShortDateTime(options.locale, listing.auctionDateTime, options.timeZone ?? undefined)
      : null;
  const auctionText = auction ? fill(text.auction, { date: auction }) : '';
  const meta = listing.propertyType ? html`<span lang=${contentLang}>${listing.propertyType}</span>${auctionText ? ` · ${auctionText}` : ''}` : auctionText;
  const feature = (count: number | null, forms: PluralForms, icon: SVGTemplateResult) => renderFeature(options.locale, count, forms, icon, 'feature-icon');
  return html`<div part="card-media" class="media">
      ${
        listing.photo
          ? renderPicture(listing.photo, {
              relay: options.relay,
              sizes: options.sizes,
              alt: listing.photo.caption ?? '',
              loading: options.eager ? 'eager' : 'lazy',
              fetchPriority: options.fetchPriority ?? 'auto',
              part: 'card-image',
            })
          : nothing
      }
      ${badge ? html`<span part=${badge.part} class="badge">${badge.label}</span>` : nothing}
    </div>
    <div part="card-body" class="body">
      <p part="price" class="line price-line" lang=${ownPrice ? contentLang : nothing}>${price}</p>
      ${heading(
        options.headingLevel,
        options.href === null
          ? address
          : html`<a part="card-link" class="card-link" href=${options.href} data-id=${listing.id} @click=${options.onLinkClick}>${address}</a>`,
        { part: 'card-title', className: 'line title-line', lang: options.contentLang },
      )}
      <p part="meta" class="line meta-line">${meta}</p>
      <ul part="features" class="line features-line">
        ${feature(listing.bed, text.bedrooms, bedIcon)} ${feature(listing.bath, text.bathrooms, bathIcon)} ${feature(listing.cars, text.carSpaces, carIcon)}
      </ul>
    </div>
    ${options.kept === undefined ? nothing : renderKeep(options.kept, fill(text.keep, { address }), options.toggleKeep ?? (() => {}))}`;
}

/** A card's link from a `detail-href` template: `{id}` the listing id, `{slug}` its address as a URL slug. */
export function cardHref(template: string, listing: Pick<ListingSummary, 'id' | 'address' | 'heading'>): string {
  return template.replace(/\{id\}/g, encodeURIComponent(String(listing.id))).replace(/\{slug\}/g, addressSlug(listing.address?.display || listing.heading));
}

/** A card's words in en-AU, and where en-GB differs: for the strings of the elements that draw cards. */
export const defaultCardStrings: CardStrings = {
  bedrooms: { one: '{count} bedroom', other: '{count} bedrooms' },
  bathrooms: { one: '{count} bathroom', other: '{count} bathrooms' },
  carSpaces: { one: '{count} car space', other: '{count} car spaces' },
  badgeUnderOffer: 'Under offer',
  badgeSold: 'Sold',
  badgeLeased: 'Leased',
  priceFallback: 'Contact agent',
  auction: 'Auction {date}',
  keep: 'Keep {address}',
};
export const britishCardStrings: Partial<CardStrings> = {
  carSpaces: { one: '{count} parking space', other: '{count} parking spaces' },
  badgeLeased: 'Let',
};
