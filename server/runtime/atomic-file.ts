import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive.ts';

export interface AtomicWriteOptions {
  /** The file's mode (the temporary file has it from the start: a secret is never readable by others, even for a moment). */
  mode: number;
  /** Keep the file being replaced here first (same mode, written the same way). */
  backup?: string;
  /** Called after the new content is on disk and before it takes the file's name: tests crash here to prove the old file survives. */
  beforeRename?: () => void;
}

/**
 * Replaces `file` with `text` so that a reader (or a crash, or a power cut) sees the old file or
 * the new one, never a mix or an empty file: the text goes to a temporary file in the same folder
 * (the rename must not cross file systems), is flushed (fsync), takes the file's name (rename is
 * atomic), and the folder is flushed so the rename itself survives a power cut.
 */
export function writeFileAtomic(file: string, text: string, options: AtomicWriteOptions): void {
  const dir = dirname(file);
  if (options.backup && existsSync(file)) writeFileAtomic(options.backup, readFileSync(file, 'utf8'), { mode: options.mode });
  const temporary = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // 'wx': never follows or reuses a file someone placed there.
  const fd = openSync(temporary, 'wx', options.mode);
  try {
    try {
      fchmodSync(fd, options.mode); // the umask may have taken bits off the mode asked for
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    options.beforeRename?.();
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(dir);
}

/** Flushes a folder's entries (a rename in it) to disk; where folders cannot be opened for that (Windows), a no-op. */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse fsync on a folder (EINVAL): the rename is still atomic, only its durability is the system's.
  } finally {
    closeSync(fd);
  }
}

/** Another process holds the lock (its pid). */
export class FileLockedError extends Error {
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(`${file} is being edited by another process (pid ${pid}); try again once it is done`);
  }
}

/**
 * Runs `edit` while holding `<file>.lock` (created exclusively, holding our pid): two edits at once
 * would each write the file as it was before the other, and one change would be lost. A lock left
 * by a process that is gone is taken over.
 */
export async function withFileLock<T>(file: string, edit: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const pid = Number(readFileSync(lock, 'utf8'));
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) throw new FileLockedError(file, pid);
      rmSync(lock, { force: true });
    }
  }
  try {
    return await edit();
  } finally {
    rmSync(lock, { force: true });
  }
}
