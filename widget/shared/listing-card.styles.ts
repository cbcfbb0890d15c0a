import { css } from 'lit';

// The card's own geometry, apart from the parts the detail draws too (listing-parts.styles.ts), for
// the reader, not for bytes: the build drops a css`` that no element uses (css is one of
// vite.config.ts's manualPureFunctions), so <estate-listing>, which draws no card, pays for none
// of this either way (a build with the two merged wrote chunks of the very same sizes).

/**
 * A listing card (listing-parts.ts renderCardContent) inside its `<li class="card">`: a set geometry
 * (photo box by aspect ratio, every text row at least one line high, the address two), so a
 * placeholder and a loaded card are the same size; text that needs another line wraps to it, never
 * cut off. The element lays the cards out (grid, row).
 */
export const cardStyles = css`
  :host {
    --_ratio: var(--estate-card-ratio, 3 / 2);
    --_bone: var(--estate-skeleton-color, color-mix(in srgb, currentColor 12%, transparent));
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
    position: relative;
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
  }

  .badge {
    position: absolute;
    top: 0.75rem;
    inset-inline-start: 0.75rem;
  }

  .body {
    display: grid;
    gap: 0.25rem;
    padding: 0.875rem 1rem 1rem;
  }

  .line {
    display: block;
    margin: 0;
    overflow-wrap: anywhere;
  }

  .price-line {
    min-height: 1.75rem;
    font-size: 1.125rem;
    font-weight: 700;
    line-height: 1.75rem;
  }

  .title-line {
    min-height: 3rem;
    font-size: 1rem;
    font-weight: 600;
    line-height: 1.5rem;
  }

  .meta-line {
    min-height: 1.25rem;
    font-size: 0.875rem;
    line-height: 1.25rem;
    color: var(--_estate-muted);
  }

  .features-line {
    display: flex;
    flex-wrap: wrap;
    gap: 0 1.25rem;
    min-height: 1.5rem;
    margin-top: 0.25rem;
    padding: 0;
    list-style: none;
    line-height: 1.5rem;
  }

  .feature {
    font-weight: 600;
  }

  .feature .icon {
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

  /* The heart sits on the photo's corner, above the link that covers the card. */
  .keep {
    position: absolute;
    z-index: 1;
    top: 0.5rem;
    inset-inline-end: 0.5rem;
  }
`;

/**
 * Cards under a listing (similar homes, recently viewed): a row that scrolls sideways on a phone,
 * each card a little narrower than the screen so the next one shows there is more; a grid once
 * the element is wide enough for three. `--_row-card` is the card's width in the row.
 */
export const cardRowStyles = css`
  :host {
    display: block;
    container-type: inline-size;
    --_row-card: 16rem;
  }

  /* On the section, not the host: an element with nothing to show takes no room. */
  .base {
    margin-block: 2rem;
  }

  .heading-row {
    display: flex;
    flex-wrap: wrap;
    align-items: baseline;
    justify-content: space-between;
    gap: 0.5rem 1rem;
    margin-bottom: 1rem;
  }

  .heading {
    margin: 0 0 1rem;
    font-size: 1.375rem;
    line-height: 1.3;
  }

  .heading-row .heading {
    margin: 0;
  }

  .list {
    display: grid;
    grid-auto-flow: column;
    grid-auto-columns: min(85%, var(--_row-card));
    gap: 1rem;
    margin: 0;
    padding: 0 0 0.75rem;
    list-style: none;
    overflow-x: auto;
    overscroll-behavior-x: contain;
    scroll-snap-type: x mandatory;
    scroll-padding-inline: 0.25rem;
  }

  .list > li {
    scroll-snap-align: start;
  }

  @container (min-width: 40rem) {
    .list {
      grid-auto-flow: row;
      grid-template-columns: repeat(auto-fill, minmax(var(--_row-card), 1fr));
      gap: 1.25rem;
      padding: 0;
      overflow: visible;
    }
  }
`;
