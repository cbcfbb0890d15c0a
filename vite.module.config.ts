import { defineConfig } from 'vite';

/**
 * The widget for bundler users (package `exports`: `estate-embed/widget` and
 * `estate-embed/widget/<element>`): one ES module per element that registers its tag, Lit left as
 * an import so the host's bundler shares one copy. The relay serves the other build (vite.config.ts).
 */
export default defineConfig({
  build: {
    outDir: 'dist/module',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: {
        index: 'widget/index.ts',
        appraisal: 'widget/appraisal/define.ts',
        'inspection-request': 'widget/inspection-request/define.ts',
        'open-home-registration': 'widget/open-home-registration/define.ts',
        enquiry: 'widget/enquiry/define.ts',
        lightbox: 'widget/lightbox/define.ts',
        listing: 'widget/listing/define.ts',
        listings: 'widget/listings/define.ts',
        shortlist: 'widget/shortlist/define.ts',
        'saved-search': 'widget/saved-search/define.ts',
        map: 'widget/map/define.ts',
        'similar-listings': 'widget/similar-listings/define.ts',
        'recently-viewed': 'widget/recently-viewed/define.ts',
        team: 'widget/team/define.ts',
        agent: 'widget/agent/define.ts',
        localize: 'widget/shared/localize.ts',
      },
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
    rolldownOptions: {
      external: [/^lit(\/|$)/, /^@lit\//],
      output: { chunkFileNames: 'shared/[name]-[hash].js' },
    },
  },
});
