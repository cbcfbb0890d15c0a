/**
 * Takes over pages the relay rendered on the server (server/pages): Lit's hydration support, then
 * the properties each element was rendered with, before any element's code runs. Such pages load
 * it with a script tag of its own ahead of widget.js (module scripts run in document order; the
 * relay writes the tag, with its integrity, from the build's hydration.json), so the loader and
 * every other page carry nothing of it. The elements adopt their declarative shadow roots instead of rendering them again: no node
 * is replaced, nothing moves, and the lightbox and the enquiry form work as on any page.
 */
import '@lit-labs/ssr-client/lit-element-hydrate-support.js';
import { LitElement } from 'lit';

type HydrateSupport = (classes: { LitElement: typeof LitElement }) => void;

// The support module sets a hook Lit calls when its module runs; a bundle may run Lit's module
// first (they share a chunk), and then the hook is applied here, once (it defines
// LitElement.observedAttributes as its own property, which Lit itself never does).
if (!Object.prototype.hasOwnProperty.call(LitElement, 'observedAttributes')) {
  (globalThis as { litElementHydrateSupport?: HydrateSupport }).litElementHydrateSupport?.({ LitElement });
}

// Each server-rendered element is followed by its properties as JSON. Set before the element is
// upgraded, Lit keeps them as the element's first values, so its first render matches the markup.
for (const data of document.querySelectorAll<HTMLScriptElement>('script[type="application/json"][data-estate-ssr]')) {
  const element = data.previousElementSibling;
  if (!element?.hasAttribute('data-estate-ssr') || customElements.get(element.localName)) continue;
  try {
    Object.assign(element, JSON.parse(data.textContent ?? '{}') as Record<string, unknown>);
  } catch (error) {
    console.error('estate-embed: the page data of a server-rendered element could not be read', error);
  }
}
