import { html, nothing, type SVGTemplateResult, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';
import type { ListingSummary } from '../../contract/relay-api.ts';
import { formatNumber, plural, type PluralForms } from './format.ts';

// Markup that <estate-listing> and the cards of <estate-listings> draw alike (their CSS is in
// listing-parts.styles.ts).

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
