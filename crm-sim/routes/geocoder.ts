import { createHash } from 'node:crypto';
import express, { type Router } from 'express';
import { SUBURBS } from '../seed-data.ts';
import type { IntegratorKey } from '../state.ts';

/*
 * The simulator as a Nominatim-compatible geocoder (demo mode points GEOCODER_URL here):
 * `GET /search?format=jsonv2&q=…` (free-form) or with `street`, `city`, `state`, `postalcode`
 * (structured). It answers from its own seed: a listing's street address at the listing's
 * coordinates (or, for one the CRM left without, a point inside its suburb, the same each time),
 * a suburb at its centre, anything else with an empty array, as Nominatim does. With
 * `addressdetails=1` (as the relay asks) each answer names its suburb, state, postcode and country
 * (`address.country_code`, "au"), as Nominatim's do.
 */

interface Place {
  lat: number;
  lon: number;
  name: string;
  kind: 'house' | 'suburb';
  /** Nominatim's `address` (with `addressdetails=1`): every seeded place is in Australia. */
  address: { suburb: string; state: string; postcode: string; country: 'Australia'; country_code: 'au' };
}

/** As the relay's geocoder client and Nominatim read alike: lower case, no punctuation, spaces collapsed. */
function normalise(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[.,;:"()]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A point inside the suburb (within about 800 m of its centre), the same for the same address. */
function pointNear(centre: { latitude: number; longitude: number }, text: string): { lat: number; lon: number } {
  const digest = createHash('sha256').update(text).digest();
  const offset = (byte: number) => ((byte / 255) * 2 - 1) * 0.008;
  return { lat: Number((centre.latitude + offset(digest[0]!)).toFixed(6)), lon: Number((centre.longitude + offset(digest[1]!)).toFixed(6)) };
}

function addressOf(suburb: { name: string; state: string; postcode: string }): Place['address'] {
  return { suburb: suburb.name, state: suburb.state, postcode: suburb.postcode, country: 'Australia', country_code: 'au' };
}

/** Every address and suburb the key's accounts hold, by the normalised forms a query may take. */
function gazetteer(key: IntegratorKey): Map<string, Place> {
  const places = new Map<string, Place>();
  for (const suburb of SUBURBS) {
    const place: Place = {
      lat: suburb.latitude,
      lon: suburb.longitude,
      name: `${suburb.name}, ${suburb.state} ${suburb.postcode}, Australia`,
      kind: 'suburb',
      address: addressOf(suburb),
    };
    for (const form of [`${suburb.name} ${suburb.state} ${suburb.postcode}`, `${suburb.name} ${suburb.state}`, `${suburb.name} ${suburb.postcode}`])
      places.set(normalise(form), place);
  }
  for (const account of key.accounts) {
    for (const listing of account.listings) {
      const address = listing.fields.address as
        { streetNumber?: string | null; street?: string | null; suburb?: { name?: string; postcode?: string; state?: { abbreviation?: string } } } | undefined;
      if (!address?.street || !address.suburb?.name) continue;
      const suburbName = address.suburb.name;
      const centre = SUBURBS.find((suburb) => suburb.name.toLowerCase() === suburbName.toLowerCase());
      if (!centre) continue;
      const geo = listing.fields.geolocation as { latitude?: number | null; longitude?: number | null } | null | undefined;
      const street = [address.streetNumber, address.street].filter(Boolean).join(' ');
      const locality = [suburbName, address.suburb.state?.abbreviation, address.suburb.postcode].filter(Boolean).join(' ');
      const point =
        typeof geo?.latitude === 'number' && typeof geo.longitude === 'number'
          ? { lat: geo.latitude, lon: geo.longitude }
          : pointNear(centre, normalise(`${street} ${locality}`));
      places.set(normalise(`${street}, ${locality}`), {
        ...point,
        name: `${street}, ${centre.name}, ${centre.state} ${centre.postcode}, Australia`,
        kind: 'house',
        address: addressOf(centre),
      });
    }
  }
  return places;
}

export function geocoderRouter(key: IntegratorKey): Router {
  const router = express.Router();
  router.get('/search', (req, res) => {
    const param = (name: string) => (typeof req.query[name] === 'string' ? (req.query[name] as string) : '');
    if (param('format') !== 'jsonv2' && param('format') !== 'json') {
      res.status(400).json({ error: { code: 400, message: 'format must be json or jsonv2 here' } });
      return;
    }
    const structured = [param('city'), param('state'), param('postalcode')].filter(Boolean).join(' ');
    const q = param('q') || (param('street') ? `${param('street')}, ${structured}` : structured);
    const found = gazetteer(key).get(normalise(q));
    const results = found
      ? [
          {
            place_id: Number.parseInt(createHash('sha1').update(found.name).digest('hex').slice(0, 8), 16),
            licence: 'Simulated data',
            lat: String(found.lat),
            lon: String(found.lon),
            category: found.kind === 'house' ? 'building' : 'place',
            type: found.kind,
            place_rank: found.kind === 'house' ? 30 : 19,
            importance: found.kind === 'house' ? 0.2 : 0.4,
            addresstype: found.kind === 'house' ? 'building' : 'suburb',
            name: '',
            display_name: found.name,
            ...(param('addressdetails') === '1' ? { address: found.address } : {}),
          },
        ]
      : [];
    res.json(results);
  });
  return router;
}
