import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import minifyLiterals from '@lit-labs/rollup-plugin-minify-html-literals';
import { defineConfig, type Plugin, type Rollup } from 'vite';

type OutputChunk = Rollup.OutputChunk;

/**
 * Lit's own minifier for the templates of widget/, one setting for both builds that must agree:
 * the browser's (this file) and the relay's server-rendering build (vite.ssr.config.ts).
 */
export function literalsMinifier(): Plugin {
  return { ...minifyLiterals({ include: ['widget/**'], failOnError: true }), apply: 'build' } as unknown as Plugin;
}

/**
 * The elements a page can use, each an entry of its own (its module registers the tag and what it
 * renders). Their shared code (Lit, formatting, the relay client) becomes shared chunks.
 */
export const ELEMENT_ENTRIES = {
  'estate-agent': 'widget/agent/define.ts',
  'estate-appraisal': 'widget/appraisal/define.ts',
  'estate-enquiry': 'widget/enquiry/define.ts',
  'estate-inspection-request': 'widget/inspection-request/define.ts',
  'estate-lightbox': 'widget/lightbox/define.ts',
  'estate-listing': 'widget/listing/define.ts',
  'estate-listings': 'widget/listings/define.ts',
  'estate-map': 'widget/map/define.ts',
  'estate-open-home-registration': 'widget/open-home-registration/define.ts',
  'estate-saved-search': 'widget/saved-search/define.ts',
  'estate-shortlist': 'widget/shortlist/define.ts',
  'estate-similar-listings': 'widget/similar-listings/define.ts',
  'estate-recently-viewed': 'widget/recently-viewed/define.ts',
  'estate-team': 'widget/team/define.ts',
};

/**
 * Elements widget.js fetches only once one of their tags comes near the viewport (within 300 px),
 * not with the first screen: they sit below a page's main content (a listing's similar homes and
 * recently viewed) and wait for the viewport for their data and photos too.
 */
export const NEAR_VIEWPORT_ELEMENTS: Array<keyof typeof ELEMENT_ENTRIES> = ['estate-similar-listings', 'estate-recently-viewed'];

/**
 * Code an element needs only in some of its uses, each an entry of its own: widget.js fetches it,
 * with the element's code, for a tag in the page that matches its selector, and imports it in
 * place of the element's module. Its chunk imports the element's (the build checks it), so that
 * import registers the element, then runs the variant's module before the element's first render.
 * A page whose tags do not match (the home page's grid, a server-rendered list: no `filters`) does
 * not download it.
 */
export const VARIANT_ENTRIES: Record<string, { element: keyof typeof ELEMENT_ENTRIES; selector: string; entry: string }> = {
  'estate-listings-filters': { element: 'estate-listings', selector: 'estate-listings[filters]', entry: 'widget/listings/filter-bar.ts' },
};

/**
 * Parts of an element fetched only once it needs them, each an entry of its own under a manifest
 * key of its name: the element asks for it through loadElement (widget/shared/load-element.ts), and
 * the loader fetches its chunks, integrity checked, as it does an element's. The enquiry form's
 * checks, send and kept submission wait for a visitor to start on a form (issue 33): a page that
 * only shows forms does not download them.
 */
export const PART_ENTRIES = {
  'estate-enquiry-logic': 'widget/enquiry/form-logic.ts',
  // The filter bar's suburb combobox (issue #30): fetched when the suburb field is first used.
  'estate-suburb-combobox': 'widget/listings/suburb-combobox.ts',
  // What a page in another language than English needs (widget/i18n/words.ts): never fetched by an English page.
  'estate-i18n': 'widget/i18n/words.ts',
};

/**
 * The built-in languages' words (widget/i18n/<code>/<section>.ts), each an entry of its own, named
 * `i18n-<code>-<section>`: a page in that language fetches the sections its elements show, nothing
 * else, and an English page none. They are not in widget.js's manifest, which every page downloads:
 * chunkManifestPlugin writes an index of each language's chunks (`i18n-<code>`) and an index of
 * those (`i18n`), and only that one goes into the manifest, under the key `estate-i18n`.
 */
export const I18N_ENTRIES: Record<string, { code: string; section: string; entry: string }> = Object.fromEntries(
  readdirSync('widget/i18n', { withFileTypes: true })
    .filter((folder) => folder.isDirectory() && folder.name !== 'sections')
    .flatMap((folder) =>
      readdirSync(`widget/i18n/${folder.name}`)
        .filter((file) => file.endsWith('.ts'))
        .map((file) => {
          const section = file.slice(0, -'.ts'.length);
          return [`i18n-${folder.name}-${section}`, { code: folder.name, section, entry: `widget/i18n/${folder.name}/${file}` }];
        }),
    ),
);

/**
 * What the listing elements share: formatting, photos, icons, headings, card parts, the id read
 * from the page URL, the counting of what happens to listings, and the registering of elements
 * they render or fetch later (the enquiry form needs none of it).
 */
const LISTING_PARTS =
  /widget[\\/](shared[\\/](format|picture|icons|listing-parts|listing-parts\.styles|listing-card\.styles|heading|relay-filling|define|load-element|shortlist|page-id|visits)|listings[\\/]controls\.styles)\.ts$/;
/**
 * What the team and an agent's page share with the detail: a person's call link and initials, a
 * profile's paragraphs; and Lit's unsafeHTML with the directive base it is built on (the profile's
 * HTML), which would otherwise join the core that every page fetches.
 */
const PERSON_PARTS =
  /widget[\\/](shared[\\/]person|listing[\\/]text)\.ts$|node_modules[\\/](lit[\\/]directives[\\/]unsafe-html|lit-html[\\/](development[\\/])?(directives[\\/]unsafe-html|directive))\.js$/;
/** What `<estate-map>` shares with `<estate-listings>` beyond the listing parts: how filters are read and kept in the URL, the highlight event. */
const MAP_SHARES = /widget[\\/](listings[\\/]query|shared[\\/](url-query|listing-highlight))\.ts$|contract[\\/](listing-filters|slug)\.ts$/;
/**
 * The drawn-area rule (widget/listings/area-rule.ts) and the outline's code it registers: in the
 * filter bar's variant chunk, not the list's, so a list without an area (the home page's) does
 * not download it; the map and the saved search carry copies.
 */
const AREA_RULE = /widget[\\/]listings[\\/]area-rule\.ts$|contract[\\/]drawn-area\.ts$/;
/**
 * Lit's Task (@lit/task), which the elements that fetch data use: each of their chunks carries a
 * copy (COPIES), so the core, which a page of forms alone also fetches, holds none (the forms send
 * through widget/enquiry/form-send.ts).
 */
const TASK = /node_modules[\\/]@lit[\\/]task[\\/]/;
/**
 * The base Lit's directives are built on (directive.js, directive-helpers.js): keyed (the lightbox)
 * and unsafeHTML (a profile's HTML) need it, ifDefined does not; each chunk with one of those
 * carries its own copy (COPIES).
 */
const DIRECTIVE_BASE = /node_modules[\\/]lit-html[\\/](development[\\/])?directive(-helpers)?\.js$/;
/** Lit's keyed directive (the lightbox's), which the lightbox's chunk carries with its base. */
const KEYED = /node_modules[\\/]lit(-html)?[\\/](development[\\/])?directives[\\/]keyed\.js$/;
/**
 * The enquiry form's logic (PART_ENTRIES) and what only it uses: the field rules, the send, where a
 * lead comes from, the kept submission's store and retries. Its own chunk, fetched once a visitor
 * starts on a form; the elements that carry the form copy the form (COPIES), not this.
 */
const LOGIC_MODULES =
  /widget[\\/](enquiry[\\/](form-logic|pending-store|pending-submission)|shared[\\/](leads|consent-text))\.ts$|contract[\\/](name|phone|attribution)\.ts$/;
/**
 * The enquiry form and what only lead forms use (their words, styles, the field interaction state).
 * Lit's live directive was among it until the form's controls got their values from updated()
 * alone (issue 33); no element binds a directive built on Lit's directive base any more but the
 * lightbox (keyed) and a profile's HTML (unsafeHTML), which carry it (COPIES).
 */
const ENQUIRY_MODULES = /widget[\\/](enquiry[\\/](?!(form-logic|pending-store|pending-submission)\.ts$)[\w.-]+|shared[\\/]field-interaction)\.ts$/;

/**
 * The lead forms other than the question (issue 22), the saved-search form (issue 21) and what only
 * they use. The saved search sits here rather than in a chunk of its own: a chunk of its own would
 * put one more file and hash in widget.js, on every page (about 90 gzip bytes), for a form
 * a visitor opens rarely.
 */
const LEAD_FORM_MODULES =
  /widget[\\/](lead-form|appraisal|open-home-registration|inspection-request|saved-search)[\\/][\w.-]+\.ts$|contract[\\/]saved-search\.ts$/;

/**
 * Which modules an element's chunk carries a copy of, rather than importing them from a shared
 * chunk: `<estate-listings>` the listing parts (its detail and lightbox share the originals), and
 * `<estate-listing>` the enquiry form it renders (a contact page imports the original). A page
 * then fetches one file where it fetched two, and the one compresses better: each file is
 * gzipped on its own, and gzip finds the parts' markup and Lit's words again in the element's.
 * None of these modules holds state that must be one: formatter caches, icons, styles, classes
 * (the tag goes to whichever registers first); the form's built-in words are registered beneath
 * what is there (translations.ts), so a second copy changes none. The cost: a page holding a detail
 * and a separate contact form, or a grid opening a detail in place, downloads that code twice.
 * A rule's `sharedFrom` names modules it takes from another rule's copies instead: those its page
 * always fetches in that rule's chunk (the agent's, in the listings chunk of its cards).
 */
const COPIES: Array<{ importer: RegExp; modules: RegExp; sharedFrom?: { rule: number; modules: RegExp } }> = [
  // (and the filter bar its copy of the alerts options it shares with the saved-search form, whose
  // chunk has the original: in the core they cost every page about 200 gzip bytes)
  { importer: /widget[\\/]listings[\\/]/, modules: new RegExp(`${LISTING_PARTS.source}|${TASK.source}|widget[\\\\/]shared[\\\\/]alert-options\\.ts$`) },
  // The detail also its own copy of the relay-filling helper: the original sits in the lead forms'
  // chunk (the saved search uses it), whose imports (the enquiry form, the listings chunk) a
  // detail page would otherwise fetch with it: 25 KB gzip for 450 bytes of code. And of the
  // element loader's helper, whose original the enquiry form's chunk holds (it fetches its logic).
  {
    importer: /widget[\\/]listing[\\/]/,
    modules: new RegExp(`${ENQUIRY_MODULES.source}|${TASK.source}|widget[\\\\/]shared[\\\\/](relay-filling|load-element)\\.ts$`),
  },
  {
    importer: /widget[\\/]lightbox[\\/]/,
    modules: new RegExp(`${LISTING_PARTS.source}|widget[\\\\/]listing[\\\\/]strings\\.ts$|${KEYED.source}|${DIRECTIVE_BASE.source}`),
  },
  // <estate-shortlist> carries copies of the listing parts and of the enquiry modules it uses (the
  // form's words, field rules, kept submissions, where a lead comes from): its page fetches one file beside the core.
  {
    importer: /widget[\\/]shortlist[\\/]/,
    modules: new RegExp(`${LISTING_PARTS.source}|${ENQUIRY_MODULES.source}|${LOGIC_MODULES.source}|contract[\\\\/]slug\\.ts$`),
  },
  // The map: the listing parts of its card and the list's query helpers (which it reads the same
  // filters with), so a map page beside a list fetches no extra shared chunk for them.
  // And its own drawn-area rule (area-rule.ts, the outline's check), which the list's chunk leaves to the filter bar's.
  { importer: /widget[\\/]map[\\/]/, modules: new RegExp(`${LISTING_PARTS.source}|${MAP_SHARES.source}|${AREA_RULE.source}`) },
  // Similar homes and recently viewed (issue 31): copies of the listing parts and of what they share
  // with the listing and the shortlist (the card row, the viewport watch, the recently-viewed list,
  // the kept homes' status), so each is one file beside the core and the listing's and shortlist's
  // chunks stay as they were.
  {
    importer: /widget[\\/](similar-listings|recently-viewed)[\\/]/,
    modules: new RegExp(
      `${LISTING_PARTS.source}|${TASK.source}|widget[\\\\/](shared[\\\\/](near-viewport|recently-viewed)|shortlist[\\\\/]kept-homes)\\.ts$|contract[\\\\/]slug\\.ts$`,
    ),
  },
  // The team and an agent's page, each its own copies (one rule would make them one module, a
  // chunk shared by the two): the listing parts and the person helpers, so their pages fetch no
  // chunk of the detail's; the agent also the message form it renders, as the detail does. The
  // agent's listing cards are the listings chunk's own (<estate-listings>, which a visitor from
  // the home page has already), imported, not copied.
  { importer: /widget[\\/]team[\\/]/, modules: new RegExp(`${LISTING_PARTS.source}|${PERSON_PARTS.source}|${TASK.source}`) },
  {
    importer: /widget[\\/]agent[\\/]/,
    modules: new RegExp(`${LISTING_PARTS.source}|${PERSON_PARTS.source}|${ENQUIRY_MODULES.source}`),
    sharedFrom: {
      rule: 0,
      modules: new RegExp(
        `widget[\\\\/](shared[\\\\/](format|picture|heading|relay-filling|listing-parts\\.styles|load-element)|listings[\\\\/]controls\\.styles)\\.ts$|${TASK.source}`,
      ),
    },
  },
  // The open-home registration's copy of the counting (its calendar link): the original is the
  // detail's, whose chunk the lead forms' would otherwise import.
  { importer: /widget[\\/]open-home-registration[\\/]/, modules: /widget[\\/]shared[\\/]visits\.ts$/ },
  // The saved search's copy of the filter rules it reads an area with: the original is in the
  // listings chunk, which a contact page's lead forms (or a detail opening one) would fetch for it.
  // And of the drawn-area rule, which the list's chunk no longer holds (it comes with the filter bar's).
  { importer: /widget[\\/]saved-search[\\/]/, modules: new RegExp(`contract[\\\\/](listing-filters|drawn-area)\\.ts$|${TASK.source}`) },
];
/** Marks a copy's module id: `<file>?estate-copy=<rule index>`. */
const COPY_QUERY = '?estate-copy=';

/**
 * Which modules share a chunk: every element needs the core (Lit, the base, the registry, the
 * relay client); the enquiry form needs no listing part or listing formatting. What the detail
 * shares with its lightbox is left to rolldown, which puts what only the detail uses into the
 * detail's chunk (a group did worse by 400 bytes). Copies (COPIES) stay in their element's chunk.
 */
const CHUNK_GROUPS = [
  // Lit's directives only the lightbox uses (keyed) stay with it, and so does the base they are
  // built on (directive.js, directive-helpers.js): ifDefined, the only other one, needs neither.
  {
    name: 'core',
    test: /node_modules[\\/](lit|lit-html|lit-element|@lit[\\/]reactive-element)[\\/](?!.*(directives[\\/](keyed|live)|directive(-helpers)?\.js|\?estate-copy=))|widget[\\/]shared[\\/](estate-element|localize|translations|inherited-attribute|strings|relay|fill|reset\.styles|analytics|campaign)\.ts$/,
    priority: 3,
  },
  // <estate-listings> and what it carries (its define.ts and all it imports but the core), in one
  // chunk that its filter bar's variant (VARIANT_ENTRIES) imports: named for the element.
  { name: 'listings', test: /widget[\\/]listings[\\/]define\.ts$/, priority: 2 },
  { name: 'enquiry', test: ENQUIRY_MODULES, priority: 1 },
  // The other lead forms in one chunk over the enquiry form's: each page that shows one (and the
  // listing, when a visitor opens one) fetches it on demand, and widget.js names one more file, not three.
  { name: 'leads', test: LEAD_FORM_MODULES, priority: 0 },
];

/** Resolves the imports of COPIES' importers (and of the copies themselves) to the copies. */
function elementCopiesPlugin(): Plugin {
  return {
    name: 'estate-element-copies',
    enforce: 'pre',
    apply: 'build',
    async resolveId(source, importer, options) {
      if (!importer) return null;
      const [importerFile, copyOf] = importer.split(COPY_QUERY);
      const rule = copyOf !== undefined ? Number(copyOf) : COPIES.findIndex((copy) => copy.importer.test(importerFile!));
      if (rule < 0) return null;
      const resolved = await this.resolve(source, importerFile, { ...options, skipSelf: true });
      if (!resolved) return null;
      const { modules, sharedFrom } = COPIES[rule]!;
      if (sharedFrom?.modules.test(resolved.id)) return `${resolved.id}${COPY_QUERY}${sharedFrom.rule}`;
      return modules.test(resolved.id) ? `${resolved.id}${COPY_QUERY}${rule}` : null;
    },
  };
}

/**
 * Under widget.js an element fetches another element's code through the loader's checked manifest
 * (widget/shared/load-element.ts); its `() => import('…')` beside it is for bundlers. In this build
 * each would name a hashed chunk (about 40 gzip bytes apiece) that nothing runs, so they go, and the
 * manifest plugin checks that no chunk imports anything dynamically.
 */
function loaderOnlyImportsPlugin(): Plugin {
  const bundlerImport = /\(\)\s*=>\s*import\(\s*(['"])[^'"]+\1\s*\)/g;
  return {
    name: 'estate-loader-only-imports',
    enforce: 'pre',
    apply: 'build',
    transform(code, id) {
      if (!/[\\/]widget[\\/].*\.ts$/.test(id.split('?')[0]!)) return null;
      // A section's map of its words' imports (widget/i18n/sections/) is all bundler imports: none of it here.
      if (/[\\/]widget[\\/]i18n[\\/]sections[\\/]/.test(id)) return { code: 'export default undefined;', map: null };
      const stripped = code.replace(bundlerImport, 'undefined');
      return stripped === code ? null : { code: stripped, map: null };
    },
  };
}

/** The loader's file: the name agency pages load (the relay also serves it as widget.<hash>.js). */
const LOADER_FILE = 'widget.js';

/**
 * A chunk's file from its name and SHA-256 (base64): `widget-<name>.<the hash's first 8 characters,
 * + and / as _>.js`. The same rule as loader.ts's, which builds the URL from the manifest.
 */
function chunkFileName(name: string, sha256: string): string {
  return `widget-${name}.${sha256.slice(0, 8).replace(/\W/g, '_')}.js`;
}

/** True for a chunk that is nothing but imports and re-exports of other chunks. */
function isFacade(code: string): boolean {
  return /^\s*((import|export\s*(\*|\{[^}]*\})\s*from)\s*["'][^"']+["'];?\s*)+$/.test(code);
}

/**
 * Writes into widget.js, for every element, the chunks it needs (its static imports, depth first,
 * its own module last) and each chunk's SHA-256, so the loader can check every chunk it fetches
 * and a pinned widget.js vouches for all of them. Runs on the final (minified) code.
 */
function chunkManifestPlugin(): Plugin {
  return {
    name: 'estate-chunk-manifest',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((output) => output.type === 'chunk');
      const loader = chunks.find((chunk) => chunk.fileName === LOADER_FILE);
      if (!loader) return this.error(`no ${LOADER_FILE} in the bundle`);
      if (loader.imports.length || loader.dynamicImports.length) {
        return this.error(
          `${LOADER_FILE} must import nothing (an import would be fetched unchecked): ${[...loader.imports, ...loader.dynamicImports].join(', ')}`,
        );
      }
      const tags: Record<string, string[]> = {};
      /** A chunk's static imports, depth first, the chunk itself last. */
      const filesOf = (entryFile: string): string[] => {
        const files: string[] = [];
        const visit = (fileName: string) => {
          if (files.includes(fileName)) return;
          const output = bundle[fileName];
          if (output?.type === 'chunk') for (const imported of output.imports) visit(imported);
          // An entry whose module went into a shared chunk (CHUNK_GROUPS) is only imports of
          // that chunk: fetching it would cost a request and a hash for nothing.
          if (!(output?.type === 'chunk' && output.imports.length && isFacade(output.code))) files.push(fileName);
        };
        visit(entryFile);
        return files;
      };
      for (const chunk of chunks) {
        if (chunk.isEntry && (chunk.name in ELEMENT_ENTRIES || chunk.name in PART_ENTRIES)) tags[chunk.name] = filesOf(chunk.fileName);
      }
      const variants: Record<string, string[]> = {};
      for (const chunk of chunks) {
        const variant = VARIANT_ENTRIES[chunk.name];
        if (!chunk.isEntry || !variant) continue;
        const files = filesOf(chunk.fileName);
        // The chunk that registers the element: importing the variant's chunk must run it first.
        const own = tags[variant.element]?.at(-1);
        if (!own || !files.slice(0, -1).includes(own)) {
          return this.error(`${chunk.fileName} (${variant.selector}) does not import ${own ?? variant.element}: importing it would not register the element`);
        }
        variants[variant.selector] = files;
      }
      // Variants first: the loader takes the first key a tag matches.
      const elements = { ...variants, ...tags };
      // A dynamic import would fetch a chunk unchecked (loaderOnlyImportsPlugin takes the bundlers' out).
      for (const chunk of chunks) {
        if (chunk.dynamicImports.length)
          return this.error(`${chunk.fileName} imports ${chunk.dynamicImports.join(', ')} dynamically: the loader could not check it`);
      }
      // Every file an element needs, indexed (the loader names them by index); the core first.
      const fileList = [...new Set(Object.values(elements).flat())];
      // Chunks only imported dynamically (none today) would be fetched unchecked: refuse them.
      // (A language's words are checked through the indexes written below.)
      for (const chunk of chunks) {
        if (chunk !== loader && !fileList.includes(chunk.fileName) && !isFacade(chunk.code) && !(chunk.isEntry && chunk.name in I18N_ENTRIES)) {
          return this.error(`${chunk.fileName} is needed by no element in the manifest, so the loader could not check it`);
        }
      }
      // Each chunk is renamed after its own SHA-256 (its imports renamed first): the manifest then
      // carries one hash a file, from which the loader builds its name (chunkFileName in loader.ts),
      // where it carried rolldown's hash too: 8 characters that do not compress, about 100 gzip
      // bytes on every page. SHA-256: every page downloads every chunk's hash in widget.js, and
      // hashes do not compress (SHA-384's cost 16 more gzip bytes a chunk, about 130 in all); what a
      // check needs is that no other file has the hash (a second preimage), which 256 bits rule out.
      const renamed = new Map<string, { fileName: string; sha256: string; name: string }>();
      const rename = (chunk: OutputChunk): void => {
        if (renamed.has(chunk.fileName)) return;
        for (const imported of chunk.imports) {
          const dependency = bundle[imported];
          if (dependency?.type !== 'chunk') return this.error(`${chunk.fileName} imports ${imported}, which is not a chunk of this build`);
          rename(dependency);
          chunk.code = chunk.code.replaceAll(`./${imported}`, `./${renamed.get(imported)!.fileName}`);
        }
        const name = /^widget-(.+)\.[\w-]{8}\.js$/.exec(chunk.fileName)?.[1];
        if (!name) return this.error(`${chunk.fileName} is not named widget-<name>.<hash>.js`);
        const sha256 = createHash('sha256').update(chunk.code).digest('base64');
        renamed.set(chunk.fileName, { fileName: chunkFileName(name, sha256), sha256, name });
      };
      // The languages' words first: per language an index of its sections' chunks (name → SHA-256),
      // whose own SHA-256 goes into the languages' chunk (estate-i18n, widget/i18n/words.ts), which
      // widget.js names. A page in Arabic fetches that chunk, Arabic's index and its sections'
      // chunks, each checked against the hash the one before gives; an English page none of them.
      const languages: Record<string, Record<string, string>> = {};
      for (const chunk of chunks) {
        const words = chunk.isEntry ? I18N_ENTRIES[chunk.name] : undefined;
        if (!words) continue;
        if (chunk.imports.length)
          return this.error(`${chunk.fileName} imports ${chunk.imports.join(', ')}: a language's words must import nothing (their index checks them alone)`);
        rename(chunk);
        (languages[words.code] ??= {})[words.section] = renamed.get(chunk.fileName)!.sha256;
      }
      const wordsChunk = chunks.find((chunk) => chunk.isEntry && chunk.name === 'estate-i18n');
      if (!wordsChunk?.code.includes('__ESTATE_LANGUAGES__')) return this.error('no estate-i18n chunk with __ESTATE_LANGUAGES__ to fill in');
      const indexes = Object.fromEntries(
        Object.entries(languages).map(([code, sections]) => {
          const source = `export default ${JSON.stringify(sections)};`;
          const sha256 = createHash('sha256').update(source).digest('base64');
          this.emitFile({ type: 'asset', fileName: chunkFileName(`i18n-${code}`, sha256), source });
          return [code, sha256];
        }),
      );
      wordsChunk.code = wordsChunk.code.replace('__ESTATE_LANGUAGES__', JSON.stringify(indexes));
      for (const chunk of chunks) if (chunk !== loader) rename(chunk);
      for (const [fileName, { fileName: newName }] of renamed) {
        const chunk = bundle[fileName] as OutputChunk;
        delete bundle[fileName];
        this.emitFile({ type: 'asset', fileName: newName, source: chunk.code });
        const map = bundle[`${fileName}.map`];
        if (map?.type === 'asset') {
          delete bundle[`${fileName}.map`];
          this.emitFile({ type: 'asset', fileName: `${newName}.map`, source: JSON.stringify({ ...JSON.parse(String(map.source)), file: newName }) });
        } else if (chunk.map) {
          this.emitFile({ type: 'asset', fileName: `${newName}.map`, source: JSON.stringify({ ...chunk.map, file: newName }) });
        }
      }
      const files = fileList.map((file) => [renamed.get(file)!.name, renamed.get(file)!.sha256]);
      const indexed = Object.fromEntries(Object.entries(elements).map(([key, list]) => [key, list.map((file) => fileList.indexOf(file))]));
      const near = NEAR_VIEWPORT_ELEMENTS.filter((tag) => tag in indexed);
      if (near.length !== NEAR_VIEWPORT_ELEMENTS.length) return this.error(`NEAR_VIEWPORT_ELEMENTS names no element: ${NEAR_VIEWPORT_ELEMENTS.join(', ')}`);
      if (!loader.code.includes('__ESTATE_CHUNKS__')) return this.error(`${LOADER_FILE} has no __ESTATE_CHUNKS__ to fill in`);
      loader.code = loader.code.replace('__ESTATE_CHUNKS__', JSON.stringify({ files, elements: indexed, near }));
    },
  };
}

/**
 * Builds the widget served by the relay: widget.js, a small loader (widget/loader.ts), and one
 * hashed, immutable chunk per element plus shared chunks (Lit bundled in), fetched by the loader
 * when a page first shows that element.
 */
export default defineConfig({
  plugins: [
    // Lit's own minifier for the markup and CSS inside html`` and css`` (a general minifier leaves
    // template strings as they are). The relay renders the elements on the server from a build
    // with this same plugin (vite.ssr.config.ts): the browser renders over the server's markup
    // before it paints, so both must make the very same markup or something could move.
    literalsMinifier(),
    loaderOnlyImportsPlugin(),
    elementCopiesPlugin(),
    chunkManifestPlugin(),
  ],
  build: {
    outDir: 'dist/widget',
    // Chunks of earlier builds stay: a browser may still hold an older widget.js (5 minutes, or a
    // pinned one for a year) that asks for them. Their names are hashed, so nothing is overwritten.
    emptyOutDir: false,
    target: 'es2022',
    // Maps are written for the operator (to read a stack trace) but not announced in the files:
    // the relay serves no .map (WIDGET_CHUNK_PATTERN), so a `sourceMappingURL` comment was ~60
    // gzip bytes per chunk pointing a browser's devtools at a 404.
    sourcemap: 'hidden',
    lib: {
      entry: {
        widget: 'widget/loader.ts',
        ...ELEMENT_ENTRIES,
        ...PART_ENTRIES,
        ...Object.fromEntries(Object.entries(VARIANT_ENTRIES).map(([name, variant]) => [name, variant.entry])),
        ...Object.fromEntries(Object.entries(I18N_ENTRIES).map(([name, words]) => [name, words.entry])),
      },
      formats: ['es'],
      fileName: (_format, name) => (name === 'widget' ? LOADER_FILE : 'widget-[name].[hash].js'),
    },
    rolldownOptions: {
      treeshake: { manualPureFunctions: ['svg', 'css', 'html'] },
      // Vite leaves whitespace in a library's ES output (for a later bundler's tree shaking);
      // these files go to browsers as they are, so minify them fully.
      output: {
        chunkFileNames: 'widget-[name].[hash].js',
        minify: true,
        // No comments in what browsers get: rolldown's minifier runs last and would write a
        // `/* @__PURE__ */` before every `new Map` and call it kept (a later bundler's hint; these
        // files go to browsers as they are): 20–40 gzip bytes a chunk.
        comments: false,
        codeSplitting: { groups: CHUNK_GROUPS },
      },
    },
    // Terser after rolldown's own minifier: 1–2 % fewer gzip bytes on every chunk (measured with
    // npm run bench -- page-weight), which every page pays.
    minify: 'terser',
    terserOptions: { module: true, ecma: 2020, compress: { passes: 3 } },
  },
});
