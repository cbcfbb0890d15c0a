import type { RequestHandler } from 'express';
import { HttpError } from './errors.ts';

export interface CorsPolicy {
  /** Origins allowed to call (ALLOWED_ORIGINS). */
  allowedOrigins: readonly string[];
  /**
   * The relay's own origins (from PUBLIC_URL; loopback in demo mode): pages the relay serves itself
   * may always call it. Never derived from the request's Host header, which the client writes.
   */
  ownOrigins?: readonly string[];
  /** Allow every origin (the listing API in demo mode). */
  allowAnyOrigin?: boolean;
  methods?: readonly string[];
  /** Seconds a browser may cache a preflight answer. */
  maxAgeSeconds?: number;
}

function normalise(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}

/**
 * CORS for the relay API. A request from an origin that is not allowed is refused with 403 before
 * any handler runs, so nothing is stored for it. Requests without an Origin header (servers,
 * curl) are not browser cross-origin requests and pass.
 */
export function corsPolicy(policy: CorsPolicy): RequestHandler {
  const allowed = new Set(policy.allowedOrigins.map(normalise));
  const own = new Set((policy.ownOrigins ?? []).map(normalise));
  const methods = (policy.methods ?? ['GET', 'HEAD', 'OPTIONS']).join(', ');
  const maxAge = String(policy.maxAgeSeconds ?? 600);
  return (req, res, next) => {
    res.vary('Origin');
    const origin = req.get('Origin');
    if (!origin) return next();
    const normalised = normalise(origin);
    const listed = allowed.has(normalised);
    const ok = policy.allowAnyOrigin || listed || own.has(normalised);
    if (!ok) {
      return next(new HttpError(403, 'origin_not_allowed', `Origin ${origin} is not allowed to use this relay (ALLOWED_ORIGINS).`));
    }
    res.set('Access-Control-Allow-Origin', policy.allowAnyOrigin && !listed ? '*' : origin);
    if (req.method === 'OPTIONS') {
      res.set('Access-Control-Allow-Methods', methods);
      res.set('Access-Control-Allow-Headers', req.get('Access-Control-Request-Headers') ?? 'Content-Type');
      res.set('Access-Control-Max-Age', maxAge);
      res.status(204).end();
      return;
    }
    res.set('Access-Control-Expose-Headers', 'ETag, Retry-After');
    next();
  };
}

/** The relay's own origin as browsers reach it: PUBLIC_URL's, when set. */
export function publicOrigins(config: { http: { publicUrl?: string | undefined } }): string[] {
  return config.http.publicUrl ? [new URL(config.http.publicUrl).origin] : [];
}
