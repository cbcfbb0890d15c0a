/**
 * Code for an element that is rendered only sometimes (the in-place detail of `<estate-listings>`)
 * is fetched when it is first needed. Under the script tag, widget.js (widget/loader.ts) installs
 * this hook: it fetches the element's chunks with their integrity checked, as it does for the
 * page's own tags. Imported from a bundler, there is no hook and the bundler's own import runs.
 * (The relay's build, whose chunks only ever run under widget.js, leaves those imports out:
 * vite.config.ts loaderOnlyImportsPlugin.) A part of an element (the enquiry form's logic) is
 * fetched the same way, by its manifest key, and the promise resolves with its module.
 */
const LOAD_ELEMENT_HOOK = Symbol.for('estate-embed.load-element');

type ElementLoader = (tag: string) => Promise<unknown>;

export function loadElement(tag: string, importIt: () => Promise<unknown>): Promise<unknown> {
  if (customElements.get(tag)) return Promise.resolve();
  const hook = (globalThis as { [LOAD_ELEMENT_HOOK]?: ElementLoader })[LOAD_ELEMENT_HOOK];
  return hook ? hook(tag) : importIt();
}
