import type { EnquiryStrings } from '../../enquiry/strings.ts';

/** Greek words of <estate-enquiry> (translated for home buyers: formal plural, as Greek property sites write their forms). */
export default {
  headingListing: 'Ζητήστε πληροφορίες για το ακίνητο',
  headingAgent: 'Στείλτε μήνυμα',
  labelName: 'Ονοματεπώνυμο',
  labelEmail: 'Διεύθυνση email',
  labelMobile: 'Κινητό τηλέφωνο',
  labelMessage: 'Μήνυμα',
  labelOptional: '(προαιρετικό)',
  labelSubmit: 'Αποστολή αιτήματος',
  hintMobile: 'Αριθμός Αυστραλίας, Νέας Ζηλανδίας ή Ηνωμένου Βασιλείου',
  errorRequired: 'Συμπληρώστε αυτό το πεδίο.',
  errorEmail: 'Εισαγάγετε μια διεύθυνση email, π.χ. name@example.com.',
  errorMobile: 'Εισαγάγετε αριθμό τηλεφώνου Αυστραλίας, Νέας Ζηλανδίας ή Ηνωμένου Βασιλείου, π.χ. 0412 345 678.',
  errorTooLong: 'Το κείμενο είναι πολύ μεγάλο· συντομεύστε το.',
  errorConsent: 'Επιλέξτε αυτό το πλαίσιο για να στείλετε το αίτημά σας.',
  errorRefused: 'Ελέγξτε ξανά αυτό το πεδίο.',
  invalidMessage: 'Το αίτημά σας δεν στάλθηκε: διορθώστε τα πεδία που φέρουν μήνυμα.',
  sendingMessage: 'Αποστολή του αιτήματός σας…',
  successMessage: 'Σας ευχαριστούμε. Το αίτημά σας στάλθηκε και ο μεσίτης θα επικοινωνήσει μαζί σας.',
  errorMessage:
    'Το αίτημά σας δεν ήταν δυνατό να σταλεί ακόμη. Φυλάσσεται σε αυτή τη συσκευή και θα σταλεί ξανά αυτόματα· μπορείτε επίσης να πατήσετε το κουμπί για να δοκιμάσετε τώρα.',
  rateLimitedMessage: 'Στάλθηκαν πάρα πολλά αιτήματα από αυτή τη σύνδεση. Το δικό σας φυλάσσεται και θα σταλεί ξανά σε {seconds} δευτερόλεπτα.',
  refusedMessage: 'Λυπούμαστε, το αίτημα αυτό δεν ήταν δυνατό να γίνει δεκτό. Επικοινωνήστε απευθείας με το μεσιτικό γραφείο.',
} satisfies EnquiryStrings;
