import { css } from 'lit';

/**
 * Built for a phone first: every control is at least 44 px high (WCAG 2.2 target size, with room
 * to spare), inputs use a 16 px font so mobile browsers do not zoom on focus, and states are told
 * by text and shape as well as colour.
 */
export const styles = css`
  /* The form paints its own surface: the shared tokens switch to light text in dark mode, and a
     host page that stays white would otherwise show light text on white. */
  :host {
    display: block;
    max-width: var(--estate-enquiry-max-width, 36rem);
    padding: var(--estate-enquiry-padding, var(--_estate-space));
    background: var(--_estate-surface);
    --_gap: var(--estate-enquiry-gap, calc(var(--_estate-space) * 1));
    --_target: var(--estate-enquiry-target-size, 2.75rem);
  }

  form {
    display: grid;
    gap: var(--_gap);
    margin: 0;
  }

  .heading {
    margin: 0;
    font-size: var(--estate-enquiry-heading-size, 1.25rem);
    font-weight: 600;
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
    color: var(--_estate-muted);
  }

  /* The note a page's developer sees instead of a form that could send nothing. */
  .setup {
    margin: 0;
    padding: var(--_gap);
    border: 2px dashed var(--_estate-danger);
    /* It names settings (SAVED_SEARCH_CONFIRMATION=agent) longer than a phone's line. */
    overflow-wrap: anywhere;
  }

  .hint {
    margin: 0;
    font-size: 0.875rem;
    color: var(--_estate-muted);
  }

  input,
  textarea,
  select {
    width: 100%;
    min-height: var(--_target);
    padding: 0.5rem 0.75rem;
    font: inherit;
    font-size: max(1rem, 16px);
    color: inherit;
    background: var(--_estate-surface);
    border: 1px solid var(--_estate-border);
    border-radius: var(--_estate-radius);
  }

  textarea {
    min-height: 8rem;
    resize: vertical;
  }

  input[aria-invalid='true'],
  textarea[aria-invalid='true'],
  select[aria-invalid='true'] {
    border: 2px solid var(--_estate-danger);
  }

  .error {
    margin: 0;
    font-size: 0.875rem;
    font-weight: 600;
    color: var(--_estate-danger);
  }

  .error::before {
    content: '! ';
  }

  .consent {
    display: grid;
    grid-template-columns: auto 1fr;
    align-items: start;
    gap: 0.25rem 0.75rem;
  }

  .consent label {
    font-weight: 400;
    min-height: var(--_target);
    padding-block: 0.5rem;
    cursor: pointer;
  }

  .consent .error {
    grid-column: 1 / -1;
  }

  input[type='checkbox'] {
    width: 1.5rem;
    min-height: 1.5rem;
    height: 1.5rem;
    margin: 0.625rem 0;
    padding: 0;
    accent-color: var(--_estate-accent);
  }

  /* The spam trap: out of sight and out of the tab order; the markup also hides it from assistive
     technology (aria-hidden, inert). Not display:none, which simple bots skip. */
  .trap {
    position: absolute;
    inset-inline-start: -10000px;
    top: auto;
    width: 1px;
    height: 1px;
    overflow: hidden;
  }

  button {
    justify-self: start;
    min-height: var(--_target);
    min-width: var(--_target);
    padding: 0.5rem 1.5rem;
    font: inherit;
    font-weight: 600;
    color: var(--_estate-accent-contrast);
    background: var(--_estate-accent);
    border: 2px solid transparent;
    border-radius: var(--_estate-radius);
    cursor: pointer;
  }

  button[aria-disabled='true'] {
    cursor: progress;
    opacity: 0.7;
  }

  .status {
    margin-top: var(--_gap);
  }

  .status:empty {
    margin: 0;
  }

  .status:focus {
    outline: none;
  }

  .status:focus-visible {
    outline: 3px solid var(--_estate-focus);
  }

  .status[data-state='sent'] {
    padding: var(--_gap);
    border-inline-start: 4px solid var(--_estate-success);
    background: var(--_estate-surface);
  }

  .status[data-state='failed'] {
    padding: var(--_gap);
    border-inline-start: 4px solid var(--_estate-danger);
    background: var(--_estate-surface);
  }
`;
