/**
 * What every lead form adds to what the visitor typed: where the lead came from (sent with it, for
 * the CRM) and its analytics event. In the enquiry form's chunk, not the core: only pages with a
 * form pay for it.
 */
import { ATTRIBUTION_LIMITS, CAMPAIGN_PARAMETERS, type LeadCampaign } from '../../contract/attribution.ts';
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

/**
 * GA4's `generate_lead` for a lead. Keys the lead lacks are there, undefined: a tag manager keeps
 * what earlier pushes set, so one lead's listing must not stay on the next lead, about an agent.
 */
export function generateLead(lead: LeadSentDetail): DataLayerEntry {
  return { event: 'generate_lead', lead_type: lead.leadType, lead_id: lead.originalId, listing_id: lead.listingId, agent_id: lead.agentId };
}
