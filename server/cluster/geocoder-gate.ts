import { createHash } from 'node:crypto';
import type { Config } from '../runtime/config.ts';
import { geocoderIntervalMs, type GeocoderGate } from '../places/gate.ts';
import { DB_NOW, KEY_SCHEMA, type SharedDatabase } from '../store/shared-database.ts';

/**
 * The geocoder's rate held in PostgreSQL for every relay on the database (DATABASE_URL): the public
 * Nominatim allows one request a second for the whole application, not one per relay.
 *
 * One row per geocoder (geocoder_gate) holds the next free instant on the database's clock. A turn
 * is taken in one statement: the row's instant moves to max(next_at, now) + interval, and the
 * relay is told to wait until the old max(next_at, now). Row locks order the statements, so every
 * turn is at least one interval after the one before, whichever relay took it; the relay waits
 * what is left (a duration, so relays' clocks need not agree) and sends. A turn not used (the
 * relay stopped, the request was cancelled) is simply lost: the rate is only ever kept below.
 *
 * `now` is read once per statement, before the row lock is taken: a statement that waited on
 * another's lock reads an earlier now, and its relay waits longer than needed, never less.
 */
export interface SharedGeocoderGateOptions {
  pool: SharedDatabase['pool'];
  /** GEOCODER_URL: relays asking the same geocoder share one rate (the tables name a digest of it). */
  geocoderUrl: string;
  /** Between two turns (ms): geocoderIntervalMs(GEOCODER_REQUESTS_PER_SECOND). */
  intervalMs: number;
  /** Who took the last turn (the relay's id), for an operator looking at the table. */
  holder: string;
}

export class SharedGeocoderGate implements GeocoderGate {
  /** The geocoder as the table names it: a digest of its URL (which may carry a provider's key). */
  readonly geocoderId: string;

  constructor(private readonly options: SharedGeocoderGateOptions) {
    this.geocoderId = createHash('sha256').update('estate-embed geocoder\0').update(options.geocoderUrl).digest('hex').slice(0, 32);
  }

  async next(): Promise<number> {
    const { rows } = await this.options.pool.query<{ wait_ms: string }>({
      name: 'geocoder-gate-next',
      text: `
        WITH now AS (SELECT ${DB_NOW} AS at)
        INSERT INTO ${KEY_SCHEMA}.geocoder_gate AS gate (geocoder_id, next_at, holder, turns)
        SELECT $1, now.at + $2::bigint, $3, 1 FROM now
        ON CONFLICT (geocoder_id) DO UPDATE
          SET next_at = GREATEST(gate.next_at, (SELECT at FROM now)) + $2::bigint, holder = EXCLUDED.holder, turns = gate.turns + 1
        RETURNING gate.next_at - $2::bigint - (SELECT at FROM now) AS wait_ms`,
      values: [this.geocoderId, this.options.intervalMs, this.options.holder],
    });
    return Math.max(0, Number(rows[0]!.wait_ms));
  }
}

/** The gate of the relay's geocoder (GEOCODER_URL) in the shared database; undefined without a geocoder. */
export function sharedGeocoderGate(config: Config, database: SharedDatabase): SharedGeocoderGate | undefined {
  if (!config.places.geocoderUrl) return undefined;
  return new SharedGeocoderGate({
    pool: database.pool,
    geocoderUrl: config.places.geocoderUrl,
    intervalMs: geocoderIntervalMs(config.places.requestsPerSecond),
    // Read at each turn: the relay's id is known once the heartbeat has claimed it.
    get holder() {
      return database.relayId;
    },
  });
}
