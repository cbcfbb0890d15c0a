/**
 * The languages the widget ships words for, beyond the English ones each element's strings module
 * carries: each has a folder `widget/i18n/<code>/` with a file per section, fetched only by a page
 * in that language. The relay's pages are rendered in one of these or an English one
 * (SITE_LANGUAGE, an agency's `language`). Adding a language: its folder, its code here, and a line
 * in each section's loader map (widget/i18n/sections/); test/i18n/translations.test.ts checks all three.
 */
export const BUILT_IN_LANGUAGES = ['zh-Hans', 'ar', 'vi', 'el', 'ko', 'it', 'zh-Hant', 'es', 'hi'] as const;
export type BuiltInLanguage = (typeof BUILT_IN_LANGUAGES)[number];

/** The English the elements speak: en-AU, the base, and the words en-NZ and en-GB change. */
export const ENGLISH_LANGUAGES = ['en-AU', 'en-NZ', 'en-GB'] as const;

/** A language a site may be in, as written (case aside): an English one or a built-in one. */
export function siteLanguage(tag: string): string | undefined {
  const wanted = tag.trim().toLowerCase();
  return [...ENGLISH_LANGUAGES, ...BUILT_IN_LANGUAGES].find((code) => code.toLowerCase() === wanted);
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
 * The site language a visitor's `lang` reads (a form's, sent with a lead): a built-in one, an
 * English one (en-NZ, en-GB, else en-AU), or undefined for a language the relay has no words for.
 */
export function readsSiteLanguage(lang: string): string | undefined {
  const tag = lang.trim();
  if (!/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/.test(tag)) return undefined;
  if (/^en\b/i.test(tag)) return ENGLISH_LANGUAGES.find((code) => code.toLowerCase() === tag.toLowerCase().replace('_', '-')) ?? 'en-AU';
  return builtInLanguage(tag);
}

/** Languages written right to left (their primary subtag). */
const RIGHT_TO_LEFT = new Set(['ar', 'he', 'fa', 'ur', 'ps', 'dv', 'yi', 'ckb']);

export function isRightToLeft(lang: string): boolean {
  return RIGHT_TO_LEFT.has(lang.toLowerCase().split('-')[0]!);
}
