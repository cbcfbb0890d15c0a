import { defineConfig } from 'vite';
import { literalsMinifier } from './vite.config.ts';

/**
 * What the relay renders listing pages with (server/pages, #13): the elements built for Node with
 * the same template minifier as the browser's widget (vite.config.ts). The browser renders its
 * markup over the server's before it paints (widget/shared/estate-element.ts), so both must be the
 * very same, and the server must render from minified templates too. Lit stays an import, so the elements and @lit-labs/ssr share one copy
 * (their private hand-off differs between Lit's development and production builds): the build
 * goes beside the widget's files, in `<widget folder>/ssr/`, inside the project so `lit` resolves
 * (the relay never serves it: only `widget.js` and `widget-*.<hash>.js` are).
 */
export const SSR_FOLDER = 'ssr';
export const SSR_FILE = 'elements.js';

export default defineConfig({
  plugins: [literalsMinifier()],
  ssr: { target: 'node' },
  build: {
    ssr: 'widget/ssr.ts',
    outDir: `dist/widget/${SSR_FOLDER}`,
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    sourcemap: false,
    rolldownOptions: { output: { entryFileNames: SSR_FILE, format: 'es' } },
  },
});
