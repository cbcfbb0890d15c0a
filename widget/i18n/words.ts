/**
 * What a page in a language other than English needs beyond English's: the built-in languages'
 * words, fetched per section, and the right-to-left direction. Its own chunk (`estate-i18n`),
 * which translations.ts fetches only for an element whose language is not English, so English
 * pages download none of it.
 */
import { builtInLanguage, isRightToLeft } from './languages.ts';
import { inheritedAttribute } from '../shared/inherited-attribute.ts';
import { languageAliases, registerBuiltInTranslation, sectionLoaders } from '../shared/translations.ts';

/**
 * Replaced by the widget build (vite.config.ts) with each language's index, code → SHA-256: the
 * index names the SHA-256 of each of its sections' chunks. This chunk's own hash is in widget.js,
 * so a pinned widget.js vouches for every language's words.
 */
declare const __ESTATE_LANGUAGES__: Record<string, string>;

// Same key as widget/loader.ts, which installs it: a chunk by name and SHA-256, checked.
const LOAD_CHECKED_HOOK = Symbol.for('estate-embed.load-checked');
type CheckedImport = (name: string, sha256: string | undefined) => Promise<{ default: Record<string, string> }>;

function importWords(code: string, section: string): Promise<{ default: object }> {
  const checked = (globalThis as { [LOAD_CHECKED_HOOK]?: CheckedImport })[LOAD_CHECKED_HOOK];
  if (checked) return checked(`i18n-${code}`, __ESTATE_LANGUAGES__[code]).then((index) => checked(`i18n-${code}-${section}`, index.default[section]));
  const load = sectionLoaders.get(section)?.[code];
  return load ? load() : Promise.reject(new Error('no words were built for it'));
}

/** Fetches and registers the section's words in the built-in language `lang` reads (none: nothing to fetch, en-AU's words show). */
export async function fetchWords(lang: string, section: string): Promise<void> {
  const code = builtInLanguage(lang);
  if (!code) return;
  if (code.toLowerCase() !== lang) languageAliases.set(lang, code.toLowerCase());
  const words = await importWords(code, section);
  registerBuiltInTranslation({ $code: code, [section]: words.default });
}

/**
 * Right to left for a language written so (ar, he, fa, ur), unless a `dir` around the host says
 * so already: the host gets `dir="rtl"` (its content is in that language) and a mark that it was
 * ours, so the attribute goes again when its language changes to one written left to right.
 */
export function followDirection(host: HTMLElement, lang: string): void {
  const ours = host.hasAttribute('data-estate-dir');
  if (isRightToLeft(lang)) {
    if (!ours && inheritedAttribute(host, 'dir')?.toLowerCase() !== 'rtl') {
      host.setAttribute('dir', 'rtl');
      host.setAttribute('data-estate-dir', '');
    }
  } else if (ours) {
    host.removeAttribute('dir');
    host.removeAttribute('data-estate-dir');
  }
}
