import { css } from 'lit';

/**
 * Every shadow root starts from this: host CSS cannot break our box model or un-hide [hidden],
 * and the global `--estate-*` tokens (set by the host page) feed every element.
 */
export const resetStyles = css`
  :host {
    box-sizing: border-box;
    font-family: var(--estate-font-family, system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif);
    font-size: var(--estate-font-size, 1rem);
    line-height: 1.5;
    color: var(--estate-color-text, #1f2328);
    --_estate-surface: var(--estate-color-surface, #ffffff);
    --_estate-muted: var(--estate-color-muted, #57606a);
    --_estate-border: var(--estate-color-border, #d0d7de);
    --_estate-accent: var(--estate-color-accent, #0b5cad);
    --_estate-accent-contrast: var(--estate-color-accent-contrast, #ffffff);
    --_estate-danger: var(--estate-color-danger, #b3261e);
    --_estate-success: var(--estate-color-success, #1a7f37);
    --_estate-radius: var(--estate-radius, 0.5rem);
    --_estate-space: var(--estate-space, 1rem);
    --_estate-focus: var(--estate-color-focus, #0b5cad);
  }
  @media (prefers-color-scheme: dark) {
    :host {
      color: var(--estate-color-text, #e6edf3);
      --_estate-surface: var(--estate-color-surface, #161b22);
      --_estate-muted: var(--estate-color-muted, #9da7b3);
      --_estate-border: var(--estate-color-border, #3d444d);
      --_estate-accent: var(--estate-color-accent, #6cb6ff);
      --_estate-accent-contrast: var(--estate-color-accent-contrast, #0d1117);
      --_estate-danger: var(--estate-color-danger, #ff8182);
      --_estate-success: var(--estate-color-success, #56d364);
      --_estate-focus: var(--estate-color-focus, #6cb6ff);
    }
  }
  /* Its words in the visitor's language are on their way (translations.ts): shown once, in it. */
  :host([data-estate-words-pending]) {
    visibility: hidden;
  }
  *,
  *::before,
  *::after {
    box-sizing: inherit;
  }
  [hidden] {
    display: none !important;
  }
  /* What the CRM wrote, in the agency's language where it differs from the page's (lang marks it):
     each paragraph in its own text's direction, as dir="auto" would make it (an English address
     on an Arabic page reads "167 Auburn Road", its description's full stops at the end)… */
  [lang],
  [lang] * {
    unicode-bidi: plaintext;
  }
  /* …and on a right-to-left page it still lines up on the right, as the page's own words do. */
  :host(:dir(rtl)) [lang],
  :host(:dir(rtl)) [lang] * {
    text-align: right;
  }
  :focus-visible {
    outline: 3px solid var(--_estate-focus);
    outline-offset: 2px;
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    padding: 0;
    margin: -1px;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  @media (prefers-reduced-motion: reduce) {
    *,
    *::before,
    *::after {
      animation-duration: 0.01ms !important;
      transition-duration: 0.01ms !important;
      scroll-behavior: auto !important;
    }
  }
`;
