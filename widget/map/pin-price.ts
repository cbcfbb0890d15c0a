import { fill } from '../shared/fill.ts';
import { formatNumber } from '../shared/format.ts';

/** The words a pin's short price is made of (MapStrings' `pin…`). */
export interface PinPriceWords {
  /** A pin whose listing shows no amount: "Contact agent". */
  withheld: string;
  /** "{amount}m" */
  millions: string;
  /** "{amount}k" */
  thousands: string;
  /** "{price} pw" */
  perWeek: string;
  /** "{price}+": a range or "offers over", by its lower end. */
  from: string;
}

/** Words without an amount longer than this do not fit on a pin: it says `withheld` instead. */
const LONGEST_WORDS = 18;
const AMOUNT = /(A\$|NZ\$|US\$|\$|£|€)\s?(\d[\d,]*(?:\.\d+)?)\s*(k|m|mil|million)?\b/gi;
const WEEKLY = /\b(pw|p\/w|per\s+week|a\s+week|weekly|wk)\b|\/\s*w(ee)?k\b/i;
const OPEN_ABOVE = /\b(over|from|above|plus|offers?\s+over)\b|\+/i;

/**
 * The short price on a pin, made from the price text the card shows ("$2,150,000" → "$2.15m",
 * "$650,000" → "$650k", "$650 per week" → "$650 pw", "$2,350,000 – $2,590,000" → "$2.35m+"). It
 * reads only that shown text (the relay's map answer has no other price), so a withheld price can
 * never reach a pin: a text without an amount is shown as it is when short ("Auction"), else in
 * the `withheld` words.
 */
export function pinPrice(shown: string | null | undefined, locale: string, words: PinPriceWords): string {
  const text = shown?.trim() ?? '';
  if (!text) return words.withheld;
  const amounts = [...text.matchAll(AMOUNT)];
  const first = amounts[0];
  if (!first) return text.length <= LONGEST_WORDS ? text : words.withheld;
  const [, symbol, digits, unit] = first;
  const scale = unit ? (/^k$/i.test(unit) ? 1_000 : 1_000_000) : 1;
  const value = Number(digits!.replace(/,/g, '')) * scale;
  if (!Number.isFinite(value) || value <= 0) return text.length <= LONGEST_WORDS ? text : words.withheld;
  const weekly = WEEKLY.test(text);
  let price: string;
  if (weekly || value < 10_000) price = `${symbol}${formatNumber(locale, value, { maximumFractionDigits: 0 })}`;
  else if (value >= 1_000_000) price = symbol + fill(words.millions, { amount: formatNumber(locale, value / 1_000_000, { maximumFractionDigits: 2 }) });
  else price = symbol + fill(words.thousands, { amount: formatNumber(locale, Math.round(value / 1_000), { maximumFractionDigits: 0 }) });
  if (weekly) return fill(words.perWeek, { price });
  return amounts.length > 1 || OPEN_ABOVE.test(text) ? fill(words.from, { price }) : price;
}
