import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from './controls.styles.ts';
import { badgeStyles, featureStyles, iconStyles, keepStyles, panelStyles } from '../shared/listing-parts.styles.ts';
import { cardStyles } from '../shared/listing-card.styles.ts';

/**
 * Cards have a set geometry (photo box by aspect ratio, every text row at least one line high, the
 * address two), so a skeleton card and a loaded card are the same size and nothing below the
 * element moves when the data arrives. Text is never cut off: a price range, an auction time or a
 * long address that needs another line wraps to it, and only then is the card taller.
 */
export const styles = [
  resetStyles,
  controlStyles,
  badgeStyles,
  featureStyles,
  iconStyles,
  panelStyles,
  keepStyles,
  cardStyles,
  css`
    :host {
      display: block;
      container-type: inline-size;
      --_min-card: var(--estate-listings-min-card, 17rem);
      --_gap: var(--estate-listings-gap, 1.25rem);
    }

    /* One line as a rule; a long message (the relay still filling) wraps rather than being cut off. */
    .status {
      margin: 0 0 0.75rem;
      min-height: 1.5rem;
      line-height: 1.5rem;
      font-weight: 600;
      color: var(--_estate-muted);
    }

    .status:focus {
      outline: none;
    }

    .status:focus-visible {
      outline: 3px solid var(--_estate-focus);
    }

    .list {
      display: grid;
      gap: var(--_gap);
      margin: 0;
      padding: 0;
      list-style: none;
    }

    .list.layout-grid {
      grid-template-columns: repeat(auto-fill, minmax(min(100%, var(--_min-card)), 1fr));
    }

    /* Its pin is pointed at on a map of the page. */
    .card.highlighted {
      outline: 3px solid var(--_estate-accent);
      outline-offset: 1px;
    }

    /* Skeleton: the same boxes, filled with placeholder bars. */
    .skeleton .bone {
      display: block;
      height: 0.875rem;
      margin-block: 0.3125rem;
      border-radius: 0.25rem;
      background: var(--_bone);
      animation: estate-pulse 1.4s ease-in-out infinite;
    }

    .skeleton .price-line .bone {
      width: 45%;
      height: 1rem;
      margin-block: 0.375rem;
    }

    .skeleton .title-line .bone {
      width: 85%;
    }

    .skeleton .title-line .bone + .bone {
      width: 60%;
      margin-top: 0.625rem;
    }

    .skeleton .meta-line .bone {
      width: 35%;
      margin-block: 0.1875rem;
    }

    .skeleton .features-line .bone {
      width: 55%;
    }

    @keyframes estate-pulse {
      50% {
        opacity: 0.45;
      }
    }

    /* List layout: photo beside the text once there is room. */
    @container (min-width: 40rem) {
      .list.layout-list .card {
        flex-direction: row;
      }

      .list.layout-list .media {
        width: clamp(14rem, 35%, 20rem);
      }

      .list.layout-list .body {
        flex: 1;
        align-content: center;
        min-width: 0;
        padding: 1rem 1.25rem;
      }
    }

    /* Footer and pagination: one row of fixed height, present from the skeleton on. */
    .footer {
      display: flex;
      justify-content: center;
      min-height: 2.75rem;
      margin-top: 1.5rem;
    }

    .pagination ul {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: center;
      gap: 0.375rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }

    .pagination button {
      min-width: 2.75rem;
      padding-inline: 0.625rem;
    }

    .pagination button[aria-current='page'] {
      background: var(--_estate-accent);
      border-color: var(--_estate-accent);
      color: var(--_estate-accent-contrast);
    }

    .pagination .page-step {
      gap: 0.25rem;
    }

    .pagination .gap {
      min-width: 1.5rem;
      text-align: center;
      color: var(--_estate-muted);
    }

    /* Narrow: previous, the current page, next. */
    @container (max-width: 30rem) {
      .pagination li:has(> button:not(.page-step):not([aria-current])),
      .pagination .gap {
        display: none;
      }
    }

    .panel button {
      margin-top: 0.75rem;
    }

    /* Filter bar */
    .filters {
      display: grid;
      gap: 1rem;
      margin-bottom: 1.5rem;
      padding: 1rem;
      background: var(--_estate-surface);
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
    }

    .fields {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(min(100%, 9.5rem), 1fr));
      gap: 0.75rem 1rem;
    }

    .field {
      display: grid;
      gap: 0.25rem;
      align-content: start;
    }

    /* Two columns where the bar has two (from 2 × 9.5rem + the gap + its padding). */
    @container (min-width: 22.25rem) {
      .field.wide {
        grid-column: span 2;
      }
    }

    .field label {
      font-size: 0.875rem;
      font-weight: 600;
    }

    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.75rem;
    }

    .detail .back {
      margin-bottom: 1rem;
    }

    /* While the detail's code is on its way: keep the space its placeholder will take. */
    estate-listing:not(:defined) {
      display: block;
      min-height: var(--estate-listing-reserve, 60rem);
    }
  `,
];
