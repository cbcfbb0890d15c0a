import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * The part of `@lit/task` the elements use, with the same API and timing, in a fifth of its bytes
 * (every page downloads it): `args` compared shallowly before each update start a run that aborts
 * the previous one; `onComplete`/`onError` are called before the render they cause is requested;
 * `render({ initial, pending, complete, error })`; `taskComplete`; `run()` by hand with
 * `autoRun: false`; a task returning `initialState` goes back to its initial state. Like Lit's, it
 * runs before an update, which a server render never performs, so nothing starts on a server.
 */
export const TaskStatus = { INITIAL: 0, PENDING: 1, COMPLETE: 2, ERROR: 3 } as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];

/** Returned by a task function: the task goes back to INITIAL (nothing to load yet). */
export const initialState = Symbol('initialState');

export interface TaskOptions<A extends readonly unknown[], R> {
  task: (args: A, options: { signal: AbortSignal }) => Promise<R | typeof initialState>;
  args?: () => A;
  /** False: runs only when `run()` is called. */
  autoRun?: boolean;
  onComplete?: (value: R) => unknown;
  onError?: (error: unknown) => unknown;
}

export interface TaskRenderers<R> {
  initial?: () => unknown;
  pending?: () => unknown;
  complete?: (value: R) => unknown;
  error?: (error: unknown) => unknown;
}

export class Task<A extends readonly unknown[] = readonly unknown[], R = unknown> implements ReactiveController {
  status: TaskStatus = TaskStatus.INITIAL;
  value: R | undefined;
  error: unknown;
  #previousArgs: A | undefined;
  #abort: AbortController | undefined;
  #callId = 0;
  #complete: Promise<R> | undefined;
  #settle: [(value: unknown) => void, (error: unknown) => void] | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly options: TaskOptions<A, R>,
  ) {
    host.addController(this);
  }

  hostUpdate(): void {
    if (this.options.autoRun === false || !this.options.args) return;
    const args = this.options.args();
    const previous = this.#previousArgs;
    if (!previous || args.length !== previous.length || args.some((arg, index) => !Object.is(arg, previous[index]))) void this.run(args);
  }

  async run(args: A = this.options.args?.() ?? ([] as unknown as A)): Promise<void> {
    this.#previousArgs = args;
    if (this.status === TaskStatus.PENDING) this.#abort?.abort();
    else this.#complete = this.#settle = undefined;
    this.status = TaskStatus.PENDING;
    this.host.requestUpdate();
    const callId = ++this.#callId;
    this.#abort = new AbortController();
    let result: R | typeof initialState | undefined;
    let failed = false;
    let error: unknown;
    try {
      result = await this.options.task(args, { signal: this.#abort.signal });
    } catch (caught) {
      failed = true;
      error = caught;
    }
    if (callId !== this.#callId) return;
    if (result === initialState) {
      this.status = TaskStatus.INITIAL;
    } else {
      // A throwing callback must not leave the task pending (as in Lit's).
      try {
        if (failed) this.options.onError?.(error);
        else this.options.onComplete?.(result as R);
      } catch {}
      this.status = failed ? TaskStatus.ERROR : TaskStatus.COMPLETE;
      this.#settle?.[failed ? 1 : 0](failed ? error : result);
      this.value = result as R | undefined;
      this.error = error;
    }
    this.host.requestUpdate();
  }

  /** Settles with the current run (or the last one when none is running). */
  get taskComplete(): Promise<R> {
    this.#complete ??=
      this.status === TaskStatus.PENDING
        ? new Promise<R>((resolve, reject) => (this.#settle = [resolve as (value: unknown) => void, reject]))
        : this.status === TaskStatus.ERROR
          ? Promise.reject(this.error)
          : Promise.resolve(this.value as R);
    return this.#complete;
  }

  render(renderers: TaskRenderers<R>): unknown {
    switch (this.status) {
      case TaskStatus.INITIAL:
        return renderers.initial?.();
      case TaskStatus.PENDING:
        return renderers.pending?.();
      case TaskStatus.COMPLETE:
        return renderers.complete?.(this.value as R);
      default:
        return renderers.error?.(this.error);
    }
  }
}
