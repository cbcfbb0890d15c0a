/** In sessionStorage: one tab's visit, gone when the tab closes. Read by leads.ts when a lead is sent. */
export const CAMPAIGN_KEY = 'estate-embed:campaign';

/**
 * Keeps the `utm_*` parameters of the first page of this tab's visit that carried any (first touch:
 * a later page's do not replace them), so a lead sent pages later still says how the visitor came.
 * Kept as they came, as a query string of those parameters only (the page's other parameters, which
 * may hold an e-mail address, stay behind); leads.ts picks and checks them when a lead is sent. Every
 * element calls this when it connects: on every page that shows one, in as few bytes as can be.
 */
export function rememberCampaign(): void {
  try {
    const query = new URLSearchParams(location.search);
    for (const name of [...query.keys()]) if (!name.startsWith('utm_')) query.delete(name);
    if (`${query}` && !sessionStorage.getItem(CAMPAIGN_KEY)) sessionStorage.setItem(CAMPAIGN_KEY, `${query}`);
  } catch {
    // No storage (turned off, a sandboxed frame) or no page (rendering on the server): no campaign.
  }
}
