import type { SavedSearchFilters } from '../../contract/saved-search.ts';

/** "homes for sale in Kew or Hawthorn, House, 3+ bed, up to $1,500,000": the search in an agent's words. */
export function describeSearch(search: SavedSearchFilters): string {
  const kind = search.type === 'lease' ? 'homes for lease' : search.type === 'sale' ? 'homes for sale' : 'homes for sale or lease';
  const suburbs = search.suburbs ?? (search.suburb ? [search.suburb] : []);
  // "in Kew, Hawthorn or Richmond": any of them, as the requirement matches.
  const place = suburbs.length > 1 ? ` in ${suburbs.slice(0, -1).join(', ')} or ${suburbs.at(-1)}` : suburbs.length === 1 ? ` in ${suburbs[0]}` : '';
  const parts: string[] = [`${kind}${place}`];
  if (search.propertyType) parts.push(search.propertyType);
  if (search.minBeds !== undefined) parts.push(`${search.minBeds}+ bed`);
  if (search.minBaths !== undefined) parts.push(`${search.minBaths}+ bath`);
  if (search.minCars !== undefined) parts.push(`${search.minCars}+ car`);
  const money = (value: number) => `$${value.toLocaleString('en-AU')}`;
  if (search.minPrice !== undefined && search.maxPrice !== undefined) parts.push(`${money(search.minPrice)} to ${money(search.maxPrice)}`);
  else if (search.minPrice !== undefined) parts.push(`from ${money(search.minPrice)}`);
  else if (search.maxPrice !== undefined) parts.push(`up to ${money(search.maxPrice)}`);
  return parts.join(', ');
}
