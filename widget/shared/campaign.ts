import { ATTRIBUTION_LIMITS, CAMPAIGN_PARAMETERS, type LeadCampaign } from '../../contract/attribution.ts';

/** In sessionStorage: one tab's visit, gone when the tab closes. Read by leads.ts when a lead is sent. */
export const CAMPAIGN_KEY = 'estate-embed:campaign';

/**
 * Keeps the campaign (`utm_*`) of the first page of this tab's visit that carried one, so a lead
 * sent pages later still says how the visitor came (first touch: a later page's utm_* does not
 * replace it). Each value is cut to ATTRIBUTION_LIMITS.campaignValue characters. Every element
 * calls it when it connects: on every page that shows one, at no cost when there is nothing to keep.
 */
export function rememberCampaign(): void {
  try {
    if (sessionStorage.getItem(CAMPAIGN_KEY)) return;
    const query = new URLSearchParams(location.search);
    const campaign: LeadCampaign = {};
    for (const name of CAMPAIGN_PARAMETERS) {
      const value = query.get(name)?.trim();
      if (value) campaign[name] = value.slice(0, ATTRIBUTION_LIMITS.campaignValue);
    }
    if (Object.keys(campaign).length) sessionStorage.setItem(CAMPAIGN_KEY, JSON.stringify(campaign));
  } catch {
    // No storage (turned off, a sandboxed frame) or no page (rendering on the server): no campaign.
  }
}
