/*
 * The keyword filter. The CRM's records carry no list of features a buyer could tick (the real ones
 * have none: a pool, a view or a study is written in the heading and description, and only single
 * records bring `highlights`), so features are found as words: `keywords=pool` finds the homes
 * whose card or page says "pool", "pools" or "poolside". Each listing's words are kept beside it
 * (listings.search_text, written with the listing): lower case, every run of other characters one
 * blank, a blank at each end, so that a word is matched from its start (" pool" is in " swimming
 * pool " and not in " liverpool ").
 */

/** The most words one keyword filter takes: each is one more scan of the listings' words. */
export const KEYWORDS_MAX = 8;

/** A text's words as the filter matches them: lower case, separated and surrounded by one blank. */
export function searchText(...parts: ReadonlyArray<string | null | undefined>): string {
  return ` ${words(parts.filter(Boolean).join(' ')).join(' ')} `;
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The SQL of a keyword filter: every word (up to KEYWORDS_MAX) found at the start of a word of the listing. */
export function keywordClause(keywords: string): [clause: string, ...params: string[]] {
  const wanted = [...new Set(words(keywords))].slice(0, KEYWORDS_MAX);
  // Only punctuation given: no word to find, so nothing is kept out.
  if (wanted.length === 0) return ['1 = 1'];
  return [wanted.map(() => 'instr(search_text, ?) > 0').join(' AND '), ...wanted.map((word) => ` ${word}`)];
}
