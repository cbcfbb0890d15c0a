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
    rollupOptions: {
      output: { inlineDynamicImports: true },
    },
  },
});
