/**
 * The price grid of the relay: the steps the filter bar offers, and the bands a listing whose
 * price is withheld ("Contact Agent", "Awaiting Price Guide", an auction without a guide...) is
 * filtered and sorted by. Shared by the widget (its min/max price choices) and the relay (the
 * bands), so what a visitor can pick and what the relay can tell apart are the same thing.
 *
 * Band i of a grid is [steps[i-1], steps[i]) (the first starts at 0, the last has no top). A
 * listing with a withheld price is only ever placed in its band: no sequence of requests can
 * locate it more precisely than that.
 */

/** Sale prices, in dollars. */
export const SALE_PRICE_STEPS: readonly number[] = [
  200_000, 300_000, 400_000, 500_000, 600_000, 700_000, 800_000, 900_000, 1_000_000, 1_250_000, 1_500_000, 1_750_000, 2_000_000, 2_500_000, 3_000_000,
  4_000_000, 5_000_000, 7_500_000, 10_000_000,
];

/** Rents, in dollars per week. */
export const WEEKLY_RENT_STEPS: readonly number[] = [200, 300, 400, 500, 600, 700, 800, 900, 1_000, 1_250, 1_500, 2_000, 3_000, 5_000];

/** The grid a listing of this type is placed on. */
export function priceSteps(type: 'sale' | 'lease'): readonly number[] {
  return type === 'lease' ? WEEKLY_RENT_STEPS : SALE_PRICE_STEPS;
}

/** The band of `price` on `steps`: from (inclusive) and below (exclusive; null for the open top band). */
export function priceBand(steps: readonly number[], price: number): { from: number; below: number | null } {
  let from = 0;
  for (const step of steps) {
    if (price < step) return { from, below: step };
    from = step;
  }
  return { from, below: null };
}
