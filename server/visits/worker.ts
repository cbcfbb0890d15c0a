import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';

/**
 * Runs `tick` every `everyMs` (the flush, and at the agency's midnight the rollover and retention
 * sweep), one at a time; stop() waits for a tick under way, then runs a last one so nothing held
 * in memory is lost on a clean shutdown.
 */
export function visitsWorker(options: { everyMs: number; tick: () => Promise<void>; log: Logger }): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;
  const run = () => {
    running = options
      .tick()
      .catch((error: unknown) => options.log.warn({ error: (error as Error).message }, 'visits: a flush failed; its events were counted as dropped'))
      .finally(() => {
        running = undefined;
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(run, options.everyMs);
    timer.unref();
  };
  return {
    name: 'visits',
    start() {
      if (!stopped) return;
      stopped = false;
      run();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await running;
      await options.tick().catch(() => undefined);
    },
  };
}
