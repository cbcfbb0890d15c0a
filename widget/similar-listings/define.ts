/** Registers `<estate-similar-listings>`. `import 'estate-embed/widget/similar-listings'` from a bundler. */
import { EstateSimilarListings } from './similar-listings.ts';

export * from './similar-listings.ts';

if (!customElements.get('estate-similar-listings')) customElements.define('estate-similar-listings', EstateSimilarListings);
