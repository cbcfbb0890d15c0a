/**
 * One registry for every word the elements show, in the manner of Shoelace's localize: a table
 * per language, chosen by the element's `lang` or the nearest one above it (through shadow roots,
 * so an enquiry form inside a listing inside a grid follows the page), else the page's
 * `<html lang>`. en-AU is the base; en-NZ and en-GB are built in as the words that differ. An
 * agency adds a language or changes some words with `registerTranslation()`; one element's words
 * change with its `strings` property or attribute.
 *
 * Each element's strings module registers its own section (`listings`, `listing`, `enquiry`), so a
 * page downloads only the words of the elements it shows. The registry is generic over the
 * sections and imports no element: each strings module types its own section when it registers
 * it, and localize.ts (the package's `estate-embed/widget/localize`) names every section and its
 * words' type. So the registry sits below the elements' strings, and localize.ts above them.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { inheritedAttribute } from './inherited-attribute.ts';
import { mergeStrings } from './strings.ts';

/**
 * A language's words, by section (`Sections` maps each section to the type of its words): `$code`
 * is a BCP 47 tag (`fr`, `en-GB`); any section and any key may be left out, and falls back to the
 * language without its region, then to en-AU.
 */
export type TranslationOf<Sections extends object> = { $code: string } & { [S in keyof Sections]?: Partial<Sections[S]> };

export const BASE_LANG = 'en-au';

const registered = new Map<string, Record<string, object>>();
const hosts = new Set<LocalizeController<object>>();
/** Bumped by every registration, so elements' cached words are built again. */
let registryVersion = 0;
let langObserver: MutationObserver | undefined;

/**
 * Adds languages, or words of a language (merged over what it has, so an agency can change a few).
 * Elements on the page show the new words at once.
 */
export function registerTranslation<Sections extends object>(...translations: Array<TranslationOf<Sections>>): void {
  addTranslations(translations, false);
}

/**
 * The built-in words, registered by each element's strings module: beneath whatever is there
 * already, so words an agency registered before an element's code ran are kept (and a module
 * evaluated twice, as the widget build may copy one into two chunks, changes nothing).
 */
export function registerBuiltInTranslation<Sections extends object>(...translations: Array<TranslationOf<Sections>>): void {
  addTranslations(translations, true);
}

function addTranslations(translations: Array<TranslationOf<object>>, beneath: boolean): void {
  for (const { $code, ...sections } of translations) {
    const code = $code.toLowerCase();
    const known = registered.get(code) ?? {};
    for (const [section, words] of Object.entries(sections) as Array<[string, object]>) {
      known[section] = beneath ? { ...words, ...known[section] } : { ...known[section], ...words };
    }
    registered.set(code, known);
  }
  registryVersion += 1;
  for (const host of hosts) host.host.requestUpdate();
}

/** The section's words for `lang`: en-AU, then the language, then the language with its region. */
export function wordsFor<Words extends object>(section: string, lang: string): Words {
  const code = lang.toLowerCase();
  const language = code.split('-')[0];
  let words = registered.get(BASE_LANG)?.[section] as Words;
  for (const layer of [language, code]) {
    if (layer === BASE_LANG) continue;
    const more = registered.get(layer)?.[section];
    if (more) words = mergeStrings(words, more);
  }
  return words;
}

/** The `lang` in force for an element: its own, the nearest above it across shadow roots, the page's. */
export function langOf(element: Element): string {
  return inheritedAttribute(element, 'lang') || document.documentElement.lang || BASE_LANG;
}

/** The page's translation scripts already read (each is read once). */
const readScripts = new WeakSet<Element>();

/**
 * Translations a page declares without JavaScript of its own (the script-tag way, where the
 * elements' modules are not importable):
 * `<script type="application/json" data-estate-translation>{ "$code": "fr", "enquiry": { … } }</script>`
 * (an object or an array of them). A JSON script is data, so a strict CSP allows it. Read when an
 * element connects, so a script the page adds later counts from the next element on.
 */
function readPageTranslations(): void {
  for (const script of document.querySelectorAll('script[type="application/json"][data-estate-translation]')) {
    if (readScripts.has(script)) continue;
    readScripts.add(script);
    try {
      const parsed: unknown = JSON.parse(script.textContent ?? '');
      const translations = (Array.isArray(parsed) ? parsed : [parsed]).filter(
        (item): item is TranslationOf<object> => typeof item === 'object' && item !== null && typeof (item as { $code?: unknown }).$code === 'string',
      );
      if (!translations.length) throw new Error('expected an object with a "$code" (or an array of them)');
      registerTranslation(...translations);
    } catch (error) {
      console.error('estate-embed: ignored a <script data-estate-translation>:', error instanceof Error ? error.message : error);
    }
  }
}

/**
 * Held by each element: gives its words for its language, merged with its own overrides, and
 * renders it again when a language is registered or a `lang` attribute changes on the page.
 * `Sections` types each section's words (localize.ts's `Sections` for the elements).
 */
export class LocalizeController<Sections extends object> implements ReactiveController {
  constructor(readonly host: ReactiveControllerHost & HTMLElement) {
    host.addController(this);
  }

  hostConnected(): void {
    hosts.add(this);
    readPageTranslations();
    // Started on the first connection, not at import: nothing here runs on a server.
    if (!langObserver) {
      langObserver = new MutationObserver(() => {
        for (const host of hosts) host.host.requestUpdate();
      });
      langObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['lang'], subtree: true });
    }
  }

  hostDisconnected(): void {
    hosts.delete(this);
  }

  /** The section's words for the host's language, with `overrides` (its `strings`) on top. */
  words<S extends keyof Sections & string>(section: S, overrides?: unknown): Sections[S] {
    // On a server (no DOM to read a lang from) the base language.
    const lang = typeof document === 'undefined' || !this.host.isConnected ? BASE_LANG : langOf(this.host);
    // A render reads the words many times; the language, registry and overrides rarely change.
    const cached = this.cache;
    if (cached && cached.lang === lang && cached.section === section && cached.version === registryVersion && cached.overrides === overrides) {
      return cached.words as Sections[S];
    }
    const base = wordsFor<Sections[S] & object>(section, lang);
    const words = overrides ? mergeStrings(base, overrides) : base;
    this.cache = { lang, section, version: registryVersion, overrides, words };
    return words;
  }

  private cache: { lang: string; section: string; version: number; overrides: unknown; words: unknown } | undefined;
}
