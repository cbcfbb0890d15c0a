import { z } from 'zod';
import type { ListingPosition, ListingSummary } from '../../contract/relay-api.ts';
import { HttpError } from '../http/errors.ts';
import { amountsIn } from './price-range.ts';

/*
 * Similar homes (GET /api/v1/listings/{id}/similar): the current listings most like one listing.
 *
 * Chosen from the public cards only (ListingSummary: what the answer itself carries), never from the
 * cache's price columns, so no hidden price can steer the choice: a card's price is the amounts its
 * display price writes ("$1,350,000", "Offers over $850k", "$650 per week"); "Contact Agent",
 * "Auction" and the like have none, and such a listing is judged without price. Where the subject
 * has none, price plays no part for any candidate; where a candidate has none, its price counts as
 * one fixed, middling difference, the same whatever its hidden price is.
 *
 * Must: available, the same type (sale or lease), the same kind of property (house-like,
 * apartment-like, or else the same property type), never the listing itself. A home's other life
 * (the same property for lease while it is for sale) is of the other type, so it never counts, and
 * a property has at most one current listing of each type. Then the lowest score, ties by id:
 */

export const SIMILAR_DEFAULT_LIMIT = 4;
export const SIMILAR_MAX_LIMIT = 12;

/** One point of score is worth: a different property type of the same kind, 2 km, a price 20 % apart, a bedroom. */
const OTHER_PROPERTY_TYPE = 1;
const KM_PER_POINT = 2;
/**
 * Nearby means this close where both are on the map: a buyer in Kew is not shown Paddington (the
 * demo's two cities), and a country town's neighbour town still counts.
 */
const NEARBY_KM = 25;
/** Without a position on either side, only the same suburb is nearby; it counts as a kilometre away. */
const SAME_SUBURB = 0.5;
const PRICE_RATIO_PER_POINT = Math.log(1.2);
/** A candidate that shows no price: as if about 35 % apart, whatever its hidden price. */
const NO_PRICE = 1.6;
/** A shown price more than twice or less than half the subject's is not a similar price band. */
const PRICE_RATIO_LIMIT = Math.log(2);
/** More than two bedrooms apart is not a similar home. */
const BEDROOMS_LIMIT = 2;
const NO_BEDROOMS = 1;

const HOUSE_LIKE = new Set(['house', 'townhouse', 'villa', 'duplex', 'semi-detached', 'duplex/semi-detached', 'terrace', 'acreage', 'house & land']);
const APARTMENT_LIKE = new Set(['apartment', 'unit', 'flat', 'studio', 'penthouse', 'serviced apartment', 'unit/apartment']);

/** The kind of property a type names: house-like, apartment-like, or its own (land with land, retail with retail); null when unnamed. */
export function propertyKind(propertyType: string | null): string | null {
  const type = propertyType?.trim().toLowerCase();
  if (!type) return null;
  if (HOUSE_LIKE.has(type)) return 'house';
  if (APARTMENT_LIKE.has(type)) return 'apartment';
  return `type:${type}`;
}

/** The price a card shows, in dollars: the middle of the amounts its display price writes, or null when it writes none. */
export function shownPrice(displayPrice: string | null): number | null {
  const amounts = amountsIn(displayPrice).filter((amount) => amount > 0);
  if (amounts.length === 0) return null;
  return (Math.min(...amounts) + Math.max(...amounts)) / 2;
}

/** Great-circle distance in kilometres (haversine on a sphere of the Earth's mean radius). */
export function kilometresBetween(a: Pick<ListingPosition, 'lat' | 'lng'>, b: Pick<ListingPosition, 'lat' | 'lng'>): number {
  const radians = Math.PI / 180;
  const dLat = (b.lat - a.lat) * radians;
  const dLng = (b.lng - a.lng) * radians;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * radians) * Math.cos(b.lat * radians) * Math.sin(dLng / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A card with what the choice reads of it worked out once. */
interface Candidate {
  card: ListingSummary;
  kind: string | null;
  propertyType: string | null;
  suburb: string | null;
  price: number | null;
}

function candidate(card: ListingSummary): Candidate {
  return {
    card,
    kind: propertyKind(card.propertyType),
    propertyType: card.propertyType?.trim().toLowerCase() || null,
    suburb: card.address.suburb?.trim().toLowerCase() || null,
    price: shownPrice(card.displayPrice),
  };
}

/** How unlike the subject a candidate is (lower is more alike), or undefined when it is not a similar home at all. */
function unlikeness(subject: Candidate, other: Candidate): number | undefined {
  const { card } = other;
  if (card.id === subject.card.id || card.status !== 'available' || card.type !== subject.card.type) return undefined;
  if (subject.kind !== null && other.kind !== subject.kind) return undefined;

  let score = subject.propertyType !== null && other.propertyType === subject.propertyType ? 0 : OTHER_PROPERTY_TYPE;

  const here = subject.card.position;
  const there = card.position;
  if (here && there) {
    const km = kilometresBetween(here, there);
    if (km > NEARBY_KM) return undefined;
    score += km / KM_PER_POINT;
  } else if (subject.suburb !== null && other.suburb === subject.suburb) score += SAME_SUBURB;
  else return undefined;

  if (subject.price !== null) {
    if (other.price === null) score += NO_PRICE;
    else {
      const ratio = Math.abs(Math.log(other.price / subject.price));
      if (ratio > PRICE_RATIO_LIMIT) return undefined;
      score += ratio / PRICE_RATIO_PER_POINT;
    }
  }

  if (subject.card.bed !== null) {
    if (card.bed === null) score += NO_BEDROOMS;
    else {
      const apart = Math.abs(card.bed - subject.card.bed);
      if (apart > BEDROOMS_LIMIT) return undefined;
      score += apart;
    }
  }
  return score;
}

export interface SimilarIndex {
  /** Roughly the bytes it keeps alive (the answer cache counts it). */
  bytes: number;
  /** Up to `limit` current homes like `subject`, most alike first, ties by id. */
  similarTo(subject: ListingSummary, limit: number): ListingSummary[];
}

/** The current cards to choose among, read once per cache change; each answer is one pass over them. */
export function similarIndex(cards: readonly ListingSummary[]): SimilarIndex {
  const candidates = cards.filter((card) => card.status === 'available').map(candidate);
  return {
    bytes: candidates.length * 1_500,
    similarTo(subject, limit) {
      const from = candidate(subject);
      const scored: Array<{ card: ListingSummary; score: number }> = [];
      for (const other of candidates) {
        const score = unlikeness(from, other);
        if (score !== undefined) scored.push({ card: other.card, score });
      }
      scored.sort((a, b) => a.score - b.score || a.card.id - b.card.id);
      return scored.slice(0, limit).map((entry) => entry.card);
    },
  };
}

const similarQuerySchema = z.strictObject({
  limit: z
    .string({ error: 'must be given once, as a plain value' })
    .regex(/^\d{1,3}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().min(1, 'must be 1 or more').max(SIMILAR_MAX_LIMIT, `must be at most ${SIMILAR_MAX_LIMIT}`))
    .default(SIMILAR_DEFAULT_LIMIT),
});

/** Parses the similar route's query (`limit`); a bad or unknown parameter is a 400 naming it. */
export function parseSimilarQuery(query: Record<string, unknown>): { limit: number } {
  const result = similarQuerySchema.safeParse(query);
  if (result.success) return result.data;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) fields[key] = 'is not a parameter of similar homes';
    else fields[String(issue.path[0] ?? 'query')] ??= issue.message;
  }
  throw new HttpError(400, 'invalid_query', `Invalid similar homes query: ${Object.keys(fields).join(', ')}.`, fields);
}
