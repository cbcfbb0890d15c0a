// main.ts as systemd runs it (a child process, demo mode): it prints the script tags, marks its
// DATA_DIR as taken, runs a sync when the CLI asks (SIGUSR2, also `systemctl reload`), and on
// SIGTERM releases the DATA_DIR so a restore may proceed. A second relay on the same DATA_DIR is refused.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { runCli } from '../../server/cli.ts';
import { PID_FILE, runningRelay } from '../../server/ops/instance.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'estate-main-'));
let child: ChildProcess;
let output = '';

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}. Output so far:\n${output.slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'server', 'main.ts')], {
    cwd: projectRoot,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SIM_LISTINGS: '6', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  // Both steps' lines: they are logged together but may reach the pipe in separate chunks.
  await until(() => output.includes('Listing sync: ') && output.includes('Photo mirror: '), 'the first sync to finish', 60_000);
}, 90_000);

afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the relay process', () => {
  it('prints the script tag and logs one line per step of the first sync', () => {
    expect(output).toMatch(/<script type="module" src="http:\/\/127\.0\.0\.1:\d+\/widget\.js"><\/script>/);
    expect(output).toContain('"msg":"widget script tags"');
    expect(output).toMatch(/"msg":"Listing sync: [1-9]\d* listings in [\d.]+ s \([\d.]+\/s\)"/);
    expect(output).toMatch(/"msg":"Photo mirror: \d+ photos in [\d.]+ s/);
  });

  it('marks its DATA_DIR, and runs a sync when `npm run relay -- sync` asks', async () => {
    expect(runningRelay(dataDir)?.pid).toBe(child.pid);
    const lines: string[] = [];
    const code = await runCli(['sync', '--full'], { env: { DATA_DIR: dataDir }, out: (text) => lines.push(text), err: (text) => lines.push(text) });
    expect(lines.join('\n')).toContain(`Asked the running relay (pid ${child.pid}) for a full sync`);
    expect(code).toBe(0);
    expect(output).toContain('"kind":"full","msg":"sync requested by the operator CLI"');
  }, 60_000);

  it('refuses a second relay on its DATA_DIR: exit 1, naming the folder, the first relay untouched', async () => {
    const second = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'server', 'main.ts')], {
      cwd: projectRoot,
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', SIM_LISTINGS: '6', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    second.stdout!.on('data', (chunk) => (said += String(chunk)));
    second.stderr!.on('data', (chunk) => (said += String(chunk)));
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
    expect(code).toBe(1);
    expect(said).toContain(`DATA_DIR ${dataDir} is in use by another relay process`);
    expect(said).not.toContain('listening');
    expect(child.exitCode).toBeNull();
    expect(runningRelay(dataDir)?.pid).toBe(child.pid);
  }, 90_000);

  it('releases the DATA_DIR when it stops on SIGTERM', async () => {
    child.kill('SIGTERM');
    await until(() => child.exitCode !== null, 'the relay to exit');
    expect(child.exitCode).toBe(0);
    expect(existsSync(join(dataDir, PID_FILE))).toBe(false);
  }, 30_000);
});
