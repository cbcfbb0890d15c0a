import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from '../listings/controls.styles.ts';
import { iconStyles, panelStyles } from '../shared/listing-parts.styles.ts';

/**
 * Cards as the listing grid's: the portrait's box is set by its ratio and every text row is at
 * least a line high, so the placeholder cards and the loaded ones take the same room. Names and
 * positions wrap rather than being cut off.
 */
export const styles = [
  resetStyles,
  controlStyles,
  iconStyles,
  panelStyles,
  css`
    :host {
      display: block;
      container-type: inline-size;
      --_min-card: var(--estate-team-min-card, 12rem);
      --_gap: var(--estate-team-gap, 1.25rem);
      --_ratio: var(--estate-team-portrait-ratio, 4 / 5);
      --_bone: var(--estate-skeleton-color, color-mix(in srgb, currentColor 12%, transparent));
    }

    .list {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(min(100%, var(--_min-card)), 1fr));
      gap: var(--_gap);
      margin: 0;
      padding: 0;
      list-style: none;
    }

    .card {
      position: relative;
      display: flex;
      flex-direction: column;
      min-width: 0;
      overflow: hidden;
      background: var(--_estate-surface);
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
    }

    .card:hover .card-link {
      text-decoration: underline;
    }

    .media {
      flex: none;
      aspect-ratio: var(--_ratio);
      overflow: hidden;
      background: var(--_bone);
    }

    .media picture {
      display: block;
      height: 100%;
    }

    .media img {
      display: block;
      width: 100%;
      height: 100%;
      object-fit: cover;
      /* Faces are near the top of a portrait. */
      object-position: 50% 20%;
    }

    .initials {
      display: grid;
      place-items: center;
      height: 100%;
      background: var(--_estate-accent);
      color: var(--_estate-accent-contrast);
      font-size: 2.5rem;
      font-weight: 700;
      letter-spacing: 0.05em;
    }

    .body {
      display: grid;
      gap: 0.25rem;
      align-content: start;
      flex: 1;
      padding: 0.75rem 0.875rem 0.875rem;
    }

    .line {
      display: block;
      margin: 0;
      overflow-wrap: anywhere;
    }

    .name-line {
      min-height: 1.5rem;
      font-size: 1.0625rem;
      font-weight: 700;
      line-height: 1.5rem;
    }

    .position-line,
    .count-line {
      min-height: 1.25rem;
      font-size: 0.875rem;
      line-height: 1.25rem;
      color: var(--_estate-muted);
    }

    .card-link {
      color: inherit;
      text-decoration: none;
    }

    /* The whole card is the link's target; its outline is drawn around the card. */
    .card-link::after {
      content: '';
      position: absolute;
      inset: 0;
      border-radius: var(--_estate-radius);
    }

    .card-link:focus-visible {
      outline: none;
      text-decoration: underline;
    }

    .card-link:focus-visible::after {
      outline: 3px solid var(--_estate-focus);
      outline-offset: -3px;
    }

    /* Above the link that covers the card: a tap calls, it does not open the page. */
    .phone {
      position: relative;
      z-index: 1;
      justify-self: start;
      margin-top: 0.5rem;
      padding-inline: 0.75rem;
      /* A number is read and dialled whole: never broken over two lines. */
      white-space: nowrap;
    }

    .skeleton .bone {
      display: block;
      height: 0.875rem;
      margin-block: 0.3125rem;
      border-radius: 0.25rem;
      background: var(--_bone);
      animation: estate-pulse 1.4s ease-in-out infinite;
    }

    .skeleton .name-line .bone {
      width: 70%;
    }

    .skeleton .phone-bone {
      width: 60%;
      height: 2.75rem;
      margin-block: 0.5rem 0;
      border-radius: var(--_estate-radius);
    }

    .skeleton .position-line .bone,
    .skeleton .count-line .bone {
      width: 45%;
      margin-block: 0.1875rem;
    }

    @keyframes estate-pulse {
      50% {
        opacity: 0.45;
      }
    }

    /* A phone: one person a row, the portrait beside the text, so a name and a number fit whole. */
    @container (max-width: 34rem) {
      .list {
        grid-template-columns: minmax(0, 1fr);
        gap: 0.75rem;
      }

      .card {
        flex-direction: row;
      }

      .media {
        align-self: start;
        width: var(--estate-team-portrait-width, 7rem);
      }
    }

    .panel button {
      margin-top: 0.75rem;
    }
  `,
];
