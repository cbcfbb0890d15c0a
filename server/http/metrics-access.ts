import { timingSafeEqual, createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { HttpError } from './errors.ts';

/** Headers a reverse proxy adds: a request carrying one came from elsewhere, whatever its socket says. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-host'];

/** A request made on this host straight to the relay, not through a proxy on it. */
function isDirectLocal(req: Request): boolean {
  const peer = req.socket.remoteAddress ?? '';
  const loopback = peer === '::1' || peer.startsWith('127.') || peer.startsWith('::ffff:127.');
  return loopback && FORWARDING_HEADERS.every((name) => req.headers[name] === undefined);
}

function sameSecret(given: string, expected: string): boolean {
  // Compare digests: equal lengths, and the time taken says nothing about the token.
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * Who may read /metrics: a monitor on this host talking to the relay directly, or anyone with
 * `Authorization: Bearer <METRICS_TOKEN>`. Everyone else gets the same 404 as any unknown path.
 */
export function metricsAccess(token: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const bearer = /^Bearer (\S+)$/i.exec(req.get('Authorization') ?? '')?.[1];
    if (isDirectLocal(req) || (token !== undefined && bearer !== undefined && sameSecret(bearer, token))) return next();
    next(new HttpError(404, 'not_found', `Nothing at ${req.method} ${req.path}`));
  };
}

/** The Prometheus text exposition format's content type, for every /metrics answer. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
