import { css } from 'lit';
import { resetStyles } from '../shared/reset.styles.ts';
import { controlStyles } from '../listings/controls.styles.ts';
import { panelStyles } from '../shared/listing-parts.styles.ts';

/** A list of homes (photo, text, remove button: one row, wrapping on a phone), then the form. */
export const styles = [
  resetStyles,
  controlStyles,
  panelStyles,
  css`
    :host {
      display: block;
      --_photo: var(--estate-shortlist-photo, 8rem);
    }

    .base {
      display: grid;
      gap: 1rem;
    }

    .status,
    .form-status {
      margin: 0;
      font-weight: 600;
    }

    .status:focus,
    .form-status:focus {
      outline: none;
    }

    .form-status:empty {
      display: none;
    }

    .list {
      display: grid;
      gap: 0.75rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }

    .home {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.75rem 1rem;
      padding: 0.75rem;
      background: var(--_estate-surface);
      border: 1px solid var(--_estate-border);
      border-radius: var(--_estate-radius);
    }

    .media {
      flex: none;
      width: var(--_photo);
      aspect-ratio: 3 / 2;
      overflow: hidden;
      border-radius: calc(var(--_estate-radius) * 0.75);
      background: color-mix(in srgb, currentColor 12%, transparent);
    }

    .media img {
      display: block;
      width: 100%;
      height: 100%;
      object-fit: cover;
    }

    .body {
      display: grid;
      flex: 1 1 12rem;
      gap: 0.125rem;
      min-width: 0;
      overflow-wrap: anywhere;
    }

    .title {
      margin: 0;
      font-size: 1rem;
      line-height: 1.4;
    }

    .title a {
      color: inherit;
    }

    .price,
    .note,
    .outcome,
    .none,
    .intro {
      margin: 0;
    }

    .price {
      font-weight: 700;
    }

    .note,
    .intro,
    .hint,
    .optional {
      color: var(--_estate-muted);
    }

    [part~='home-gone'] .title {
      color: var(--_estate-muted);
    }

    .outcome {
      font-weight: 600;
    }

    [part~='outcome-sent'] {
      color: var(--_estate-success);
    }

    [part~='outcome-refused'],
    .error {
      color: var(--_estate-danger);
    }

    /* The enquiry form: the enquiry element's fields and messages. */
    .form {
      display: grid;
      gap: var(--_estate-space);
      max-width: var(--estate-enquiry-max-width, 36rem);
    }

    .heading {
      margin: 0;
      font-size: 1.25rem;
      line-height: 1.3;
    }

    .field {
      display: grid;
      gap: 0.25rem;
    }

    label {
      font-weight: 600;
    }

    .optional {
      font-weight: 400;
    }

    .hint,
    .error {
      margin: 0;
      font-size: 0.875rem;
    }

    .error {
      font-weight: 600;
    }

    .error::before {
      content: '! ';
    }

    textarea {
      width: 100%;
      min-height: 6rem;
      padding: 0.5rem 0.75rem;
      font: inherit;
      color: inherit;
      background: var(--_estate-surface);
      border: 1px solid var(--_estate-muted);
      border-radius: calc(var(--_estate-radius) * 0.75);
      resize: vertical;
    }

    input,
    textarea {
      font-size: max(1rem, 16px);
    }

    [aria-invalid='true'] {
      border: 2px solid var(--_estate-danger);
    }

    .consent {
      grid-template-columns: auto 1fr;
      align-items: start;
      column-gap: 0.75rem;
    }

    .consent .error {
      grid-column: 1 / -1;
    }

    input[type='checkbox'] {
      width: 1.5rem;
      min-height: 1.5rem;
      margin: 0.625rem 0;
      accent-color: var(--_estate-accent);
    }

    .consent label {
      padding-block: 0.5rem;
      font-weight: 400;
    }

    /* The spam trap: out of sight and out of the tab order (the markup hides it from assistive technology too). */
    .trap {
      position: absolute;
      inset-inline-start: -10000px;
      width: 1px;
      height: 1px;
      overflow: hidden;
    }

    .form button {
      justify-self: start;
    }

    button[aria-disabled='true'] {
      cursor: progress;
      opacity: 0.7;
    }
  `,
];
