import { z } from 'zod';
import type { Suburb, SuburbSuggestions } from '../../contract/relay-api.ts';
import { suburbKey } from '../../contract/saved-search-area.ts';
import { HttpError } from '../http/errors.ts';

/*
 * Suggestions as a buyer types a place (`GET /api/v1/suburbs/suggestions?q=`): the agency's
 * suburbs (those its listings are in, and those the places module has placed) that the words name,
 * by name or postcode, a slip or two forgiven. Never from an outside service: a geocoder's usage
 * policy forbids type-ahead, and the suburbs that matter to a buyer here are the agency's.
 *
 *   "3101" → Kew (a postcode, or its first digits: "310" → Kew, Hawthorn, ...)
 *   "Kew, VIC 3101" → Kew (the name, the state and the postcode, as an address writes them)
 *   "Hawthorne" → Hawthorn (within one edit per four letters: a letter too many, too few, wrong or two swapped)
 */

/** The most suggestions one answer gives: a list a buyer reads at a glance. */
export const SUGGESTIONS_MAX = 8;
/** The longest query taken: a suburb, its state and postcode, with room to spare. */
export const SUGGESTION_QUERY_MAX = 60;

const STATES = new Set(['act', 'nsw', 'nt', 'qld', 'sa', 'tas', 'vic', 'wa']);

/** `q`: letters, digits, blanks and the marks a place name or an address has (, . ' - &); nothing else. */
const suggestionQuerySchema = z.strictObject({
  q: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be given once, as a plain value') })
    .trim()
    .min(1, 'must not be empty')
    .max(SUGGESTION_QUERY_MAX, `must be at most ${SUGGESTION_QUERY_MAX} characters`)
    .regex(/^[\p{L}\p{M}\p{N} ,.'’&-]+$/u, "must be a suburb's name or postcode (letters, digits, blanks and , . ' - &)"),
});

/** The query parsed, or a 400 naming each bad or unknown parameter. */
export function parseSuggestionQuery(query: Record<string, unknown>): string {
  const result = suggestionQuerySchema.safeParse(query);
  if (result.success) return result.data.q;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) fields[key] = 'is not a suggestion parameter (only q)';
    else fields[String(issue.path[0] ?? 'q')] ??= issue.message;
  }
  throw new HttpError(400, 'invalid_query', `Invalid suggestion query: ${Object.keys(fields).join(', ')}.`, fields);
}

interface Wanted {
  /** The name's words, lower case ('' when only a postcode or state was typed). */
  name: string;
  /** A postcode or its first digits. */
  postcode?: string;
  state?: string;
}

/** What the words ask for: "Kew, VIC 3101" → name "kew", state "vic", postcode "3101". */
export function readQuery(q: string): Wanted {
  const words = q
    .toLowerCase()
    .replace(/[’']/g, '')
    .split(/[\s,.&]+/)
    .filter(Boolean);
  const wanted: Wanted = { name: '' };
  const name: string[] = [];
  for (const word of words) {
    if (/^\d{1,4}$/.test(word)) wanted.postcode = word;
    else if (STATES.has(word) && name.length > 0) wanted.state = word;
    else name.push(word);
  }
  wanted.name = suburbKey(name.join(' '));
  return wanted;
}

/** The suburbs the query names, best first, at most SUGGESTIONS_MAX, each once. */
export function suggestSuburbs(q: string, known: readonly Suburb[]): Suburb[] {
  const wanted = readQuery(q);
  const scored: Array<{ suburb: Suburb; score: number }> = [];
  const seen = new Set<string>();
  for (const suburb of known) {
    const key = suburbKey(suburb.name);
    const identity = `${key}|${suburb.state?.toLowerCase() ?? ''}`;
    if (!key || seen.has(identity)) continue;
    const score = scoreOf(wanted, key, suburb);
    if (score === undefined) continue;
    seen.add(identity);
    scored.push({ suburb, score });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.suburb.name.localeCompare(b.suburb.name, 'en'))
    .slice(0, SUGGESTIONS_MAX)
    .map(({ suburb }) => ({ name: suburb.name, postcode: suburb.postcode, state: suburb.state }));
}

/** Lower is better; undefined: not named. */
function scoreOf(wanted: Wanted, key: string, suburb: Suburb): number | undefined {
  if (wanted.postcode !== undefined && !(suburb.postcode ?? '').startsWith(wanted.postcode)) return undefined;
  if (wanted.state !== undefined && suburb.state && suburb.state.toLowerCase() !== wanted.state) return undefined;
  if (!wanted.name) return wanted.postcode === suburb.postcode ? 0 : 1;
  const name = wanted.name;
  if (key === name) return 0;
  if (key.startsWith(name)) return 1;
  if (key.split(' ').some((word) => word.startsWith(name))) return 2;
  // Slips: one edit per four letters typed (none under four letters, where any edit names another suburb).
  const allowed = Math.floor(name.length / 4);
  if (allowed === 0) return undefined;
  const whole = editDistance(name, key);
  if (whole <= allowed) return 3 + whole;
  // Still typing: the start of the name, with a slip ("Hawtj" → Hawthorn).
  const start = editDistance(name, key.slice(0, name.length));
  return start <= allowed ? 5 + start : undefined;
}

/**
 * Edits from one text to the other: a letter added, removed or changed, or two neighbours swapped
 * ("optimal string alignment"). Hand-written (twenty lines) rather than a dependency: the relay's
 * only other edit distance (saved-searches/suburbs.ts) is as small, and names are short.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The answer's shape (contract/relay-api.ts). */
export function suggestionsAnswer(q: string, known: readonly Suburb[]): SuburbSuggestions {
  return { items: suggestSuburbs(q, known) };
}
