import { defineConfig } from 'vite';

/** Builds the widget into one ES module (lit bundled in), served by the relay at /widget.js. */
export default defineConfig({
  build: {
    outDir: 'dist/widget',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: 'widget/index.ts',
      formats: ['es'],
      fileName: () => 'widget.js',
    },
    // One file: agency sites load one script, and an SRI hash covers all of it.
    rolldownOptions: {
      output: { codeSplitting: false },
    },
    minify: true,
  },
});
