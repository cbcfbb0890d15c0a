import { BUILT_IN_LANGUAGES } from '../../contract/languages.ts';

/** The languages the widget ships words for (contract/languages.ts: the relay's pages may be in them too). */
export { BUILT_IN_LANGUAGES, type BuiltInLanguage } from '../../contract/languages.ts';

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
