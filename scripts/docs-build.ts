// `npm run docs`: regenerates custom-elements.json and the README's generated tables (elements,
// configuration). `npm run docs -- --check` only reports what is stale (exit 1), like the tests.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../server/runtime/config.ts';
import { configReferenceMarkdown } from './docs-config.ts';
import { analyzeElements, elementTablesMarkdown, serialiseManifest } from './docs-elements.ts';
import { replaceBetweenMarkers } from './docs-markdown.ts';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST_FILE = 'custom-elements.json';
export const README_FILE = 'README.md';

export interface GeneratedDocs {
  manifest: string;
  readme: string;
}

/** Everything `npm run docs` writes, computed in memory from the current code and README. */
export async function generateDocs(root = projectRoot): Promise<GeneratedDocs> {
  const manifest = await analyzeElements(root);
  let readme = readFileSync(join(root, README_FILE), 'utf8');
  readme = replaceBetweenMarkers(readme, 'elements', elementTablesMarkdown(manifest));
  readme = replaceBetweenMarkers(readme, 'config', configReferenceMarkdown(configSchema));
  return { manifest: serialiseManifest(manifest), readme };
}

function read(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const docs = await generateDocs();
  const targets = [
    [join(projectRoot, MANIFEST_FILE), docs.manifest],
    [join(projectRoot, README_FILE), docs.readme],
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
