import type { SavedSearchFilters } from '../../contract/saved-search.ts';
import { isRightToLeft } from '../../contract/languages.ts';
import { escapeHtml } from '../pages/html.ts';
import { alertWordsEnAU, type AlertWords } from './words/en-AU.ts';
import { alertWordsAr } from './words/ar.ts';
import { alertWordsEl } from './words/el.ts';
import { alertWordsEs } from './words/es.ts';
import { alertWordsHi } from './words/hi.ts';
import { alertWordsIt } from './words/it.ts';
import { alertWordsKo } from './words/ko.ts';
import { alertWordsVi } from './words/vi.ts';
import { alertWordsZhHans } from './words/zh-Hans.ts';
import { alertWordsZhHant } from './words/zh-Hant.ts';

export type { AlertWords };

/** Each built-in language's words for the confirmation e-mail and page (contract/languages.ts); English ones read en-AU's. */
export const ALERT_WORDS: Record<string, AlertWords> = {
  'en-AU': alertWordsEnAU,
  'zh-Hans': alertWordsZhHans,
  ar: alertWordsAr,
  vi: alertWordsVi,
  el: alertWordsEl,
  ko: alertWordsKo,
  it: alertWordsIt,
  'zh-Hant': alertWordsZhHant,
  es: alertWordsEs,
  hi: alertWordsHi,
};

/** A site language's locale for dates and money (Arabic with Latin digits, as the elements write it: widget/shared/format.ts). */
function localeOf(language: string): string {
  if (language.startsWith('en')) return language;
  return language === 'ar' ? 'ar-u-nu-latn' : language;
}

/** The confirmation's words in one language: its strings filled in, its dates and amounts in its locale. */
export class AlertText {
  readonly words: AlertWords;
  readonly locale: string;
  /** The language the words are in (`lang` of an e-mail or page): en-AU where the language has none of its own. */
  readonly lang: string;

  constructor(
    /** A site language (contract/languages.ts); one without words reads en-AU's. */
    readonly language: string,
  ) {
    this.words = ALERT_WORDS[language] ?? alertWordsEnAU;
    this.locale = ALERT_WORDS[language] ? localeOf(language) : 'en-AU';
    this.lang = this.words === alertWordsEnAU ? 'en-AU' : language;
  }

  /** `lang` (and `dir` for a right-to-left language) for the `<html>` of an e-mail or page in these words. */
  htmlAttributes(): string {
    return `lang="${escapeHtml(this.lang)}"${isRightToLeft(this.lang) ? ' dir="rtl"' : ''}`;
  }

  /** The string `key` with each `{name}` replaced by its value. */
  say(key: keyof AlertWords, values: Record<string, string> = {}): string {
    return this.words[key].replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  }

  /** "homes for sale in Kew or Hawthorn, House, 3+ bed, up to $1,500,000", in the language. */
  describe(search: SavedSearchFilters): string {
    const homes = this.say(search.type === 'lease' ? 'homesForLease' : search.type === 'sale' ? 'homesForSale' : 'homesForSaleOrLease');
    const suburbs = search.suburbs ?? (search.suburb ? [search.suburb] : []);
    const separator = this.words.listSeparator;
    const place =
      suburbs.length > 1
        ? this.say('inSuburbs', { homes, suburbs: suburbs.slice(0, -1).join(separator), last: suburbs.at(-1)! })
        : suburbs.length === 1
          ? this.say('inSuburb', { homes, suburb: suburbs[0]! })
          : homes;
    const count = (value: number) => new Intl.NumberFormat(this.locale).format(value);
    const money = (value: number) =>
      new Intl.NumberFormat(this.locale, { style: 'currency', currency: 'AUD', currencyDisplay: 'narrowSymbol', maximumFractionDigits: 0 }).format(value);
    const parts: string[] = [place];
    // The CRM's property type as the form sent it ("House"): a name, as a suburb is.
    if (search.propertyType) parts.push(search.propertyType);
    if (search.minBeds !== undefined) parts.push(this.say('minBeds', { count: count(search.minBeds) }));
    if (search.minBaths !== undefined) parts.push(this.say('minBaths', { count: count(search.minBaths) }));
    if (search.minCars !== undefined) parts.push(this.say('minCars', { count: count(search.minCars) }));
    if (search.minPrice !== undefined && search.maxPrice !== undefined)
      parts.push(this.say('priceBetween', { min: money(search.minPrice), max: money(search.maxPrice) }));
    else if (search.minPrice !== undefined) parts.push(this.say('priceFrom', { min: money(search.minPrice) }));
    else if (search.maxPrice !== undefined) parts.push(this.say('priceUpTo', { max: money(search.maxPrice) }));
    return parts.join(separator);
  }

  /** A day, in full, in the language ("Tuesday 8 December 2026"). */
  date(at: number, timeZone: string): string {
    return new Intl.DateTimeFormat(this.locale, { dateStyle: 'full', timeZone }).format(new Date(at));
  }
}
