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
import { wordProblems } from '../support/words-check.ts';

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
    it.each(SECTIONS)('%s: every key of en-AU, translated, with the same placeholders and every plural category', async (section) => {
      const english = wordsFor(section, 'en-AU') as unknown as Words;
      const allowed = new Set(SAME_AS_ENGLISH[code] ?? []);
      expect(wordProblems(code, english, await wordsOf(code, section), (key) => allowed.has(`${section}.${key}`))).toEqual([]);
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
