import enquiryLoaders from '../i18n/sections/enquiry.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/**
 * Every word `<estate-enquiry>` shows (section `enquiry` of a Translation). Hosts override any of
 * them with the `strings` property or JSON attribute, or with the shorthand attribute of the same
 * name (`label-name` for `labelName`, …), which wins; `{seconds}` is filled in.
 */
export interface EnquiryStrings {
  /** Heading of a form about a listing. */
  headingListing: string;
  /** Heading of a contact-me form (an agent, no listing). */
  headingAgent: string;
  labelName: string;
  labelEmail: string;
  labelMobile: string;
  labelMessage: string;
  labelOptional: string;
  labelSubmit: string;
  hintMobile: string;
  errorRequired: string;
  errorEmail: string;
  errorMobile: string;
  errorTooLong: string;
  errorConsent: string;
  /** A field the relay refused, on a form not in English (an English form shows the relay's own message). */
  errorRefused: string;
  invalidMessage: string;
  sendingMessage: string;
  successMessage: string;
  errorMessage: string;
  rateLimitedMessage: string;
  refusedMessage: string;
}

export const defaultEnquiryStrings: EnquiryStrings = {
  headingListing: 'Enquire about this property',
  headingAgent: 'Send a message',
  labelName: 'Full name',
  labelEmail: 'Email',
  labelMobile: 'Mobile',
  labelMessage: 'Message',
  labelOptional: '(optional)',
  labelSubmit: 'Send enquiry',
  hintMobile: 'An Australian, New Zealand or UK number',
  errorRequired: 'Please fill in this field.',
  errorEmail: 'Please enter an email address such as name@example.com.',
  errorMobile: 'Please enter an Australian, New Zealand or UK phone number, such as 0412 345 678.',
  errorTooLong: 'This is too long; please shorten it.',
  errorConsent: 'Please tick this box to send your enquiry.',
  errorRefused: 'Please check this field.',
  invalidMessage: 'Your enquiry was not sent: please correct the fields marked with a message.',
  sendingMessage: 'Sending your enquiry…',
  successMessage: 'Thank you. Your enquiry has been sent and the agent will be in touch.',
  errorMessage: 'Your enquiry could not be sent yet. It is kept on this device and will be sent again automatically; you can also press the button to try now.',
  rateLimitedMessage: 'Too many enquiries were sent from this connection. Yours is kept and will be sent again in {seconds} seconds.',
  refusedMessage: 'Sorry, this enquiry could not be accepted. Please contact the agency directly.',
};

registerBuiltInTranslation<{ enquiry: EnquiryStrings }>(
  { $code: 'en-AU', enquiry: defaultEnquiryStrings },
  {
    $code: 'en-NZ',
    enquiry: {
      hintMobile: 'A New Zealand, Australian or UK number',
      errorMobile: 'Please enter a New Zealand, Australian or UK phone number, such as 021 123 4567.',
    },
  },
  {
    $code: 'en-GB',
    enquiry: {
      labelMobile: 'Mobile number',
      hintMobile: 'A UK, Australian or New Zealand number',
      errorMobile: 'Please enter a UK, Australian or New Zealand phone number, such as 07700 900123.',
    },
  },
);

registerSectionLoaders('enquiry', enquiryLoaders);
