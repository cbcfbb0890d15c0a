import type { PluralForms } from '../shared/format.ts';
import agentLoaders from '../i18n/sections/agent.ts';
import { registerBuiltInTranslation, registerSectionLoaders } from '../shared/translations.ts';

/**
 * Every word `<estate-agent>` shows; override any through `strings`. `{name}` is the agent's first
 * name where a sentence addresses them ("About Sarah"), their full name on a call or e-mail link.
 */
export interface AgentStrings {
  loading: string;
  /** While a freshly started relay loads the agency's people and listings from the CRM for the first time. */
  filling: string;
  /** 404: never on the public team (hidden, back office, unknown). */
  notFound: string;
  /** 410: had a page, has left the agency. */
  gone: string;
  goneHint: string;
  noAgentId: string;
  errorTitle: string;
  errorRetryLater: string;
  retry: string;
  /** The link to the team page under a 404 or 410. */
  meetTheTeam: string;
  call: string;
  email: string;
  listingCount: PluralForms;
  about: string;
  current: string;
  noCurrent: string;
  results: string;
  contact: string;
  /** The header's button that takes the visitor to the message form. */
  messageButton: string;
  /** The heading of the message form (`<estate-enquiry agent-id>`). */
  message: string;
  /** The button opening the appraisal request (`<estate-appraisal agent-id>`). */
  appraisal: string;
}

export const defaultAgentStrings: AgentStrings = {
  loading: 'Loading…',
  filling: 'This page is on its way: the agency’s details are being loaded. It updates by itself.',
  notFound: 'This person is not on our team, or is no longer.',
  gone: 'This agent has left the agency.',
  goneHint: 'Our team will be glad to help you.',
  noAgentId: 'No agent was chosen.',
  errorTitle: 'We could not load this page.',
  errorRetryLater: 'Please try again in a moment.',
  retry: 'Try again',
  meetTheTeam: 'Meet the team',
  call: 'Call {name}',
  email: 'Email {name}',
  listingCount: { one: '{count} home on the market', other: '{count} homes on the market' },
  about: 'About {name}',
  current: 'On the market',
  noCurrent: '{name} has no homes on the market right now.',
  results: 'Sold and leased',
  contact: 'Contact {name}',
  messageButton: 'Message {name}',
  message: 'Send {name} a message',
  appraisal: 'Ask {name} for an appraisal',
};

registerBuiltInTranslation<{ agent: AgentStrings }>(
  { $code: 'en-AU', agent: defaultAgentStrings },
  {
    $code: 'en-GB',
    agent: {
      listingCount: { one: '{count} property on the market', other: '{count} properties on the market' },
      noCurrent: '{name} has no properties on the market right now.',
      results: 'Sold and let',
      appraisal: 'Ask {name} for a valuation',
    },
  },
);

registerSectionLoaders('agent', agentLoaders);
