import { html, nothing, type TemplateResult } from 'lit';
import { ifDefined } from 'lit/directives/if-defined.js';

/** `lang`: the CRM's content (an address) in a language other than the element's. */
type HeadingOptions = { part?: string; className?: string; id?: string; focusable?: boolean; lang?: string };

/** Clamps a `heading-level` attribute to 1–6 (NaN or missing: the fallback). */
export function headingLevel(value: number | null | undefined, fallback: number): number {
  const level = typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : fallback;
  return Math.min(6, Math.max(1, level));
}

/**
 * A real `<hN>` whose level the host page chooses, so the elements fit the page's outline
 * (an h1 on a listing page, an h3 under a "Featured" h2 on a home page). Six plain templates
 * rather than lit/static-html's tag interpolation: that module alone weighed more than these.
 */
export function heading(level: number, content: unknown, options: HeadingOptions = {}): TemplateResult {
  const part = ifDefined(options.part);
  const className = ifDefined(options.className);
  const id = ifDefined(options.id);
  const tabindex = options.focusable ? '-1' : nothing;
  const lang = ifDefined(options.lang);
  switch (headingLevel(level, 2)) {
    case 1:
      return html`<h1 part=${part} class=${className} id=${id} tabindex=${tabindex} lang=${lang}>${content}</h1>`;
    case 2:
      return html`<h2 part=${part} class=${className} id=${id} tabindex=${tabindex} lang=${lang}>${content}</h2>`;
    case 3:
      return html`<h3 part=${part} class=${className} id=${id} tabindex=${tabindex} lang=${lang}>${content}</h3>`;
    case 4:
      return html`<h4 part=${part} class=${className} id=${id} tabindex=${tabindex} lang=${lang}>${content}</h4>`;
    case 5:
      return html`<h5 part=${part} class=${className} id=${id} tabindex=${tabindex} lang=${lang}>${content}</h5>`;
    default:
      return html`<h6 part=${part} class=${className} id=${id} tabindex=${tabindex} lang=${lang}>${content}</h6>`;
  }
}
