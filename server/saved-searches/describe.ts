import type { SavedSearchFilters } from '../../contract/saved-search.ts';
import { AlertText } from './words.ts';

/** "homes for sale in Kew or Hawthorn, House, 3+ bed, up to $1,500,000": the search in an agent's words (English: what the CRM's staff read). */
export function describeSearch(search: SavedSearchFilters): string {
  return new AlertText('en-AU').describe(search);
}
