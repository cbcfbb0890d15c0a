/**
 * The address part of a listing's clean path (`/listings/42/12-example-street-kew-vic`): lower
 * case ASCII words joined by dashes, accents folded. Shared by the relay (which serves and
 * redirects to the path) and the widget (which links to it), so both write the same one.
 */
export function addressSlug(address: string | null | undefined): string {
  const slug = (address ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'listing';
}
