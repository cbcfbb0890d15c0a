// The import walls of .dependency-cruiser.cjs, as `npm test` checks them (and `npm run walls`).
// A broken rule exits non-zero and prints the rule with the offending import.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const WALLED_FOLDERS = ['server', 'crm-sim', 'widget', 'contract', 'bench', 'scripts'];

/** Runs dependency-cruiser over `paths` (default: the walled folders) from `cwd`; returns its exit code and output. */
export function checkWalls(paths = WALLED_FOLDERS, { config = join(root, '.dependency-cruiser.cjs'), cwd = root, stdio = 'pipe' } = {}) {
  const result = spawnSync(join(root, 'node_modules', '.bin', 'depcruise'), ['--config', config, '--output-type', 'err-long', ...paths], {
    cwd,
    encoding: 'utf8',
    stdio,
  });
  return { code: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = checkWalls(WALLED_FOLDERS, { stdio: 'inherit' }).code;
}
