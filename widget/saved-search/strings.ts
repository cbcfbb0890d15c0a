import savedSearchLoaders from '../i18n/sections/savedSearch.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/**
 * The words of `<estate-saved-search>` (section `savedSearch` of a Translation); the words it shares
 * with the enquiry form (name, e-mail, mobile, errors, sending…) are that form's section. `{search}`,
 * `{count}` and `{price}` are filled in.
 */
export interface SavedSearchStrings {
  heading: string;
  submit: string;
  consent: string;
  /** What the alerts are about; `{search}` is the search in words. */
  intro: string;
  /** The search in words when it has no filter. */
  anyHome: string;
  forSale: string;
  forLease: string;
  inSuburb: string;
  minPrice: string;
  maxPrice: string;
  minBeds: string;
  minBaths: string;
  minCars: string;
  /** The relay's answer names no confirmation (a relay from before double opt-in). */
  success: string;
  /** Accepted, and a link e-mailed to `{email}` (the address typed) starts the alerts: nothing is sent before it is followed. */
  successEmail: string;
  /** Accepted, and the agency confirms with the person before sending any alert. */
  successAgent: string;
  /** Told to the visitor when the relay refuses the search because it does not offer alerts (403 `alerts_not_offered`): nothing was kept. */
  notOffered: string;
  /** A drawn area's suburbs, `{suburb}` as for inSuburb: the CRM keeps suburbs, not outlines. */
  inDrawnArea: string;
  /** A map area while its suburbs are being found. */
  areaLoading: string;
  /** The last two of a map area's suburbs: "{first} or {last}". */
  areaLast: string;
  /** More suburbs in the area than an alert follows; `{count}` more, `{max}` followed. */
  areaMore: string;
  /** No listing in the map area says which suburbs it covers. */
  areaEmpty: string;
  /** The area's suburbs could not be found (the relay did not answer). */
  areaFailed: string;
  /** Sending waits for the area's suburbs. */
  areaWait: string;
  /** "Include surrounding suburbs" while the suburbs around the chosen ones are being found. */
  surroundingLoading: string;
  /** More suburbs around the chosen ones than an alert follows; `{count}` more, `{max}` followed. */
  surroundingMore: string;
  /** The suburbs around the chosen ones could not be found (the relay did not answer). */
  surroundingFailed: string;
  /** Sending waits for the suburbs around the chosen ones. */
  surroundingWait: string;
  /** Before the close names offered for a suburb the agency does not know. */
  suggestionsLabel: string;
}

export const defaultSavedSearchStrings: SavedSearchStrings = {
  heading: 'Get alerts for this search',
  submit: 'Get alerts',
  consent: 'I agree to the agency e-mailing me new listings that match this search and contacting me about them.',
  intro: 'We will send you new listings that match: {search}.',
  anyHome: 'any home',
  forSale: 'for sale',
  forLease: 'for lease',
  inSuburb: 'in {suburb}',
  inDrawnArea: 'in {suburb} (the suburbs your area covers)',
  minPrice: 'from {price}',
  maxPrice: 'up to {price}',
  minBeds: '{count}+ bedrooms',
  minBaths: '{count}+ bathrooms',
  minCars: '{count}+ car spaces',
  success: 'Thank you. Your search is saved with the agency, and you will hear about new listings that match it.',
  successEmail:
    'Nearly done: check your inbox at {email} for an e-mail from the agency with a link that starts your alerts. Nothing is sent to you until you follow it.',
  successAgent: 'Thank you. The agency will confirm your alerts with you before sending any.',
  notOffered:
    'Sorry, alerts are not available on this site just now, so your details were not kept. Please contact the agency directly to hear about new listings.',
  areaLoading: 'in the map area (finding its suburbs…)',
  areaLast: '{first} or {last}',
  areaMore: 'The map area covers {count} more suburbs: alerts follow the {max} with the most homes. Zoom the map in to choose fewer.',
  areaEmpty: 'No home in the map area says which suburbs it covers yet. Move or widen the map, or choose a suburb.',
  areaFailed: 'The suburbs of the map area could not be found just now. Send again to try once more.',
  areaWait: 'Finding the suburbs of the map area; send again in a moment.',
  surroundingLoading: 'in {suburbs} and the suburbs around (finding them…)',
  surroundingFailed: 'The suburbs around yours could not be found just now. Send again to try once more.',
  surroundingWait: 'Finding the suburbs around yours; send again in a moment.',
  surroundingMore: 'Alerts follow {max} suburbs: yours and the nearest around them; {count} more further out are left out.',
  suggestionsLabel: 'Did you mean:',
};

registerBuiltInTranslation<{ savedSearch: SavedSearchStrings }>(
  { $code: 'en-AU', savedSearch: defaultSavedSearchStrings },
  {
    $code: 'en-NZ',
    savedSearch: {
      successEmail:
        'Nearly done: check your inbox at {email} for an email from the agency with a link that starts your alerts. Nothing is sent to you until you follow it.',
      notOffered:
        'Sorry, alerts are not available on this site right now, so your details were not kept. Please contact the agency directly to hear about new listings.',
    },
  },
  {
    $code: 'en-GB',
    savedSearch: {
      successEmail:
        'Almost there: check your inbox at {email} for an email from the agency with a link that starts your alerts. Nothing will be sent to you until you click it.',
      successAgent: 'Thank you. The agency will confirm your alerts with you before sending any.',
      notOffered:
        'Sorry, alerts are not available on this site at the moment, so your details have not been kept. Please contact the agency directly to hear about new listings.',
    },
  },
);

registerSectionLoaders('savedSearch', savedSearchLoaders);
