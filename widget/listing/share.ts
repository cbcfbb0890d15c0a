/**
 * Sharing a listing (issue 32): the phone's share sheet where the browser has one, else the link
 * copied. The link is the page as the visitor sees it, marked `shared=1` so the relay counts the
 * visits it brings as a shared link's (docs/visits.md), without a campaign's utm_ parameters the
 * sharer arrived with: the friend did not come from that campaign.
 */

/** How a share went: through the share sheet, copied, let go by the visitor, or neither possible. */
export type ShareOutcome = 'shared' | 'copied' | 'cancelled' | 'failed';

/** The link to share: this page, `shared=1`, no utm_ parameters and no fragment. */
export function sharedLink(href: string): string {
  const url = new URL(href);
  for (const key of [...url.searchParams.keys()]) if (key.startsWith('utm_')) url.searchParams.delete(key);
  url.searchParams.set('shared', '1');
  url.hash = '';
  return url.href;
}

/** Opens the share sheet with the link, else copies it. A visitor closing the sheet is `cancelled`, not a failure. */
export async function shareOrCopy(title: string, url: string): Promise<ShareOutcome> {
  if (navigator.share) {
    try {
      await navigator.share({ title, url });
      return 'shared';
    } catch (error) {
      if ((error as Error).name === 'AbortError') return 'cancelled';
      // Refused (no user activation left, a policy): copying may still work.
    }
  }
  try {
    await navigator.clipboard.writeText(url);
    return 'copied';
  } catch {
    return 'failed';
  }
}
