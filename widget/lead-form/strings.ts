import leadsLoaders from '../i18n/sections/leads.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/**
 * The words of the other lead forms (`<estate-appraisal>`, `<estate-open-home-registration>`,
 * `<estate-inspection-request>`): section `leads` of a Translation. The words they share with
 * `<estate-enquiry>` (name, e-mail, mobile, errors, sending…) are its section's; override either
 * with the `strings` property (this section's words) or a shorthand attribute. `{when}` and `{max}`
 * are filled in.
 */
export interface LeadStrings {
  consent: string;
  appraisalHeading: string;
  appraisalSubmit: string;
  appraisalSuccess: string;
  labelStreet: string;
  labelSuburb: string;
  labelPostcode: string;
  labelPropertyType: string;
  /** The property types offered, in order ("House|Apartment|…"): sent as chosen. */
  propertyTypes: string;
  labelBedrooms: string;
  labelSellingWhen: string;
  sellingNow: string;
  selling3: string;
  selling6: string;
  selling12: string;
  sellingNotSure: string;
  choose: string;
  openHomeHeading: string;
  openHomeSubmit: string;
  labelAttendees: string;
  /** Shown when the relay has the registration; also right for a repeat (the relay answers both alike). */
  openHomeSuccess: string;
  openHomeRegistered: string;
  registerAnother: string;
  addToCalendar: string;
  openHomeOver: string;
  inspectionHeading: string;
  inspectionSubmit: string;
  inspectionHint: string;
  labelTime: string;
  labelTimeOther: string;
  inspectionSuccess: string;
  errorPast: string;
  errorTooFar: string;
  errorSameTime: string;
}

export const defaultLeadStrings: LeadStrings = {
  consent: 'I agree to the agency contacting me about this request.',
  appraisalHeading: 'What is my home worth?',
  appraisalSubmit: 'Request an appraisal',
  appraisalSuccess: 'Thank you. Your appraisal request has been sent and an agent will be in touch to arrange a time.',
  labelStreet: 'Street address',
  labelSuburb: 'Suburb',
  labelPostcode: 'Postcode',
  labelPropertyType: 'Property type',
  propertyTypes: 'House|Apartment|Unit|Townhouse|Land|Other',
  labelBedrooms: 'Bedrooms',
  labelSellingWhen: 'When are you thinking of selling?',
  sellingNow: 'As soon as possible',
  selling3: 'Within 3 months',
  selling6: 'Within 6 months',
  selling12: 'Within a year',
  sellingNotSure: 'Not sure yet',
  choose: 'Choose…',
  openHomeHeading: 'Register for the open home, {when}',
  openHomeSubmit: 'Register',
  labelAttendees: 'Number of people coming',
  openHomeSuccess: 'You are registered for the open home, {when}. Registering again changes nothing: the agent has your details once.',
  openHomeRegistered: 'You registered for this open home on this device.',
  registerAnother: 'Register another person',
  addToCalendar: 'Add to calendar',
  openHomeOver: 'This open home is over: it takes no more registrations.',
  inspectionHeading: 'Request a private inspection',
  inspectionSubmit: 'Send request',
  inspectionHint: 'Up to three times that suit you, in your time zone; the agent will confirm one.',
  labelTime: 'Preferred time',
  labelTimeOther: 'Another time that suits',
  inspectionSuccess: 'Thank you. Your request has been sent and the agent will be in touch to confirm a time.',
  errorPast: 'Please choose a time in the future.',
  errorTooFar: 'Please choose a time within the next {max} days.',
  errorSameTime: 'Please choose a different time from the one above.',
};

registerBuiltInTranslation<{ leads: LeadStrings }>({ $code: 'en-AU', leads: defaultLeadStrings });

registerSectionLoaders('leads', leadsLoaders);
