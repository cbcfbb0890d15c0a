// The port through which relays on one database share the geocoder's rate (GEOCODER_REQUESTS_PER_SECOND
// for the whole integrator, as the public Nominatim's policy asks): Geocoding (geocoding.ts) takes a
// turn through it before each request; cluster/geocoder-gate.ts implements it in PostgreSQL. Without
// DATABASE_URL there is none, and the relay spaces its own requests.

/**
 * The geocoder's turns, taken in order by every relay sharing it: each turn is the next free
 * instant, at least one interval after the turn before it, whichever relay took that one.
 */
export interface GeocoderGate {
  /**
   * Takes the next turn for one request; answers how long (ms, 0 or more) to wait from now before
   * sending it. A turn taken is spent whether or not the request is sent. Throws when the gate is
   * out of reach: the caller must not send then (it waits and tries again later).
   */
  next(): Promise<number>;
}

/** The gate could not be reached: no turn was taken, and nothing may be sent. */
export class GeocoderGateError extends Error {
  constructor(cause: unknown) {
    super(`the geocoder's shared rate (DATABASE_URL) is out of reach, nothing is sent until it is back: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'GeocoderGateError';
  }
}

/**
 * The time between two requests at `requestsPerSecond`, with a margin of 5 %: the policy's limit is
 * on arrivals, and two requests' trips (and, across relays, two answers from the gate) are not
 * equally long.
 */
export function geocoderIntervalMs(requestsPerSecond: number): number {
  return Math.ceil((1000 / requestsPerSecond) * 1.05);
}
