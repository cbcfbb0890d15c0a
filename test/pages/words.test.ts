// Issue #34: the relay's own page words (server/pages/words/) in every built-in language: each
// key of en-AU's, none left in English, the same {placeholders}, every plural category the
// language has and no other; and the filling in of numbers in the language's digits.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_LANGUAGES } from '../../contract/languages.ts';
import { PAGE_WORDS, PageText, pageWordsIn, type Plural } from '../../server/pages/words.ts';

const english = PAGE_WORDS['en-AU']!;
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!).sort();
const hasWords = (text: string) => /\p{L}/u.test(text.replace(/\{\w+\}/g, ''));

describe('page words', () => {
  it('has every built-in language and no other', () => {
    expect(Object.keys(PAGE_WORDS).sort()).toEqual(['en-AU', ...BUILT_IN_LANGUAGES].sort());
  });

  it.each(BUILT_IN_LANGUAGES)('%s: every key, translated, with the same placeholders and its plural categories', (code) => {
    const words = PAGE_WORDS[code] as unknown as Record<string, unknown>;
    const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
    const problems: string[] = [];
    for (const [key, en] of Object.entries(english)) {
      const value = words[key];
      if (value === undefined) problems.push(`${key}: missing`);
      else if (typeof en === 'string') {
        if (typeof value !== 'string') problems.push(`${key}: not a string`);
        else {
          if (hasWords(en) && value === en) problems.push(`${key}: left in English`);
          if (placeholders(value).join() !== placeholders(en).join()) problems.push(`${key}: placeholders ${placeholders(value)}, English ${placeholders(en)}`);
        }
      } else {
        const forms = value as Plural;
        const enOther = (en as Plural).other;
        for (const category of categories) if (!(category in forms)) problems.push(`${key}: no "${category}" form`);
        for (const [category, form] of Object.entries(forms)) {
          if (!categories.includes(category as Intl.LDMLPluralRule)) problems.push(`${key}: "${category}" is no plural category of ${code}`);
          if (placeholders(form).some((name) => !placeholders(enOther).includes(name))) problems.push(`${key}.${category}: a placeholder English has not`);
          if (Object.values(en as Plural).includes(form)) problems.push(`${key}.${category}: left in English`);
        }
        if (placeholders(forms.other).join() !== placeholders(enOther).join()) problems.push(`${key}.other: placeholders differ from English's`);
      }
    }
    for (const key of Object.keys(words)) if (!(key in english)) problems.push(`${key}: not a key of en-AU`);
    expect(problems).toEqual([]);
  });

  it("fills placeholders, chooses the plural form by the language's rules and writes numbers in its locale", () => {
    const en = new PageText(pageWordsIn('en-GB'), 'en-GB');
    expect(en.count('listDescription', 1, { list: 'Homes for sale' })).toBe('Homes for sale: 1 property.');
    expect(en.count('listDescription', 1200, { list: 'Homes for sale' })).toBe('Homes for sale: 1,200 properties.');
    expect(en.say('listInSuburb', { list: 'Homes for rent', suburb: 'Kew' })).toBe('Homes for rent in Kew');
    const ar = new PageText(pageWordsIn('ar'), 'ar-u-nu-latn');
    // Arabic has six forms: two (dual) is its own.
    expect(ar.count('listDescription', 2, { list: 'x' })).toBe(fillOther(PAGE_WORDS.ar!.listDescription.two!, { list: 'x', count: '2' }));
    const it = new PageText(pageWordsIn('it'), 'it');
    expect(it.count('listDescription', 12_000, { list: 'x' })).toContain('12.000');
  });
});

function fillOther(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!);
}
