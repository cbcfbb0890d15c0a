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

/**
 * The section's words for `lang`: en-AU, then the language, then the built-in language it reads
 * (zh-CN reads zh-Hans), then the language with its region.
 */
export function wordsFor<Words extends object>(section: string, lang: string): Words {
  const code = lang.toLowerCase();
  const language = code.split('-')[0]!;
  let words = registered.get(BASE_LANG)?.[section] as Words;
  for (const layer of new Set([language, languageAliases.get(code), code])) {
    if (!layer || layer === BASE_LANG) continue;
    const more = registered.get(layer)?.[section];
    if (more) words = mergeStrings(words, more);
  }
  return words;
}

/** A section's words in a built-in language, as a module whose default export they are. */
type SectionModule = Promise<{ default: object }>;
/** Per section: a built-in language's code → its words' dynamic import (widget/i18n/sections/). */
export type SectionLoaders = Partial<Record<string, () => SectionModule>>;

/** Each section's loaders, for a bundler (the package's modules); the widget build has none (widget/i18n/words.ts). */
export const sectionLoaders = new Map<string, SectionLoaders>();

/**
 * Each element's strings module names how its section's words in each built-in language are
 * imported, for a bundler. Under widget.js (whose build leaves these maps out) the loader fetches
 * them instead, integrity checked.
 */
export function registerSectionLoaders(section: string, loaders: SectionLoaders | undefined): void {
  if (loaders) sectionLoaders.set(section, loaders);
}

/** A tag → the built-in language it reads, when that is another tag (zh-cn → zh-hans): widget/i18n/words.ts sets them. */
export const languageAliases = new Map<string, string>();

/**
 * Set on an element while its words in a built-in language are on their way (reset.styles.ts hides
 * it meanwhile, keeping its box): a reader of Chinese sees the element once, in Chinese, not first
 * in English. Bounded: after 1.5 s it shows, in English, and changes when they arrive.
 */
const WORDS_PENDING = 'data-estate-words-pending';

/** What widget/i18n/words.ts exports (typed here, not imported: that module imports this one). */
type WordsModule = { fetchWords(lang: string, section: string): Promise<void>; followDirection(host: HTMLElement, lang: string): void };
// Same key as widget/loader.ts (not imported: the loader's helper lives in another chunk).
const LOAD_ELEMENT_HOOK = Symbol.for('estate-embed.load-element');
let wordsModule: Promise<WordsModule> | undefined;
/** `<lang>/<section>` → its words' fetch, started once; `settled` once it has arrived or failed. */
const wordsLoads = new Map<string, Promise<unknown>>();
const settled = new Set<string>();

/**
 * The words of a language other than English, and its direction, come from a module of their own
 * (widget/i18n/words.ts), which an English page never fetches: so English pages carry almost none
 * of this. Under widget.js the loader fetches it, checked; from a bundler, its import.
 */
function fetchWords(lang: string, section: string): Promise<unknown> {
  const key = `${lang}/${section}`;
  let load = wordsLoads.get(key);
  if (!load) {
    const hook = (globalThis as { [LOAD_ELEMENT_HOOK]?: (key: string) => Promise<unknown> })[LOAD_ELEMENT_HOOK];
    const importIt = () => import('../i18n/words.ts');
    wordsModule ??= (hook ? hook('estate-i18n') : importIt()) as Promise<WordsModule>;
    load = wordsModule
      .then((module) => module.fetchWords(lang, section))
      .catch((error: unknown) => console.warn(`estate-embed: ${key} words not loaded (English shown):`, error));
    void load.then(() => settled.add(key));
    wordsLoads.set(key, load);
  }
  return load;
}

/** The `lang` in force for an element: its own, the nearest above it across shadow roots, the page's. */
export function langOf(element: Element): string {
  return inheritedAttribute(element, 'lang') || document.documentElement.lang || BASE_LANG;
}

/** On a server (no document, no `lang` to inherit): the language of the page being rendered. */
let serverLang = BASE_LANG;

/**
 * The language the server renders in from now on (server/pages, through widget/ssr.ts): every
 * element it renders, nested ones too, reads it, as in the browser they read the page's `lang`.
 */
export function renderingIn(lang: string): void {
  serverLang = lang.toLowerCase();
}

/** The page's translation scripts already read (each is read once). */
const readScripts = new WeakSet<Element>();

/**
 * Translations a page declares without JavaScript of its own (the script-tag way, where the
 * elements' modules are not importable):
 * `<script type="application/json" data-estate-translation>{ "$code": "fr", "enquiry": { … } }</script>`
 * (an object or an array of them). A JSON script is data, so a strict CSP allows it. Read when an
 * element connects, so a script the page adds later counts from the next element on. The relay's
 * pages carry a built-in language's words so (`data-estate-translation="built-in"`), the sections
 * their elements were rendered with: those are not fetched again, so the first render in the
 * browser is the server's, in the page's language, without waiting.
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
      if (script.getAttribute('data-estate-translation') !== 'built-in') registerTranslation(...translations);
      else {
        registerBuiltInTranslation(...translations);
        for (const { $code, ...sections } of translations) for (const section in sections) settled.add(`${$code.toLowerCase()}/${section}`);
      }
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
  /**
   * `sections`: those the host shows, fetched as it connects in a built-in language (a section
   * first asked for while rendering is fetched then).
   */
  constructor(
    readonly host: ReactiveControllerHost & HTMLElement,
    sections: ReadonlyArray<keyof Sections & string> = [],
  ) {
    this.#sections = sections;
    host.addController(this);
  }

  readonly #sections: readonly string[];

  /** The host's language, lower case: its own `lang`, the nearest above it, the page's; on a server the page's (renderingIn); en-AU while disconnected. */
  get lang(): string {
    if (typeof document === 'undefined') return serverLang;
    return this.host.isConnected ? langOf(this.host).toLowerCase() : BASE_LANG;
  }

  hostConnected(): void {
    hosts.add(this);
    readPageTranslations();
    for (const section of this.#sections) this.#fetchWords(this.lang, section);
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

  hostUpdate(): void {
    const lang = this.lang;
    if (lang !== BASE_LANG && !/^en(-|$)/.test(lang)) void wordsModule?.then((module) => module.followDirection(this.host, lang));
    // Back to English (no module then): a `dir` it set goes.
    else if (this.host.hasAttribute('data-estate-dir')) {
      this.host.removeAttribute('dir');
      this.host.removeAttribute('data-estate-dir');
    }
  }

  /** Starts fetching the section's words in the host's language unless it is English or they are here; hides the host meanwhile. */
  #fetchWords(lang: string, section: string): void {
    if (/^en(-|$)/.test(lang) || settled.has(`${lang}/${section}`)) return;
    const load = fetchWords(lang, section);
    if (this.#waiting.has(load)) return;
    this.#waiting.add(load);
    this.host.setAttribute(WORDS_PENDING, '');
    void Promise.race([load, new Promise((resolve) => setTimeout(resolve, 1500))]).then(() => {
      this.#waiting.delete(load);
      if (!this.#waiting.size) this.host.removeAttribute(WORDS_PENDING);
      this.host.requestUpdate();
    });
  }

  readonly #waiting = new Set<Promise<unknown>>();

  /** The section's words for the host's language, with `overrides` (its `strings`) on top. */
  words<S extends keyof Sections & string>(section: S, overrides?: unknown): Sections[S] {
    // On a server (no DOM to read a lang from) the base language.
    const lang = this.lang;
    this.#fetchWords(lang, section);
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
