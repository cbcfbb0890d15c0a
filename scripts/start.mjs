// `npm start`: dependencies installed when missing or stale, the widget built (its output shown
// only when the build fails), then the relay, in this process (so a signal to npm reaches it).
// One npm script rather than prestart + start, so a first run prints npm's banner once.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// `npm start --ignore-scripts` (tests, and who has built already) skips the preparation, as it skipped prestart.
if (process.env.npm_config_ignore_scripts !== 'true') {
  await import('./ensure-deps.mjs');
  const started = Date.now();
  const build = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build:widget', '--silent'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (build.status !== 0) {
    process.stdout.write(build.stdout ?? '');
    process.stderr.write(build.stderr ?? '');
    console.error(`\nThe widget build failed (npm run build:widget, exit ${build.status ?? build.signal}): its output is above.`);
    process.exit(build.status ?? 1);
  } else if (!process.stdout.isTTY) console.log(`widget built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// tsx is a dependency: loaded only now, after ensure-deps may have installed it.
const { register } = await import('tsx/esm/api');
register();
await import(pathToFileURL(join(root, 'server', 'main.ts')).href);
