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

/**
 * What ad platforms and analytics add to a link (the campaign's utm_*, Google's and Microsoft's and
 * Meta's click ids, GA's cross-domain linker): a page a campaign links to must take them, and
 * ignore them, rather than refuse the visitor (the relay's list pages understand only ?page=).
 */
export const LINK_TRACKING_PARAMETERS: readonly string[] = [...CAMPAIGN_PARAMETERS, 'utm_id', 'gclid', 'gbraid', 'wbraid', 'dclid', 'fbclid', 'msclkid', '_gl'];

/**
 * The relay's body limit of a lead (`POST /api/v1/enquiries`), in UTF-8 bytes of its JSON. The
 * attribution (page, campaign) is never a reason to exceed it: the widget trims and drops it to fit
 * before sending (widget/shared/leads.ts), the relay drops it from a lead that fits without it.
 */
export const LEAD_BODY_BYTES = 16 * 1024;

export const ATTRIBUTION_LIMITS = {
  /** The page, as origin and path (no query, no fragment). */
  page: 1000,
  /** One campaign value; the widget keeps the first this many characters of a longer one. */
  campaignValue: 200,
} as const;
