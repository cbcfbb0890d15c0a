import type { Suburb } from '../../contract/relay-api.ts';
import type { SavedSearchFilters } from '../../contract/saved-search.ts';
import { suburbKey } from '../../contract/saved-search-area.ts';

/**
 * Whether the CRM can take a saved search's suburbs, told at the form (a 400 the visitor can act
 * on) and not after a 202 (the CRM refuses a requirement naming a suburb it does not know, and the
 * saved search would be dead-lettered with nobody told). The CRM publishes no suburb catalogue in
 * the API the relay uses; the names it surely knows are those its own listing records carry, which
 * the relay holds (the listing cache, any status: `GET /api/v1/suburbs`). Before the first sync
 * fills that cache nothing is known, and nothing is refused (a guess never turns a buyer away).
 */

/** Suggestions offered for one unknown suburb. */
const SUGGESTIONS_MAX = 3;

export interface SuburbRefusal {
  /** `search.suburb` or `search.suburbs.<i>` → what is wrong. */
  fields: Record<string, string>;
  /** The same fields → close names the CRM knows, best first (possibly none). */
  suggestions: Record<string, string[]>;
}

/** The search's suburbs the CRM does not know, with close names; undefined when it knows them all (or knows none yet). */
export function refuseUnknownSuburbs(search: SavedSearchFilters, known: readonly Suburb[]): SuburbRefusal | undefined {
  if (known.length === 0) return undefined;
  const names = new Set(known.map((suburb) => suburbKey(suburb.name)));
  const named: Array<[string, string]> = [];
  if (search.suburb !== undefined) named.push(['search.suburb', search.suburb]);
  search.suburbs?.forEach((name, index) => named.push([`search.suburbs.${index}`, name]));
  const refusal: SuburbRefusal = { fields: {}, suggestions: {} };
  for (const [field, name] of named) {
    if (names.has(suburbKey(name))) continue;
    const close = closeNames(name, known);
    refusal.fields[field] =
      `"${name}" is not a suburb the agency's CRM knows` + (close.length > 0 ? `; did you mean ${close.join(', ')}?` : ': check its spelling');
    refusal.suggestions[field] = close;
  }
  return Object.keys(refusal.fields).length > 0 ? refusal : undefined;
}

/**
 * The known names closest to `typed`: a name that starts with it or holds it ("Kew" → "Kew East"),
 * or within a few typing slips (edits: one per three letters, at least two), fewest edits first.
 */
export function closeNames(typed: string, known: readonly Suburb[]): string[] {
  const wanted = suburbKey(typed);
  const scored: Array<{ name: string; score: number }> = [];
  const seen = new Set<string>();
  for (const { name } of known) {
    const key = suburbKey(name);
    if (seen.has(key)) continue;
    seen.add(key);
    const distance = editDistance(wanted, key);
    const within = wanted.length >= 3 && (key.startsWith(wanted) || key.includes(wanted) || wanted.startsWith(key));
    if (within || distance <= Math.max(2, Math.floor(wanted.length / 3))) scored.push({ name, score: within ? Math.min(distance, 1) : distance });
  }
  return scored
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name, 'en'))
    .slice(0, SUGGESTIONS_MAX)
    .map((entry) => entry.name);
}

/** Levenshtein distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
