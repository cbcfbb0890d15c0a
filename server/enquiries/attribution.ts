import type { RequestHandler } from 'express';
import { z } from 'zod';
import { ATTRIBUTION_LIMITS, CAMPAIGN_PARAMETERS, type LeadCampaign } from '../../contract/attribution.ts';
import { HttpError } from '../http/errors.ts';

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

/**
 * What was dropped from a request body's `page` and `campaign`, by field; undefined when nothing
 * was. `droppedForSize` is what leadWithinLimit took out before (no longer in the body).
 */
export function ignoredAttribution(body: unknown, droppedForSize?: Record<string, string>): Record<string, string> | undefined {
  if (typeof body !== 'object' || body === null) return droppedForSize;
  const { page, campaign } = body as { page?: unknown; campaign?: unknown };
  const problems = checkCampaign(campaign).problems;
  const pageProblem = checkPage(page).problem;
  const ignored = { ...droppedForSize, ...(pageProblem ? { page: pageProblem } : {}), ...problems };
  return Object.keys(ignored).length > 0 ? ignored : undefined;
}

/**
 * The body parser's limit for a lead of `leadBytes`: room for an attribution at its largest on top
 * (a page of 1,000 and five campaign values of 200 characters, each character escaped as \uXXXX,
 * is 12 KB), so that a lead is never refused for its campaign before leadWithinLimit can drop it.
 */
export function leadParserBytes(leadBytes: number): number {
  return leadBytes + 16 * 1024;
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/**
 * After the JSON parser (leadParserBytes): a lead over `leadBytes` (its JSON, as UTF-8) keeps its
 * person's fields and loses its attribution, the campaign first, then the page, until it fits;
 * what was dropped is named in `res.locals.attributionDropped` for the answer's `ignored` (field →
 * reason, never the value). A lead over the limit without any attribution is refused, 413, as
 * before: the campaign is never a reason to refuse a lead, nor a way around the limit.
 */
export function leadWithinLimit(what: string, leadBytes: number): RequestHandler {
  return (req, res, next) => {
    const body = req.body as Record<string, unknown> | undefined;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || jsonBytes(body) <= leadBytes) return next();
    const dropped: Record<string, string> = {};
    const reason = `dropped: the lead is over ${leadBytes / 1024} KB with it`;
    for (const field of ['campaign', 'page'] as const) {
      if (jsonBytes(body) <= leadBytes) break;
      if (body[field] === undefined) continue;
      delete body[field];
      dropped[field] = reason;
    }
    if (jsonBytes(body) > leadBytes)
      return next(new HttpError(413, 'payload_too_large', `${what} is larger than ${leadBytes / 1024} KB.`, { body: 'too large' }));
    res.locals.attributionDropped = dropped;
    next();
  };
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
