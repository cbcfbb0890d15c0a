import { createHash } from 'node:crypto';
import minifyLiterals from '@lit-labs/rollup-plugin-minify-html-literals';
import { defineConfig, type Plugin } from 'vite';

/**
 * The elements a page can use, each an entry of its own (its module registers the tag and what it
 * renders). Their shared code (Lit, formatting, the relay client) becomes shared chunks.
 */
export const ELEMENT_ENTRIES = {
  'estate-enquiry': 'widget/enquiry/define.ts',
  'estate-lightbox': 'widget/lightbox/define.ts',
  'estate-listing': 'widget/listing/define.ts',
  'estate-listings': 'widget/listings/define.ts',
};

/** Lit's hydration for pages the relay renders on the server (widget/hydrate.ts), loaded by the loader before any element there. */
const HYDRATE_ENTRY = 'estate-hydrate';

/** The loader's file: the name agency pages load (the relay also serves it as widget.<hash>.js). */
const LOADER_FILE = 'widget.js';

/**
 * Writes into widget.js, for every element, the chunks it needs (its static imports, depth first,
 * its own module last) and each chunk's SHA-384, so the loader can check every chunk it fetches
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
        return this.error(`${LOADER_FILE} must import nothing (an import would be fetched unchecked): ${[...loader.imports, ...loader.dynamicImports].join(', ')}`);
      }
      const integrity: Record<string, string> = {};
      for (const chunk of chunks) {
        if (chunk !== loader) integrity[chunk.fileName] = `sha384-${createHash('sha384').update(chunk.code).digest('base64')}`;
      }
      /** A chunk's static imports, depth first, the chunk itself last. */
      const filesOf = (fileName: string): string[] => {
        const files: string[] = [];
        const visit = (name: string) => {
          if (files.includes(name)) return;
          const output = bundle[name];
          if (output?.type === 'chunk') for (const imported of output.imports) visit(imported);
          files.push(name);
        };
        visit(fileName);
        return files;
      };
      const elements: Record<string, string[]> = {};
      for (const chunk of chunks) {
        if (chunk.isEntry && chunk.name in ELEMENT_ENTRIES) elements[chunk.name] = filesOf(chunk.fileName);
      }
      const hydrateChunk = chunks.find((chunk) => chunk.isEntry && chunk.name === HYDRATE_ENTRY);
      if (!hydrateChunk) return this.error(`no ${HYDRATE_ENTRY} entry in the bundle`);
      const hydrate = filesOf(hydrateChunk.fileName);
      if (!loader.code.includes('__ESTATE_CHUNKS__')) return this.error(`${LOADER_FILE} has no __ESTATE_CHUNKS__ to fill in`);
      loader.code = loader.code.replace('__ESTATE_CHUNKS__', JSON.stringify({ elements, integrity, hydrate }));
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
    // Lit's own minifier for the CSS inside css`` (a general minifier leaves template strings as
    // they are). Not for html``: the relay renders the elements from their source (server/pages),
    // and Lit hydrates server markup only when the browser's template strings are the very same
    // (it compares their digests). Unminified markup costs about 1.3 KB gzipped.
    {
      ...minifyLiterals({ include: ['widget/**'], failOnError: true, options: { shouldMinify: () => false } }),
      apply: 'build',
    } as unknown as Plugin,
    chunkManifestPlugin(),
  ],
  build: {
    outDir: 'dist/widget',
    // Chunks of earlier builds stay: a browser may still hold an older widget.js (5 minutes, or a
    // pinned one for a year) that asks for them. Their names are hashed, so nothing is overwritten.
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: { widget: 'widget/loader.ts', ...ELEMENT_ENTRIES, [HYDRATE_ENTRY]: 'widget/hydrate.ts' },
      formats: ['es'],
      fileName: (_format, name) => (name === 'widget' ? LOADER_FILE : 'widget-[name].[hash].js'),
    },
    rolldownOptions: {
      // Vite leaves whitespace in a library's ES output (for a later bundler's tree shaking);
      // these files go to browsers as they are, so minify them fully.
      output: { chunkFileNames: 'widget-[name].[hash].js', minify: true },
    },
    minify: true,
  },
});
