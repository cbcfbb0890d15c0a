/**
 * Whether a process with this pid is running (signal 0 checks without sending anything): how a pid
 * file or a lock file left by a process that is gone is told from one still held.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user, so it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
