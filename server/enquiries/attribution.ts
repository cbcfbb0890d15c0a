import { z } from 'zod';
import { ATTRIBUTION_LIMITS, CAMPAIGN_PARAMETERS, type LeadCampaign } from '../../contract/attribution.ts';

/**
 * Where a lead came from, as the relay keeps it: the page it was sent from and the campaign
 * (`utm_*`) the visit began with (contract/attribution.ts). A value the relay cannot use is dropped,
 * never a reason to refuse the lead: the widget sends these without the visitor doing anything,
 * taken from URLs that ad platforms and newsletters write, and a lead is worth more than its label.
 * Each drop is named (field → reason, never the value) in the 202 answer and the log.
 */

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

type Checked = { value?: string; problem?: string };

/**
 * The page as origin and path: an http(s) URL, its user, password, query and fragment removed (a
 * query may hold a visitor's e-mail address or a token; the widget sends none, an API caller might).
 */
function checkPage(input: unknown): Checked {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'string') return { problem: 'must be text (a URL)' };
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { problem: 'is not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must be an http or https URL' };
  const page = `${url.origin}${url.pathname}`;
  if (page.length > ATTRIBUTION_LIMITS.page) return { problem: `must be at most ${ATTRIBUTION_LIMITS.page} characters (origin and path)` };
  return { value: page };
}

function checkCampaignValue(input: unknown): Checked {
  if (input === undefined || input === null) return {};
  if (typeof input !== 'string') return { problem: 'must be text' };
  const value = input.trim();
  if (value.length > ATTRIBUTION_LIMITS.campaignValue) return { problem: `must be at most ${ATTRIBUTION_LIMITS.campaignValue} characters` };
  if (CONTROL_CHARS.test(value)) return { problem: 'contains characters that are not allowed' };
  return value === '' ? {} : { value };
}

/** The campaign's usable values (undefined when none), and what was dropped by field. */
function checkCampaign(input: unknown): { campaign?: LeadCampaign; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  if (input === undefined || input === null) return { problems };
  if (typeof input !== 'object' || Array.isArray(input)) return { problems: { campaign: 'must be an object of utm_* values' } };
  const given = input as Record<string, unknown>;
  const campaign: LeadCampaign = {};
  for (const name of CAMPAIGN_PARAMETERS) {
    const { value, problem } = checkCampaignValue(given[name]);
    if (value !== undefined) campaign[name] = value;
    if (problem) problems[`campaign.${name}`] = problem;
  }
  // Named by count, not echoed: the keys are the caller's text.
  const others = Object.keys(given).filter((key) => !(CAMPAIGN_PARAMETERS as readonly string[]).includes(key)).length;
  if (others > 0) problems.campaign = `only ${CAMPAIGN_PARAMETERS.join(', ')} are kept; ${others} other ${others === 1 ? 'key was' : 'keys were'} dropped`;
  return { campaign: Object.keys(campaign).length > 0 ? campaign : undefined, problems };
}

/** What was dropped from a request body's `page` and `campaign`, by field; undefined when nothing was. */
export function ignoredAttribution(body: unknown): Record<string, string> | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { page, campaign } = body as { page?: unknown; campaign?: unknown };
  const problems = checkCampaign(campaign).problems;
  const pageProblem = checkPage(page).problem;
  const ignored = pageProblem ? { page: pageProblem, ...problems } : problems;
  return Object.keys(ignored).length > 0 ? ignored : undefined;
}

/** The enquiry schema's `page`: the usable page, or nothing (never an issue). */
export const pageField = z
  .custom<string>(() => true)
  .transform((input: unknown) => checkPage(input).value)
  .optional();

/** The enquiry schema's `campaign`: its usable values, or nothing (never an issue). */
export const campaignField = z
  .custom<LeadCampaign>(() => true)
  .transform((input: unknown) => checkCampaign(input).campaign)
  .optional();
