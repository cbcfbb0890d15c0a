import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Spanish words of <estate-recently-viewed> (translated for home buyers: "tú", neutral Spanish for Spain and Latin America, the words Idealista, Fotocasa and Zonaprop use). */
export default {
  bedrooms: { one: '{count} dormitorio', many: '{count} dormitorios', other: '{count} dormitorios' },
  bathrooms: { one: '{count} baño', many: '{count} baños', other: '{count} baños' },
  carSpaces: { one: '{count} estacionamiento', many: '{count} estacionamientos', other: '{count} estacionamientos' },
  badgeUnderOffer: 'En negociación',
  badgeSold: 'Vendido',
  badgeLeased: 'Alquilado',
  priceFallback: 'Consultar precio',
  auction: 'Subasta: {date}',
  keep: 'Guardar en favoritos: {address}',
  heading: 'Vistos recientemente',
  clear: 'Borrar',
  clearName: 'Borrar las propiedades que viste recientemente',
  cleared: 'Las propiedades que viste recientemente se borraron de este dispositivo.',
  gone: 'Ya no disponible',
} satisfies RecentlyViewedStrings;
