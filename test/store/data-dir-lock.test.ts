// Issue 33: one relay process per DATA_DIR, held by the operating system. A second process is
// refused while the first lives; once the first is killed (SIGKILL: no clean-up of its own), the
// lock is free at once, so a relay restarted after a kill starts without waiting. This is what lets
// a starting relay take the claims in its name back as its dead predecessor's.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { DataDirInUseError, lockDataDir } from '../../server/store/data-dir-lock.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Another process holding the DATA_DIR's lock, as a running relay does; resolves once it holds it. */
async function holder(dataDir: string): Promise<ChildProcess> {
  const script = `const { lockDataDir } = await import('./server/store/data-dir-lock.ts'); lockDataDir(process.argv[1]); console.log('held'); setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += String(chunk)));
  child.stderr!.on('data', (chunk) => (output += String(chunk)));
  const deadline = Date.now() + 60_000;
  while (!output.includes('held')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the holder did not take the lock: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return child;
}

describe('the DATA_DIR lock', () => {
  it('refuses a second process while the first lives, and is free the moment the first is killed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'estate-lock-dir-'));
    dirs.push(dataDir);
    const first = await holder(dataDir);
    expect(() => lockDataDir(dataDir)).toThrow(DataDirInUseError);
    expect(() => lockDataDir(dataDir)).toThrow(/in use by another relay process/);
    const exited = new Promise((resolve) => first.once('exit', resolve));
    first.kill('SIGKILL');
    await exited;
    const release = lockDataDir(dataDir);
    release();
    // Released on a clean stop too: taken again at once.
    lockDataDir(dataDir)();
  }, 90_000);
});
