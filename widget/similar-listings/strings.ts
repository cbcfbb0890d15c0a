import { britishCardStrings, defaultCardStrings, type CardStrings } from '../shared/listing-parts.ts';
import similarListingsLoaders from '../i18n/sections/similarListings.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/** Every word `<estate-similar-listings>` shows (section `similarListings` of a Translation): its heading, and a card's words. */
export interface SimilarListingsStrings extends CardStrings {
  heading: string;
}

export const defaultSimilarListingsStrings: SimilarListingsStrings = { ...defaultCardStrings, heading: 'Similar homes' };

registerBuiltInTranslation<{ similarListings: SimilarListingsStrings }>(
  { $code: 'en-AU', similarListings: defaultSimilarListingsStrings },
  { $code: 'en-GB', similarListings: britishCardStrings },
);

registerSectionLoaders('similarListings', similarListingsLoaders);
