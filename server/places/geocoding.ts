import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import type { GeocodeAnswer, Geocoder, PlaceQuery } from './geocoder.ts';
import { knownAnswer, lastAskedAt, saveAnswer } from './repository.ts';

/**
 * The relay's one way to the geocoder, shared by every agency it serves: the answers kept in the
 * relay's store by normalised query (found or not: a restart or a re-sync never asks again), and
 * the request spacing (GEOCODER_REQUESTS_PER_SECOND, as the usage policy asks). Never on a sync's
 * or an enquiry's path: only the places worker waits here.
 *
 * TODO(issue 20): the spacing holds for one relay (one store). Relays on one PostgreSQL database
 * each keep their own, so N relays may send N requests a second; the integrator-wide limit wants a
 * slot table in PostgreSQL like the CRM's (cluster/shared-gate.ts), and the answers shared there too.
 */
export class Geocoding {
  private readonly intervalMs: number;
  /** When the last request was sent (or is due): each next one waits for its turn after it. */
  private lastSentAt: number;
  private queue: Promise<void> = Promise.resolve();
  private readonly inFlight = new Map<string, Promise<GeocodeAnswer>>();
  private readonly now: Clock;

  constructor(
    private readonly options: {
      store: Store;
      /** Undefined: no geocoder configured (only CRM coordinates place listings). */
      geocoder: Geocoder | undefined;
      requestsPerSecond: number;
      log: Logger;
      now?: Clock;
      /** Waits (tests may stub it). */
      sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
    },
  ) {
    this.now = options.now ?? Date.now;
    // A margin of 5 %: the policy's limit is on arrivals, and two requests' trips are not equally long.
    this.intervalMs = Math.ceil((1000 / options.requestsPerSecond) * 1.05);
    this.lastSentAt = lastAskedAt(options.store) ?? -Infinity;
  }

  get enabled(): boolean {
    return this.options.geocoder !== undefined;
  }

  /** The kept answer (null: asked, nothing found); undefined: never asked. */
  known(query: PlaceQuery): GeocodeAnswer | undefined {
    return knownAnswer(this.options.store, queryKey(query));
  }

  /** The kept answer, else the geocoder's (in turn, spaced), kept. Throws the geocoder's errors (nothing is kept then). */
  async locate(query: PlaceQuery, signal?: AbortSignal): Promise<GeocodeAnswer> {
    const key = queryKey(query);
    const known = knownAnswer(this.options.store, key);
    if (known !== undefined) return known;
    const geocoder = this.options.geocoder;
    if (!geocoder) throw new Error('No geocoder configured (GEOCODER_URL)');
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = (async () => {
        await this.turn(signal);
        const answer = await geocoder.search(query, signal);
        saveAnswer(this.options.store, key, answer, this.now());
        this.options.log.debug({ kind: query.kind, found: answer !== null }, 'geocoder answered');
        return answer;
      })().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Resolves when this request may be sent: one at a time, intervalMs apart. */
  private turn(signal?: AbortSignal): Promise<void> {
    const mine = this.queue.then(async () => {
      const wait = this.lastSentAt + this.intervalMs - this.now();
      if (wait > 0) await (this.options.sleep ?? sleep)(wait, signal);
      this.lastSentAt = this.now();
    });
    // A cancelled wait does not hold up the next.
    this.queue = mine.catch(() => undefined);
    return mine;
  }
}

/** Lower case, accents and punctuation kept apart from meaning, spaces collapsed: "110  Example St." and "110 example st" are one query. */
export function normalise(value: string | null | undefined): string {
  return (value ?? '')
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[.,;:"()]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The key an answer is kept under: what was asked, normalised. */
export function queryKey(query: PlaceQuery): string {
  const parts = [query.suburb, query.state, query.postcode, query.country].map(normalise);
  return query.kind === 'address' ? ['address', normalise(query.street), ...parts].join('|') : ['suburb', ...parts].join('|');
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export { sleep as abortableSleep };
