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
