import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from '../listings/controls.styles.ts';
import { badgeStyles, featureStyles, iconStyles, keepStyles } from '../shared/listing-parts.styles.ts';
import { cardRowStyles, cardStyles } from '../shared/listing-card.styles.ts';

/** The cards of `<estate-listings>` in a row under the listing (cardRowStyles). */
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
      --_row-card: var(--estate-similar-card, 16rem);
    }
  `,
];
