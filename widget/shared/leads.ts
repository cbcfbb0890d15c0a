/**
 * What every lead form adds to what the visitor typed: where the lead came from (sent with it, for
 * the CRM) and its analytics event. In the enquiry form's chunk, not the core: only pages with a
 * form pay for it.
 */
import { ATTRIBUTION_LIMITS, CAMPAIGN_PARAMETERS, LEAD_BODY_BYTES, type LeadCampaign } from '../../contract/attribution.ts';
import type { EnquiryRequest } from '../../contract/relay-api.ts';
import type { DataLayerEntry, LeadSentDetail } from './analytics.ts';
import { CAMPAIGN_KEY } from './campaign.ts';

/**
 * Where a lead comes from: this page as origin and path (its query and fragment stay behind: they
 * may hold a visitor's e-mail address or a token) and the campaign the visit began with
 * (campaign.ts): the five utm_* it had, the first of each, cut to 200 characters. JSON leaves an
 * undefined campaign out.
 */
export function leadOrigin(): Pick<EnquiryRequest, 'page' | 'campaign'> {
  let campaign: LeadCampaign | undefined;
  try {
    const kept = new URLSearchParams(sessionStorage.getItem(CAMPAIGN_KEY) ?? '');
    for (const name of CAMPAIGN_PARAMETERS) {
      const value = kept.get(name)?.trim();
      if (value) (campaign ??= {})[name] = value.slice(0, ATTRIBUTION_LIMITS.campaignValue);
    }
  } catch {
    campaign = undefined; // no storage: no campaign
  }
  return { page: location.origin + location.pathname, campaign };
}

/** A campaign value cut to this many characters still names its campaign. */
const TRIMMED_CAMPAIGN_VALUE = 50;

/**
 * The lead as sent, within the relay's body limit: the campaign never costs a lead. When the lead
 * with its attribution is over LEAD_BODY_BYTES (a long message in a script of three bytes a
 * character, and long utm_* values), its campaign values are cut to 50 characters, then dropped
 * from the least telling (utm_content) to the most (utm_source), then the page; the person's
 * fields and message are never touched (the relay refuses those itself when they are too long).
 */
export function withinLeadLimit<T extends Pick<EnquiryRequest, 'page' | 'campaign'>>(lead: T): T {
  const fits = (candidate: T) => new TextEncoder().encode(JSON.stringify(candidate)).length <= LEAD_BODY_BYTES;
  if (fits(lead) || !(lead.page || lead.campaign)) return lead;
  const campaign: LeadCampaign = {};
  for (const name of CAMPAIGN_PARAMETERS) if (lead.campaign?.[name]) campaign[name] = lead.campaign[name].slice(0, TRIMMED_CAMPAIGN_VALUE);
  const trimmed = { ...lead, campaign };
  for (const name of [...CAMPAIGN_PARAMETERS].reverse()) {
    if (fits(trimmed)) return trimmed;
    delete campaign[name];
  }
  const withPage = { ...lead, campaign: undefined };
  return fits(withPage) ? withPage : { ...lead, campaign: undefined, page: undefined };
}

/**
 * GA4's `generate_lead` for a lead. Keys the lead lacks are there, undefined: a tag manager keeps
 * what earlier pushes set, so one lead's listing must not stay on the next lead, about an agent.
 */
export function generateLead(lead: LeadSentDetail): DataLayerEntry {
  return { event: 'generate_lead', lead_type: lead.leadType, lead_id: lead.originalId, listing_id: lead.listingId, agent_id: lead.agentId };
}
