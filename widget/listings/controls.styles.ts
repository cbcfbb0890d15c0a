import { css } from 'lit';

/** Buttons, inputs and selects shared by the listing elements: 44px targets, visible focus, tokens. */
export const controlStyles = css`
  /*
   * In dark mode the text turns light, so the element paints its own background: on a page that
   * stays light it must not leave light text on white. A dark site sets
   * --estate-color-background: transparent to let its own background show.
   */
  @media (prefers-color-scheme: dark) {
    :host {
      background: var(--estate-color-background, var(--_estate-surface));
    }
  }

  button,
  input,
  select {
    font: inherit;
    color: inherit;
  }

  button,
  .button {
    display: inline-flex;
    align-items: center;
    justify-content: center;
    gap: 0.375rem;
    min-height: 2.75rem;
    padding: 0 1rem;
    border: 1px solid var(--_estate-border);
    border-radius: var(--_estate-radius);
    background: var(--_estate-surface);
    color: inherit;
    font-weight: 600;
    text-decoration: none;
    cursor: pointer;
  }

  button:hover:not(:disabled),
  .button:hover {
    border-color: var(--_estate-accent);
  }

  button:disabled {
    cursor: not-allowed;
    opacity: 0.55;
  }

  button.primary,
  .button.primary {
    background: var(--_estate-accent);
    border-color: var(--_estate-accent);
    color: var(--_estate-accent-contrast);
  }

  input,
  select {
    width: 100%;
    min-height: 2.75rem;
    padding: 0 0.75rem;
    border: 1px solid var(--_estate-muted);
    border-radius: calc(var(--_estate-radius) * 0.75);
    background: var(--_estate-surface);
  }

  select option {
    background: var(--_estate-surface);
    color: inherit;
  }
`;
