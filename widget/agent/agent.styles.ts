import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from '../listings/controls.styles.ts';
import { iconStyles, panelStyles } from '../shared/listing-parts.styles.ts';

export const styles = [
  resetStyles,
  controlStyles,
  iconStyles,
  panelStyles,
  css`
    :host {
      display: block;
      container-type: inline-size;
      --_portrait: var(--estate-agent-portrait-width, 8rem);
      --_ratio: var(--estate-agent-portrait-ratio, 4 / 5);
      --_side: var(--estate-agent-side, 24rem);
      --_bone: var(--estate-skeleton-color, color-mix(in srgb, currentColor 12%, transparent));
    }

    .base {
      display: grid;
      gap: 2rem;
    }

    /* Portrait beside the name, from the narrowest phone up. */
    .header {
      display: grid;
      grid-template-columns: var(--_portrait) minmax(0, 1fr);
      gap: 1rem 1.25rem;
      align-items: start;
    }

    @container (min-width: 40rem) {
      .header {
        --_portrait: var(--estate-agent-portrait-width, 12rem);
        gap: 1.5rem 2rem;
      }
    }

    .portrait {
      aspect-ratio: var(--_ratio);
      overflow: hidden;
      border-radius: var(--_estate-radius);
      background: var(--_bone);
    }

    .portrait picture {
      display: block;
      height: 100%;
    }

    .portrait img {
      display: block;
      width: 100%;
      height: 100%;
      object-fit: cover;
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
    }

    .intro {
      display: grid;
      gap: 0.25rem;
      justify-items: start;
      min-width: 0;
    }

    .intro p {
      margin: 0;
    }

    .name {
      margin: 0;
      font-size: clamp(1.5rem, 1.2rem + 1.5cqi, 2.25rem);
      line-height: 1.2;
      overflow-wrap: anywhere;
    }

    .name:focus {
      outline: none;
    }

    .name:focus-visible {
      outline: 3px solid var(--_estate-focus);
      outline-offset: 2px;
    }

    .position {
      font-size: 1.125rem;
      font-weight: 600;
    }

    .muted {
      margin: 0;
      color: var(--_estate-muted);
    }

    .actions {
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      margin-top: 0.75rem;
    }

    .actions .button {
      padding-inline: 0.875rem;
      overflow-wrap: anywhere;
    }

    /* The contact column beside the profile and listings once there is room for both. */
    .columns {
      display: grid;
      gap: 2rem;
    }

    @container (min-width: 60rem) {
      .columns {
        grid-template-columns: minmax(0, 1fr) var(--_side);
        align-items: start;
      }

      .side {
        position: sticky;
        top: 1rem;
      }
    }

    .main,
    .side {
      display: grid;
      gap: 2rem;
      align-content: start;
      min-width: 0;
    }

    .section {
      display: grid;
      gap: 0.75rem;
    }

    .section-title {
      margin: 0;
      font-size: 1.25rem;
      line-height: 1.3;
    }

    .section-title:focus {
      outline: none;
    }

    .section-title:focus-visible {
      outline: 3px solid var(--_estate-focus);
      outline-offset: 2px;
    }

    /* The cards of a section are all there is: no pagination row under them. */
    estate-listings::part(footer) {
      display: none;
    }

    .prose {
      max-width: 70ch;
      overflow-wrap: anywhere;
    }

    .prose > :first-child {
      margin-top: 0;
    }

    .prose > :last-child {
      margin-bottom: 0;
    }

    .prose a {
      color: var(--_estate-accent);
    }

    .contact {
      gap: 1rem;
    }

    .appraisal-button {
      justify-self: start;
    }

    /* While a form's code is on its way: keep the room it will take, so nothing below jumps. */
    estate-enquiry:not(:defined) {
      display: block;
      min-height: 34rem;
    }

    estate-appraisal:not(:defined) {
      display: block;
      min-height: 40rem;
    }

    .skeleton {
      display: grid;
      gap: 0.75rem;
      align-content: start;
      min-height: 40rem;
    }

    .skeleton .intro {
      width: 100%;
      gap: 0.75rem;
    }

    .bone {
      border-radius: 0.25rem;
      background: var(--_bone);
      animation: estate-pulse 1.4s ease-in-out infinite;
    }

    .bone.title {
      width: 70%;
      height: 2.25rem;
    }

    .bone.text {
      width: 100%;
      height: 1rem;
    }

    .bone.short {
      width: 45%;
    }

    .bone.button-bone {
      width: 10rem;
      height: 2.75rem;
      border-radius: var(--_estate-radius);
    }

    @keyframes estate-pulse {
      50% {
        opacity: 0.45;
      }
    }

    .panel .button {
      margin-top: 0.75rem;
    }
  `,
];
