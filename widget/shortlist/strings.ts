import type { PluralForms } from '../shared/format.ts';
import shortlistLoaders from '../i18n/sections/shortlist.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/**
 * Every word `<estate-shortlist>` shows (section `shortlist` of a Translation), but for its form's
 * labels and messages, which are the enquiry form's (section `enquiry`), so both forms read alike.
 * `{name}` placeholders are filled in; plural forms follow the element's locale.
 */
export interface ShortlistStrings {
  /** The live line above the homes. */
  count: PluralForms;
  emptyTitle: string;
  emptyHint: string;
  /** The label of the list of homes. */
  listLabel: string;
  priceFallback: string;
  checking: string;
  statusUnderOffer: string;
  statusSold: string;
  statusLeased: string;
  /** A kept home the relay no longer has (withdrawn, or sold or leased and no longer shown). */
  statusGone: string;
  /** The relay could not be asked about the home just now. */
  statusUnknown: string;
  remove: string;
  /** The remove button's accessible name. */
  removeName: string;
  /** Announced after a home is removed. */
  removed: string;
  enquireHeading: string;
  enquireIntro: string;
  /** Said instead of the form when no kept home can take an enquiry. */
  enquireNone: string;
  /** The message field's first text: each home's enquiry names its address as the subject. */
  defaultMessage: string;
  submit: PluralForms;
  sending: string;
  sent: string;
  /** Kept on this device and sent again by itself; `{seconds}` when the relay said how long to wait. */
  waiting: string;
  waitingFor: string;
  /** Refused for good; `{reason}` is the relay's message. */
  refused: string;
  /** The live line after a send: `{sent}` of `{total}` homes. */
  summaryAllSent: PluralForms;
  summaryPartial: string;
}

export const defaultShortlistStrings: ShortlistStrings = {
  count: { one: '{count} home in your shortlist', other: '{count} homes in your shortlist' },
  emptyTitle: 'Your shortlist is empty.',
  emptyHint: 'Press the heart on a home to keep it here. Your shortlist stays on this device.',
  listLabel: 'Kept homes',
  priceFallback: 'Contact agent',
  checking: 'Checking…',
  statusUnderOffer: 'Under offer',
  statusSold: 'Sold',
  statusLeased: 'Leased',
  statusGone: 'No longer on the website',
  statusUnknown: 'Could not be checked just now',
  remove: 'Remove',
  removeName: 'Remove {address} from your shortlist',
  removed: 'Removed {address} from your shortlist.',
  enquireHeading: 'Enquire about these homes',
  enquireIntro: 'One enquiry goes to the agent of each home still for sale or rent.',
  enquireNone: 'None of your kept homes is for sale or rent now, so there is no one to enquire with.',
  defaultMessage: 'I am interested in this home. Please send me more information.',
  submit: { one: 'Send {count} enquiry', other: 'Send {count} enquiries' },
  sending: 'Sending…',
  sent: 'Enquiry sent',
  waiting: 'Not sent yet: kept on this device and sent again automatically.',
  waitingFor: 'Not sent yet: sent again automatically in {seconds} seconds.',
  refused: 'Not accepted: {reason}',
  summaryAllSent: {
    one: 'Your enquiry has been sent. The agent will be in touch.',
    other: 'Your {count} enquiries have been sent. The agents will be in touch.',
  },
  summaryPartial: '{sent} of {total} enquiries sent. See each home for the others.',
};

registerBuiltInTranslation<{ shortlist: ShortlistStrings }>(
  { $code: 'en-AU', shortlist: defaultShortlistStrings },
  { $code: 'en-GB', shortlist: { statusLeased: 'Let', enquireIntro: 'One enquiry goes to the agent of each home still for sale or to let.' } },
);

registerSectionLoaders('shortlist', shortlistLoaders);
