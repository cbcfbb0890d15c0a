/**
 * Registers `<estate-listings>`. Its in-place detail (`<estate-listing>`) is fetched when a visitor
 * first opens one. `import 'estate-embed/widget/listings'` from a bundler.
 */
import { EstateListings } from './listings.ts';

export * from './listings.ts';

if (!customElements.get('estate-listings')) customElements.define('estate-listings', EstateListings);
