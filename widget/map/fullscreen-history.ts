import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Marks the history entries of a full-screen map (copied into the entries pushed after it). */
const MARK = 'estateMapFullscreen';

/**
 * A phone's Back closes a full-screen map rather than leaving the page: entering pushes a history
 * entry (the same URL, marked in its state), and a Back to an entry without the mark leaves full
 * screen. Entries pushed while full screen (a card, a cluster) copy the mark (url-query.ts keeps
 * the state), so Back steps through them in full screen first.
 */
export class FullscreenHistory implements ReactiveController {
  readonly #onBack: () => void;

  constructor(host: ReactiveControllerHost, onBack: () => void) {
    this.#onBack = onBack;
    host.addController(this);
  }

  /** The map went full screen: Back leaves it. */
  entered(): void {
    if (marked()) return;
    history.pushState({ ...(history.state as object | null), [MARK]: true }, '', window.location.href);
  }

  hostConnected(): void {
    window.addEventListener('popstate', this.#popState);
  }

  hostDisconnected(): void {
    window.removeEventListener('popstate', this.#popState);
  }

  /** A Back from full screen to the entry before it (heard before the popstate's own listeners have all run). */
  get leaving(): boolean {
    return !marked();
  }

  readonly #popState = (): void => {
    if (!marked()) this.#onBack();
  };
}

/** Whether the history entry shown now is one of a full-screen map's. */
export function marked(): boolean {
  return Boolean((history.state as Record<string, unknown> | null)?.[MARK]);
}
