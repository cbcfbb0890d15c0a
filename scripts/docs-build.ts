// `npm run docs`: regenerates custom-elements.json and the generated tables of the docs pages
// (docs/elements.md: the elements; docs/configuration.md: the configuration reference).
// `npm run docs -- --check` only reports what is stale (exit 1), like the tests.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../server/runtime/config.ts';
import { configReferenceMarkdown } from './docs-config.ts';
import { analyzeElements, elementTablesMarkdown, serialiseManifest, type Manifest } from './docs-elements.ts';
import { replaceBetweenMarkers } from './docs-markdown.ts';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST_FILE = 'custom-elements.json';
/** The page holding the element tables (between `<!-- generated:elements:… -->` markers). */
export const ELEMENTS_FILE = 'docs/elements.md';
/** The page holding the configuration table (between `<!-- generated:config:… -->` markers). */
export const CONFIG_FILE = 'docs/configuration.md';
/** How links from a page in docs/ reach a source file named from the project root. */
export const DOCS_TO_ROOT = '../';

export interface GeneratedDocs {
  manifest: string;
  elements: string;
  configuration: string;
}

/** The element tables as docs/elements.md holds them (source links relative to docs/). */
export function elementsPageTables(manifest: Manifest): string {
  return elementTablesMarkdown(manifest, { sourceBase: DOCS_TO_ROOT });
}

/** Everything `npm run docs` writes, computed in memory from the current code and docs pages. */
export async function generateDocs(root = projectRoot): Promise<GeneratedDocs> {
  const manifest = await analyzeElements(root);
  const elementsPage = readFileSync(join(root, ELEMENTS_FILE), 'utf8');
  const configPage = readFileSync(join(root, CONFIG_FILE), 'utf8');
  return {
    manifest: serialiseManifest(manifest),
    elements: replaceBetweenMarkers(elementsPage, 'elements', elementsPageTables(manifest), ELEMENTS_FILE),
    configuration: replaceBetweenMarkers(configPage, 'config', configReferenceMarkdown(configSchema), CONFIG_FILE),
  };
}

function read(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const docs = await generateDocs();
  const targets = [
    [join(projectRoot, MANIFEST_FILE), docs.manifest],
    [join(projectRoot, ELEMENTS_FILE), docs.elements],
    [join(projectRoot, CONFIG_FILE), docs.configuration],
  ] as const;
  let stale = 0;
  for (const [file, content] of targets) {
    if (read(file) === content) continue;
    stale += 1;
    if (check) console.error(`stale: ${file} (run \`npm run docs\`)`);
    else {
      writeFileSync(file, content);
      console.log(`wrote ${file}`);
    }
  }
  if (!stale) console.log('docs are up to date');
  if (check && stale) process.exit(1);
}
