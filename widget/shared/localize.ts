/**
 * The translation registry, typed: every element's section and the type of its words. This is
 * the package's `estate-embed/widget/localize`, for a bundler that adds a language or changes a
 * few words: `registerTranslation({ $code: 'fr', enquiry: { labelSubmit: 'Envoyer' } })`, checked
 * against the words each element has. The registry itself is translations.ts, which knows no
 * element (each element's strings module registers its own section there); only this module
 * names them all, and nothing in the widget imports it but types, so no import loops back.
 */
import type { EnquiryStrings } from '../enquiry/strings.ts';
import type { LeadStrings } from '../lead-form/strings.ts';
import type { ListingStrings } from '../listing/strings.ts';
import type { ListingsStrings } from '../listings/strings.ts';
import type { ShortlistStrings } from '../shortlist/strings.ts';
import type { MapStrings } from '../map/strings.ts';
import type { SavedSearchStrings } from '../saved-search/strings.ts';
import type { SimilarListingsStrings } from '../similar-listings/strings.ts';
import type { RecentlyViewedStrings } from '../recently-viewed/strings.ts';
import type { TeamStrings } from '../team/strings.ts';
import type { AgentStrings } from '../agent/strings.ts';
import { registerBuiltInTranslation as registerBuiltIn, registerTranslation as register, wordsFor as wordsOf, type TranslationOf } from './translations.ts';

export { BASE_LANG, LocalizeController, langOf } from './translations.ts';

/** The words of each element, by section. */
export interface Sections {
  listings: ListingsStrings;
  listing: ListingStrings;
  enquiry: EnquiryStrings;
  leads: LeadStrings;
  shortlist: ShortlistStrings;
  map: MapStrings;
  savedSearch: SavedSearchStrings;
  similarListings: SimilarListingsStrings;
  recentlyViewed: RecentlyViewedStrings;
  team: TeamStrings;
  agent: AgentStrings;
}
export type Section = keyof Sections;

/**
 * A language's words: `$code` is a BCP 47 tag (`fr`, `en-GB`); any section and any key may be
 * left out, and falls back to the language without its region, then to en-AU.
 */
export type Translation = TranslationOf<Sections>;

/**
 * Adds languages, or words of a language (merged over what it has, so an agency can change a few).
 * Elements on the page show the new words at once.
 */
export const registerTranslation: (...translations: Translation[]) => void = register;

/** The built-in words, beneath whatever is there already (each element's strings module registers its own). */
export const registerBuiltInTranslation: (...translations: Translation[]) => void = registerBuiltIn;

/** The section's words for `lang`: en-AU, then the language, then the language with its region. */
export const wordsFor: <S extends Section>(section: S, lang: string) => Sections[S] = wordsOf;
