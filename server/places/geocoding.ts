import type { Clock } from '../runtime/clock.ts';
import type { Logger } from '../runtime/log.ts';
import type { Store } from '../store/store.ts';
import type { GeocodeAnswer, Geocoder, PlaceQuery } from './geocoder.ts';
import { GeocoderGateError, geocoderIntervalMs, type GeocoderGate } from './gate.ts';
import { dismissAnswer, knownAnswer, lastAskedAt, saveAnswer } from './repository.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The relay's one way to the geocoder, shared by every agency it serves: the answers kept in the
 * relay's store by normalised query (found or not: a restart or a re-sync never asks again), and
 * the request spacing (GEOCODER_REQUESTS_PER_SECOND, as the usage policy asks). Never on a sync's
 * or an enquiry's path: only the places worker waits here.
 *
 * The spacing: one request at a time (the next is not sent before the last has its answer or has
 * failed), each `intervalMs` after the end of the one before: the policy counts arrivals, and a
 * request held up on its way (a busy event loop, a slow network) must not bring the next one
 * closer to it. Without a `gate` the relay keeps it itself (from the last answer kept in its store,
 * across restarts). With one
 * (DATABASE_URL: cluster/geocoder-gate.ts) every relay on the database takes its turns from the
 * same row, so together they keep the rate; when the gate is out of reach nothing is sent (the
 * request fails with GeocoderGateError and the places worker tries again after its pause), since
 * a relay cannot know what the others send meanwhile.
 */
export class Geocoding {
  private readonly intervalMs: number;
  /** When the last request ended (answered or failed): the next one waits intervalMs after it. */
  private lastEndedAt: number;
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
      /** DATABASE_URL: the turns shared by every relay on the database (undefined: this relay's own spacing). */
      gate?: GeocoderGate;
      now?: Clock;
      /** Waits (tests may stub it). */
      sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
    },
  ) {
    this.now = options.now ?? Date.now;
    this.intervalMs = geocoderIntervalMs(options.requestsPerSecond);
    this.lastEndedAt = lastAskedAt(options.store) ?? -Infinity;
  }

  get enabled(): boolean {
    return this.options.geocoder !== undefined;
  }

  /** The kept answer (null: asked, nothing found); undefined: never asked. */
  known(query: PlaceQuery): GeocodeAnswer | undefined {
    return knownAnswer(this.options.store, queryKey(query));
  }

  /** An answer found to be wrong (a street far from its suburb: placements.ts) is kept as "not found": never asked again, never used. */
  dismiss(query: PlaceQuery): void {
    if (!dismissAnswer(this.options.store, queryKey(query))) return;
    this.options.log.info({ kind: query.kind }, 'geocoder: a street found far from its suburb, or whose suburb is not found, is kept as not found');
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
        const answer = await this.inTurn(signal, () => geocoder.search(query, signal));
        saveAnswer(this.options.store, key, answer, this.now());
        this.options.log.debug({ kind: query.kind, found: answer !== null }, 'geocoder answered');
        return answer;
      })().finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** Sends `request` in its turn: one at a time, intervalMs apart (across relays with a gate). */
  private inTurn<T>(signal: AbortSignal | undefined, request: () => Promise<T>): Promise<T> {
    const mine = this.queue.then(async () => {
      signal?.throwIfAborted();
      const gate = this.options.gate;
      let wait: number;
      if (gate) {
        try {
          wait = await gate.next();
        } catch (error) {
          throw new GeocoderGateError(error);
        }
      } else wait = this.lastEndedAt + this.intervalMs - this.now();
      if (wait > 0) await (this.options.sleep ?? ((ms: number, abort?: AbortSignal) => sleep(ms, undefined, { signal: abort })))(wait, signal);
      try {
        return await request();
      } finally {
        this.lastEndedAt = this.now();
      }
    });
    // A cancelled wait or a failed request does not hold up the next.
    this.queue = mine.then(
      () => undefined,
      () => undefined,
    );
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
