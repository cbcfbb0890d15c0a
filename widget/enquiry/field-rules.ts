import { nameProblem } from '../../contract/name.ts';
import { isPhoneNumber } from '../../contract/phone.ts';
import type { EnquiryStrings } from './strings.ts';

// The rules of an enquiry's fields beyond the browser's own (required, type=email, maxlength), as
// the relay applies them (server/enquiries/schema.ts). Used by <estate-shortlist>'s form; the same
// rules as <estate-enquiry>'s, which keeps its own copy for now.

/** Chromium's type=email accepts "name@host"; the relay (and every real mailbox) wants a domain with a dot. */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export type EnquiryFieldName = 'fullName' | 'email' | 'mobile' | 'message' | 'consent';

/**
 * Sets the control's validity for the rules the browser does not know, and returns the message to
 * show under it (undefined: valid). `relayMessage` is what the relay last said about the field.
 */
export function fieldMessage(
  field: EnquiryFieldName,
  control: HTMLInputElement | HTMLTextAreaElement,
  words: EnquiryStrings,
  relayMessage?: string,
): string | undefined {
  control.setCustomValidity('');
  const value = control.value.trim();
  if (relayMessage) control.setCustomValidity(relayMessage);
  else if (field === 'email' && value && !control.validity.typeMismatch && !EMAIL_SHAPE.test(value)) control.setCustomValidity(words.errorEmail);
  else if (field === 'mobile' && value && !isPhoneNumber(value)) control.setCustomValidity(words.errorMobile);
  // Only spaces: the browser counts that as filled in, the relay does not.
  else if (control.required && control.type !== 'checkbox' && !value && control.value) control.setCustomValidity(words.errorRequired);
  // Only invisible characters, dots or digits: as good as empty, and the relay refuses it.
  else if (field === 'fullName' && value && nameProblem(value) === 'no_letter') control.setCustomValidity(words.errorRequired);
  const validity = control.validity;
  if (validity.valid) return undefined;
  if (validity.customError) return control.validationMessage;
  if (validity.valueMissing) return field === 'consent' ? words.errorConsent : words.errorRequired;
  if (validity.typeMismatch) return words.errorEmail;
  if (validity.tooLong) return words.errorTooLong;
  return control.validationMessage;
}
