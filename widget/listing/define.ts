/**
 * Registers `<estate-listing>` and what it renders (`<estate-enquiry>`, `<estate-lightbox>`).
 * `import 'estate-embed/widget/listing'` from a bundler.
 */
import { defineDependencies } from '../shared/define.ts';
import { EstateListing } from './listing.ts';

export * from './listing.ts';

defineDependencies(EstateListing);
if (!customElements.get('estate-listing')) customElements.define('estate-listing', EstateListing);
