/**
 * The id an element shows: its own attribute's (`listing-id`, `agent-id`) when that is a positive
 * whole number, else the one in the page URL's query parameter `param` names (`listing.html?id=42`
 * with `listing-id-param="id"`), else null.
 */
export function idFrom(id: number | null | undefined, param: string | null | undefined): number | null {
  if (typeof id === 'number' && Number.isInteger(id) && id > 0) return id;
  if (param) {
    const value = Number(new URLSearchParams(location.search).get(param));
    if (Number.isInteger(value) && value > 0) return value;
  }
  return null;
}
