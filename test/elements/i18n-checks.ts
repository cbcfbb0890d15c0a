// What the language suites check on a rendered element: words not from the registry (in the
// pseudo-locale) and boxes their content overflows.
const shadow = (el: Element) => el.shadowRoot!;
const parts = (el: Element, name: string) => [...shadow(el).querySelectorAll<HTMLElement>(`[part~="${name}"]`)];

/** Boxes whose content must fit them at the width shown, words grown or not. */
export function overflowing(el: Element, names: string[]): string[] {
  const found: string[] = [];
  for (const name of names) {
    for (const box of parts(el, name)) {
      if (box.scrollWidth > box.clientWidth + 1) found.push(`${el.localName} [part~="${name}"]: ${box.scrollWidth} > ${box.clientWidth}`);
    }
  }
  return found;
}

/**
 * Visible text and the accessible names and hints of an element's shadow root (and of the elements
 * inside it) that are not pseudo-localised: each is a word not taken from the registry. Content
 * from the CRM (marked with its own `lang`), the tile provider's credit (MAP_ATTRIBUTION, the
 * operator's words, as the provider asks for them) and text with no letters (numbers, prices) are
 * left out.
 */
export function untranslated(host: Element): string[] {
  const found: string[] = [];
  const visit = (root: ShadowRoot | Element) => {
    for (const node of root.querySelectorAll('*')) {
      if (node.closest('[lang]:not([lang="en-XA"])') && node.closest('[lang]') !== host.closest('[lang]')) continue;
      if (node.closest('[part~="attribution"]')) continue;
      // Not shown: hidden, or a trap for bots (inert, aria-hidden).
      // Dates are Intl's (`<time>`), not the registry's.
      if (node instanceof HTMLElement && (node.closest('style, script, template, time, [inert], [aria-hidden="true"]') || node.offsetParent === null)) {
        if (node.shadowRoot) visit(node.shadowRoot);
        continue;
      }
      for (const name of ['aria-label', 'placeholder', 'title']) {
        const value = node.getAttribute(name);
        if (value && !pseudo(value)) found.push(`${node.localName}[${name}="${value}"]`);
      }
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE && !pseudo(child.textContent ?? '')) found.push(`${node.localName}: "${child.textContent!.trim()}"`);
      }
      if (node.shadowRoot) visit(node.shadowRoot);
    }
  };
  visit(host.shadowRoot!);
  return found;
}

/**
 * True for text the pseudo-locale made, or with nothing to translate: no letters ("$1,350,000"),
 * an area's unit symbol ("650 m²"), a date and time Intl wrote ("Sat, 2 May, 12:00 – 12:30 am").
 */
function pseudo(value: string): boolean {
  const trimmed = value.trim().replace(/\bm²/g, '');
  if (/\d{1,2}:\d{2}/.test(trimmed)) return true;
  return !/\p{L}/u.test(trimmed) || /[\u00C0-\u024F\u1E00-\u1EFF]/.test(trimmed) || /\[|\]/.test(trimmed);
}
