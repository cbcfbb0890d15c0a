import { britishCardStrings, defaultCardStrings, type CardStrings } from '../shared/listing-parts.ts';
import recentlyViewedLoaders from '../i18n/sections/recentlyViewed.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/** Every word `<estate-recently-viewed>` shows (section `recentlyViewed` of a Translation): its own, and a card's. */
export interface RecentlyViewedStrings extends CardStrings {
  heading: string;
  /** The button that forgets every home viewed on this device. */
  clear: string;
  /** Its accessible name (the button says only "Clear"). */
  clearName: string;
  /** Announced once the list is cleared. */
  cleared: string;
  /** A home the relay no longer has (withdrawn, or sold or leased and no longer shown). */
  gone: string;
}

export const defaultRecentlyViewedStrings: RecentlyViewedStrings = {
  ...defaultCardStrings,
  heading: 'Recently viewed',
  clear: 'Clear',
  clearName: 'Clear the homes you recently viewed',
  cleared: 'Your recently viewed homes were cleared from this device.',
  gone: 'No longer listed',
};

registerBuiltInTranslation<{ recentlyViewed: RecentlyViewedStrings }>(
  { $code: 'en-AU', recentlyViewed: defaultRecentlyViewedStrings },
  { $code: 'en-GB', recentlyViewed: britishCardStrings },
);

registerSectionLoaders('recentlyViewed', recentlyViewedLoaders);
