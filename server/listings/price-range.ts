import { priceBand, priceSteps } from '../../contract/price-bands.ts';
import type { ListingType } from '../../contract/relay-api.ts';

/**
 * What price filters and sorting may know of a listing: the lowest and highest value its price may
 * have as far as a website visitor can tell, in whole cents, both inclusive. The cache stores only
 * this, never the CRM's searchPrice itself.
 *
 * - The price is shown (the display price states the search price: "$1,350,000", "$650 per week"):
 *   low = high = the price, so filters stay exact.
 * - Otherwise ("Contact Agent", "", "Awaiting Price Guide", "Auction", "Offers over $850,000" with
 *   another search price, a range): the price's band on the grid of contract/price-bands.ts, so no
 *   query can place it more precisely than its band.
 */
export interface PriceRange {
  lowCents: number;
  /** Null: the open top band. */
  highCents: number | null;
}

export function priceRange(
  searchPrice: number | null | undefined,
  displayPrice: string | null | undefined,
  type: ListingType,
  priceOnApplication?: boolean | null,
): PriceRange | null {
  if (typeof searchPrice !== 'number' || !Number.isFinite(searchPrice) || searchPrice < 0) return null;
  const cents = Math.round(searchPrice * 100);
  if (priceOnApplication !== true && amountsIn(displayPrice).some((amount) => Math.round(amount * 100) === cents)) {
    return { lowCents: cents, highCents: cents };
  }
  const band = priceBand(priceSteps(type), searchPrice);
  return { lowCents: band.from * 100, highCents: band.below === null ? null : band.below * 100 - 1 };
}

/**
 * The price a card shows, in whole cents, as the price sort reads it: the first amount its display
 * price writes ("Guide $2,150,000" → 2,150,000; a range "$2,350,000 – $2,590,000" by its lower
 * bound, the figure a buyer reads first and the least the seller says they will take); null when it
 * writes none ("Contact Agent", "Auction", ""), whatever the search price. Made from the public
 * display price alone, so an order by it tells nothing the cards do not.
 */
export function shownPriceCents(displayPrice: string | null | undefined): number | null {
  const [first] = amountsIn(displayPrice);
  return first === undefined ? null : Math.round(first * 100);
}

const SCALES: Record<string, number> = { k: 1_000, m: 1_000_000, mil: 1_000_000, million: 1_000_000 };

/** Dollar amounts written in a display price: "$1,350,000", "$1.35m", "$850k", "$650 pw". */
export function amountsIn(displayPrice: string | null | undefined): number[] {
  if (!displayPrice) return [];
  const amounts: number[] = [];
  for (const match of displayPrice.matchAll(/\$\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s?(k|m|mil|million)?\b/gi)) {
    const whole = Number(match[1]!.replaceAll(',', ''));
    const fraction = match[2] ? Number(match[2]) : 0;
    const scale = match[3] ? SCALES[match[3].toLowerCase()]! : 1;
    amounts.push((whole + fraction) * scale);
  }
  return amounts;
}
