import type { SimilarListingsStrings } from '../../similar-listings/strings.ts';

/** Greek words of <estate-similar-listings> (translated for home buyers: the words Spitogatos and xe.gr use). */
export default {
  bedrooms: { one: '{count} υπνοδωμάτιο', other: '{count} υπνοδωμάτια' },
  bathrooms: { one: '{count} μπάνιο', other: '{count} μπάνια' },
  carSpaces: { one: '{count} θέση στάθμευσης', other: '{count} θέσεις στάθμευσης' },
  badgeUnderOffer: 'Υπό διαπραγμάτευση',
  badgeSold: 'Πωλήθηκε',
  badgeLeased: 'Ενοικιάστηκε',
  priceFallback: 'Τιμή κατόπιν επικοινωνίας',
  auction: 'Δημοπρασία {date}',
  keep: 'Αποθήκευση στα αγαπημένα: {address}',
  heading: 'Παρόμοια ακίνητα',
} satisfies SimilarListingsStrings;
