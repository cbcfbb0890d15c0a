import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../server/http/app.ts';
import { FileLockedError, withFileLock, writeFileAtomic } from '../../server/runtime/atomic-file.ts';

/*
 * The agencies file is replaced so that a reader, a crash or a power cut finds the old file or
 * the new one, never a mix: a private temporary file beside it, flushed, renamed over it.
 */
describe('writeFileAtomic', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'estate-atomic-'));
    file = join(dir, 'agencies.json');
    writeFileSync(file, '{"agencies":["old"]}\n', { mode: 0o600 });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const mode = (path: string) => statSync(path).mode & 0o777;

  it('a process killed between the write and the rename leaves the old file whole, and the next write replaces it', () => {
    const crashed = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(projectRoot, 'test', 'support', 'crash-mid-write.ts'), file, '{"agencies":["new"]}\n'],
      {
        cwd: projectRoot,
        encoding: 'utf8',
      },
    );
    expect(crashed.stdout).toContain('written, not renamed');
    expect(crashed.stdout.split('\n')).not.toContain('renamed');
    expect(crashed.signal).toBe('SIGKILL');
    expect(readFileSync(file, 'utf8')).toBe('{"agencies":["old"]}\n');
    // What it had written is left in a hidden temporary file (0600: a token in it stays private), never under the file's name.
    const leftovers = readdirSync(dir).filter((name) => name.endsWith('.tmp'));
    expect(leftovers).toHaveLength(1);
    expect(mode(join(dir, leftovers[0]!))).toBe(0o600);

    writeFileAtomic(file, '{"agencies":["newer"]}\n', { mode: 0o600, backup: `${file}.bak` });
    expect(readFileSync(file, 'utf8')).toBe('{"agencies":["newer"]}\n');
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('{"agencies":["old"]}\n');
  });

  it('writes the file and its backup owner-only whatever the umask and the old mode', () => {
    chmodSync(file, 0o644);
    const umask = process.umask(0o000);
    try {
      writeFileAtomic(file, 'new\n', { mode: 0o600, backup: `${file}.bak` });
    } finally {
      process.umask(umask);
    }
    expect(mode(file)).toBe(0o600);
    expect(mode(`${file}.bak`)).toBe(0o600);
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('{"agencies":["old"]}\n');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('a write that fails (no such folder) leaves nothing behind and throws', () => {
    expect(() => writeFileAtomic(join(dir, 'missing', 'agencies.json'), 'x', { mode: 0o600 })).toThrow(/ENOENT/);
    expect(readdirSync(dir).sort()).toEqual(['agencies.json']);
  });

  it('one edit at a time: a lock held by a live process refuses another, a lock left by a dead one is taken over', async () => {
    let inner: unknown;
    await withFileLock(file, async () => {
      inner = await withFileLock(file, async () => 'second').catch((error: unknown) => error);
    });
    expect(inner).toBeInstanceOf(FileLockedError);
    expect((inner as Error).message).toMatch(new RegExp(`being edited by another process \\(pid ${process.pid}\\)`));
    // A crashed editor's lock: its pid is gone.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(`${file}.lock`, gone.stdout);
    await expect(withFileLock(file, async () => 'done')).resolves.toBe('done');
    expect(readdirSync(dir)).not.toContain('agencies.json.lock');
  });
});
