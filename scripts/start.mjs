// `npm start`: dependencies installed when missing or stale, the widget built (its output shown
// only when the build fails), then the relay, in this process (so a signal to npm reaches it).
// One npm script rather than prestart + start, so a first run prints npm's banner once.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * `npm run build:widget`, its output kept and shown only if it fails. A signal that stops npm start
 * meanwhile (a process manager's SIGTERM reaches this process alone) stops the build too, so no
 * build is left writing dist/ behind a start that has gone.
 */
function buildWidget() {
  return new Promise((resolve) => {
    const child = spawn(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build:widget', '--silent'], {
      cwd: root,
      env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a signal reaches npm, the shell and vite, not npm alone.
      detached: process.platform !== 'win32',
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const pass = (signal) => {
      try {
        if (process.platform === 'win32') child.kill(signal);
        else process.kill(-child.pid, signal);
      } catch {
        // Already gone.
      }
    };
    for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, pass);
    const done = (result) => {
      for (const signal of ['SIGINT', 'SIGTERM']) process.off(signal, pass);
      resolve({ ...result, output: Buffer.concat(output).toString('utf8') });
    };
    child.on('error', (error) => done({ code: null, signal: null, error }));
    child.on('close', (code, signal) => done({ code, signal, error: null }));
  });
}

// `npm start --ignore-scripts` (tests, and who has built already) skips the preparation, as it skipped prestart.
if (process.env.npm_config_ignore_scripts !== 'true') {
  await import('./ensure-deps.mjs');
  const started = Date.now();
  const build = await buildWidget();
  // Stopped by a signal: nothing failed, nothing to show; exit as a process ended by it does.
  if (build.signal) process.exit(128 + ({ SIGINT: 2, SIGTERM: 15 }[build.signal] ?? 1));
  if (build.code !== 0) {
    process.stderr.write(build.output);
    const why = build.error ? `could not run: ${build.error.message}` : `exit ${build.code}`;
    console.error(`\nThe widget build failed (npm run build:widget, ${why}): its output is above.`);
    process.exit(build.code || 1);
  } else if (!process.stdout.isTTY) console.log(`widget built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// tsx is a dependency: loaded only now, after ensure-deps may have installed it.
const { register } = await import('tsx/esm/api');
register();
await import(pathToFileURL(join(root, 'server', 'main.ts')).href);
