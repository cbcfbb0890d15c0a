import type { PlacesSettings } from '../runtime/config.ts';
import type { Feature } from '../runtime/feature.ts';
import type { Logger } from '../runtime/log.ts';
import type { Clock } from '../runtime/clock.ts';
import type { Store } from '../store/store.ts';
import { nominatimGeocoder, type Geocoder } from './geocoder.ts';
import { Geocoding } from './geocoding.ts';
import type { GeocoderGate } from './gate.ts';
import { Placements } from './placements.ts';
import { PlacesWorker } from './worker.ts';

export { Geocoding } from './geocoding.ts';
export { GeocoderGateError, geocoderIntervalMs, type GeocoderGate } from './gate.ts';
export { Placements } from './placements.ts';
export { PlacesWorker } from './worker.ts';
export { PLACES_LISTING_TABLES, placementSummary } from './repository.ts';

/**
 * The relay's geocoding (one per relay, whatever the agencies): the kept answers in `store` (the
 * relay's own) and the request spacing; the Nominatim client when GEOCODER_URL is set. `gate`
 * (DATABASE_URL): the turns shared with the other relays on the database.
 */
export function createGeocoding(options: {
  settings: PlacesSettings;
  store: Store;
  log: Logger;
  userAgent: string;
  geocoder?: Geocoder;
  gate?: GeocoderGate;
  now?: Clock;
}): Geocoding {
  const { settings } = options;
  const geocoder =
    options.geocoder ??
    (settings.geocoderUrl
      ? nominatimGeocoder({ baseUrl: settings.geocoderUrl, userAgent: options.userAgent, email: settings.email, timeoutMs: settings.timeoutMs })
      : undefined);
  return new Geocoding({
    store: options.store,
    geocoder,
    requestsPerSecond: settings.requestsPerSecond,
    log: options.log,
    gate: options.gate,
    now: options.now,
  });
}

export interface PlacesService {
  /** The relay's geocoding this agency asks (shared with the other agencies of the relay). */
  geocoding: Geocoding;
  placements: Placements;
  worker: PlacesWorker;
}

/**
 * One agency's places: its listings' positions (in the agency's store) and the worker that asks the
 * relay's geocoding. `country` (SITE_COUNTRY, the agency's `country`): asked for, and checked, when
 * a record names none.
 */
export function createPlaces(options: { store: Store; geocoding: Geocoding; log: Logger; onPlaced: () => void; country: string; now?: Clock }): PlacesService {
  const placements = new Placements(options.store, options.geocoding, { country: options.country, now: options.now });
  const worker = new PlacesWorker({ placements, log: options.log, onPlaced: options.onPlaced });
  return { geocoding: options.geocoding, placements, worker };
}

/** The places feature as the relay mounts it: its worker (the counts are served by the listing routes). */
export function placesFeature(places: PlacesService): Feature {
  return { name: 'places', workers: [places.worker], readiness: {} };
}
