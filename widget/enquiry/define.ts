/** Registers `<estate-enquiry>`. `import 'estate-embed/widget/enquiry'` from a bundler. */
import { EstateEnquiry } from './enquiry.ts';

export * from './enquiry.ts';

if (!customElements.get('estate-enquiry')) customElements.define('estate-enquiry', EstateEnquiry);
