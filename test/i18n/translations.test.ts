// The built-in languages' words (widget/i18n/<code>/<section>.ts) against en-AU's: every key there,
// none left in English, the same {placeholders}, every plural category the language has, and each
// section's loader map naming every language. Node only: the words are plain data.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../widget/listings/strings.ts';
import '../../widget/listings/filter-bar.strings.ts';
import '../../widget/listing/strings.ts';
import '../../widget/enquiry/strings.ts';
import '../../widget/lead-form/strings.ts';
import '../../widget/shortlist/strings.ts';
import '../../widget/map/strings.ts';
import '../../widget/saved-search/strings.ts';
import '../../widget/similar-listings/strings.ts';
import '../../widget/recently-viewed/strings.ts';
import '../../widget/team/strings.ts';
import '../../widget/agent/strings.ts';
import { BUILT_IN_LANGUAGES } from '../../widget/i18n/languages.ts';
import { wordsFor, type Section } from '../../widget/shared/localize.ts';

const SECTIONS: Section[] = [
  'listings',
  'listing',
  'enquiry',
  'leads',
  'shortlist',
  'map',
  'savedSearch',
  'similarListings',
  'recentlyViewed',
  'team',
  'agent',
];
const root = join(import.meta.dirname, '../../widget/i18n');

/**
 * Words that are the same in English and a language that really uses them: keys the keyboard
 * prints (Ctrl, ⌘), an example address, and strings of placeholders and symbols only ("{count}+"),
 * which the check skips by itself. Per language, as `section.key`.
 */
const SAME_AS_ENGLISH: Record<string, string[]> = {};

type Words = Record<string, unknown>;
type Forms = Record<string, string>;

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort();
/** True when a string has words to translate: letters outside its placeholders. */
const hasWords = (text: string) => /\p{L}/u.test(text.replace(/\{\w+\}/g, ''));
const isPlural = (value: unknown): value is Forms => typeof value === 'object' && value !== null && 'other' in value;

async function wordsOf(code: string, section: Section): Promise<Words> {
  return ((await import(`../../widget/i18n/${code}/${section}.ts`)) as { default: Words }).default;
}

describe('built-in languages', () => {
  it('each has its folder with a file per section, and each section loads each of them', async () => {
    for (const code of BUILT_IN_LANGUAGES) {
      for (const section of SECTIONS) expect(existsSync(join(root, code, `${section}.ts`)), `widget/i18n/${code}/${section}.ts`).toBe(true);
    }
    for (const section of SECTIONS) {
      const loaders = ((await import(`../../widget/i18n/sections/${section}.ts`)) as { default: Record<string, unknown> }).default;
      expect(Object.keys(loaders).sort(), `widget/i18n/sections/${section}.ts`).toEqual([...BUILT_IN_LANGUAGES].sort());
    }
  });

  describe.each(BUILT_IN_LANGUAGES)('%s', (code) => {
    const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;

    it.each(SECTIONS)('%s: every key of en-AU, translated, with the same placeholders and every plural category', async (section) => {
      const english = wordsFor(section, 'en-AU') as unknown as Words;
      const words = await wordsOf(code, section);
      const allowed = new Set(SAME_AS_ENGLISH[code] ?? []);
      const problems: string[] = [];
      const check = (key: string, en: unknown, value: unknown) => {
        if (value === undefined) return problems.push(`${key}: missing`);
        if (typeof en === 'string') {
          if (typeof value !== 'string') return problems.push(`${key}: not a string`);
          if (hasWords(en) && value === en && !allowed.has(`${section}.${key}`)) problems.push(`${key}: left in English ("${en}")`);
          if (placeholders(value).join() !== placeholders(en).join())
            problems.push(`${key}: placeholders ${placeholders(value)} where English has ${placeholders(en)}`);
        } else if (isPlural(en)) {
          if (!isPlural(value)) return problems.push(`${key}: no plural forms`);
          for (const category of categories) if (!(category in value)) problems.push(`${key}: no "${category}" form`);
          // The `other` form carries English's placeholders; a form for one number ("one", "two",
          // Arabic's "zero") may say the number in words, so it may leave {count} out, never add one.
          if (placeholders(value.other).join() !== placeholders(en.other!).join()) problems.push(`${key}.other: placeholders differ from English's`);
          for (const [category, form] of Object.entries(value)) {
            if (!categories.includes(category as Intl.LDMLPluralRule)) problems.push(`${key}: "${category}" is no plural category of ${code}`);
            const extra = placeholders(form).filter((name) => !placeholders(en.other!).includes(name));
            if (extra.length) problems.push(`${key}.${category}: placeholders ${extra} that English has not`);
            if (hasWords(form) && Object.values(en).includes(form)) problems.push(`${key}.${category}: left in English`);
          }
        } else if (typeof en === 'object' && en !== null) {
          if (typeof value !== 'object' || value === null) return problems.push(`${key}: not an object`);
          for (const [inner, enInner] of Object.entries(en)) check(`${key}.${inner}`, enInner, (value as Words)[inner]);
        }
      };
      for (const [key, en] of Object.entries(english)) check(key, en, words[key]);
      for (const key of Object.keys(words)) if (!(key in english)) problems.push(`${key}: not a key of en-AU`);
      expect(problems).toEqual([]);
    });
  });

  /**
   * Names of controls whose visible text is the number (a map cluster shows its count): every form
   * keeps {count} as a word of its own (no punctuation against it: axe reads "(2)،" as no "2"), so
   * the visible text is a word of the name (WCAG 2.5.3, axe's label-content-name-mismatch), even a
   * form that could say the number in words.
   */
  const NUMBER_SHOWN = [['map', 'clusterLabel']] as const;
  it.each(BUILT_IN_LANGUAGES)('%s: a control showing a number names it in every form', async (code) => {
    const missing: string[] = [];
    for (const [section, key] of NUMBER_SHOWN) {
      const forms = (await wordsOf(code, section))[key] as Forms;
      for (const [category, form] of Object.entries(forms)) if (!/(^|\s)\{count\}(\s|$)/.test(form)) missing.push(`${section}.${key}.${category}`);
    }
    expect(missing).toEqual([]);
  });

  it('counts plural categories from Intl: Arabic has all six', () => {
    // The check above takes its categories from Intl.PluralRules; this pins that it sees them.
    expect(new Intl.PluralRules('ar').resolvedOptions().pluralCategories.sort()).toEqual(['few', 'many', 'one', 'other', 'two', 'zero']);
  });
});
