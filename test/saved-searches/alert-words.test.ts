// Issue #34: the saved search's confirmation e-mail and page (server/saved-searches/words/) in
// every built-in language: each key of en-AU's, none left in English, the same {placeholders}, the
// button's words quoted as the button says them; and the search described in the language.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_LANGUAGES } from '../../contract/languages.ts';
import { describeSearch } from '../../server/saved-searches/describe.ts';
import { ALERT_WORDS, AlertText } from '../../server/saved-searches/words.ts';
import { wordProblems } from '../support/words-check.ts';

const english = ALERT_WORDS['en-AU']!;

describe('confirmation words', () => {
  it('has every built-in language and no other', () => {
    expect(Object.keys(ALERT_WORDS).sort()).toEqual(['en-AU', ...BUILT_IN_LANGUAGES].sort());
  });

  it.each(BUILT_IN_LANGUAGES)('%s: every key, translated, with the same placeholders; the e-mail quotes its button', (code) => {
    const words = ALERT_WORDS[code]!;
    expect(wordProblems(code, english, words)).toEqual([]);
    expect(words.openLink).toContain(words.confirmButton);
  });

  it("describes a search in the agent's English for the CRM, and in the language for the visitor", () => {
    const search = {
      type: 'sale' as const,
      suburbs: ['Kew', 'Hawthorn', 'Richmond'],
      propertyType: 'House',
      minBeds: 3,
      minPrice: 900_000,
      maxPrice: 1_500_000,
    };
    expect(describeSearch(search)).toBe('homes for sale in Kew, Hawthorn or Richmond, House, 3+ bed, $900,000 to $1,500,000');
    expect(describeSearch({ type: 'lease', maxPrice: 650 })).toBe('homes for lease, up to $650');
    const zh = new AlertText('zh-Hans').describe(search);
    expect(zh).toContain('Kew、Hawthorn');
    expect(zh).not.toMatch(/homes|bed|to \$/);
    // A language without words reads en-AU's.
    expect(new AlertText('fr').describe(search)).toBe(describeSearch(search));
  });
});
