import type { Logger } from './log.ts';

/**
 * Progress of one long step (the first sync, the photo mirror): counts and a rate. On a terminal
 * it redraws one line in place a few times a second; anywhere else (systemd, docker logs, files)
 * it writes nothing while running and one log line when the step ends, so logs stay one line per
 * step.
 */
export interface Progress {
  /** Adds `count` items done (default 1). */
  tick(count?: number): void;
  /** Sets the items done so far (for callers that read a counter rather than count events). */
  set(done: number): void;
  /** Sets or corrects the expected total, when it becomes known. */
  setTotal(total: number | undefined): void;
  /** Ends the step: the final line on a terminal, one log line otherwise. */
  done(extra?: Record<string, unknown>): void;
  /** Ends the step as failed. */
  fail(error: unknown): void;
}

export interface ProgressOptions {
  /** What is counted, plural: "listings", "photos". */
  unit: string;
  total?: number;
  /** Where the live line goes; it is drawn only when this is a TTY. Default process.stderr. */
  stream?: NodeJS.WriteStream;
  /** Gets the one line per step (default: none). */
  log?: Logger;
  /** Least time between two redraws. */
  redrawMs?: number;
  now?: () => number;
}

export function createProgress(step: string, options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const live = stream.isTTY === true;
  const now = options.now ?? (() => performance.now());
  const redrawMs = options.redrawMs ?? 100;
  const started = now();
  let doneCount = 0;
  let total = options.total;
  let lastDraw = Number.NEGATIVE_INFINITY;
  let finished = false;

  const figures = () => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    return { done: doneCount, total, seconds: Math.round(seconds * 10) / 10, ratePerSecond: Math.round((doneCount / seconds) * 10) / 10 };
  };

  const draw = (force = false) => {
    if (!live || finished) return;
    const at = now();
    if (!force && at - lastDraw < redrawMs) return;
    lastDraw = at;
    stream.write(`\r\x1b[2K${formatProgressLine(step, options.unit, figures())}`);
  };

  const finish = (outcome: 'done' | 'failed', extra: Record<string, unknown>) => {
    if (finished) return;
    const final = figures();
    if (live) stream.write(`\r\x1b[2K${formatProgressLine(step, options.unit, final)}${outcome === 'failed' ? ' — failed' : ' — done'}\n`);
    finished = true;
    const fields = { step, unit: options.unit, ...final, ...extra };
    if (outcome === 'failed') options.log?.warn(fields, `${step} failed after ${final.done} ${options.unit}`);
    else options.log?.info(fields, `${step}: ${final.done} ${options.unit} in ${final.seconds} s (${final.ratePerSecond}/s)`);
  };

  return {
    tick(count = 1) {
      doneCount += count;
      draw();
    },
    set(value) {
      doneCount = value;
      draw();
    },
    setTotal(value) {
      total = value;
      draw(true);
    },
    done(extra = {}) {
      finish('done', extra);
    },
    fail(error) {
      finish('failed', { error: error instanceof Error ? error.message : String(error) });
    },
  };
}

/** "First sync: 120/400 listings (30%), 12.3/s, 9.8 s" */
export function formatProgressLine(step: string, unit: string, figures: { done: number; total?: number; seconds: number; ratePerSecond: number }): string {
  const count =
    figures.total !== undefined
      ? `${figures.done}/${figures.total} ${unit} (${Math.floor((figures.done / Math.max(figures.total, 1)) * 100)}%)`
      : `${figures.done} ${unit}`;
  return `${step}: ${count}, ${figures.ratePerSecond}/s, ${figures.seconds} s`;
}
