/** Registers `<estate-lightbox>`. `import 'estate-embed/widget/lightbox'` from a bundler. */
import { EstateLightbox } from './lightbox.ts';

export * from './lightbox.ts';

if (!customElements.get('estate-lightbox')) customElements.define('estate-lightbox', EstateLightbox);
