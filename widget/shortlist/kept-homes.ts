import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { ListingDetail } from '../../contract/relay-api.ts';
import { relayUrl, RelayError } from '../shared/relay.ts';
import { fetchJsonOnceFilled } from '../shared/relay-filling.ts';

/**
 * What the relay says about a kept home now: still listed (with its status: for sale or rent,
 * under offer, sold, leased), gone (the listing API answers 404 for a listing withdrawn, or sold or
 * leased and no longer shown), or unknown (the relay could not be asked; asked again next time).
 */
export type KeptHomeState = { kind: 'checking' } | { kind: 'listed'; listing: ListingDetail } | { kind: 'gone' } | { kind: 'unknown' };

/** Homes asked about at once: the browser queues the rest per host anyway, this keeps the relay's queue short. */
const AT_ONCE = 4;

/**
 * Asks the relay about each kept home once (`GET /api/v1/listings/{id}`, cached by the relay and,
 * for a minute, by the browser), and renders the host as the answers come. A home added later is
 * asked about when it appears; all are asked again when the element comes back to the page.
 */
export class KeptHomesController implements ReactiveController {
  readonly #states = new Map<number, KeptHomeState>();
  #queue: number[] = [];
  #running = 0;
  #abort = new AbortController();
  #relay: string | null = null;

  constructor(private readonly host: ReactiveControllerHost & { relay: string | null }) {
    host.addController(this);
  }

  state(id: number): KeptHomeState {
    return this.#states.get(id) ?? { kind: 'checking' };
  }

  /** Asks about the homes not yet known (call before rendering them). */
  want(ids: readonly number[]): void {
    if (this.host.relay !== this.#relay) this.#forget();
    for (const id of ids) {
      if (this.#states.has(id)) continue;
      this.#states.set(id, { kind: 'checking' });
      this.#queue.push(id);
    }
    this.#pump();
  }

  hostConnected(): void {
    // Back on the page after hostDisconnected forgot every answer: ask again at the next render.
    this.host.requestUpdate();
  }

  hostDisconnected(): void {
    this.#forget();
  }

  /** Stops what is under way and forgets every answer (disconnected, or another relay). */
  #forget(): void {
    this.#abort.abort();
    this.#abort = new AbortController();
    this.#states.clear();
    this.#queue = [];
    this.#running = 0;
    this.#relay = this.host.relay;
  }

  #pump(): void {
    while (this.#running < AT_ONCE && this.#queue.length) {
      const id = this.#queue.shift()!;
      this.#running += 1;
      const signal = this.#abort.signal;
      void this.#ask(id, signal).then((state) => {
        if (signal.aborted) return;
        this.#running -= 1;
        this.#states.set(id, state);
        this.host.requestUpdate();
        this.#pump();
      });
    }
  }

  async #ask(id: number, signal: AbortSignal): Promise<KeptHomeState> {
    try {
      const listing = await fetchJsonOnceFilled<ListingDetail>(relayUrl(this.#relay, `api/v1/listings/${id}`), { signal });
      return { kind: 'listed', listing };
    } catch (error) {
      return error instanceof RelayError && (error.status === 404 || error.status === 410) ? { kind: 'gone' } : { kind: 'unknown' };
    }
  }
}
