// `npm run build` compiles the relay to JavaScript that plain `node` runs, as the systemd unit does:
// no tsx, no TypeScript at run time.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';

let child: ChildProcess | undefined;
let dataDir: string | undefined;
afterAll(() => {
  child?.kill('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('production build', () => {
  it('compiles server/ to dist/server, which node starts in demo mode and which answers /healthz', async () => {
    const build = spawnSync(join(projectRoot, 'node_modules', '@typescript', 'native', 'bin', 'tsc'), ['-p', 'tsconfig.build.json'], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(build.status, build.stdout + build.stderr).toBe(0);
    const emitted = readdirSync(join(projectRoot, 'dist', 'server'), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'));
    expect(emitted).toContain('main.js');
    // Every relative import was rewritten to the emitted .js file (none would load without a transpiler).
    for (const name of emitted) {
      expect(readFileSync(join(projectRoot, 'dist', 'server', name), 'utf8'), name).not.toMatch(/(?:from |import\()\s*['"]\.{1,2}\/[^'"]*\.ts['"]/);
    }

    dataDir = mkdtempSync(join(tmpdir(), 'estate-build-'));
    // A clean environment: nothing that could bring a loader (NODE_OPTIONS) along.
    child = spawn(process.execPath, ['--enable-source-maps', 'dist/server/main.js'], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SIM_LISTINGS: '4', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening" line in 60 s:\n${output}`)), 60_000);
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
      child!.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child!.once('exit', (code) => reject(new Error(`the built relay exited (${code}):\n${output}`)));
    });
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(output).toContain('DEMO MODE');

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = undefined;

    // The operator CLI runs compiled too: production needs no tsx (a development dependency).
    const cli = spawnSync(process.execPath, ['dist/server/cli.js', 'status'], {
      cwd: projectRoot,
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(cli.status, cli.stdout + cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/Listings/i);
  }, 180_000);
});

describe('production dependencies', () => {
  /** Every package `npm ci --omit=dev` would install, as npm lists them. */
  function productionPackages(): Map<string, string> {
    // npm reads the whole tree: on a busy machine that takes a while, and its JSON is over a megabyte.
    const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--json'], {
      cwd: projectRoot,
      encoding: 'utf8',
      timeout: 150_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (listed.error) throw new Error(`npm ls --omit=dev did not finish: ${listed.error.message}`);
    const found = new Map<string, string>();
    const walk = (deps: Record<string, { version?: string; resolved?: string; dependencies?: object }> | undefined) => {
      for (const [name, info] of Object.entries(deps ?? {})) {
        found.set(name, info.resolved ?? info.version ?? '');
        walk(info.dependencies as typeof deps);
      }
    };
    walk((JSON.parse(listed.stdout) as { dependencies?: Record<string, { dependencies?: object }> }).dependencies as never);
    return found;
  }

  it('leave out the development tools and what Node provides (tsx and esbuild; node-fetch and its polyfills)', { timeout: 180_000 }, () => {
    const packages = productionPackages();
    expect(packages.has('express')).toBe(true);
    for (const name of ['tsx', 'esbuild', 'typescript', 'vite', 'fetch-blob', 'formdata-polyfill', 'web-streams-polyfill', 'data-uri-to-buffer']) {
      expect(packages.has(name), name).toBe(false);
    }
    // @lit-labs/ssr's DOM shim imports node-fetch: it gets Node's own fetch (shims/node-fetch, package.json overrides).
    expect(packages.get('node-fetch')).toMatch(/shims\/node-fetch/);
  });
});
