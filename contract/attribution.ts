/**
 * Where a lead came from, as the widget sends it with a lead and the relay checks it: the page it
 * was sent from and the campaign (`utm_*`) the visitor arrived with. Plain data: the widget imports
 * it at a few dozen bytes.
 */

/** The campaign parameters kept from the landing page's URL (Google's five), in this order. */
export const CAMPAIGN_PARAMETERS = ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;
export type CampaignParameter = (typeof CAMPAIGN_PARAMETERS)[number];

/** The campaign a visitor arrived with: any of the five, each as the landing URL gave it. */
export type LeadCampaign = Partial<Record<CampaignParameter, string>>;

export const ATTRIBUTION_LIMITS = {
  /** The page, as origin and path (no query, no fragment). */
  page: 1000,
  /** One campaign value; the widget keeps the first this many characters of a longer one. */
  campaignValue: 200,
} as const;
