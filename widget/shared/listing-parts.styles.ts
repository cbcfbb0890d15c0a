import { css } from 'lit';

// Parts that <estate-listing> and the cards of <estate-listings> draw alike. Each element adds its
// own placement (the card's badge sits on the photo) after these.

/** The status badge ("Sold", "Leased", "Under offer"), one colour a status, all themable. */
export const badgeStyles = css`
  .badge {
    padding: 0.125rem 0.625rem;
    border-radius: 999px;
    background: var(--estate-badge-color, #24292f);
    color: var(--estate-badge-text, #ffffff);
    font-size: 0.8125rem;
    font-weight: 700;
    line-height: 1.5rem;
    letter-spacing: 0.02em;
    text-transform: uppercase;
  }

  .badge[part~='badge-sold'] {
    background: var(--estate-badge-color, #a40e26);
  }

  .badge[part~='badge-leased'] {
    background: var(--estate-badge-color, #116329);
  }

  .badge[part~='badge-under-offer'] {
    background: var(--estate-badge-color, #7d4e00);
  }
`;

/** One feature (bedrooms, bathrooms, car spaces): icon beside the figure. */
export const featureStyles = css`
  .feature {
    display: inline-flex;
    align-items: center;
    gap: 0.375rem;
  }
`;

/** Line icons (24-unit viewBox, stroked in the text colour), in features and buttons. */
export const iconStyles = css`
  .icon {
    flex: none;
    width: 1.25rem;
    height: 1.25rem;
    fill: none;
    stroke: currentColor;
    stroke-width: 1.75;
    stroke-linecap: round;
    stroke-linejoin: round;
  }
`;

/** The empty and error panels. */
export const panelStyles = css`
  .panel {
    display: grid;
    justify-items: center;
    gap: 0.5rem;
    padding: 2.5rem 1.25rem;
    text-align: center;
    background: var(--_estate-surface);
    border: 1px dashed var(--_estate-border);
    border-radius: var(--_estate-radius);
  }

  .panel p {
    margin: 0;
  }

  .panel-title {
    font-size: 1.125rem;
    font-weight: 700;
  }
`;

/** The heart (shared/shortlist.ts): outlined, filled while the home is kept. */
export const keepStyles = css`
  .keep {
    padding: 0 0.75rem;
  }

  .keep[aria-pressed='true'] .icon {
    color: var(--estate-keep-color, var(--_estate-danger));
    fill: currentColor;
  }
`;
