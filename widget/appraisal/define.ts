/** Registers `<estate-appraisal>`. `import 'estate-embed/widget/appraisal'` from a bundler. */
import { EstateAppraisal } from './appraisal.ts';

export * from './appraisal.ts';

if (!customElements.get('estate-appraisal')) customElements.define('estate-appraisal', EstateAppraisal);
