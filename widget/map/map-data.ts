import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ListingMap } from '../../contract/relay-api.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';

/** How long the view must rest before the map asks the relay (a drag or a wheel asks once, at its end). */
export const MAP_REQUEST_DELAY_MS = 200;
/** Answers kept in memory: panning back and forth asks nothing again. */
const KEPT_ANSWERS = 40;

export type MapDataState = 'idle' | 'loading' | 'filling' | 'done' | 'error';

/**
 * The map answers for the element's view: each new URL is asked after the view rests
 * (MAP_REQUEST_DELAY_MS), a request still under way is aborted when a newer one supersedes it,
 * and recent answers are kept (the relay also revalidates them with an ETag), so moving back is free.
 */
export class MapDataController implements ReactiveController {
  state: MapDataState = 'idle';
  answer: ListingMap | null = null;
  /** The URL `answer` is for. */
  answerUrl: string | null = null;

  readonly #host: ReactiveControllerHost;
  readonly #onAnswer: (answer: ListingMap, url: string) => void;
  readonly #kept = new Map<string, ListingMap>();
  #wanted: string | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: AbortController | undefined;

  constructor(host: ReactiveControllerHost, onAnswer: (answer: ListingMap, url: string) => void) {
    this.#host = host;
    this.#onAnswer = onAnswer;
    host.addController(this);
  }

  /** The URL last asked for (its answer may still be on its way). */
  get wanted(): string | null {
    return this.#wanted;
  }

  /** Asks for `url` once the view rests (at once when `now`); a kept answer is used at once. */
  want(url: string, now = false): void {
    if (url === this.#wanted && this.state !== 'error') {
      // Already waiting for the view to rest: asked for at once (the first view's fit), it goes now.
      if (now && this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
        void this.#fetch(url);
      }
      return;
    }
    this.#wanted = url;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const kept = this.#kept.get(url);
    if (kept) {
      this.#inFlight?.abort();
      this.#settle(kept, url);
      return;
    }
    if (now) void this.#fetch(url);
    else
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#fetch(url);
      }, MAP_REQUEST_DELAY_MS);
  }

  /** Asks for the last URL again (after an error). */
  retry(): void {
    const url = this.#wanted;
    if (url) {
      this.#wanted = null;
      this.want(url, true);
    }
  }

  async #fetch(url: string): Promise<void> {
    this.#inFlight?.abort();
    const controller = new AbortController();
    this.#inFlight = controller;
    this.#setState('loading');
    try {
      const answer = await fetchJsonOnceFilled<ListingMap>(url, {
        signal: controller.signal,
        onFilling: (filling) => filling && this.#setState('filling'),
      });
      if (controller.signal.aborted || url !== this.#wanted) return;
      this.#kept.delete(url);
      this.#kept.set(url, answer);
      if (this.#kept.size > KEPT_ANSWERS) this.#kept.delete(this.#kept.keys().next().value!);
      this.#settle(answer, url);
    } catch (error) {
      if (controller.signal.aborted) return;
      console.error('<estate-map> could not load the map:', error);
      this.#setState('error');
    }
  }

  #settle(answer: ListingMap, url: string): void {
    this.answer = answer;
    this.answerUrl = url;
    this.#setState('done');
    this.#onAnswer(answer, url);
  }

  #setState(state: MapDataState): void {
    this.state = state;
    this.#host.requestUpdate();
  }

  hostConnected(): void {}

  hostDisconnected(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#inFlight?.abort();
    this.#wanted = null;
  }
}
