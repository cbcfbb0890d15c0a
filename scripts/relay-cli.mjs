// `npm run relay -- <command>`: the operator CLI. In a development checkout it runs the TypeScript
// through tsx; in production, where `npm prune --omit=dev` removed tsx, the compiled dist/server/cli.js.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'server', 'cli.js');
let tsx;
try {
  tsx = await import('tsx/esm/api');
} catch {
  // No tsx: a production install.
}
let cli;
if (tsx) {
  tsx.register();
  cli = await import(pathToFileURL(join(root, 'server', 'cli.ts')).href);
} else if (existsSync(compiled)) {
  cli = await import(pathToFileURL(compiled).href);
} else {
  console.error('The relay is not built: run `npm run build` (dist/server/cli.js is missing and tsx is not installed).');
  process.exit(1);
}
process.exitCode = await cli.runCli(process.argv.slice(2));
