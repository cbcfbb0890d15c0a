import type { TeamStrings } from '../../team/strings.ts';

/** Greek words of <estate-team> (translated for home buyers: formal plural; names after "προς" so no article has to agree with them). */
export default {
  listLabel: 'Η ομάδα μας',
  loading: 'Φόρτωση της ομάδας…',
  filling: 'Η ομάδα ετοιμάζεται: τα στοιχεία του μεσιτικού γραφείου φορτώνονται. Η σελίδα θα ενημερωθεί αυτόματα.',
  emptyTitle: 'Δεν υπάρχει ακόμη κανείς εδώ.',
  emptyHint: 'Επικοινωνήστε με το γραφείο.',
  errorTitle: 'Δεν ήταν δυνατή η φόρτωση της ομάδας.',
  errorRetryLater: 'Δοκιμάστε ξανά σε λίγο.',
  retry: 'Δοκιμάστε ξανά',
  listingCount: { one: '{count} διαθέσιμο ακίνητο', other: '{count} διαθέσιμα ακίνητα' },
  call: 'Κλήση προς {name}',
} satisfies TeamStrings;
