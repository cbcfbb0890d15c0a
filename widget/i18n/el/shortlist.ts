import type { ShortlistStrings } from '../../shortlist/strings.ts';

/** Greek words of <estate-shortlist> (translated for home buyers: formal plural, "αγαπημένα" for the kept homes, as Spitogatos calls them). */
export default {
  count: { one: '{count} ακίνητο στα αγαπημένα σας', other: '{count} ακίνητα στα αγαπημένα σας' },
  emptyTitle: 'Δεν έχετε ακόμη αγαπημένα ακίνητα.',
  emptyHint: 'Πατήστε την καρδιά σε ένα ακίνητο για να το αποθηκεύσετε εδώ. Τα αγαπημένα σας μένουν σε αυτή τη συσκευή.',
  listLabel: 'Αγαπημένα ακίνητα',
  priceFallback: 'Τιμή κατόπιν επικοινωνίας',
  checking: 'Έλεγχος…',
  statusUnderOffer: 'Υπό διαπραγμάτευση',
  statusSold: 'Πωλήθηκε',
  statusLeased: 'Ενοικιάστηκε',
  statusGone: 'Δεν υπάρχει πλέον στην ιστοσελίδα',
  statusUnknown: 'Δεν ήταν δυνατός ο έλεγχος αυτή τη στιγμή',
  remove: 'Αφαίρεση',
  removeName: 'Αφαίρεση από τα αγαπημένα: {address}',
  removed: 'Αφαιρέθηκε από τα αγαπημένα: {address}.',
  enquireHeading: 'Ζητήστε πληροφορίες για αυτά τα ακίνητα',
  enquireIntro: 'Ένα αίτημα πηγαίνει στον μεσίτη κάθε ακινήτου που είναι ακόμη προς πώληση ή ενοικίαση.',
  enquireNone: 'Κανένα από τα αγαπημένα σας ακίνητα δεν είναι πλέον προς πώληση ή ενοικίαση, οπότε δεν υπάρχει μεσίτης για να ρωτήσετε.',
  defaultMessage: 'Ενδιαφέρομαι για αυτό το ακίνητο. Παρακαλώ στείλτε μου περισσότερες πληροφορίες.',
  submit: { one: 'Αποστολή {count} αιτήματος', other: 'Αποστολή {count} αιτημάτων' },
  sending: 'Αποστολή…',
  sent: 'Το αίτημα στάλθηκε',
  waiting: 'Δεν στάλθηκε ακόμη: φυλάσσεται σε αυτή τη συσκευή και θα σταλεί ξανά αυτόματα.',
  waitingFor: 'Δεν στάλθηκε ακόμη: θα σταλεί ξανά αυτόματα σε {seconds} δευτερόλεπτα.',
  refused: 'Δεν έγινε δεκτό: {reason}',
  summaryAllSent: {
    one: 'Το αίτημά σας στάλθηκε. Ο μεσίτης θα επικοινωνήσει μαζί σας.',
    other: 'Τα {count} αιτήματά σας στάλθηκαν. Οι μεσίτες θα επικοινωνήσουν μαζί σας.',
  },
  summaryPartial: 'Στάλθηκαν {sent} από {total} αιτήματα. Δείτε κάθε ακίνητο για τα υπόλοιπα.',
} satisfies ShortlistStrings;
