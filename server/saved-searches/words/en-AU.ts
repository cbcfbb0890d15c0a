/**
 * The words of a saved search's confirmation e-mail and of the page its link opens, in en-AU (the
 * base). They go to the visitor, in the language the form was shown in (words.ts); what the relay
 * writes into the CRM for agency staff stays in English (describe.ts's describeSearch). `{name}`
 * placeholders are filled in: `{agency}` the agency as visitors know it, `{what}` the search.
 */
export const alertWordsEnAU = {
  /** The search, as the e-mail and the page name it: "homes for sale in Kew or Hawthorn, House, 3+ bed, up to $1,500,000". */
  homesForSale: 'homes for sale',
  homesForLease: 'homes for lease',
  homesForSaleOrLease: 'homes for sale or lease',
  inSuburb: '{homes} in {suburb}',
  /** Several suburbs: `{suburbs}` the first ones joined by `listSeparator`, `{last}` the last. */
  inSuburbs: '{homes} in {suburbs} or {last}',
  listSeparator: ', ',
  minBeds: '{count}+ bed',
  minBaths: '{count}+ bath',
  minCars: '{count}+ car',
  priceBetween: '{min} to {max}',
  priceFrom: 'from {min}',
  priceUpTo: 'up to {max}',
  /** The e-mail. */
  subject: 'Confirm your property alerts from {agency}',
  hello: 'Hello {name},',
  asked: 'Someone, we hope you, asked {agency} to e-mail this address about {what}.',
  openLink: 'To start these alerts, open this link and press "Confirm my alerts":',
  orOpenLink: 'Or open this link:',
  confirmButton: 'Confirm my alerts',
  linkWorksUntil:
    'The link works until {date}. If you did not ask for alerts, ignore this e-mail: nothing more will be sent to you, and the request is erased then.',
  /** The page the link opens, by what has become of the search. */
  askTitle: 'Confirm your property alerts',
  askBody: 'Once you confirm, {agency} will e-mail you about {what}.',
  youAgreedTo: 'You agreed to:',
  notYou: 'Not you? Close this page: nothing will be sent, and the request is erased when its link lapses.',
  settingUpTitle: 'Thank you: your alerts are confirmed',
  settingUpBody: '{agency} is setting up your alerts for {what}. You can close this page.',
  checkAgain: 'Check again',
  onTitle: 'Your alerts are on',
  onBody: '{agency} will e-mail you about {what}. Every alert has a link to stop them.',
  unsubscribedTitle: 'We have not subscribed you',
  unsubscribedBody: 'You asked {agency} earlier not to send you e-mail, and we respect that: we have not subscribed you again.',
  unsubscribedAsk: 'If you would like these alerts after all, please ask {agency} to start them for you.',
  stuckTitle: 'Your alerts are confirmed',
  stuckBody:
    'Your confirmation is recorded, but setting up your alerts for {what} is taking longer than it should. {agency} has been told and will sort it out.',
  goneTitle: 'This link has expired',
  goneBody:
    "This confirmation link has expired or is not known. To get alerts, save the search again on {agency}'s website: a new link will be e-mailed to you.",
};

export type AlertWords = typeof alertWordsEnAU;
