/**
 * What a person's name may hold: at least one letter (any script), and nothing invisible that
 * could disguise it (format characters such as zero-width spaces and bidirectional overrides,
 * controls, line and paragraph separators). One check for both sides, like phone.ts: the relay's
 * schema refuses what this refuses, and the form says so before sending.
 */

/** Hangul fillers are letters to Unicode but show nothing: a name made of them is blank. */
const BLANK_LETTERS = /[\u115f\u1160\u3164\uffa0]/gu;
const LETTER = /\p{L}/u;
/** ZWNJ and ZWJ between letters are how Persian, Indic and other scripts write some names. */
const JOINER_BETWEEN_LETTERS = /(?<=[\p{L}\p{M}])[\u200c\u200d](?=\p{L})/gu;
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

export type NameProblem = 'no_letter' | 'hidden_characters';

/** Why `value` is not a name a person could have written, or undefined when it is fine. */
export function nameProblem(value: string): NameProblem | undefined {
  if (!LETTER.test(value.replace(BLANK_LETTERS, ''))) return 'no_letter';
  if (HIDDEN.test(value.replace(JOINER_BETWEEN_LETTERS, ''))) return 'hidden_characters';
  return undefined;
}
