import type { EnquiryAccepted, EnquiryRequest } from '../../contract/relay-api.ts';

/**
 * Detail of `estate-enquiry-submit`. Deliberately without the visitor's name, email, phone or
 * message: the event bubbles out of the shadow root to every listener on the page (analytics
 * tags included), and a host deciding whether to veto a send does not need them.
 */
export interface EnquirySubmitDetail {
  originalId: string;
  listingId?: number;
  agentId?: number;
  subject?: string;
  consent?: boolean;
}

export interface EnquirySuccessDetail {
  originalId: string;
}

export interface EnquiryErrorDetail {
  /** HTTP status of the relay's answer; 0 when no answer came (offline, timeout, CORS). */
  status: number;
  message: string;
  /** The relay's per-field messages (field name → message), empty when it gave none. */
  fields: Record<string, string>;
  /** The relay's close names for a refused value, by the same field names (a saved search's unknown suburb); absent when it gave none. */
  suggestions?: Record<string, string[]>;
  originalId: string;
  /** True when the submission is kept on this device and will be retried with the same originalId. */
  pending: boolean;
}

/** What the controls hold, by field name (a checkbox's checked state, every other control's text). */
export type FieldValues = Record<string, string | boolean>;

/** What every kind of lead carries, as the form builds it; a form adds its kind's own fields (`lead`). */
export type LeadContactFields = Pick<
  EnquiryRequest,
  'originalId' | 'fullName' | 'email' | 'mobile' | 'consent' | 'consentText' | 'website' | 'elapsedMs' | 'page' | 'campaign'
>;

/** What the send task resolves to: accepted now, or accepted earlier under the same originalId. */
export interface SendOutcome extends EnquiryAccepted {
  alreadyReceived: boolean;
}
