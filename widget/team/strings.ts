import type { PluralForms } from '../shared/format.ts';
import teamLoaders from '../i18n/sections/team.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/** Every word `<estate-team>` shows; override any through `strings`. `{name}` and `{count}` are filled in. */
export interface TeamStrings {
  /** The accessible name of the list of people. */
  listLabel: string;
  loading: string;
  /** While a freshly started relay loads the agency's people and listings from the CRM for the first time. */
  filling: string;
  emptyTitle: string;
  emptyHint: string;
  errorTitle: string;
  errorRetryLater: string;
  retry: string;
  /** How many homes a person has for sale or lease. */
  listingCount: PluralForms;
  /** The accessible name of a person's call link (the number follows it). */
  call: string;
}

export const defaultTeamStrings: TeamStrings = {
  listLabel: 'Our team',
  loading: 'Loading the team…',
  filling: 'The team is on its way: the agency’s details are being loaded. This page updates by itself.',
  emptyTitle: 'No one to show here yet.',
  emptyHint: 'Please contact the office.',
  errorTitle: 'We could not load the team.',
  errorRetryLater: 'Please try again in a moment.',
  retry: 'Try again',
  listingCount: { one: '{count} home on the market', other: '{count} homes on the market' },
  call: 'Call {name}',
};

registerBuiltInTranslation<{ team: TeamStrings }>(
  { $code: 'en-AU', team: defaultTeamStrings },
  { $code: 'en-GB', team: { listingCount: { one: '{count} property on the market', other: '{count} properties on the market' } } },
);

registerSectionLoaders('team', teamLoaders);
