import { pageWordsEnAU, type PageWords, type Plural } from './words/en-AU.ts';
import { pageWordsAr } from './words/ar.ts';
import { pageWordsEl } from './words/el.ts';
import { pageWordsEs } from './words/es.ts';
import { pageWordsHi } from './words/hi.ts';
import { pageWordsIt } from './words/it.ts';
import { pageWordsKo } from './words/ko.ts';
import { pageWordsVi } from './words/vi.ts';
import { pageWordsZhHans } from './words/zh-Hans.ts';
import { pageWordsZhHant } from './words/zh-Hant.ts';

export type { PageWords, Plural };

/** Each built-in language's words for the relay's pages (contract/languages.ts); English variants read en-AU's. */
export const PAGE_WORDS: Record<string, PageWords> = {
  'en-AU': pageWordsEnAU,
  'zh-Hans': pageWordsZhHans,
  ar: pageWordsAr,
  vi: pageWordsVi,
  el: pageWordsEl,
  ko: pageWordsKo,
  it: pageWordsIt,
  'zh-Hant': pageWordsZhHant,
  es: pageWordsEs,
  hi: pageWordsHi,
};

/** The pages' words in a site language (a code of contract/languages.ts), en-AU's for English ones. */
export function pageWordsIn(language: string): PageWords {
  return PAGE_WORDS[language] ?? pageWordsEnAU;
}

/** A page's words with its placeholders filled and its plurals chosen, in the page's language. */
export class PageText {
  readonly #rules: Intl.PluralRules;
  readonly #numbers: Intl.NumberFormat;

  constructor(
    readonly words: PageWords,
    /** The locale numbers are written in (the elements' own: widget/shared/format.ts). */
    locale: string,
  ) {
    this.#rules = new Intl.PluralRules(locale);
    this.#numbers = new Intl.NumberFormat(locale);
  }

  /** Whether the page is in English, the language of the CRM's own words (a property type, "house"). */
  get english(): boolean {
    return this.words === pageWordsEnAU;
  }

  /** A number in the page's digits. */
  number(value: number): string {
    return this.#numbers.format(value);
  }

  /** The string `key` with each `{name}` replaced by its value. */
  say(key: { [K in keyof PageWords]: PageWords[K] extends string ? K : never }[keyof PageWords], values: Record<string, string | number> = {}): string {
    return fill(this.words[key] as string, values, this.#numbers);
  }

  /** The plural string `key` for `count`, its `{count}` written in the page's digits. */
  count(
    key: { [K in keyof PageWords]: PageWords[K] extends Plural ? K : never }[keyof PageWords],
    count: number,
    values: Record<string, string | number> = {},
  ): string {
    const forms = this.words[key] as Plural;
    const form = forms[this.#rules.select(count)] ?? forms.other;
    return fill(form, { ...values, count }, this.#numbers);
  }
}

function fill(text: string, values: Record<string, string | number>, numbers: Intl.NumberFormat): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) return whole;
    return typeof value === 'number' ? numbers.format(value) : value;
  });
}
