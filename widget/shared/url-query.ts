import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** Parameter changes: a string sets it, null removes it, a missing name leaves it as it is. */
export type QueryChanges = Record<string, string | null>;

/**
 * Said on `window` after an element changed the page URL (pushState and replaceState fire no
 * event of their own): the other elements on the page read it again, so a map and a list under
 * one prefix follow each other's filters.
 */
const URL_CHANGE = 'estate-url-change';

/**
 * An element's state in the page's address bar: its parameters (under a prefix, so two elements
 * on one page keep apart) are read from and written to the URL, pushed as history entries so Back
 * and Forward step through them, and the element hears when the visitor navigates or another
 * element on the page changes the URL.
 */
export class UrlQueryController implements ReactiveController {
  readonly #prefix: () => string;
  readonly #onNavigate: (byHistory: boolean) => void;

  /**
   * `onNavigate` hears Back and Forward (`byHistory` true: the page shows an entry again, as it
   * was) and another element's change of the URL (false: a new search, say, that moves on from here).
   */
  constructor(host: ReactiveControllerHost, options: { prefix: () => string; onNavigate: (byHistory: boolean) => void }) {
    this.#prefix = options.prefix;
    this.#onNavigate = options.onNavigate;
    host.addController(this);
  }

  /** The parameter's value in the page URL now, or null. */
  get(name: string): string | null {
    return new URLSearchParams(window.location.search).get(this.#prefix() + name);
  }

  /** The page URL with `changes` applied (for links and history entries). */
  url(changes: QueryChanges): string {
    const url = new URL(window.location.href);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) url.searchParams.delete(this.#prefix() + name);
      else url.searchParams.set(this.#prefix() + name, value);
    }
    return url.href;
  }

  /** A new history entry (Back returns to the current one). */
  push(changes: QueryChanges): void {
    history.pushState(history.state, '', this.url(changes));
    this.#announce();
  }

  /** The current history entry changed in place. */
  replace(changes: QueryChanges): void {
    history.replaceState(history.state, '', this.url(changes));
    this.#announce();
  }

  #announce(): void {
    window.dispatchEvent(new CustomEvent(URL_CHANGE, { detail: this }));
  }

  hostConnected(): void {
    window.addEventListener('popstate', this.#popState);
    window.addEventListener(URL_CHANGE, this.#otherChange);
  }

  hostDisconnected(): void {
    window.removeEventListener('popstate', this.#popState);
    window.removeEventListener(URL_CHANGE, this.#otherChange);
  }

  readonly #popState = (): void => this.#onNavigate(true);
  readonly #otherChange = (event: Event): void => {
    if ((event as CustomEvent<unknown>).detail !== this) this.#onNavigate(false);
  };
}
