import { LitElement, type PropertyDeclarations } from 'lit';
import { LocalizeController } from './localize.ts';
import { relayUrl } from './relay.ts';

/**
 * What every `estate-*` element shares (as Shoelace's ShoelaceElement): where its relay is, its
 * words in the page's language, and how it tells the page what happened. Nothing here touches the
 * DOM at construction, so the elements render on a server as they are.
 */
export class EstateElement extends LitElement {
  // Lit gathers each class's own `properties`, so an element lists only its own.
  static override properties: PropertyDeclarations = {
    relay: { type: String },
  };

  /** Base URL of the relay; null: where the widget script was loaded from. */
  declare relay: string | null;

  /** Its words: the section of the translation registry for its language (see localize.ts). */
  protected readonly localize = new LocalizeController(this);

  constructor() {
    super();
    this.relay = null;
  }

  /** Absolute URL of a relay path (`api/v1/listings`) for this element. */
  protected relayUrl(path: string): string {
    return relayUrl(this.relay, path);
  }

  /**
   * Dispatches one of our events (prefixed `estate-`): bubbles out of every shadow root. Returns
   * false when a listener cancelled a `cancelable` one.
   */
  protected emit<T>(name: `estate-${string}`, detail: T, cancelable = false): boolean {
    return this.dispatchEvent(new CustomEvent<T>(name, { detail, bubbles: true, composed: true, cancelable }));
  }

  /**
   * Resolves once the render a Task's callback asked for is done: Task calls onComplete/onError
   * before it requests that render, so wait a microtask for the request, then for the render.
   */
  protected async rendered(): Promise<void> {
    await Promise.resolve();
    await this.updateComplete;
  }
}
