import type { ReactiveController, ReactiveControllerHost } from 'lit';

/**
 * Tells whether the host has come near the viewport (within `margin`), once: an element under the
 * listing (similar homes, recently viewed) loads its data and photos then, so they never compete
 * with the listing's own photos. Without IntersectionObserver (an old browser), at once.
 */
export class NearViewportController implements ReactiveController {
  near = false;
  #observer: IntersectionObserver | undefined;

  constructor(
    private readonly host: ReactiveControllerHost & HTMLElement,
    private readonly margin = '300px',
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    if (this.near) return;
    if (typeof IntersectionObserver === 'undefined') {
      this.near = true;
      this.host.requestUpdate();
      return;
    }
    this.#observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        this.#observer?.disconnect();
        this.near = true;
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
