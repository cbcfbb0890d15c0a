/**
 * The languages the widget ships words for, beyond the English ones each element's strings module
 * carries: each has a folder `widget/i18n/<code>/` with a file per section, fetched only by a page
 * in that language (translations.ts). Adding a language: its folder, its code here, and a line in
 * each section's loader map (widget/i18n/sections/); test/i18n/translations.test.ts checks all three.
 */
export const BUILT_IN_LANGUAGES = ['zh-Hans', 'ar'] as const;
export type BuiltInLanguage = (typeof BUILT_IN_LANGUAGES)[number];

/**
 * The pseudo-locale of the project's own tests (widget/i18n/pseudo.ts): en-AU's words accented and
 * lengthened, generated when a test asks for it, never fetched by a page.
 */
export const PSEUDO_LOCALE = 'en-XA';

/** Languages written right to left (their primary subtag). */
const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'dv', 'yi', 'ckb']);

export function isRightToLeft(lang: string): boolean {
  return RIGHT_TO_LEFT.has(lang.toLowerCase().split('-')[0]!);
}

/** Chinese regions that write Traditional characters when a tag names no script. */
const TRADITIONAL_REGIONS = new Set(['tw', 'hk', 'mo']);

/**
 * The built-in language a `lang` reads, or undefined (English, or a language we ship no words
 * for): matched by language, and for Chinese by script, or by region where no script is given
 * (zh-CN, zh-SG, zh-Hans → zh-Hans; zh-TW, zh-HK, zh-Hant → zh-Hant).
 */
export function builtInLanguage(lang: string, available: readonly string[] = BUILT_IN_LANGUAGES): string | undefined {
  const subtags = lang.toLowerCase().split(/[-_]/);
  let wanted = subtags[0]!;
  if (wanted === 'zh') {
    const script = subtags.find((subtag) => subtag === 'hans' || subtag === 'hant');
    const traditional = script ? script === 'hant' : subtags.some((subtag) => TRADITIONAL_REGIONS.has(subtag));
    wanted = traditional ? 'zh-hant' : 'zh-hans';
  }
  return available.find((code) => code.toLowerCase() === wanted);
}

/**
 * The `lang` to mark the CRM's content with (descriptions, headings, addresses, agents' profiles),
 * which stays in the agency's language: the `content-lang` attribute, en-AU by default. Only where
 * it differs from the element's language (undefined on an English page: no markup changes there),
 * so a screen reader reading a page in Arabic switches to an English voice for the address.
 */
export function contentLangFor(lang: string, contentLang: string | null | undefined): string | undefined {
  const content = contentLang?.trim() || DEFAULT_LOCALE;
  // The pseudo-locale is English made strange: the CRM's English is another language beside it.
  if (lang.toLowerCase() === PSEUDO_LOCALE.toLowerCase()) return content;
  return content.toLowerCase().split('-')[0] === lang.toLowerCase().split('-')[0] ? undefined : content;
}

/** The locale the elements format in by default (format.ts). */
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
