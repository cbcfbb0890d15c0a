import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * When a form field's message may show, after Lion's interaction-state rules: not while a visitor
 * is still on their first pass through the form, but once a field has been left after a change
 * (touched and dirty), or once they tried to send (submitted). From then on the message follows
 * what they type. The element validates when this says so; it keeps no DOM and no messages.
 */
export class FieldInteractionController<Field extends string> implements ReactiveController {
  /** Left (blurred) at least once. */
  readonly #touched = new Set<Field>();
  /** Changed from its initial value. */
  readonly #dirty = new Set<Field>();
  #submitted = false;

  constructor(host: ReactiveControllerHost) {
    host.addController(this);
  }

  /** A send was attempted: every field shows its message from now on. */
  get submitted(): boolean {
    return this.#submitted;
  }

  isDirty(field: Field): boolean {
    return this.#dirty.has(field);
  }

  /** The visitor changed `field`. True when its message should be brought up to date now. */
  changed(field: Field, showingMessage: boolean): boolean {
    this.#dirty.add(field);
    return this.#submitted || this.#touched.has(field) || showingMessage;
  }

  /** The visitor left `field`. True when it should be validated now. */
  left(field: Field): boolean {
    this.#touched.add(field);
    return this.#dirty.has(field) || this.#submitted;
  }

  submit(): void {
    this.#submitted = true;
  }

  /** A fresh form: nothing touched, changed or submitted. */
  reset(): void {
    this.#touched.clear();
    this.#dirty.clear();
    this.#submitted = false;
  }

  hostConnected(): void {}
}
