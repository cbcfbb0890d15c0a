import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Tells whether the host has come near the viewport (within `margin`), once: an element under the
 * listing (similar homes, recently viewed) loads its data and photos then, so they never compete
 * with the listing's own photos. (Every browser the builds target, ES2022, has IntersectionObserver.)
 */
export class NearViewportController implements ReactiveController {
  near = false;
  #observer: IntersectionObserver | undefined;
  #reach!: () => void;
  /** Resolves once the host has come near the viewport (for `loadComplete`-style waits). */
  readonly reached = new Promise<void>((resolve) => (this.#reach = resolve));

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly margin = '300px',
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    if (this.near) return;
    this.#observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        this.#observer?.disconnect();
        this.near = true;
        this.#reach();
        this.host.requestUpdate();
      },
      { rootMargin: this.margin },
    );
    this.#observer.observe(this.host);
  }

  hostDisconnected(): void {
    this.#observer?.disconnect();
    this.#observer = undefined;
  }
}
