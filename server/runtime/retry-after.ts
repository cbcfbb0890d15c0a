/**
 * An HTTP Retry-After header (delay-seconds or an HTTP date) as ms from `now`; undefined when
 * absent or unreadable. The CRM client and the geocoder both honour it.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}
