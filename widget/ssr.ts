/**
 * What the relay renders its pages with (vite.ssr.config.ts builds it for Node): every element,
 * and the built-in languages' words, so a page in the agency's language is rendered in it.
 */
import './index.ts';
import { builtInLanguage, isRightToLeft } from './i18n/languages.ts';
import { registerBuiltInTranslation, renderingIn, sectionLoaders } from './shared/translations.ts';

export { builtInLanguage, isRightToLeft, renderingIn };

/** The sections each element shows, by tag: a page rendered with it carries their words. */
export function sectionsOfTag(tag: string): readonly string[] {
  return (customElements.get(tag) as { localizedSections?: string[] } | undefined)?.localizedSections ?? [];
}

/** A built-in language's words: its code, and each section's. */
export interface LanguageWords {
  code: string;
  sections: Record<string, object>;
}

const languages = new Map<string, Promise<LanguageWords>>();

/**
 * Every section's words in the built-in language `lang` reads, imported once and registered for
 * the server's renders; undefined for English or a language without built-in words.
 */
export function languageWords(lang: string): Promise<LanguageWords> | undefined {
  const code = builtInLanguage(lang);
  if (!code) return undefined;
  let words = languages.get(code);
  if (!words) {
    words = (async () => {
      const sections: Record<string, object> = {};
      for (const [section, loaders] of sectionLoaders) {
        const load = loaders[code];
        if (load) sections[section] = (await load()).default;
      }
      registerBuiltInTranslation({ $code: code, ...sections });
      return { code, sections };
    })();
    languages.set(code, words);
  }
  return words;
}
