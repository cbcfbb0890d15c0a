/** Registers `<estate-shortlist>`. `import 'estate-embed/widget/shortlist'` from a bundler. */
import { EstateShortlist } from './shortlist.ts';

export * from './shortlist.ts';

if (!customElements.get('estate-shortlist')) customElements.define('estate-shortlist', EstateShortlist);
