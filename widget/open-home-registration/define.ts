/** Registers `<estate-open-home-registration>`. `import 'estate-embed/widget/open-home-registration'` from a bundler. */
import { EstateOpenHomeRegistration } from './open-home-registration.ts';

export * from './open-home-registration.ts';

if (!customElements.get('estate-open-home-registration')) customElements.define('estate-open-home-registration', EstateOpenHomeRegistration);
