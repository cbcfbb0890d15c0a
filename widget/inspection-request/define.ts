/** Registers `<estate-inspection-request>`. `import 'estate-embed/widget/inspection-request'` from a bundler. */
import { EstateInspectionRequest } from './inspection-request.ts';

export * from './inspection-request.ts';

if (!customElements.get('estate-inspection-request')) customElements.define('estate-inspection-request', EstateInspectionRequest);
