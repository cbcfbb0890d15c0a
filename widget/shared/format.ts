/**
 * Locale-aware formatting for the elements, all through Intl so a `locale` attribute (en-AU by
 * default, en-NZ, en-GB, …) changes numbers, dates and areas with no string tables of our own.
 * Formatters are cached: Intl constructors are slow and cards render many times.
 */
import { fill } from './fill.ts';
import type { Area } from '../../contract/relay-api.ts';

/** The locale the elements format in by default. */
export const DEFAULT_LOCALE = 'en-AU';

/** The English variants whose own words the elements carry: another English (en, en-US) formats as en-AU, as its words are en-AU's. */
const ENGLISH_LOCALES = /^en-(au|nz|gb)$/i;

/**
 * The locale an element formats numbers, prices and dates in when it has no `locale`: its
 * language's, so a page in Chinese reads its dates in Chinese. Arabic with Latin digits
 * (`-u-nu-latn`): Australian agencies' Arabic pages and the portals' write prices and phone numbers
 * in the digits the listing's address, the CRM's prices and the keypad use, and a buyer compares
 * them with English pages; Intl's default for `ar` is Arabic-Indic digits.
 */
export function localeOfLanguage(lang: string): string {
  const tag = lang.trim();
  const language = tag.toLowerCase().split('-')[0];
  if (language === 'en') return ENGLISH_LOCALES.test(tag) ? tag : DEFAULT_LOCALE;
  if (language === 'ar' && !/-u-(.+-)?nu-/i.test(tag)) return /-u-/i.test(tag) ? `${tag}-nu-latn` : `${tag}-u-nu-latn`;
  return tag;
}

/** The currency an agency in that locale's region quotes in; AUD when the region is unknown. */
const CURRENCY_BY_REGION: Record<string, string> = { AU: 'AUD', NZ: 'NZD', GB: 'GBP', US: 'USD', IE: 'EUR', CA: 'CAD' };

/**
 * A usable BCP 47 tag: the element's `locale` when Intl accepts it, else the one its language
 * (`lang`) formats in (localeOfLanguage), else en-AU.
 */
export function resolveLocale(locale: string | null | undefined, lang?: string): string {
  const wanted = locale?.trim() || (lang ? localeOfLanguage(lang) : '');
  if (!wanted) return DEFAULT_LOCALE;
  try {
    return Intl.getCanonicalLocales(wanted)[0] ?? DEFAULT_LOCALE;
  } catch {
    return DEFAULT_LOCALE;
  }
}

/** The `currency` attribute when it is an ISO 4217 code, else the locale region's currency. */
export function resolveCurrency(locale: string, currency: string | null | undefined): string {
  const code = currency?.trim().toUpperCase();
  if (code && /^[A-Z]{3}$/.test(code)) return code;
  let region: string | undefined;
  try {
    region = new Intl.Locale(locale).maximize().region;
  } catch {
    region = undefined;
  }
  return (region && CURRENCY_BY_REGION[region]) || 'AUD';
}

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.PluralRules>();

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.PluralRules>(key: string, make: () => T): T {
  let value = cache.get(key) as T | undefined;
  if (!value) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

export function formatNumber(locale: string, value: number, options: Intl.NumberFormatOptions = {}): string {
  return cached(`n|${locale}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(locale, options)).format(value);
}

/** Whole-unit money for filter options ("$750,000", "NZ$750,000"); never used for a listing's price. */
export function formatMoney(locale: string, currency: string, value: number): string {
  return formatNumber(locale, value, { style: 'currency', currency, maximumFractionDigits: 0 });
}

/** Units the CRM writes, mapped to Intl's sanctioned units where one exists. */
const INTL_AREA_UNITS: Record<string, string> = { acre: 'acre', acres: 'acre', hectare: 'hectare', hectares: 'hectare', ha: 'hectare' };
const SUFFIX_AREA_UNITS: Record<string, string> = {
  sqm: 'm²',
  m2: 'm²',
  squaremeter: 'm²',
  squaremetre: 'm²',
  squaremeters: 'm²',
  squaremetres: 'm²',
  sqft: 'sq ft',
  squarefeet: 'sq ft',
  squarefoot: 'sq ft',
  squares: 'squares',
};

/** "650 m²", "2.5 ha"; null when the CRM sent no value. */
export function formatArea(locale: string, area: Area | null | undefined): string | null {
  if (!area || typeof area.value !== 'number' || !Number.isFinite(area.value)) return null;
  const unitKey = (area.units ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');
  const intlUnit = INTL_AREA_UNITS[unitKey];
  if (intlUnit) {
    return formatNumber(locale, area.value, { style: 'unit', unit: intlUnit, unitDisplay: 'short', maximumFractionDigits: 2 });
  }
  const number = formatNumber(locale, area.value, { maximumFractionDigits: 2 });
  const suffix = SUFFIX_AREA_UNITS[unitKey] ?? area.units ?? '';
  return suffix ? `${number} ${suffix}` : number;
}

function dateFormat(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cached(`d|${locale}|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(locale, options));
}

function validDate(iso: string | null | undefined): Date | null {
  if (!iso) return null;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** "Sat 4 May 2024, 10:00 am" in the given time zone (the browser's when none). */
export function formatDateTime(locale: string, iso: string | null | undefined, timeZone?: string): string | null {
  const date = validDate(iso);
  if (!date) return null;
  return dateFormat(locale, {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: safeZone(timeZone),
  }).format(date);
}

/** "Sat 4 May, 10:00 am": for one line on a card, where the year goes without saying. */
export function formatShortDateTime(locale: string, iso: string | null | undefined, timeZone?: string): string | null {
  const date = validDate(iso);
  if (!date) return null;
  return dateFormat(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit', timeZone: safeZone(timeZone) }).format(
    date,
  );
}

/** "Sat 4 May, 10:00 – 10:30 am": one date, a time range, as Intl writes ranges in that locale. */
export function formatTimeRange(locale: string, startIso: string, endIso: string, timeZone?: string): string | null {
  const start = validDate(startIso);
  const end = validDate(endIso);
  if (!start) return null;
  const format = dateFormat(locale, { weekday: 'short', day: 'numeric', month: 'short', hour: 'numeric', minute: '2-digit', timeZone: safeZone(timeZone) });
  if (!end || end < start) return format.format(start);
  return format.formatRange(start, end);
}

/** A machine-readable value for `<time datetime>`. */
export function isoOrEmpty(iso: string | null | undefined): string {
  return validDate(iso)?.toISOString() ?? '';
}

/** Zones already tried: a DateTimeFormat made only to try one cost each card's date a fraction of a millisecond. */
const zones = new Map<string, string | undefined>();

function safeZone(timeZone: string | undefined): string | undefined {
  if (!timeZone) return undefined;
  if (!zones.has(timeZone)) {
    try {
      new Intl.DateTimeFormat('en', { timeZone });
      zones.set(timeZone, timeZone);
    } catch {
      zones.set(timeZone, undefined);
    }
  }
  return zones.get(timeZone);
}

/**
 * Makes the formatters a listing card uses (a count and its plural, a short date in the zone)
 * before the card needs them. The first Intl formatter a page makes loads the locale's data: 20–40
 * ms of main thread on a fast machine, about 100 ms on Lighthouse's phone, which made the grid's
 * first render of cards one long task (issue 33's total blocking time). Called while the listings
 * are on their way, that cost is a task of its own when the page is waiting anyway.
 */
export function prepareFormatters(locale: string, timeZone?: string): void {
  plural(locale, 1, 'x');
  formatShortDateTime(locale, '2000-01-01T00:00:00Z', timeZone);
}

/** Plural forms a string can carry: Intl.PluralRules picks one, `other` is the fallback. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

export { fill };

/** Picks the plural form for `count` and fills `{count}` with the locale's number. */
export function plural(locale: string, count: number, forms: PluralForms | string, values: Record<string, string | number> = {}): string {
  const template = typeof forms === 'string' ? forms : (forms[cached(`p|${locale}`, () => new Intl.PluralRules(locale)).select(count)] ?? forms.other);
  return fill(template, { count: formatNumber(locale, count), ...values });
}
