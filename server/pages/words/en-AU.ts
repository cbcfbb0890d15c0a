/** Forms of a string by plural category (Intl.PluralRules of the page's language); `other` always. */
export type Plural = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

/**
 * The words of the relay's own pages (listing, list, team and agent pages: their headings, links,
 * titles and descriptions), in en-AU, the base. The elements on those pages bring their own words
 * (widget/i18n); what comes from the CRM stays as it is. `{name}` placeholders are filled in.
 */
export const pageWordsEnAU = {
  /** The list pages' headings, titles and menu links. */
  homesForSale: 'Homes for sale',
  homesForRent: 'Homes for rent',
  recentlySold: 'Recently sold',
  /** The team page's heading and title. */
  ourTeam: 'Our team',
  /** The heading of a list page of one suburb. */
  listInSuburb: '{list} in {suburb}',
  /** A list page's title past its first page. */
  listPage: '{list}, page {page}',
  /** A list page's description (search results, shared links); the first addresses follow. */
  listDescription: { one: '{list}: {count} property.', other: '{list}: {count} properties.' } as Plural,
  listDescriptionFrom: { one: '{list}: {count} property from {agency}.', other: '{list}: {count} properties from {agency}.' } as Plural,
  /** The links to each suburb's list under a list. */
  bySuburb: 'By suburb',
  listBySuburb: '{list} by suburb',
  /** The list pages' page links. */
  pages: 'Pages',
  previous: 'Previous',
  next: 'Next',
  /** The links to the lists above each page (a navigation landmark's name). */
  listingsNav: 'Listings',
  /** The language switcher's name (a navigation landmark), where the pages are offered in several. */
  languages: 'Languages',
  /** A listing page that was published and has gone (410), or never was (404), and what they offer instead. */
  listingGoneTitle: 'This property is no longer listed',
  listingGoneLead: 'It has been taken off the market or its listing has ended. These are on offer now:',
  listingMissingTitle: 'No such property',
  listingMissingLead: 'We could not find a property at this address. These are on offer now:',
  /** An agent's page likewise. */
  agentGoneTitle: 'This agent is no longer with us',
  agentGoneLead: 'They are no longer with the agency. Our team is here to help:',
  agentMissingTitle: 'No such agent',
  agentMissingLead: 'We could not find this agent. Our team is here to help:',
  /** An agent's listings on their page, and the name of each list's landmark. */
  onTheMarket: 'On the market',
  soldAndLeased: 'Sold and leased',
  agentList: '{list}: {name}',
  /** An open home as an event in the listing's structured data (schema.org Event): its name and description. */
  openHomeEvent: 'Open home: {address}',
  openHomeEventDescription: 'Inspection of {address}',
  /** What a shared link says a listing is, when it shows no price. */
  offerSold: 'Sold',
  offerLeased: 'Leased',
  offerForSale: 'For sale',
  offerForLease: 'For lease',
  /**
   * A listing's description when the agency wrote none: "3 bed, 2 bath house in Kew. For sale."
   * (`what`: the counts and the CRM's property type, or `property`; the offer follows).
   */
  beds: { one: '{count} bed', other: '{count} bed' } as Plural,
  baths: { one: '{count} bath', other: '{count} bath' } as Plural,
  cars: { one: '{count} car', other: '{count} car' } as Plural,
  property: 'property',
  whatIn: '{what} in {suburb}.',
  /** The team page's description; the first names follow. */
  teamDescription: { one: 'Meet the team: {count} person.', other: 'Meet the team: {count} people.' } as Plural,
  teamDescriptionAt: { one: 'Meet the team at {agency}: {count} person.', other: 'Meet the team at {agency}: {count} people.' } as Plural,
  /** An agent's description when they wrote no profile. */
  agentAt: '{name} at {agency}.',
  agentHomes: { one: '{count} home on the market.', other: '{count} homes on the market.' } as Plural,
  agentResults: { one: '{count} recently sold or leased.', other: '{count} recently sold or leased.' } as Plural,
};

export type PageWords = typeof pageWordsEnAU;
