import type { PluralForms } from '../shared/format.ts';
import listingLoaders from '../i18n/sections/listing.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/** Every word `<estate-listing>` and its lightbox show; override any through `strings`. */
export interface ListingStrings {
  loading: string;
  /** While a freshly started relay loads the listings from the CRM for the first time. */
  filling: string;
  notFound: string;
  noListingId: string;
  errorTitle: string;
  errorRetryLater: string;
  retry: string;
  priceFallback: string;
  badgeUnderOffer: string;
  badgeSold: string;
  badgeLeased: string;
  bedrooms: PluralForms;
  bathrooms: PluralForms;
  carSpaces: PluralForms;
  photos: string;
  openPhoto: string;
  /** A photo's text alternative where the agency gave it no caption. */
  photoAlt: string;
  showAllPhotos: PluralForms;
  /** The heart's visible word, and its accessible name (a toggle button: pressed while the home is kept). */
  keep: string;
  keepName: string;
  /** The share button's visible word and its accessible name; said once the link is copied; the name of the link shown to copy by hand where copying failed. */
  share: string;
  shareName: string;
  linkCopied: string;
  shareLink: string;
  noPhotos: string;
  description: string;
  facts: string;
  factBedrooms: string;
  factBathrooms: string;
  factEnsuites: string;
  factToilets: string;
  factCarSpaces: string;
  factLandArea: string;
  factFloorArea: string;
  factPropertyType: string;
  factMethodOfSale: string;
  features: string;
  floorplans: string;
  openFloorplan: string;
  links: string;
  /** The heading of the small map of where the listing is. */
  location: string;
  linkVideo: string;
  linkTour: string;
  linkOther: string;
  opensInNewTab: string;
  openHomes: string;
  noOpenHomes: string;
  addToCalendar: string;
  /** An open home's button that opens its registration form. */
  register: string;
  /** Opens the private inspection request form. */
  requestInspection: string;
  auction: string;
  auctionDate: string;
  auctionVenue: string;
  auctionAuctioneer: string;
  agents: string;
  /** The section's heading when every agent of the listing has left and the office is shown instead. */
  contactOffice: string;
  /** The office's name when the agency has not set one (SITE_NAME). */
  officeFallback: string;
  callAgent: string;
  emailAgent: string;
  enquire: string;
  lightboxLabel: string;
  lightboxCounter: string;
  close: string;
  previous: string;
  next: string;
}

export const defaultListingStrings: ListingStrings = {
  loading: 'Loading property…',
  filling: 'This property is on its way: the agency’s listings are being loaded. This page updates by itself.',
  notFound: 'This property is no longer listed.',
  noListingId: 'No property was chosen.',
  errorTitle: 'We could not load this property.',
  errorRetryLater: 'Please try again in a moment.',
  retry: 'Try again',
  priceFallback: 'Contact agent',
  badgeUnderOffer: 'Under offer',
  badgeSold: 'Sold',
  badgeLeased: 'Leased',
  bedrooms: { one: '{count} bedroom', other: '{count} bedrooms' },
  bathrooms: { one: '{count} bathroom', other: '{count} bathrooms' },
  carSpaces: { one: '{count} car space', other: '{count} car spaces' },
  photos: 'Photos',
  openPhoto: 'Open photo {index} of {total}',
  photoAlt: 'Photo {index} of {address}',
  showAllPhotos: { one: 'Show {count} photo', other: 'Show all {count} photos' },
  keep: 'Keep',
  keepName: 'Keep {address}',
  share: 'Share',
  shareName: 'Share {address}',
  linkCopied: 'Link copied',
  shareLink: 'Link to share',
  noPhotos: 'No photos yet',
  description: 'About this property',
  facts: 'Property details',
  factBedrooms: 'Bedrooms',
  factBathrooms: 'Bathrooms',
  factEnsuites: 'Ensuites',
  factToilets: 'Toilets',
  factCarSpaces: 'Car spaces',
  factLandArea: 'Land',
  factFloorArea: 'Floor area',
  factPropertyType: 'Property type',
  factMethodOfSale: 'Method of sale',
  features: 'Features',
  floorplans: 'Floorplans',
  openFloorplan: 'Open floorplan {index} of {total}',
  links: 'Video and virtual tours',
  location: 'Location',
  linkVideo: 'Watch the video',
  linkTour: 'Take the virtual tour',
  linkOther: 'View {kind}',
  opensInNewTab: '(opens in a new tab)',
  openHomes: 'Open homes',
  noOpenHomes: 'No open homes are scheduled. Contact the agent to arrange an inspection.',
  addToCalendar: 'Add to calendar',
  register: 'Register',
  requestInspection: 'Request a private inspection',
  auction: 'Auction',
  auctionDate: 'Date',
  auctionVenue: 'Venue',
  auctionAuctioneer: 'Auctioneer',
  agents: 'Contact the agent',
  contactOffice: 'Contact the agency',
  officeFallback: 'Our office',
  callAgent: 'Call {name}',
  emailAgent: 'Email {name}',
  enquire: 'Enquire about this property',
  lightboxLabel: 'Photos of {address}',
  lightboxCounter: '{index} of {total}',
  close: 'Close',
  previous: 'Previous photo',
  next: 'Next photo',
};

registerBuiltInTranslation<{ listing: ListingStrings }>(
  { $code: 'en-AU', listing: defaultListingStrings },
  { $code: 'en-NZ', listing: { noOpenHomes: 'No open homes are scheduled. Contact the agent to arrange a viewing.' } },
  {
    $code: 'en-GB',
    listing: {
      badgeLeased: 'Let',
      carSpaces: { one: '{count} parking space', other: '{count} parking spaces' },
      factCarSpaces: 'Parking spaces',
      openHomes: 'Open house viewings',
      noOpenHomes: 'No viewings are scheduled. Contact the agent to arrange one.',
      factLandArea: 'Plot',
    },
  },
);

registerSectionLoaders('listing', listingLoaders);
