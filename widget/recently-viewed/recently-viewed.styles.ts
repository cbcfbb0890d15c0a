import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from '../listings/controls.styles.ts';
import { badgeStyles, featureStyles, iconStyles, keepStyles } from '../shared/listing-parts.styles.ts';
import { cardRowStyles, cardStyles } from '../shared/listing-card.styles.ts';

/** The cards of `<estate-listings>` in a row (cardRowStyles), a "Clear" button beside the heading. */
export const styles = [
  resetStyles,
  controlStyles,
  badgeStyles,
  featureStyles,
  iconStyles,
  keepStyles,
  cardStyles,
  cardRowStyles,
  css`
    :host {
      --_row-card: var(--estate-recently-viewed-card, 14rem);
    }

    .badge[part~='badge-gone'] {
      background: var(--estate-badge-color, #57606a);
    }

    /* No longer listed: there is no page to open. */
    .card.gone .media {
      filter: grayscale(1);
    }

    .status {
      margin: 0;
      font-weight: 600;
    }

    .status:focus {
      outline: none;
    }
  `,
];
