/** Registers `<estate-recently-viewed>`. `import 'estate-embed/widget/recently-viewed'` from a bundler. */
import { EstateRecentlyViewed } from './recently-viewed.ts';

export * from './recently-viewed.ts';

if (!customElements.get('estate-recently-viewed')) customElements.define('estate-recently-viewed', EstateRecentlyViewed);
