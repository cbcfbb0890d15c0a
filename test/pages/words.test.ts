// Issue #34: the relay's own page words (server/pages/words/) in every built-in language: each
// key of en-AU's, none left in English, the same {placeholders}, every plural category the
// language has and no other; and the filling in of numbers in the language's digits.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_LANGUAGES } from '../../contract/languages.ts';
import { PAGE_WORDS, PageText, pageWordsIn } from '../../server/pages/words.ts';
import { wordProblems } from '../support/words-check.ts';

const english = PAGE_WORDS['en-AU']!;

describe('page words', () => {
  it('has every built-in language and no other', () => {
    expect(Object.keys(PAGE_WORDS).sort()).toEqual(['en-AU', ...BUILT_IN_LANGUAGES].sort());
  });

  it.each(BUILT_IN_LANGUAGES)('%s: every key, translated, with the same placeholders and its plural categories', (code) => {
    expect(wordProblems(code, english, PAGE_WORDS[code]!)).toEqual([]);
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
