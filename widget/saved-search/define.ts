/** Registers `<estate-saved-search>`. `import 'estate-embed/widget/saved-search'` from a bundler. */
import { EstateSavedSearch } from './saved-search.ts';

export * from './saved-search.ts';

if (!customElements.get('estate-saved-search')) customElements.define('estate-saved-search', EstateSavedSearch);
