import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Italian words of <estate-recently-viewed> (translated for home buyers: informal "tu", the words Immobiliare.it and Idealista.it use). */
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
  heading: 'Visti di recente',
  clear: 'Cancella',
  clearName: 'Cancella gli immobili che hai visto di recente',
  cleared: 'Gli immobili visti di recente sono stati cancellati da questo dispositivo.',
  gone: 'Non più disponibile',
} satisfies RecentlyViewedStrings;
