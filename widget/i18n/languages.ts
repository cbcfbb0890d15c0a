/** The languages the widget ships words for, and how a `lang` is matched to one (contract/languages.ts: the relay reads them too). */
export { BUILT_IN_LANGUAGES, builtInLanguage, isRightToLeft, type BuiltInLanguage } from '../../contract/languages.ts';

/**
 * The pseudo-locale of the project's own tests (widget/i18n/pseudo.ts): en-AU's words accented and
 * lengthened, generated when a test asks for it, never fetched by a page.
 */
export const PSEUDO_LOCALE = 'en-XA';
