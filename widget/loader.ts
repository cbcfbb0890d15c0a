/**
 * widget.js, the one script tag agency sites paste. It holds no element code: it watches the page
 * for `estate-*` tags and, when one first appears, fetches that element's code (immutable, hashed
 * chunks beside widget.js) and registers it. A page with one enquiry form pays for the form only.
 *
 * Integrity: the build writes every chunk's SHA-256 into this file, so a pinned tag (`integrity`
 * on widget.js) vouches for every chunk too. Each chunk an element needs is first fetched as
 * `<link rel="modulepreload" integrity>`: the browser refuses it if one byte differs and, if it
 * matches, keeps the module in its module map; only when every chunk has passed is the element's
 * module imported, and then its imports are those already-checked modules. (An import map with
 * `integrity` would do the same, but it is an inline script, which a strict CSP forbids.)
 *
 * This module must import nothing: an import would be a chunk fetched without a check.
 */

interface ChunkManifest {
  /**
   * The chunk files, each as its name and its SHA-256 (base64, the Subresource Integrity value
   * without `sha256-`), whose first characters are in the file's name (fileUrl). Elements name files by their
   * index here: every page downloads this manifest, and a number costs fewer bytes than a name.
   */
  files: Array<[name: string, sha256: string]>;
  /**
   * Tag → the indexes of the files it needs, its own module last. A key may also be a tag with an
   * attribute (`estate-listings[filters]`): the files that use of the element needs, a module of its
   * own last that registers the element too; such keys come first, and a tag is loaded by the first key it matches.
   */
  elements: Record<string, number[]>;
  /**
   * Keys fetched only once one of their tags comes near the viewport (what sits below a page's
   * main content: similar homes, recently viewed), not with the page's first screen.
   */
  near: string[];
}

// Replaced by the build (vite.config.ts) with the manifest of the chunks it wrote.
declare const __ESTATE_CHUNKS__: ChunkManifest;
const manifest: ChunkManifest = __ESTATE_CHUNKS__;

// Same key as widget/shared/load-element.ts (not imported: see above).
const LOAD_ELEMENT_HOOK = Symbol.for('estate-embed.load-element');

const loads = new Map<string, Promise<unknown>>();
const checkedChunks = new Map<string, Promise<void>>();
/** A chunk's URL: `widget-<name>.<its SHA-256's first 8 characters, + and / as _>.js` (as vite.config.ts names it). */
function fileUrl(name: string, sha256: string): string {
  // A plain string (not a template inside new URL()), which Vite would take for an asset glob.
  const file = `widget-${name}.${sha256.slice(0, 8).replace(/\W/g, '_')}.js`;
  return new URL(file, import.meta.url).href;
}

/** Fetches a chunk as `<link rel="modulepreload" integrity>` (once): resolves when it passed its check. */
function checkChunk(name: string, sha256: string): Promise<void> {
  let checked = checkedChunks.get(name);
  if (!checked) {
    checked = new Promise<void>((resolve, reject) => {
      const link = document.createElement('link');
      link.rel = 'modulepreload';
      link.crossOrigin = 'anonymous';
      link.integrity = `sha256-${sha256}`;
      link.href = fileUrl(name, sha256);
      link.onload = () => resolve();
      link.onerror = () => reject(new Error(`estate-embed: ${link.href} could not be loaded or failed its integrity check`));
      document.head.append(link);
    });
    checkedChunks.set(name, checked);
  }
  return checked;
}

/** A checked chunk's module. */
function importChecked(name: string, sha256: string | undefined): Promise<{ default: Record<string, string> }> {
  if (!sha256) return Promise.reject(new Error(`estate-embed: this widget has no ${name}`));
  return checkChunk(name, sha256).then(() => import(/* @vite-ignore */ fileUrl(name, sha256)));
}

/**
 * Fetches (once) and registers the element for `key` (a manifest key); resolves when it is defined,
 * with its module (a part's, such as the enquiry form's logic, is what its element uses).
 */
function loadElement(key: string): Promise<unknown> {
  let load = loads.get(key);
  if (!load) {
    const files = manifest.elements[key];
    load =
      customElements.get(key) || !files
        ? Promise.resolve()
        : Promise.all(files.map((index) => checkChunk(...manifest.files[index]!))).then(
            () => import(/* @vite-ignore */ fileUrl(...manifest.files[files.at(-1)!]!)),
          );
    load.catch((error: unknown) => console.error(error));
    loads.set(key, load);
  }
  return load;
}

// Same key as widget/i18n/words.ts, which fetches a built-in language's index and words through it:
// the manifest names that module (estate-i18n), which holds each language's index's SHA-256, and an
// index each of its sections' chunks'. So widget.js, which every page downloads, names one file for
// all the languages' words, not one per language and section.
const LOAD_CHECKED_HOOK = Symbol.for('estate-embed.load-checked');

const tags = Object.keys(manifest.elements);
const selector = tags.join(',');

// Within 300 px of the viewport counts as near, as the elements' own data waits (shared/near-viewport.ts).
// (Every browser the build targets, ES2022, has IntersectionObserver.)
const nearViewport = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) {
        nearViewport.unobserve(entry.target);
        load(entry.target, true);
      }
    }
  },
  { rootMargin: '300px' },
);

/** Loads what the element needs (the first manifest key it matches): at once, or once it is near the viewport. */
function load(element: Element, near = false): void {
  const key = tags.find((tag) => element.matches(tag))!;
  if (near || !manifest.near.includes(key)) void loadElement(key);
  else nearViewport.observe(element);
}

function discover(root: Element | Document): void {
  if (!selector) return;
  if (root instanceof Element && root.matches(selector)) load(root);
  for (const element of root.querySelectorAll(selector)) load(element);
}

/**
 * Tags the page asks for before they are in it: `<script type="module" src=".../widget.js"
 * data-define="estate-listings estate-enquiry">`, for a framework (React) that must see the
 * elements defined before it renders them.
 */
function requestedByScriptTag(): string[] {
  for (const script of document.querySelectorAll<HTMLScriptElement>('script[type="module"][src][data-define]')) {
    if (script.src !== import.meta.url) continue;
    const named = (script.dataset.define ?? '').split(/[\s,]+/).filter(Boolean);
    const unknown = named.filter((tag) => !tags.includes(tag));
    if (unknown.length) console.warn(`estate-embed: data-define names no element of this widget: ${unknown.join(', ')} (known: ${tags.join(', ')})`);
    return named.filter((tag) => tags.includes(tag));
  }
  return [];
}

// Same key as widget/shared/visit-start.ts: the first interaction with the page since this script
// loaded, so a form a host page inserts later (its own dialog) measures its fill time from then.
const VISIT_START = Symbol.for('estate-embed.visit-start');

if (!(globalThis as Record<symbol, unknown>)[LOAD_ELEMENT_HOOK]) {
  (globalThis as Record<symbol, unknown>)[LOAD_ELEMENT_HOOK] = loadElement;
  (globalThis as Record<symbol, unknown>)[LOAD_CHECKED_HOOK] = importChecked;
  for (const type of ['pointerdown', 'keydown', 'scroll'])
    addEventListener(type, () => ((globalThis as Record<symbol, number | undefined>)[VISIT_START] ??= performance.now()), {
      capture: true,
      once: true,
      passive: true,
    });
  for (const tag of requestedByScriptTag()) void loadElement(tag);
  discover(document);
  // Tags added later (a framework rendering, a host script) are registered when they appear.
  new MutationObserver((mutations) => {
    for (const mutation of mutations) {
      for (const node of mutation.addedNodes) if (node instanceof Element) discover(node);
    }
  }).observe(document, { childList: true, subtree: true });
}
