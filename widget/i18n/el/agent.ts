import type { AgentStrings } from '../../agent/strings.ts';

/** Greek words of <estate-agent> (translated for home buyers: formal plural; a name after "προς" or a colon, so no article has to agree with its gender). */
export default {
  loading: 'Φόρτωση…',
  filling: 'Η σελίδα ετοιμάζεται: τα στοιχεία του μεσιτικού γραφείου φορτώνονται. Θα ενημερωθεί αυτόματα.',
  notFound: 'Αυτό το πρόσωπο δεν ανήκει ή δεν ανήκει πλέον στην ομάδα μας.',
  gone: 'Αυτός ο μεσίτης δεν εργάζεται πλέον στο γραφείο μας.',
  goneHint: 'Η ομάδα μας θα χαρεί να σας εξυπηρετήσει.',
  noAgentId: 'Δεν επιλέχθηκε μεσίτης.',
  errorTitle: 'Δεν ήταν δυνατή η φόρτωση της σελίδας.',
  errorRetryLater: 'Δοκιμάστε ξανά σε λίγο.',
  retry: 'Δοκιμάστε ξανά',
  meetTheTeam: 'Γνωρίστε την ομάδα μας',
  call: 'Κλήση προς {name}',
  email: 'Email προς {name}',
  listingCount: { one: '{count} διαθέσιμο ακίνητο', other: '{count} διαθέσιμα ακίνητα' },
  about: 'Σχετικά με: {name}',
  current: 'Διαθέσιμα ακίνητα',
  noCurrent: '{name}: κανένα διαθέσιμο ακίνητο αυτή τη στιγμή.',
  results: 'Πωλήθηκαν και ενοικιάστηκαν',
  contact: 'Επικοινωνία: {name}',
  messageButton: 'Μήνυμα προς {name}',
  message: 'Στείλτε μήνυμα προς {name}',
  appraisal: 'Ζητήστε εκτίμηση από {name}',
} satisfies AgentStrings;
