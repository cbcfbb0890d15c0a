import type { Logger } from './log.ts';

/**
 * The process's last line of defence. Every timer and worker step catches its own errors; should
 * one still escape (a bug), it is logged, through the same redacting logger, before the process
 * exits with status 1 for the supervisor (systemd) to restart it: after an uncaught error the
 * process state cannot be trusted, and the outbox makes a restart lose nothing.
 */
export function installLastResortHandlers(log: Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  const fatal = (kind: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    try {
      log.fatal({ err: error, kind }, `${kind}: the relay stops (it is restarted by its supervisor; queued enquiries are kept)`);
      log.flush?.();
    } finally {
      exit(1);
    }
  };
  process.on('uncaughtException', fatal('uncaughtException'));
  process.on('unhandledRejection', fatal('unhandledRejection'));
}
