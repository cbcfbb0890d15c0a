import { nothing, type TemplateResult } from 'lit';
import { html, literal, type StaticValue } from 'lit/static-html.js';
import { ifDefined } from 'lit/directives/if-defined.js';

const TAGS: Record<number, StaticValue> = {
  1: literal`h1`,
  2: literal`h2`,
  3: literal`h3`,
  4: literal`h4`,
  5: literal`h5`,
  6: literal`h6`,
};

/** Clamps a `heading-level` attribute to 1–6 (NaN or missing: the fallback). */
export function headingLevel(value: number | null | undefined, fallback: number): number {
  const level = typeof value === 'number' && Number.isFinite(value) ? Math.round(value) : fallback;
  return Math.min(6, Math.max(1, level));
}

/**
 * A real `<hN>` whose level the host page chooses, so the elements fit the page's outline
 * (an h1 on a listing page, an h3 under a "Featured" h2 on a home page).
 */
export function heading(
  level: number,
  content: unknown,
  options: { part?: string; className?: string; id?: string; focusable?: boolean } = {},
): TemplateResult {
  const tag = TAGS[headingLevel(level, 2)]!;
  return html`<${tag}
    part=${ifDefined(options.part)}
    class=${ifDefined(options.className)}
    id=${ifDefined(options.id)}
    tabindex=${options.focusable ? '-1' : nothing}
    >${content}</${tag}
  >`;
}
