import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';

/**
 * The host a request was made to, as far as the relay can trust it: what picks an agency by its
 * `hosts` (AGENCIES_FILE) and what every cached answer is keyed by.
 *
 * Express's own `req.host` takes the FIRST value of X-Forwarded-Host once the proxy next to the
 * relay is trusted (TRUST_PROXY). A proxy that appends (`$proxy_add_…`-style, most CDNs) sends the
 * client's own header first and its value last, so the first value is whatever the client wrote:
 * any visitor could pick another agency's pages. Here the LAST value counts: the one the trusted
 * proxy next to the relay wrote (a proxy that overwrites, as deploy/nginx.conf does, sends only
 * that one). Without a trusted proxy in front, X-Forwarded-Host is ignored and Host counts.
 */
export function trustedHost(req: Request): string | undefined {
  return hostTrustedBy(req, req.app.get('trust proxy fn') as TrustProxyFn | undefined);
}

/** Express's compiled TRUST_PROXY (`app.get('trust proxy fn')`): whether the address at `hop` is a proxy to believe. */
export type TrustProxyFn = (address: string | undefined, hop: number) => boolean;

/** trustedHost() for a request Express has not seen yet (the replay of recorded answers), given the app's trust function. */
export function hostTrustedBy(req: IncomingMessage, trust: TrustProxyFn | undefined): string | undefined {
  const forwarded = req.headers['x-forwarded-host'];
  const viaProxy = forwarded !== undefined && forwarded !== '' && trust !== undefined && trust(req.socket.remoteAddress, 0);
  const value = viaProxy ? lastValue(forwarded) : req.headers.host;
  return value ? value.toLowerCase() : undefined;
}

/** The host name of trustedHost() (no port, no trailing dot, lower case), for matching an agency's `hosts`. */
export function trustedHostName(req: Request): string | undefined {
  const host = trustedHost(req);
  if (!host) return undefined;
  // An IPv6 literal keeps its colons: the port follows the bracket.
  const offset = host.startsWith('[') ? host.indexOf(']') + 1 : 0;
  const colon = host.indexOf(':', offset);
  return (colon === -1 ? host : host.slice(0, colon)).replace(/\.$/, '');
}

/**
 * The part of a cache key that says which host a request was made to when the relay's trust
 * setting is not at hand (a ResponseCache made alone): both headers as sent, so two requests share
 * an entry only when neither could choose otherwise.
 */
export function rawHostKey(req: IncomingMessage): string {
  const forwarded = req.headers['x-forwarded-host'];
  return `${(req.headers.host ?? '').toLowerCase()}>${(Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).toLowerCase()}`;
}

/**
 * Tells shared caches (a CDN, a proxy's cache) that the answer depends on the host it was asked
 * at: Host, and X-Forwarded-Host when the relay believes it from a proxy (TRUST_PROXY). Without
 * it, a cache keyed on the URL and Host alone could keep one agency's page under another's name.
 */
export function varyOnHost(req: Request, res: ServerResponse & { vary?(field: string): unknown }): void {
  const fields = req.app.get('trust proxy') ? 'Host, X-Forwarded-Host' : 'Host';
  if (res.vary) res.vary(fields);
  else res.setHeader('Vary', fields);
}

function lastValue(header: string | string[]): string | undefined {
  const values = (Array.isArray(header) ? header.join(',') : header).split(',');
  return values[values.length - 1]?.trim() || undefined;
}
