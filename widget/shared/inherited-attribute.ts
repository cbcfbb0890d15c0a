/**
 * The nearest `name` attribute on the element or on an element around it, across shadow roots
 * (an enquiry form inside a listing inside a grid follows the page): how an element inherits
 * `lang` (translations.ts) and `analytics` (analytics.ts). Null when there is none.
 */
export function inheritedAttribute(element: Element, name: string): string | null {
  for (let node: Element | null = element; node;) {
    const found = node.closest(`[${name}]`);
    if (found) return found.getAttribute(name);
    const root = node.getRootNode();
    node = root instanceof ShadowRoot ? root.host : null;
  }
  return null;
}
