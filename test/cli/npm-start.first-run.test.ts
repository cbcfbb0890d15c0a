// `npm start` as a newcomer sees it on a terminal (issue #33): a banner of a few lines, and no
// build tables, bundler warnings or JSON log lines. `script` (util-linux) gives npm a terminal.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { runningRelay } from '../../server/ops/instance.ts';
import { processAlive } from '../../server/runtime/process-alive.ts';

/** What a terminal shows at most: npm's two-line banner, the relay's (title, six rows, the hint) and the sync's progress line. */
const MAX_LINES = 14;

const dataDir = mkdtempSync(join(tmpdir(), 'estate-first-run-'));
afterAll(() => {
  const left = runningRelay(dataDir);
  if (left) {
    try {
      process.kill(left.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Why `npm start` would reinstall first, or undefined when it would not: the test of
 * scripts/ensure-deps.mjs (its stamp records this lockfile, or npm's hidden lockfile is newer than it).
 * A test must never run `npm ci`: it would rewrite node_modules under the other suites.
 */
function staleDependencies(): string | undefined {
  const lockPath = join(projectRoot, 'package-lock.json');
  const stampPath = join(projectRoot, 'node_modules', '.estate-embed-lock-hash');
  const hiddenLock = join(projectRoot, 'node_modules', '.package-lock.json');
  if (!existsSync(hiddenLock)) return 'node_modules has no .package-lock.json (dependencies not installed)';
  const lockHash = createHash('sha256').update(readFileSync(lockPath)).digest('hex');
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8').trim() === lockHash) return undefined;
  if (statSync(hiddenLock).mtimeMs >= statSync(lockPath).mtimeMs) return undefined;
  return `node_modules/.estate-embed-lock-hash does not match package-lock.json (sha256 ${lockHash})`;
}

/** Colours and cursor moves (ANSI CSI sequences). */
// eslint-disable-next-line no-control-regex -- the escape character is what is being removed
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** The screen's lines: colours and cursor moves gone, a line redrawn in place (the progress line) counted once. */
function screenLines(output: string): string[] {
  return output
    .replace(ANSI, '')
    .split(/\r?\n/)
    .map((line) => line.split('\r').filter(Boolean).at(-1) ?? '')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^[⠁-⣿]$/.test(line));
}

describe('npm start on a terminal', () => {
  it('prints a few lines: what to open, the simulator and its inbox, the tag, how to change the port; no warning', async () => {
    expect(spawnSync('script', ['--version']).status, 'util-linux `script` is needed to give npm a terminal').toBe(0);
    const stale = staleDependencies();
    expect(stale, `npm start would run npm ci first: ${stale}; run \`npm ci\` (or \`npm start\` once) before this test`).toBeUndefined();
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SIM_LISTINGS: '4', TERM: 'xterm' };
    // What a newcomer has: no log settings of their own.
    delete env.LOG_LEVEL;
    delete env.LOG_FORMAT;
    delete env.CI;
    const child = spawn('script', ['-qfec', 'npm start', '/dev/null'], { cwd: projectRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

    const until = async (done: () => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    };
    await until(() => output.includes('Ctrl+C stops'), 150_000);
    expect(output, `no banner; the terminal showed:\n${output.slice(-3000)}`).toContain('Ctrl+C stops');
    // The first sync's progress ends, and anything it logs would be on the screen by then.
    const syncDone = /Syncing: [1-9]\d* new listings[^\r\n]*\r?\n/;
    await until(() => syncDone.test(output.replace(ANSI, '')), 60_000);
    expect(output.replace(ANSI, ''), `the first sync's progress line never ended; the terminal showed:\n${output.slice(-3000)}`).toMatch(syncDone);
    // Stopped as a newcomer stops it; once the relay has exited, whatever it logs on the way out is on the screen too.
    const relay = runningRelay(dataDir);
    expect(relay, 'the relay left no pid file in DATA_DIR').toBeDefined();
    process.kill(relay!.pid, 'SIGINT');
    await until(() => !processAlive(relay!.pid), 15_000);
    expect(processAlive(relay!.pid), 'the relay did not exit within 15 s of SIGINT').toBe(false);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    child.kill('SIGKILL');

    const lines = screenLines(output);
    const screen = lines.join('\n');
    expect(lines.length, `more than ${MAX_LINES} lines:\n${screen}`).toBeLessThanOrEqual(MAX_LINES);
    // Neither a warning nor the build's tables, nor a JSON log line.
    expect(screen).not.toMatch(/warn|error|\[PLUGIN|INEFFECTIVE|kB │|"level":/i);
    expect(screen).toMatch(/Demo site +http:\/\/127\.0\.0\.1:\d+\//);
    expect(screen).toMatch(/CRM simulator +http:\/\/127\.0\.0\.1:\d+\/__sim\//);
    expect(screen).toMatch(/Inbox +http:\/\/127\.0\.0\.1:\d+\/__sim\/#mail-heading/);
    expect(screen).toContain('PORT=8080 npm start');
    // Demo mode is said once.
    expect(screen.match(/demo mode/gi)).toHaveLength(1);
  }, 240_000);
});
