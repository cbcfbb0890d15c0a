/**
 * Size of the widget bundle (every element) against a one-element Lit bundle built by the same
 * Vite settings in the same run: the baseline is what Lit itself costs, so the ratio shows what our
 * elements add on top. Both minified; gzip and brotli at their usual levels.
 */
import { build, type InlineConfig } from 'vite';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import type { BenchContext, BenchFigure } from './types.ts';

const root = join(import.meta.dirname, '..');

/** The floor: one Lit element, nothing of ours. Shared with page-weight.ts. */
export const oneElement = `
import { LitElement, html, css } from 'lit';
export class HelloCard extends LitElement {
  static styles = css\`:host { display: block; }\`;
  static properties = { name: { type: String } };
  declare name: string;
  constructor() { super(); this.name = 'world'; }
  render() { return html\`<p part="text">Hello, \${this.name}</p>\`; }
}
if (!customElements.get('hello-card')) customElements.define('hello-card', HelloCard);
`;

export async function buildBundle(entry: string, outDir: string): Promise<Buffer> {
  const config: InlineConfig = {
    configFile: false,
    root,
    logLevel: 'silent',
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: true,
      lib: { entry, formats: ['es'], fileName: () => 'bundle.js' },
      rolldownOptions: { output: { codeSplitting: false } },
    },
  };
  await build(config);
  return readFileSync(join(outDir, 'bundle.js'));
}

function sizes(source: Buffer) {
  return {
    minBytes: source.length,
    gzipBytes: gzipSync(source, { level: 9 }).length,
    brotliBytes: brotliCompressSync(source, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

export async function run(context: BenchContext): Promise<BenchFigure[]> {
  // Inside the project, so the baseline's `lit` import resolves to the same node_modules.
  mkdirSync(join(root, '.tmp'), { recursive: true });
  const dir = mkdtempSync(join(root, '.tmp', 'bench-bundle-'));
  try {
    const baselineEntry = join(dir, 'one-element.ts');
    writeFileSync(baselineEntry, oneElement);
    context.note('building the widget and a one-element Lit bundle');
    const widget = sizes(await buildBundle(join(root, 'widget', 'index.ts'), join(dir, 'widget')));
    const baseline = sizes(await buildBundle(baselineEntry, join(dir, 'baseline')));
    return [
      {
        name: 'widget-bundle-size',
        widgetMinBytes: widget.minBytes,
        widgetGzipBytes: widget.gzipBytes,
        widgetBrotliBytes: widget.brotliBytes,
        litOneElementMinBytes: baseline.minBytes,
        litOneElementGzipBytes: baseline.gzipBytes,
        gzipRatio: Number((widget.gzipBytes / baseline.gzipBytes).toFixed(2)),
        addedGzipBytes: widget.gzipBytes - baseline.gzipBytes,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
