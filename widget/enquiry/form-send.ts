import type { ReactiveControllerHost } from 'lit';

/** Where a form's send stands: nothing sent yet, on its way, accepted, or failed (kept for a retry or refused). */
export type SendPhase = 'idle' | 'sending' | 'sent' | 'failed';

/**
 * A lead form's send, run by hand (a submit, a retry, a kept submission resumed), never by a
 * property change: what Lit's Task did for it, in the few lines a form needs, so a page showing
 * only forms (a contact page) downloads no Task. As Task: a new run aborts the one in flight and
 * only the last run's outcome counts; its callback runs before the phase changes, then the host
 * renders again.
 */
export class FormSend<Input, Outcome> {
  phase: SendPhase = 'idle';
  /** The last run's failure, while the phase is `failed`. */
  error: unknown;
  #abort = new AbortController();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly work: (input: Input, signal: AbortSignal) => Promise<Outcome>,
    private readonly onComplete: (outcome: Outcome) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  async run(input: Input): Promise<void> {
    this.#abort.abort();
    const abort = (this.#abort = new AbortController());
    this.phase = 'sending';
    this.host.requestUpdate();
    try {
      const outcome = await this.work(input, abort.signal);
      if (abort !== this.#abort) return;
      this.onComplete(outcome);
      this.phase = 'sent';
    } catch (error) {
      if (abort !== this.#abort) return;
      this.onError((this.error = error));
      this.phase = 'failed';
    }
    this.host.requestUpdate();
  }
}
