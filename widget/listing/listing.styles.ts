import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from '../listings/controls.styles.ts';
import { badgeStyles, featureStyles, iconStyles, keepStyles, panelStyles } from '../shared/listing-parts.styles.ts';

export const styles = [
  resetStyles,
  controlStyles,
  badgeStyles,
  featureStyles,
  iconStyles,
  panelStyles,
  keepStyles,
  css`
    :host {
      display: block;
      container-type: inline-size;
      --_bone: var(--estate-skeleton-color, color-mix(in srgb, currentColor 12%, transparent));
      --_gallery-ratio: var(--estate-listing-gallery-ratio, 3 / 2);
      /* Leaves the address and price in the first screen under a site's header (1280 × 800: 440 px of photos). */
      --_gallery-max-height: var(--estate-listing-gallery-max-height, min(30rem, 55vh));
    }

    .base {
      display: grid;
      gap: 1.75rem;
    }

    .header {
      display: grid;
      gap: 0.375rem;
      justify-items: start;
    }

    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
    }

    .share {
      padding: 0 0.75rem;
    }

    .share-link {
      inline-size: 100%;
    }

    .title {
      margin: 0;
      font-size: clamp(1.5rem, 1.2rem + 1.5cqi, 2.25rem);
      line-height: 1.2;
    }

    .title:focus {
      outline: none;
    }

    .title:focus-visible {
      outline: 3px solid var(--_estate-focus);
      outline-offset: 2px;
    }

    .price {
      margin: 0;
      font-size: 1.375rem;
      font-weight: 700;
    }

    .tagline,
    .muted {
      margin: 0;
      color: var(--_estate-muted);
    }

    .features {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem 1.5rem;
      margin: 0.25rem 0 0;
      padding: 0;
      list-style: none;
      font-weight: 600;
    }

    /* Gallery: one photo on phones, a mosaic of five once there is room. */
    .gallery {
      position: relative;
      display: grid;
      gap: 0.5rem;
      /* A definite width: aspect-ratio would otherwise carry the height's cap over to the width (the gallery narrower than the page). */
      width: 100%;
      aspect-ratio: var(--_gallery-ratio);
      max-height: var(--_gallery-max-height);
      overflow: hidden;
      border-radius: var(--_estate-radius);
    }

    .gallery.empty {
      place-items: center;
      background: var(--_bone);
      color: var(--_estate-muted);
    }

    .tile {
      position: relative;
      display: block;
      width: 100%;
      height: 100%;
      min-height: 0;
      padding: 0;
      border: 0;
      border-radius: 0;
      background: var(--_bone);
      overflow: hidden;
      cursor: zoom-in;
    }

    /* The photo fills its cell whatever the grid decides the cell's height is. */
    .tile picture {
      display: contents;
    }

    .tile img {
      position: absolute;
      inset: 0;
      display: block;
      width: 100%;
      height: 100%;
      object-fit: cover;
    }

    .tile:focus-visible {
      outline-offset: -3px;
    }

    .gallery .thumb {
      display: none;
    }

    @container (min-width: 40rem) {
      .gallery.mosaic {
        grid-template-columns: 2fr 1fr 1fr;
        grid-template-rows: 1fr 1fr;
        aspect-ratio: var(--estate-listing-gallery-ratio, 2 / 1);
      }

      .gallery.mosaic .main {
        grid-row: 1 / 3;
      }

      .gallery.mosaic .thumb {
        display: block;
      }
    }

    .all {
      position: absolute;
      inset-inline-end: 0.75rem;
      bottom: 0.75rem;
      box-shadow: 0 1px 4px rgb(0 0 0 / 0.25);
    }

    .columns {
      display: grid;
      gap: 2rem;
    }

    .main,
    .side {
      display: grid;
      gap: 2rem;
      align-content: start;
      min-width: 0;
    }

    @container (min-width: 56rem) {
      .columns {
        grid-template-columns: minmax(0, 2fr) minmax(17rem, 1fr);
        gap: 3rem;
      }
    }

    .section {
      display: grid;
      gap: 0.75rem;
      align-content: start;
    }

    /* The location map's place, kept while its code is on its way (an <estate-map> of 14rem, its caption and credit). */
    .location-map {
      min-height: 14rem;
    }

    .section-title {
      margin: 0;
      font-size: 1.25rem;
      line-height: 1.3;
    }

    .prose {
      max-width: 70ch;
    }

    .prose p {
      margin: 0 0 1em;
      overflow-wrap: anywhere;
    }

    .prose p:last-child {
      margin-bottom: 0;
    }

    .fact-list {
      display: grid;
      grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr));
      gap: 0.75rem 1.5rem;
      margin: 0;
    }

    .fact-list dt {
      font-size: 0.875rem;
      color: var(--_estate-muted);
    }

    .fact-list dd {
      margin: 0;
      font-weight: 600;
    }

    .side .fact-list {
      grid-template-columns: 1fr;
    }

    .ticks {
      margin: 0;
      padding-inline-start: 1.25rem;
      columns: 2 14rem;
      column-gap: 2rem;
    }

    .plans,
    .link-list,
    .open-homes,
    .agents {
      display: grid;
      gap: 0.75rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }

    .plans {
      grid-template-columns: repeat(auto-fill, minmax(min(100%, 14rem), 1fr));
    }

    .tile.plan {
      aspect-ratio: 4 / 3;
      background: #ffffff;
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
    }

    .tile.plan img {
      object-fit: contain;
    }

    .link-list {
      display: flex;
      flex-wrap: wrap;
    }

    .open-home > estate-open-home-registration,
    .open-homes + estate-inspection-request,
    .muted + estate-inspection-request {
      flex-basis: 100%;
      margin-top: 0.5rem;
      font-weight: 400;
    }

    .open-home {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      justify-content: space-between;
      gap: 0.5rem 1rem;
      padding-bottom: 0.75rem;
      border-bottom: 1px solid var(--_estate-border);
      font-weight: 600;
    }

    .agent {
      display: grid;
      grid-template-columns: 4.5rem minmax(0, 1fr);
      gap: 1rem;
      align-items: start;
      padding: 1rem;
      background: var(--_estate-surface);
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
    }

    /* The office stands in for agents who have left: no portrait, the text takes the row. */
    .agent.office {
      grid-template-columns: minmax(0, 1fr);
    }

    .agent picture {
      display: block;
    }

    .agent-photo {
      display: block;
      width: 4.5rem;
      height: 4.5rem;
      border-radius: 50%;
      object-fit: cover;
    }

    .initials {
      display: grid;
      place-items: center;
      background: var(--_estate-accent);
      color: var(--_estate-accent-contrast);
      font-weight: 700;
      font-size: 1.25rem;
    }

    .agent-text p {
      margin: 0;
    }

    .agent-name {
      font-weight: 700;
    }

    .agent-actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      margin-top: 0.625rem;
    }

    .agent-actions .button {
      padding-inline: 0.75rem;
      overflow-wrap: anywhere;
    }

    /* Loading and error */
    /* Taller than any viewport: a page's footer stays out of sight until the listing arrives. */
    .skeleton {
      display: grid;
      gap: 0.75rem;
      align-content: start;
      min-height: var(--estate-listing-reserve, 60rem);
    }

    .skeleton .bone {
      border-radius: 0.375rem;
      background: var(--_bone);
      animation: estate-pulse 1.4s ease-in-out infinite;
    }

    .bone.title {
      width: 60%;
      height: 2.25rem;
    }

    .bone.price {
      width: 30%;
      height: 1.75rem;
      margin-bottom: 0.75rem;
    }

    .bone.gallery {
      width: 100%;
      aspect-ratio: var(--_gallery-ratio);
      max-height: var(--_gallery-max-height);
      border-radius: var(--_estate-radius);
    }

    .bone.text {
      height: 1rem;
    }

    .bone.short {
      width: 70%;
    }

    @keyframes estate-pulse {
      50% {
        opacity: 0.45;
      }
    }
  `,
];
