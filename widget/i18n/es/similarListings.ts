import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

/** Spanish words of <estate-similar-listings> (translated for home buyers: neutral Spanish for Spain and Latin America, the words Idealista, Fotocasa and Zonaprop use). */
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
  heading: 'Propiedades similares',
} satisfies SimilarListingsStrings;
