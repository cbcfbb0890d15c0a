import type { RecentlyViewedStrings } from '../../recently-viewed/strings.ts';

/** Greek words of <estate-recently-viewed> (translated for home buyers: formal plural, the words Spitogatos and xe.gr use). */
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
  heading: 'Είδατε πρόσφατα',
  clear: 'Διαγραφή',
  clearName: 'Διαγραφή των ακινήτων που είδατε πρόσφατα',
  cleared: 'Τα ακίνητα που είδατε πρόσφατα διαγράφηκαν από αυτή τη συσκευή.',
  gone: 'Δεν είναι πλέον διαθέσιμο',
} satisfies RecentlyViewedStrings;
