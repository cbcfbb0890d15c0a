import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

/** Italian words of <estate-similar-listings> (translated for home buyers: the words Immobiliare.it and Idealista.it use). */
export default {
  bedrooms: { one: '{count} camera da letto', many: '{count} camere da letto', other: '{count} camere da letto' },
  bathrooms: { one: '{count} bagno', many: '{count} bagni', other: '{count} bagni' },
  carSpaces: { one: '{count} posto auto', many: '{count} posti auto', other: '{count} posti auto' },
  badgeUnderOffer: 'In trattativa',
  badgeSold: 'Venduto',
  badgeLeased: 'Affittato',
  priceFallback: 'Prezzo su richiesta',
  auction: 'Asta {date}',
  keep: 'Salva nei preferiti: {address}',
  heading: 'Immobili simili',
} satisfies SimilarListingsStrings;
