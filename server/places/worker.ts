import type { Logger } from '../runtime/log.ts';
import type { Worker } from '../runtime/worker.ts';
import { GeocoderBusyError } from './geocoder.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Placements } from './placements.ts';

export interface PlacesWorkerOptions {
  placements: Placements;
  log: Logger;
  /** A position changed: rendered listing answers are dropped (the listing cache's `changed`). */
  onPlaced: () => void;
  /** Look again this often when nothing is waiting (ms; default 5 min): a listing written by another process. */
  idlePollMs?: number;
  /** First pause after a failure or a refusal (ms; default 30 s), doubled each time up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * Places listings waiting for the geocoder, one query at a time at the geocoder's pace, in the
 * background: a sync writes its listings and goes on, enquiries never wait here. A refusal for
 * load (429, 403) or a failure pauses it (at least Retry-After), longer each time in a row.
 */
export class PlacesWorker implements Worker {
  readonly name = 'places';
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: PlacesWorkerOptions) {}

  start(): void {
    if (this.running) return;
    const controller = new AbortController();
    this.controller = controller;
    this.unsubscribe = this.options.placements.onPending(() => this.wake?.());
    this.running = this.loop(controller.signal);
  }

  async stop(): Promise<void> {
    this.controller?.abort();
    this.wake?.();
    this.unsubscribe?.();
    await this.running;
    this.running = undefined;
  }

  /** Places until nothing waits (tests; the loop does the same in the background). */
  async drain(signal?: AbortSignal): Promise<number> {
    let asked = 0;
    for (;;) {
      const { result, changed } = await this.options.placements.step(signal);
      if (changed) this.options.onPlaced();
      if (result === 'idle') return asked;
      if (result === 'asked') asked++;
    }
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const { placements, log } = this.options;
    const base = this.options.backoffMs ?? 30_000;
    const max = this.options.maxBackoffMs ?? 60 * 60_000;
    let failures = 0;
    placements.reopen();
    while (!signal.aborted) {
      try {
        const { result, changed } = await placements.step(signal);
        if (changed) this.options.onPlaced();
        failures = 0;
        if (result === 'idle') await this.idle(signal);
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        const backoff = Math.min(max, base * 2 ** (failures - 1));
        const pause = error instanceof GeocoderBusyError ? Math.max(backoff, error.retryAfterMs ?? 0) : backoff;
        log.warn({ error: (error as Error).message, pauseSeconds: Math.round(pause / 1000) }, 'geocoder: placing listings paused');
        await sleep(pause, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** Until a listing waits (or the poll interval passes, or stop). */
  private idle(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.options.idlePollMs ?? 5 * 60_000);
      this.wake = done;
      if (signal.aborted) done();
    });
  }
}
